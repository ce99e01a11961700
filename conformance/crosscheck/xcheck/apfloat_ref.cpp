// xcheck/apfloat_ref.cpp - LLVM APFloat mapped onto SPEC C2 policies (see
// apfloat_ref.hpp for the mapping and the documented differences).
#include "xcheck/apfloat_ref.hpp"

#include <llvm/ADT/APFloat.h>
#include <llvm/ADT/APInt.h>

namespace xcheck {
namespace {

using llvm::APFloat;
using llvm::APInt;

enum Reason : int {
  kFiniteOnlyNonFinite = 0,
  kNanPayload = 1,
  kUnsignedNegative = 2,
  kRuNegativeOverflow = 3,
  kInfSign = 4,
};

const llvm::fltSemantics* semantics(mx::Fmt f) {
  switch (f) {
    case mx::Fmt::e4m3:
    case mx::Fmt::ue4m3: return &APFloat::Float8E4M3FN();
    case mx::Fmt::e5m2: return &APFloat::Float8E5M2();
    case mx::Fmt::e3m2: return &APFloat::Float6E3M2FN();
    case mx::Fmt::e2m3: return &APFloat::Float6E2M3FN();
    case mx::Fmt::e2m1: return &APFloat::Float4E2M1FN();
    default: return nullptr;
  }
}

APFloat::roundingMode mode(mx::Rounding r) {
  switch (r) {
    case mx::Rounding::rne: return APFloat::rmNearestTiesToEven;
    case mx::Rounding::rtz: return APFloat::rmTowardZero;
    case mx::Rounding::rna: return APFloat::rmNearestTiesToAway;
    case mx::Rounding::ru: return APFloat::rmTowardPositive;
    case mx::Rounding::sr: break;
  }
  return APFloat::rmNearestTiesToEven;
}

APFloat source(Src src, std::uint32_t bits) {
  switch (src) {
    case Src::f32: return APFloat(APFloat::IEEEsingle(), APInt(32, bits));
    case Src::bf16: return APFloat(APFloat::BFloat(), APInt(16, bits));
    case Src::f16: return APFloat(APFloat::IEEEhalf(), APInt(16, bits));
  }
  return APFloat(0.0f);
}

// Contract constants written by hand from the C1 table (not from the
// reference's descriptors): max finite code, sign bit.
std::uint32_t hand_max(mx::Fmt f) {
  switch (f) {
    case mx::Fmt::e4m3: return 0x7E;
    case mx::Fmt::e5m2: return 0x7B;
    case mx::Fmt::e3m2: return 0x1F;
    case mx::Fmt::e2m3: return 0x1F;
    case mx::Fmt::e2m1: return 0x7;
    case mx::Fmt::ue4m3: return 0x7E;
    default: return 0;
  }
}
std::uint32_t hand_sign(mx::Fmt f) {
  switch (f) {
    case mx::Fmt::e4m3:
    case mx::Fmt::e5m2: return 0x80;
    case mx::Fmt::e3m2:
    case mx::Fmt::e2m3: return 0x20;
    case mx::Fmt::e2m1: return 0x8;
    default: return 0;
  }
}

Outcome int8_case(const mx::ConvPolicy& p, APFloat a, std::uint32_t bits, std::uint32_t ref) {
  if (a.isNaN()) {
    // No NaN in int8 and no APFloat integer NaN: C2 by hand.
    const std::uint32_t want = p.nan == mx::NanPolicy::nan_to_zero ? 0x00u : 0x7Fu;
    if (want == ref) return Outcome{bits, want, ref, kFiniteOnlyNonFinite, ref};
    return plain(bits, want, ref);
  }
  bool lost = false;
  a.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);  // exact widening
  a.multiply(APFloat(64.0), APFloat::rmNearestTiesToEven);                 // exact: x * 2^6
  a.roundToIntegral(mode(p.rounding));
  const double v = a.convertToDouble();  // an integer (or +-Inf)
  const double lo = p.int8 == mx::Int8Range::int8_full ? -128.0 : -127.0;
  const double c = v > 127.0 ? 127.0 : (v < lo ? lo : v);
  const auto code = static_cast<std::uint32_t>(static_cast<std::int32_t>(c)) & 0xFFu;
  return plain(bits, code, ref);
}

}  // namespace

bool apfloat_supports(mx::Fmt f, mx::Rounding r) {
  if (r == mx::Rounding::sr) return false;
  return semantics(f) != nullptr || f == mx::Fmt::int8;
}

