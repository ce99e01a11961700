// mx/format.hpp - one constexpr descriptor per number format (SPEC C1).
//
// A format is {bits, ebits, mbits, bias, signedness, what its top codes
// mean}; masks and limits are derived by constexpr functions and
// static_asserted against the C1 table at the bottom of this file. Nothing
// else in the library names a format inside a generic path: special
// behaviour is a descriptor field.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "mx/hd.hpp"

namespace mx {

// Element and scale formats of SPEC C1, plus the IEEE interchange formats
// the reference reads and writes (fp32, bf16, fp16); those three are never
// element formats of a recipe.
enum class Fmt : std::uint8_t { e4m3, e5m2, e3m2, e2m3, e2m1, int8, ue8m0, ue4m3, fp32, bf16, fp16 };

inline constexpr std::array<Fmt, 8> kMxFormats = {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2, Fmt::e2m3,
                                                   Fmt::e2m1, Fmt::int8, Fmt::ue8m0, Fmt::ue4m3};
inline constexpr std::array<Fmt, 6> kElementFormats = {Fmt::e4m3, Fmt::e5m2, Fmt::e3m2,
                                                        Fmt::e2m3, Fmt::e2m1, Fmt::int8};

// What the codes at the top of the exponent range mean.
enum class Special : std::uint8_t {
  none,        // every code is finite (e3m2, e2m3, e2m1, int8)
  ieee,        // exponent all ones: mantissa 0 is Inf, others NaN (e5m2, fp32, ...)
  fn_allones,  // only exponent and mantissa all ones is NaN (e4m3, ue4m3: "fn")
  top_code,    // the single all-ones code is NaN, no Inf, no zero (ue8m0)
};

struct FormatDesc {
  std::string_view name;
  int bits;       // storage width of one code
  int ebits;      // exponent field width (0 for int8)
  int mbits;      // mantissa (fraction) field width; for int8 the magnitude bits
  int bias;       // exponent bias; for int8 the implicit scale 2^-bias (bias 6)
  bool is_signed; // has a sign (sign-magnitude floats; int8 is two's complement)
  bool is_int;    // two's complement integer with implicit factor 2^-bias
  bool has_zero;  // ue8m0 has no zero
  Special special;
  // Code given to a finite overflow or an Inf input under `propagate`
  // (SPEC C2); -1 means "+-max finite" for formats with neither NaN nor Inf.
  int propagate_code;
  // NaN code kept by `nan_keep_sign` for a negative NaN, without the sign bit
  // (e5m2: 0x7E as ml_dtypes does); -1 when the format has no NaN.
  int keep_sign_nan_code;
  // Canonical NaN code (SPEC C2 `nan_canonical`), -1 if the format has none.
  int canonical_nan_code;
};

// clang-format off
inline constexpr std::array<FormatDesc, 11> kFormatTable = {{
  //  name     bits eb mb bias signed int  zero  special               prop   keepNaN canonNaN
  {"e4m3",     8, 4, 3,  7,  true,  false, true, Special::fn_allones, 0x7F,  0x7F,  0x7F},
  {"e5m2",     8, 5, 2, 15,  true,  false, true, Special::ieee,       0x7C,  0x7E,  0x7F},
  {"e3m2",     6, 3, 2,  3,  true,  false, true, Special::none,       -1,    -1,    -1},
  {"e2m3",     6, 2, 3,  1,  true,  false, true, Special::none,       -1,    -1,    -1},
  {"e2m1",     4, 2, 1,  1,  true,  false, true, Special::none,       -1,    -1,    -1},
  {"int8",     8, 0, 7,  6,  true,  true,  true, Special::none,       -1,    -1,    -1},
  {"ue8m0",    8, 8, 0, 127, false, false, false, Special::top_code,  0xFF,  0xFF,  0xFF},
  {"ue4m3",    8, 4, 3,  7,  false, false, true, Special::fn_allones, 0x7F,  0x7F,  0x7F},
  {"fp32",    32, 8, 23, 127, true, false, true, Special::ieee,       0x7F800000, 0x7FC00000, 0x7FC00000},
  {"bf16",    16, 8, 7,  127, true, false, true, Special::ieee,       0x7F80, 0x7FC0, 0x7FC0},
  {"fp16",    16, 5, 10, 15,  true, false, true, Special::ieee,       0x7C00, 0x7E00, 0x7E00},
}};
// clang-format on

// Host only: kFormatTable is a host array (device code carries its own
// constants, so that the GPU path stays independent of the reference).
constexpr const FormatDesc& desc(Fmt f) { return kFormatTable[static_cast<int>(f)]; }

// ---- derived quantities (C1) ------------------------------------------------

// Code with the sign bit set (0 for unsigned formats and int8).
MX_HD constexpr std::uint32_t sign_mask(const FormatDesc& d) {
  return (d.is_signed && !d.is_int) ? (std::uint32_t{1} << (d.bits - 1)) : 0u;
}
MX_HD constexpr std::uint32_t mant_mask(const FormatDesc& d) {
  return (std::uint32_t{1} << d.mbits) - 1u;
}
MX_HD constexpr int max_exp_field(const FormatDesc& d) { return (1 << d.ebits) - 1; }

// Largest finite biased exponent field and its largest mantissa.
MX_HD constexpr int top_finite_exp_field(const FormatDesc& d) {
  return (d.special == Special::ieee || d.special == Special::top_code) ? max_exp_field(d) - 1
                                                                           : max_exp_field(d);
}
MX_HD constexpr std::uint32_t top_finite_mant(const FormatDesc& d) {
  if (d.special == Special::fn_allones) return mant_mask(d) - 1u;
  if (d.special == Special::top_code) return 0u;  // ue8m0: 0xFE is the largest
  return mant_mask(d);
}

// Largest finite positive code.
MX_HD constexpr std::uint32_t max_finite_code(const FormatDesc& d) {
  if (d.is_int) return (std::uint32_t{1} << d.mbits) - 1u;  // 0x7F
  if (d.special == Special::top_code) return (std::uint32_t{1} << d.bits) - 2u;  // 0xFE
  return (static_cast<std::uint32_t>(top_finite_exp_field(d)) << d.mbits) | top_finite_mant(d);
}

// Smallest exponent of a normal number (unbiased). For formats without
// subnormals (ue8m0) exponent field 0 is itself normal.
MX_HD constexpr int emin(const FormatDesc& d) {
  return d.has_zero ? 1 - d.bias : -d.bias;
}

// Exponent (unbiased) of the largest finite value.
MX_HD constexpr int emax(const FormatDesc& d) {
  if (d.is_int) return 0;
  return top_finite_exp_field(d) - d.bias;
}

// emax_elem of C1: the exponent of the largest power of two not above max
// finite. For floats it equals emax; for int8 (max 127/64) it is 0.
MX_HD constexpr int emax_elem(const FormatDesc& d) { return emax(d); }

// Max finite value as a double (exact for every format here).
MX_HD constexpr double pow2(int e) {
  double r = 1.0;
  if (e >= 0) {
    for (int i = 0; i < e; ++i) r *= 2.0;
  } else {
    for (int i = 0; i < -e; ++i) r *= 0.5;
  }
  return r;
}
MX_HD constexpr double max_finite(const FormatDesc& d) {
  if (d.is_int) return static_cast<double>(max_finite_code(d)) * pow2(-d.bias);
  const double sig = 1.0 + static_cast<double>(top_finite_mant(d)) * pow2(-d.mbits);
  return sig * pow2(emax(d));
}
MX_HD constexpr double min_normal(const FormatDesc& d) {
  return d.is_int ? pow2(-d.bias) : pow2(emin(d));
}
MX_HD constexpr double min_subnormal(const FormatDesc& d) {
  if (d.is_int) return pow2(-d.bias);
  if (!d.has_zero) return pow2(emin(d));  // no subnormals
  return pow2(emin(d) - d.mbits);
}
// Number of significant bits of a finite value (precision p = mbits + 1).
MX_HD constexpr int precision(const FormatDesc& d) { return d.is_int ? d.mbits : d.mbits + 1; }

MX_HD constexpr bool has_nan(const FormatDesc& d) { return d.special != Special::none; }
MX_HD constexpr bool has_inf(const FormatDesc& d) { return d.special == Special::ieee; }

// ---- the C1 table, checked ----------------------------------------------------
static_assert(max_finite(desc(Fmt::e4m3)) == 448.0 && max_finite_code(desc(Fmt::e4m3)) == 0x7E);
static_assert(min_normal(desc(Fmt::e4m3)) == pow2(-6) && min_subnormal(desc(Fmt::e4m3)) == pow2(-9));
static_assert(emax_elem(desc(Fmt::e4m3)) == 8);
static_assert(max_finite(desc(Fmt::e5m2)) == 57344.0 && max_finite_code(desc(Fmt::e5m2)) == 0x7B);
static_assert(min_normal(desc(Fmt::e5m2)) == pow2(-14) && min_subnormal(desc(Fmt::e5m2)) == pow2(-16));
static_assert(emax_elem(desc(Fmt::e5m2)) == 15);
static_assert(max_finite(desc(Fmt::e3m2)) == 28.0 && max_finite_code(desc(Fmt::e3m2)) == 0x1F);
static_assert(min_normal(desc(Fmt::e3m2)) == 0.25 && min_subnormal(desc(Fmt::e3m2)) == 0.0625);
static_assert(emax_elem(desc(Fmt::e3m2)) == 4);
static_assert(max_finite(desc(Fmt::e2m3)) == 7.5 && max_finite_code(desc(Fmt::e2m3)) == 0x1F);
static_assert(min_normal(desc(Fmt::e2m3)) == 1.0 && min_subnormal(desc(Fmt::e2m3)) == 0.125);
static_assert(emax_elem(desc(Fmt::e2m3)) == 2);
static_assert(max_finite(desc(Fmt::e2m1)) == 6.0 && max_finite_code(desc(Fmt::e2m1)) == 0x7);
static_assert(min_normal(desc(Fmt::e2m1)) == 1.0 && min_subnormal(desc(Fmt::e2m1)) == 0.5);
static_assert(emax_elem(desc(Fmt::e2m1)) == 2);
static_assert(max_finite(desc(Fmt::int8)) == 127.0 / 64.0 && max_finite_code(desc(Fmt::int8)) == 0x7F);
static_assert(min_subnormal(desc(Fmt::int8)) == 1.0 / 64.0 && emax_elem(desc(Fmt::int8)) == 0);
static_assert(max_finite(desc(Fmt::ue8m0)) == pow2(127) && max_finite_code(desc(Fmt::ue8m0)) == 0xFE);
static_assert(min_normal(desc(Fmt::ue8m0)) == pow2(-127));
static_assert(max_finite(desc(Fmt::ue4m3)) == 448.0 && max_finite_code(desc(Fmt::ue4m3)) == 0x7E);
static_assert(max_finite(desc(Fmt::fp16)) == 65504.0 && emax(desc(Fmt::bf16)) == 127);


}  // namespace mx
