// convert.cpp - the generic converter of SPEC C2 (encode/decode).
#include "mx/convert.hpp"

#include <array>
#include <string>

#include "mx/error.hpp"

namespace mx {
namespace {

int bit_width64(std::uint64_t x) { return x ? 64 - std::countl_zero(x) : 0; }

// Step 4 (round): the integer n = round(|v| / 2^q) under `mode`.
// |v| = sig * 2^exp. Returns n (may be 2^(p) after a carry).
std::uint64_t round_magnitude(std::uint64_t sig, std::int64_t exp, std::int64_t q, Rounding mode,
                              bool neg, std::uint32_t rbits) {
  const std::int64_t shift = q - exp;  // bits to discard
  if (shift <= 0) {
    // Exact: |v| is a multiple of 2^q. (Callers keep this shift small.)
    return sig << static_cast<int>(-shift);
  }
  std::uint64_t n;
  std::uint64_t rem;  // the discarded bits
  std::uint64_t half;
  bool above_half, is_half, nonzero;
  if (shift >= 64) {
    n = 0;
    rem = sig;
    // |v| / 2^q = sig / 2^shift < 2^64 / 2^64 ... compare with 1/2:
    // sig < 2^63 always here (fp32 or products), so it is at or below half only
    // if shift == 64 and sig == 2^63; handle generally:
    const bool exactly_half = (shift == 64 && sig == (std::uint64_t{1} << 63));
    above_half = (shift == 64 && sig > (std::uint64_t{1} << 63));
    is_half = exactly_half;
    nonzero = sig != 0;
    half = 0;
  } else {
    n = sig >> shift;
    rem = sig & ((std::uint64_t{1} << shift) - 1);
    half = std::uint64_t{1} << (shift - 1);
    above_half = rem > half;
    is_half = rem == half;
    nonzero = rem != 0;
  }
  switch (mode) {
    case Rounding::rne:
      if (above_half || (is_half && (n & 1))) ++n;
      break;
    case Rounding::rna:
      if (above_half || is_half) ++n;
      break;
    case Rounding::rtz:
      break;
    case Rounding::ru:
      if (nonzero && !neg) ++n;
      break;
    case Rounding::sr: {
      // SPEC C2 (from the PTX ISA text of cvt .rs, section 9.7.9.21): round
      // away from zero iff adding the random bits to the discarded bits,
      // most significant bits aligned, carries out of the discarded field.
      // With the 32 random bits: iff d + rbits >= 2^32, d = the 32 most
      // significant discarded bits (lower ones cannot carry). The oracle
      // (reference/oracle, sr_carry) performs the addition literally.
      std::uint64_t d;
      if (shift >= 96) {
        d = 0;
      } else if (shift <= 32) {
        d = rem << (32 - shift);
      } else if (shift < 64) {
        d = rem >> (shift - 32);
      } else {
        d = sig >> (shift - 32);  // shift in [64, 96): rem == sig
      }
      if (d + rbits >= (std::uint64_t{1} << 32)) ++n;
      break;
    }
  }
  return n;
}

std::uint32_t max_code_signed(const FormatDesc& d, bool neg) {
  return max_finite_code(d) | (neg ? sign_mask(d) : 0u);
}

// Per-format quantities used on every encode, derived once (at compile time)
// from the descriptor by the C1 functions of format.hpp; encode_exact reads
// them instead of re-deriving them per call (speed only: same values).
struct Limits {
  std::uint32_t sign;       // sign_mask
  std::uint32_t max_code;   // max_finite_code
  std::int64_t emin;        // emin
  std::int64_t emax;        // emax
  std::int64_t top_exp;     // top_finite_exp_field
  std::uint64_t top_mant;   // top_finite_mant
};
constexpr Limits limits_of(const FormatDesc& d) {
  return Limits{sign_mask(d), max_finite_code(d), emin(d), emax(d), top_finite_exp_field(d),
                top_finite_mant(d)};
}
constexpr std::array<Limits, kFormatTable.size()> make_limits() {
  std::array<Limits, kFormatTable.size()> out{};
  for (std::size_t i = 0; i < kFormatTable.size(); ++i) out[i] = limits_of(kFormatTable[i]);
  return out;
}
constexpr std::array<Limits, kFormatTable.size()> kLimits = make_limits();

}  // namespace

std::uint32_t f16_to_f32_bits(std::uint16_t h) {
  const std::uint32_t s = static_cast<std::uint32_t>(h >> 15) << 31;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  std::uint32_t m = h & 0x3FFu;
  if (e == 0x1F) return s | 0x7F800000u | (m << 13);
  if (e == 0) {
    if (m == 0) return s;
    // subnormal: value = m * 2^-24; normalize.
    int sh = 0;
    while ((m & 0x400u) == 0) {
      m <<= 1;
      ++sh;
    }
    m &= 0x3FFu;
    const std::uint32_t ef = static_cast<std::uint32_t>(127 - 15 + 1 - sh);
    return s | (ef << 23) | (m << 13);
  }
  return s | ((e + 112u) << 23) | (m << 13);
}

std::string_view in_type_name(InType t) {
  switch (t) {
    case InType::f32: return "fp32";
    case InType::bf16: return "bf16";
    case InType::f16: return "fp16";
  }
  return "?";
}

InType parse_in_type(std::string_view s) {
  if (s == "fp32" || s == "f32" || s == "float32") return InType::f32;
  if (s == "bf16" || s == "bfloat16") return InType::bf16;
  if (s == "fp16" || s == "f16" || s == "float16") return InType::f16;
  throw UnknownName("unknown input type '" + std::string(s) + "' (expected fp32, bf16 or fp16)");
}

std::size_t in_type_bytes(InType t) { return t == InType::f32 ? 4 : 2; }

std::uint32_t load_as_f32_bits(const void* base, InType t, std::int64_t i) {
  const auto* p = static_cast<const unsigned char*>(base);
  switch (t) {
    case InType::f32: {
      std::uint32_t u;
      std::memcpy(&u, p + i * 4, 4);
      return u;
    }
    case InType::bf16: {
      std::uint16_t h;
      std::memcpy(&h, p + i * 2, 2);
      return bf16_to_f32_bits(h);
    }
    case InType::f16: {
      std::uint16_t h;
      std::memcpy(&h, p + i * 2, 2);
      return f16_to_f32_bits(h);
    }
  }
  return 0;
}

bool nan_policy_valid(Fmt f, NanPolicy p) {
  const FormatDesc& d = desc(f);
  switch (p) {
    case NanPolicy::nan_default: return true;
    case NanPolicy::nan_canonical:
    case NanPolicy::nan_keep_sign: return has_nan(d);
    case NanPolicy::nan_to_max:
    case NanPolicy::nan_to_zero: return !has_nan(d);
  }
  return false;
}

void validate_policy(Fmt f, const ConvPolicy& p) {
  const FormatDesc& d = desc(f);
  if (!nan_policy_valid(f, p.nan)) {
    throw InvalidArgument(std::string("NaN policy does not apply to format ") + std::string(d.name) +
                          (has_nan(d) ? " (it has a NaN code: use nan_canonical or nan_keep_sign)"
                                      : " (it has no NaN code: use nan_to_max or nan_to_zero)"));
  }
  if (p.int8 != Int8Range::int8_full && !d.is_int) {
    throw InvalidArgument("int8_symmetric applies only to the int8 element format, not " +
                          std::string(d.name));
  }
  // C13: each non-default value only where the format has what it changes.
  const bool sign_magnitude = d.is_signed && !d.is_int;
  const auto refuse = [&](std::string_view value, const char* needs) {
    throw InvalidArgument("policy " + std::string(value) + " does not apply to format " +
                          std::string(d.name) + " (it applies to " + needs + ")");
  };
  if (p.nan_sign != NanSign::nan_sign_rule && !sign_magnitude) {
    refuse(nan_sign_name(p.nan_sign), "signed floating-point formats");
  }
  if (p.nan_payload != NanPayload::nan_payload_drop && d.special != Special::ieee) {
    refuse(nan_payload_name(p.nan_payload), "formats with IEEE Inf and NaN codes, e.g. e5m2");
  }
  if (p.zero_sign != ZeroSign::zero_keep_sign && !sign_magnitude) {
    refuse(zero_sign_name(p.zero_sign), "signed floating-point formats");
  }
  if (p.overflow_nospecial != OverflowNoSpecial::overflow_to_max &&
      (d.special != Special::none || d.is_int)) {
    refuse(overflow_nospecial_name(p.overflow_nospecial),
           "floating-point formats without NaN and Inf: e3m2, e2m3, e2m1");
  }
  if (p.negative_unsigned != NegativeUnsigned::neg_to_nan && d.is_signed) {
    refuse(negative_unsigned_name(p.negative_unsigned), "unsigned formats: ue8m0, ue4m3");
  }
  if (p.zero_nozero != ZeroNoZero::zero_to_min && d.has_zero) {
    refuse(zero_nozero_name(p.zero_nozero), "formats without a zero code: ue8m0");
  }
  if (p.lowest != LowestCode::lowest_exact && d.has_zero) {
    refuse(lowest_code_name(p.lowest), "formats without a zero code: ue8m0");
  }
}

namespace {

// The C2 NaN rule (sign included), before the C13 sign and payload rules.
std::uint32_t nan_rule_code(const FormatDesc& d, bool neg, const ConvPolicy& p) {
  if (has_nan(d)) {
    if (p.nan == NanPolicy::nan_keep_sign && d.is_signed) {
      return static_cast<std::uint32_t>(d.keep_sign_nan_code) | (neg ? sign_mask(d) : 0u);
    }
    return static_cast<std::uint32_t>(d.canonical_nan_code);
  }
  if (p.nan == NanPolicy::nan_to_zero) {
    return neg ? sign_mask(d) : 0u;  // int8 has one zero (sign_mask is 0)
  }
  return max_finite_code(d);  // nan_to_max: +max finite
}

// C13: nan_keep_payload replaces the magnitude, nan_sign the sign.
std::uint32_t nan_code(const FormatDesc& d, bool neg, std::uint32_t frac23, const ConvPolicy& p) {
  std::uint32_t code = nan_rule_code(d, neg, p);
  const std::uint32_t sm = sign_mask(d);
  if (p.nan_payload == NanPayload::nan_keep_payload && d.special == Special::ieee) {
    const std::uint32_t quiet = std::uint32_t{1} << (d.mbits - 1);
    const std::uint32_t payload = (frac23 >> (23 - d.mbits)) | quiet;
    code = (code & sm) | (static_cast<std::uint32_t>(max_exp_field(d)) << d.mbits) | payload;
  }
  if (p.nan_sign == NanSign::nan_sign_input) code = (code & ~sm) | (neg ? sm : 0u);
  if (p.nan_sign == NanSign::nan_sign_inverted) code = (code & ~sm) | (neg ? 0u : sm);
  if (p.nan_sign == NanSign::nan_sign_negative) code |= sm;
  return code;
}

}  // namespace

std::uint32_t encode_nan(Fmt f, bool neg, const ConvPolicy& p) {
  return nan_code(desc(f), neg, 0x400000u, p);  // a quiet NaN without payload
}

std::uint32_t encode_nan_f32(Fmt f, std::uint32_t x, const ConvPolicy& p) {
  return nan_code(desc(f), (x >> 31) != 0, x & 0x7FFFFFu, p);
}

std::uint32_t encode_inf(Fmt f, bool neg_in, const ConvPolicy& p) {
  bool neg = neg_in;
  const FormatDesc& d = desc(f);
  if (d.is_int) {
    // int8: saturate and propagate both clamp (no Inf, no NaN).
    if (!neg) return 0x7Fu;
    return p.int8 == Int8Range::int8_full ? 0x80u : 0x81u;
  }
  if (!d.is_signed && neg) {  // -Inf into unsigned
    if (p.negative_unsigned != NegativeUnsigned::neg_magnitude) return encode_nan(f, neg, p);
    neg = false;  // C13 neg_magnitude: converts as +Inf
  }
  if (d.special == Special::none && p.overflow_nospecial == OverflowNoSpecial::overflow_as_nan) {
    return encode_nan(f, neg, p);
  }
  if (p.overflow == Overflow::propagate && d.propagate_code >= 0) {
    return static_cast<std::uint32_t>(d.propagate_code) | (neg ? sign_mask(d) : 0u);
  }
  return max_code_signed(d, neg);
}

std::uint32_t encode_exact(Fmt f, const Exact& v, const ConvPolicy& p, std::uint32_t rbits) {
  const FormatDesc& d = desc(f);
  const Limits& lim = kLimits[static_cast<std::size_t>(f)];
  bool neg = v.neg;
  // Step 2 (zero): keeps its sign; ue8m0 has no zero and takes its smallest
  // code (C13: or NaN, zero_to_nan; every zero +0 under zero_positive).
  if (v.sig == 0) {
    if (!d.has_zero && p.zero_nozero == ZeroNoZero::zero_to_nan) return encode_nan(f, false, p);
    if (d.is_int || !d.is_signed || p.zero_sign == ZeroSign::zero_positive) return 0u;
    return neg ? lim.sign : 0u;
  }
  // Unsigned formats cannot hold a negative value: NaN code (SPEC C1:
  // ue8m0/ue4m3 only ever receive non-negative amax-derived values); C13
  // neg_magnitude drops the sign instead.
  if (!d.is_signed && neg) {
    if (p.negative_unsigned != NegativeUnsigned::neg_magnitude) return encode_nan(f, neg, p);
    neg = false;
  }
  // Zero results of a rounding (underflow) and their sign (C13 zero_sign).
  const std::uint32_t zero_code =
      (neg && p.zero_sign == ZeroSign::zero_keep_sign) ? lim.sign : 0u;
  // C13 lowest_as_zero: a format without zero rounds as if exponent field 0
  // held IEEE subnormals (its lowest code is then the grid's zero).
  const bool as_zero = !d.has_zero && p.lowest == LowestCode::lowest_as_zero;
  const bool has_zero = d.has_zero || as_zero;

  // Step 3 (unpack): E = floor(log2 |v|).
  const std::int64_t E = static_cast<std::int64_t>(v.exp) + bit_width64(v.sig) - 1;

  if (d.is_int) {
    // int8: round |v| * 2^bias to an integer, then clamp (C2 "int8").
    const std::int64_t q = -d.bias;
    // Far beyond the range (|v| >= 2^40 / 64): clamps; skip the shift.
    std::uint64_t n = (E - q > 40) ? (std::uint64_t{1} << 10)
                                   : round_magnitude(v.sig, v.exp, q, p.rounding, neg, rbits);
    const std::uint64_t lim_pos = 127;
    const std::uint64_t lim_neg = p.int8 == Int8Range::int8_full ? 128 : 127;
    if (!neg) return static_cast<std::uint32_t>(n > lim_pos ? lim_pos : n);
    if (n > lim_neg) n = lim_neg;
    return static_cast<std::uint32_t>((256u - n) & 0xFFu);  // -0 -> 0 (one zero)
  }

  // Step 4 (round) at the quantum of |v|'s binade, as if the format had more
  // binades above its top (so "exceeds" is decided after rounding, C2).
  const std::int64_t em = as_zero ? lim.emin + 1 : lim.emin;
  const std::int64_t q = (E > em ? E : em) - d.mbits;
  // Far above the range: skip the rounding (huge shifts) and overflow.
  const bool far_above = E > lim.emax + 2;
  std::uint64_t n = far_above ? 0 : round_magnitude(v.sig, v.exp, q, p.rounding, neg, rbits);
  std::int64_t qq = q;
  if (!far_above && n == 0) {
    // Underflow to zero keeps the sign; ue8m0 has no zero: smallest code.
    if (!d.has_zero) return 0u;
    return zero_code;
  }
  std::int64_t exp_field = 0;
  std::uint64_t mant = 0;
  bool overflow = far_above;
  if (!far_above) {
    if (has_zero && n < (std::uint64_t{1} << d.mbits)) {
      // subnormal (only when q is at the bottom binade)
      exp_field = 0;
      mant = n;
    } else {
      if (n >= (std::uint64_t{2} << d.mbits)) {  // carry into the next binade
        n >>= 1;
        ++qq;
      }
      exp_field = qq + d.mbits + d.bias;
      mant = n - (std::uint64_t{1} << d.mbits);
      // Step 5 (overflow)
      const std::int64_t top = lim.top_exp;
      if (exp_field > top || (exp_field == top && mant > lim.top_mant)) overflow = true;
    }
  }
  if (overflow) {
    const std::uint32_t maxc = lim.max_code | (neg ? lim.sign : 0u);
    if (p.rounding == Rounding::rtz) return maxc;
    if (d.special == Special::none && p.overflow_nospecial == OverflowNoSpecial::overflow_as_nan) {
      return encode_nan(f, neg, p);
    }
    if (p.overflow == Overflow::propagate && d.propagate_code >= 0) {
      return static_cast<std::uint32_t>(d.propagate_code) | (neg ? lim.sign : 0u);
    }
    return maxc;
  }
  // Step 6 (sign)
  const std::uint32_t code = (static_cast<std::uint32_t>(exp_field) << d.mbits) |
                             static_cast<std::uint32_t>(mant);
  return code | (neg ? lim.sign : 0u);
}

std::uint32_t encode_scaled(Fmt f, std::uint32_t x, int scale_exp, const ConvPolicy& p,
                            std::uint32_t rbits) {
  Unpacked u = unpack_f32(x);
  // Step 1 (non-finite)
  if (u.cls == Class::nan) return encode_nan_f32(f, x, p);
  if (u.cls == Class::inf) return encode_inf(f, u.v.neg, p);
  if (p.flush_input_subnormals && ((x >> 23) & 0xFFu) == 0) u.v.sig = 0;
  u.v.exp -= scale_exp;
  return encode_exact(f, u.v, p, rbits);
}

std::uint32_t encode_f32_bits(Fmt f, std::uint32_t x, const ConvPolicy& p, std::uint32_t rbits) {
  return encode_scaled(f, x, 0, p, rbits);
}

Class decode_exact(Fmt f, std::uint32_t code, Exact* out) {
  const FormatDesc& d = desc(f);
  Exact v;
  if (d.is_int) {
    const auto c = static_cast<std::int8_t>(static_cast<std::uint8_t>(code));
    v.neg = c < 0;
    v.sig = static_cast<std::uint64_t>(c < 0 ? -static_cast<int>(c) : c);
    v.exp = -d.bias;
    *out = v;
    return Class::finite;
  }
  const std::uint32_t sm = sign_mask(d);
  v.neg = (code & sm) != 0;
  const std::uint32_t mag = code & ~sm & ((d.bits == 32) ? 0xFFFFFFFFu : ((1u << d.bits) - 1u));
  const std::uint32_t ef = mag >> d.mbits;
  const std::uint32_t m = mag & mant_mask(d);
  switch (d.special) {
    case Special::ieee:
      if (static_cast<int>(ef) == max_exp_field(d)) return m ? Class::nan : Class::inf;
      break;
    case Special::fn_allones:
      if (static_cast<int>(ef) == max_exp_field(d) && m == mant_mask(d)) return Class::nan;
      break;
    case Special::top_code:
      if (mag == (1u << d.bits) - 1u) return Class::nan;
      break;
    case Special::none:
      break;
  }
  if (ef == 0 && d.has_zero) {
    v.sig = m;
    v.exp = emin(d) - d.mbits;
  } else {
    v.sig = m | (std::uint64_t{1} << d.mbits);
    v.exp = static_cast<std::int32_t>(ef) - d.bias - d.mbits;
  }
  *out = v;
  return Class::finite;
}

float decode(Fmt f, std::uint32_t code) {
  Exact v;
  const Class c = decode_exact(f, code, &v);
  if (c == Class::nan) return std::numeric_limits<float>::quiet_NaN();
  const bool neg = (code & sign_mask(desc(f))) != 0;
  if (c == Class::inf) return neg ? -std::numeric_limits<float>::infinity()
                                  : std::numeric_limits<float>::infinity();
  // exact: every value of every format here fits fp32 (ue8m0 2^-127 is an
  // fp32 subnormal, 2^127 normal).
  const ConvPolicy rne{};
  return bits_f32(encode_exact(Fmt::fp32, v, rne));
}

std::uint16_t f32_to_bf16_rne(float x) {
  return static_cast<std::uint16_t>(encode_f32_bits(Fmt::bf16, f32_bits(x),
                                                    ConvPolicy{Rounding::rne, Overflow::propagate}));
}
std::uint16_t f32_to_f16_rne(float x) {
  return static_cast<std::uint16_t>(encode_f32_bits(Fmt::fp16, f32_bits(x),
                                                    ConvPolicy{Rounding::rne, Overflow::propagate}));
}

// ---- C13 names --------------------------------------------------------------
std::string_view nan_sign_name(NanSign v) {
  switch (v) {
    case NanSign::nan_sign_rule: return "nan_sign_rule";
    case NanSign::nan_sign_input: return "nan_sign_input";
    case NanSign::nan_sign_inverted: return "nan_sign_inverted";
    case NanSign::nan_sign_negative: return "nan_sign_negative";
  }
  return "?";
}
std::string_view nan_payload_name(NanPayload v) {
  return v == NanPayload::nan_keep_payload ? "nan_keep_payload" : "nan_payload_drop";
}
std::string_view zero_sign_name(ZeroSign v) {
  switch (v) {
    case ZeroSign::zero_keep_sign: return "zero_keep_sign";
    case ZeroSign::zero_underflow_positive: return "zero_underflow_positive";
    case ZeroSign::zero_positive: return "zero_positive";
  }
  return "?";
}
std::string_view overflow_nospecial_name(OverflowNoSpecial v) {
  return v == OverflowNoSpecial::overflow_as_nan ? "overflow_as_nan" : "overflow_to_max";
}
std::string_view negative_unsigned_name(NegativeUnsigned v) {
  return v == NegativeUnsigned::neg_magnitude ? "neg_magnitude" : "neg_to_nan";
}
std::string_view zero_nozero_name(ZeroNoZero v) {
  return v == ZeroNoZero::zero_to_nan ? "zero_to_nan" : "zero_to_min";
}
std::string_view lowest_code_name(LowestCode v) {
  return v == LowestCode::lowest_as_zero ? "lowest_as_zero" : "lowest_exact";
}

namespace {

// One row per C13 value: its name and how to set it.
struct C13Value {
  std::string_view name;
  void (*set)(ConvPolicy&);
};
constexpr C13Value kC13Values[] = {
    {"nan_sign_rule", [](ConvPolicy& p) { p.nan_sign = NanSign::nan_sign_rule; }},
    {"nan_sign_input", [](ConvPolicy& p) { p.nan_sign = NanSign::nan_sign_input; }},
    {"nan_sign_inverted", [](ConvPolicy& p) { p.nan_sign = NanSign::nan_sign_inverted; }},
    {"nan_sign_negative", [](ConvPolicy& p) { p.nan_sign = NanSign::nan_sign_negative; }},
    {"nan_payload_drop", [](ConvPolicy& p) { p.nan_payload = NanPayload::nan_payload_drop; }},
    {"nan_keep_payload", [](ConvPolicy& p) { p.nan_payload = NanPayload::nan_keep_payload; }},
    {"zero_keep_sign", [](ConvPolicy& p) { p.zero_sign = ZeroSign::zero_keep_sign; }},
    {"zero_underflow_positive", [](ConvPolicy& p) { p.zero_sign = ZeroSign::zero_underflow_positive; }},
    {"zero_positive", [](ConvPolicy& p) { p.zero_sign = ZeroSign::zero_positive; }},
    {"overflow_to_max", [](ConvPolicy& p) { p.overflow_nospecial = OverflowNoSpecial::overflow_to_max; }},
    {"overflow_as_nan", [](ConvPolicy& p) { p.overflow_nospecial = OverflowNoSpecial::overflow_as_nan; }},
    {"neg_to_nan", [](ConvPolicy& p) { p.negative_unsigned = NegativeUnsigned::neg_to_nan; }},
    {"neg_magnitude", [](ConvPolicy& p) { p.negative_unsigned = NegativeUnsigned::neg_magnitude; }},
    {"zero_to_min", [](ConvPolicy& p) { p.zero_nozero = ZeroNoZero::zero_to_min; }},
    {"zero_to_nan", [](ConvPolicy& p) { p.zero_nozero = ZeroNoZero::zero_to_nan; }},
    {"lowest_exact", [](ConvPolicy& p) { p.lowest = LowestCode::lowest_exact; }},
    {"lowest_as_zero", [](ConvPolicy& p) { p.lowest = LowestCode::lowest_as_zero; }},
};

}  // namespace

bool set_c13_value(ConvPolicy& p, std::string_view name) {
  for (const auto& v : kC13Values) {
    if (v.name == name) {
      v.set(p);
      return true;
    }
  }
  return false;
}

std::vector<std::string> c13_modifiers(const ConvPolicy& p) {
  const ConvPolicy d{};
  std::vector<std::string> out;
  if (p.nan_sign != d.nan_sign) out.emplace_back(nan_sign_name(p.nan_sign));
  if (p.nan_payload != d.nan_payload) out.emplace_back(nan_payload_name(p.nan_payload));
  if (p.zero_sign != d.zero_sign) out.emplace_back(zero_sign_name(p.zero_sign));
  if (p.overflow_nospecial != d.overflow_nospecial) out.emplace_back(overflow_nospecial_name(p.overflow_nospecial));
  if (p.negative_unsigned != d.negative_unsigned) out.emplace_back(negative_unsigned_name(p.negative_unsigned));
  if (p.zero_nozero != d.zero_nozero) out.emplace_back(zero_nozero_name(p.zero_nozero));
  if (p.lowest != d.lowest) out.emplace_back(lowest_code_name(p.lowest));
  return out;
}

std::vector<std::string> c13_value_names() {
  std::vector<std::string> out;
  for (const auto& v : kC13Values) out.emplace_back(v.name);
  return out;
}

}  // namespace mx