std::vector<std::string> apfloat_reasons() {
  return {
      "non-finite input into a format without NaN/Inf (APFloat 19 FiniteOnly conversion of NaN/Inf "
      "is undefined; int8 has no NaN): compared with the C2 value written by hand",
      "NaN payload: APFloat carries NaN payload bits into e5m2 (0x7F|s); compared as NaN with the "
      "same sign",
      "ue4m3 is unsigned: reference gives NaN 0x7F for negative inputs and 0x00 for -0, APFloat's "
      "e4m3 a negative code; compared as reference(|x|) with NaN for negative non-zero",
      "ru (toward +Inf) on a negative value beyond max: IEEE gives -max finite, reference "
      "`propagate` gives NaN/Inf (C2 names the rtz exception only)",
      "Inf input into e4m3 (no Inf): APFloat gives +NaN 0x7F for -Inf, reference `propagate` "
      "0xFF (C2: NaN with the sign kept)",
  };
}

std::uint32_t ref_encode(mx::Fmt f, const mx::ConvPolicy& p, Src src, std::uint32_t bits,
                         std::uint32_t rbits) {
  std::uint32_t x = bits;
  if (src == Src::bf16) x = mx::bf16_to_f32_bits(static_cast<std::uint16_t>(bits));
  if (src == Src::f16) x = mx::f16_to_f32_bits(static_cast<std::uint16_t>(bits));
  return mx::encode_f32_bits(f, x, p, rbits);
}

namespace {

// APFloat's answer for the exact value `in`, mapped to policy p, against the
// reference's code `ref` (`bits` is the input pattern, for messages).
Outcome map_case(mx::Fmt f, const mx::ConvPolicy& p, const APFloat& in, std::uint32_t bits,
                 std::uint32_t ref) {
  if (f == mx::Fmt::int8) return int8_case(p, in, bits, ref);
  const llvm::fltSemantics* sem = semantics(f);
  const bool finite_only = f == mx::Fmt::e3m2 || f == mx::Fmt::e2m3 || f == mx::Fmt::e2m1;
  const bool neg = in.isNegative();
  const std::uint32_t sgn = neg ? hand_sign(f) : 0u;
  const std::uint32_t maxc = hand_max(f) | sgn;

  if (f == mx::Fmt::ue4m3) {
    // Compare non-negative inputs only; for negative ones the reference must
    // give NaN 0x7F (non-zero, non-NaN) or 0x00 (-0): C1 ue4m3 has no sign.
    if (neg && !in.isNaN()) {
      const std::uint32_t want = in.isZero() ? 0x00u : 0x7Fu;
      if (want == ref) return Outcome{bits, want, ref, kUnsignedNegative, ref};
      return plain(bits, want, ref);
    }
  }
  if (finite_only && !in.isFinite()) {
    std::uint32_t want;
    if (in.isNaN()) {
      want = p.nan == mx::NanPolicy::nan_to_zero ? sgn : hand_max(f);
    } else {
      want = maxc;  // Inf: +-max under both overflow policies (C2)
    }
    if (want == ref) return Outcome{bits, want, ref, kFiniteOnlyNonFinite, ref};
    return plain(bits, want, ref);
  }

  APFloat a = in;
  bool lost = false;
  a.convert(*sem, mode(p.rounding), &lost);
  std::uint32_t want = static_cast<std::uint32_t>(a.bitcastToAPInt().getZExtValue());
  if (f == mx::Fmt::ue4m3) want &= 0x7Fu;  // non-negative here (or a NaN)

  if (in.isNaN()) {
    if (p.nan == mx::NanPolicy::nan_canonical || p.nan == mx::NanPolicy::nan_default ||
        f == mx::Fmt::ue4m3) {
      if (a.isNaN()) want = 0x7F;
      return plain(bits, want, ref);
    }
    // nan_keep_sign: e4m3 0x7F|s, e5m2 0x7E|s. APFloat may carry payload bits.
    if (want != ref && a.isNaN()) {
      mx::Exact dummy;
      const bool ref_nan = mx::decode_exact(f, ref, &dummy) == mx::Class::nan;
      if (ref_nan && ((ref ^ want) & 0x80u) == 0) return Outcome{bits, want, ref, kNanPayload, ref};
    }
    return plain(bits, want, ref);
  }
  if (in.isInfinity()) {
    if (p.overflow == mx::Overflow::saturate) return plain(bits, maxc, ref);
    if (f == mx::Fmt::e4m3 && want != ref && want == 0x7Fu && ref == (0x7Fu | sgn)) {
      return Outcome{bits, want, ref, kInfSign, ref};
    }
    return plain(bits, want, ref);
  }
  // finite input
  if (!a.isFinite()) {
    // overflow to NaN/Inf in APFloat
    if (p.overflow == mx::Overflow::saturate) want = maxc;
    return plain(bits, want, ref);
  }
  if (p.rounding == mx::Rounding::ru && neg && p.overflow == mx::Overflow::propagate &&
      want == maxc && want != ref) {
    // Is the reference's answer the propagate code of an overflow?
    const bool ref_special = (f == mx::Fmt::e4m3 && ref == 0xFFu) || (f == mx::Fmt::e5m2 && ref == 0xFCu);
    if (ref_special) return Outcome{bits, want, ref, kRuNegativeOverflow, ref};
  }
  return plain(bits, want, ref);
}

}  // namespace

