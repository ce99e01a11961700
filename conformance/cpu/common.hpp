// common.hpp - helpers shared by the cpu conformance tests: hex formatting,
// the mapping between mx:: and the oracle's mxo:: enums, and TestFloat-style
// generators (exponent classes x significand patterns, plus uniform bits).
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/format.hpp"
#include "mx/scale.hpp"
#include "oracle.hpp"

// RapidCheck assertion with a failure message (input, expected, observed, clause).
#define RC_ASSERT_MSG(cond, msg) \
  do {                           \
    if (!(cond)) RC_FAIL(msg);   \
  } while (false)

namespace cpu {

inline std::string hex(std::uint64_t v, int digits = 2) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return b;
}
inline float f32(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline std::uint32_t bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
// "0x43e80000 (464)"
inline std::string in32(std::uint32_t u) {
  char b[64];
  std::snprintf(b, sizeof b, "0x%08x (%.9g)", u, static_cast<double>(f32(u)));
  return b;
}

inline mxo::Fmt to_o(mx::Fmt f) { return static_cast<mxo::Fmt>(f); }
inline mxo::ScaleRule to_o(mx::ScaleRule r) { return static_cast<mxo::ScaleRule>(r); }
inline mxo::NonFiniteBlock to_o(mx::NonFiniteBlock n) { return static_cast<mxo::NonFiniteBlock>(n); }
inline mxo::Policy to_o(const mx::ConvPolicy& p) {
  mxo::Policy o;
  o.rounding = static_cast<mxo::Rounding>(p.rounding);
  o.overflow = static_cast<mxo::Overflow>(p.overflow);
  o.nan = static_cast<mxo::NanPolicy>(p.nan);
  o.int8 = static_cast<mxo::Int8Range>(p.int8);
  o.flush_input_subnormals = p.flush_input_subnormals;
  return o;
}

inline const char* rname(mx::Rounding r) { return mxo::rounding_name(static_cast<mxo::Rounding>(r)); }
inline std::string pname(mx::Fmt f, const mx::ConvPolicy& p) {
  std::string s = std::string(mx::desc(f).name) + " " + rname(p.rounding) +
                   (p.overflow == mx::Overflow::saturate ? " saturate" : " propagate");
  static const char* nn[] = {"nan_default", "nan_canonical", "nan_keep_sign", "nan_to_max", "nan_to_zero"};
  s += std::string(" ") + nn[static_cast<int>(p.nan)];
  if (p.int8 == mx::Int8Range::int8_symmetric) s += " int8_symmetric";
  if (p.flush_input_subnormals) s += " flush_input_subnormals";
  return s;
}

inline const std::vector<mx::Fmt>& elem_formats() {
  static const std::vector<mx::Fmt> v = {mx::Fmt::e4m3, mx::Fmt::e5m2, mx::Fmt::e3m2,
                                         mx::Fmt::e2m3, mx::Fmt::e2m1, mx::Fmt::int8};
  return v;
}
inline const std::vector<mx::Rounding>& c2_roundings() {
  static const std::vector<mx::Rounding> v = {mx::Rounding::rne, mx::Rounding::rtz, mx::Rounding::rna,
                                              mx::Rounding::sr};
  return v;
}
// Every valid policy combination of C2 for a format (sr excluded).
inline std::vector<mx::ConvPolicy> policies(mx::Fmt f, bool with_sr = false) {
  std::vector<mx::ConvPolicy> out;
  const bool has_nan = mx::has_nan(mx::desc(f));
  for (auto r : c2_roundings()) {
    if (r == mx::Rounding::sr && !with_sr) continue;
    for (auto o : {mx::Overflow::saturate, mx::Overflow::propagate}) {
      for (auto n : has_nan ? std::vector<mx::NanPolicy>{mx::NanPolicy::nan_canonical, mx::NanPolicy::nan_keep_sign}
                            : std::vector<mx::NanPolicy>{mx::NanPolicy::nan_to_max, mx::NanPolicy::nan_to_zero}) {
        for (auto i : f == mx::Fmt::int8 ? std::vector<mx::Int8Range>{mx::Int8Range::int8_full, mx::Int8Range::int8_symmetric}
                                         : std::vector<mx::Int8Range>{mx::Int8Range::int8_full}) {
          mx::ConvPolicy p;
          p.rounding = r;
          p.overflow = o;
          p.nan = n;
          p.int8 = i;
          out.push_back(p);
        }
      }
    }
  }
  return out;
}

// ---- generators --------------------------------------------------------------
// fp32 bits with an unbiased exponent E (subnormal when E < -126) and a
// 23-bit fraction pattern.
inline std::uint32_t make_f32(bool neg, int E, std::uint32_t frac) {
  frac &= 0x7FFFFFu;
  std::uint32_t u;
  if (E > 127) u = 0x7F7FFFFFu;
  else if (E >= -126) u = (static_cast<std::uint32_t>(E + 127) << 23) | frac;
  else if (E < -149) u = 1u;
  else u = ((frac | 0x800000u) >> (-126 - E));
  return u | (neg ? 0x80000000u : 0u);
}

// Significand patterns relative to a target with mbits fraction bits:
// 1.000, 1.0..01, 1.1..1, the exact tie below the target ulp, tie +- 1 fp32
// ulp, random with a tie, random.
inline rc::Gen<std::uint32_t> gen_frac(int mbits) {
  const int tb = 22 - mbits;  // the first discarded bit
  const std::uint32_t tie = tb >= 0 ? (1u << tb) : 0u;
  return rc::gen::oneOf(
      rc::gen::element<std::uint32_t>(0u, 1u, 0x7FFFFFu, 0x400000u, tie, tie + 1, tie - 1, tie | 0x400000u),
      rc::gen::map(rc::gen::arbitrary<std::uint32_t>(),
                   [tie, tb](std::uint32_t r) {
                     const std::uint32_t hi = tb >= 0 ? (r & ~((tie << 1) - 1)) : r;
                     return (hi | tie) & 0x7FFFFFu;
                   }),
      rc::gen::map(rc::gen::arbitrary<std::uint32_t>(),
                   [tie](std::uint32_t r) { return ((r & ~(tie * 2 - 1)) | tie) + ((r >> 30) & 1u ? 1u : 0x7FFFFFFFu); }),
      rc::gen::arbitrary<std::uint32_t>());
}

// fp32 inputs for format f scaled by 2^-scale_exp: exponents around every
// binade boundary of f (shifted by scale_exp), fp32 extremes, and uniform bits.
inline rc::Gen<std::uint32_t> gen_f32_for(mx::Fmt f, int scale_exp = 0) {
  const mx::FormatDesc& d = mx::desc(f);
  const int lo = (d.is_int ? -6 - 3 : mx::emin(d) - d.mbits - 3) + scale_exp;
  const int hi = (d.is_int ? 0 + 3 : mx::emax(d) + 3) + scale_exp;
  const int mb = d.is_int ? 6 : d.mbits;
  return rc::gen::oneOf(
      rc::gen::apply([](bool neg, int e, std::uint32_t fr) { return make_f32(neg, e, fr); },
                     rc::gen::arbitrary<bool>(), rc::gen::inRange(lo, hi + 1), gen_frac(mb)),
      rc::gen::apply([](bool neg, int e, std::uint32_t fr) { return make_f32(neg, e, fr); },
                     rc::gen::arbitrary<bool>(), rc::gen::element(-149, -127, -126, -125, 126, 127, 128),
                     gen_frac(mb)),
      rc::gen::element<std::uint32_t>(0u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u,
                                      0x7F7FFFFFu, 0x00000001u, 0x80800000u),
      rc::gen::arbitrary<std::uint32_t>());
}

}  // namespace cpu