Outcome apfloat_case(mx::Fmt f, const mx::ConvPolicy& p, Src src, std::uint32_t bits) {
  return map_case(f, p, source(src, bits), bits, ref_encode(f, p, src, bits));
}

Outcome apfloat_scaled_case(mx::Fmt f, const mx::ConvPolicy& p, std::uint32_t bits, int scale_exp) {
  APFloat in = source(Src::f32, bits);
  if (in.isFinite()) {
    bool lost = false;
    in.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);  // exact
    in = llvm::scalbn(in, -scale_exp, APFloat::rmNearestTiesToEven);          // exact in double
  }
  return map_case(f, p, in, bits, mx::encode_scaled(f, bits, scale_exp, p));
}

std::uint32_t apfloat_decode_f32(mx::Fmt f, std::uint32_t code) {
  const llvm::fltSemantics* sem = semantics(f);
  const unsigned width = f == mx::Fmt::e2m1 ? 4u : ((f == mx::Fmt::e3m2 || f == mx::Fmt::e2m3) ? 6u : 8u);
  APFloat a(*sem, APInt(width, code));
  bool lost = false;
  a.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  return static_cast<std::uint32_t>(a.bitcastToAPInt().getZExtValue());
}

std::uint32_t apfloat_round_f32(mx::Fmt out, std::uint32_t bits) {
  APFloat a = source(Src::f32, bits);
  bool lost = false;
  a.convert(out == mx::Fmt::bf16 ? APFloat::BFloat() : APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven,
            &lost);
  return static_cast<std::uint32_t>(a.bitcastToAPInt().getZExtValue());
}

const char* rounding_name(mx::Rounding r) {
  switch (r) {
    case mx::Rounding::rne: return "rne";
    case mx::Rounding::rtz: return "rtz";
    case mx::Rounding::rna: return "rna";
    case mx::Rounding::sr: return "sr";
    case mx::Rounding::ru: return "ru";
  }
  return "?";
}
const char* overflow_name(mx::Overflow o) {
  return o == mx::Overflow::saturate ? "saturate" : "propagate";
}
const char* nan_name(mx::NanPolicy n) {
  switch (n) {
    case mx::NanPolicy::nan_default: return "nan_default";
    case mx::NanPolicy::nan_canonical: return "nan_canonical";
    case mx::NanPolicy::nan_keep_sign: return "nan_keep_sign";
    case mx::NanPolicy::nan_to_max: return "nan_to_max";
    case mx::NanPolicy::nan_to_zero: return "nan_to_zero";
  }
  return "?";
}

std::string policy_name(mx::Fmt f, const mx::ConvPolicy& p) {
  std::string s = std::string(mx::desc(f).name) + " " + rounding_name(p.rounding) + " " +
                  overflow_name(p.overflow) + " " + nan_name(p.nan);
  if (f == mx::Fmt::int8) s += p.int8 == mx::Int8Range::int8_full ? " int8_full" : " int8_symmetric";
  return s;
}

std::vector<mx::ConvPolicy> policies_for(mx::Fmt f, bool all_nan, bool with_sr) {
  std::vector<mx::ConvPolicy> out;
  const bool nan_fmt = mx::has_nan(mx::desc(f));
  std::vector<mx::NanPolicy> nans = {mx::NanPolicy::nan_default};
  if (all_nan) {
    nans = nan_fmt ? std::vector<mx::NanPolicy>{mx::NanPolicy::nan_canonical, mx::NanPolicy::nan_keep_sign}
                   : std::vector<mx::NanPolicy>{mx::NanPolicy::nan_to_max, mx::NanPolicy::nan_to_zero};
  }
  std::vector<mx::Rounding> rs = {mx::Rounding::rne, mx::Rounding::rtz, mx::Rounding::rna, mx::Rounding::ru};
  if (with_sr) rs.push_back(mx::Rounding::sr);
  for (auto r : rs) {
    for (auto o : {mx::Overflow::saturate, mx::Overflow::propagate}) {
      for (auto n : nans) {
        if (f == mx::Fmt::int8) {
          for (auto ir : {mx::Int8Range::int8_full, mx::Int8Range::int8_symmetric}) {
            out.push_back(mx::ConvPolicy{r, o, n, ir, false});
          }
        } else {
          out.push_back(mx::ConvPolicy{r, o, n, mx::Int8Range::int8_full, false});
        }
      }
    }
  }
  return out;
}

}  // namespace xcheck
