// mx/convert.hpp - one generic converter with explicit policies (SPEC C2).
//
// encode(format, value, policy, rbits) rounds the exact input value once into
// the format; decode(format, code) is exact. The C13 policy fields name what
// real libraries do where they differ from C2 (NaN signs and payloads, zero
// signs, fp6/fp4 overflow, ue8m0 inputs); their defaults are the C2 rules. Scaled encoding
// (encode_scaled: value * 2^-e, SPEC C3 "scaling is exact") works on the
// exact significand and exponent, so no intermediate fp32 rounding or
// underflow can happen. The numbered steps follow the style of ml_dtypes'
// ConvertImpl: non-finite, zero, unpack, round, overflow, sign.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "mx/format.hpp"

namespace mx {

enum class Rounding : std::uint8_t {
  rne,  // nearest, ties to even (default)
  rtz,  // toward zero
  rna,  // nearest, ties away from zero (microxcaling "nearest")
  sr,   // stochastic, PTX cvt.rs style (see round_magnitude)
  ru,   // toward +Inf (used by the ue8m0 round-up conversion, cvt.rp)
};
enum class Overflow : std::uint8_t { saturate, propagate };
enum class NanPolicy : std::uint8_t {
  nan_default,    // nan_canonical for e4m3/e5m2, nan_to_max for the others
  nan_canonical,  // e4m3/e5m2 (and scale formats): the positive NaN code 0x7F
  nan_keep_sign,  // e4m3: 0x7F|sign, e5m2: 0x7E|sign (ml_dtypes)
  nan_to_max,     // formats without NaN: +max finite (CUDA)
  nan_to_zero,    // formats without NaN: zero with the NaN's sign
};
enum class Int8Range : std::uint8_t { int8_full, int8_symmetric };

// ---- C13: named behaviours of real libraries --------------------------------
// Each new field's first value is the C2 rule, so a default ConvPolicy (and
// every recipe) converts exactly as before. validate_policy() refuses a
// non-default value on a format it cannot apply to.
enum class NanSign : std::uint8_t {
  nan_sign_rule,      // the sign the NaN policy gives (C2)
  nan_sign_input,     // the NaN's code carries the input NaN's sign (torch e5m2: -NaN -> 0xFF)
  nan_sign_inverted,  // it carries the opposite sign (ml_dtypes fp6/fp4: +NaN -> -0)
  nan_sign_negative,  // it is always negative, whatever the input's sign (JAX e2m1: +-NaN -> -0)
};
enum class NanPayload : std::uint8_t {  // formats with IEEE specials (e5m2)
  nan_payload_drop,  // the NaN policy's code (C2)
  // all-ones exponent | the input NaN's top fraction bits | the quiet bit,
  // with the sign the NaN policy and nan_sign give (APFloat; ml_dtypes fp16 -> e5m2)
  nan_keep_payload,
};
enum class ZeroSign : std::uint8_t {  // signed formats
  zero_keep_sign,           // -0 and a negative value that rounds to zero give -0 (C2)
  zero_underflow_positive,  // a negative value that rounds to zero gives +0 (-0 stays -0)
  zero_positive,            // every zero result is +0
};
enum class OverflowNoSpecial : std::uint8_t {  // formats with neither NaN nor Inf (e3m2, e2m3, e2m1)
  overflow_to_max,  // overflow and Inf give +-max finite under saturate and propagate (C2)
  overflow_as_nan,  // overflow (not under rtz) and Inf give what the NaN policy gives a NaN of that sign
};
enum class NegativeUnsigned : std::uint8_t {  // unsigned formats (ue8m0, ue4m3)
  neg_to_nan,     // a negative non-zero input (and -Inf) gives the NaN code (C2 reading)
  neg_magnitude,  // the sign is dropped: -x converts as x (CUDA __nv_cvt_*_to_e8m0, torch e8m0)
};
enum class ZeroNoZero : std::uint8_t {  // formats without a zero code (ue8m0)
  zero_to_min,  // +-0 gives the smallest code (C2 reading)
  zero_to_nan,  // +-0 gives the NaN code (ml_dtypes)
};
enum class LowestCode : std::uint8_t {  // formats without a zero code (ue8m0)
  lowest_exact,    // the bottom binade rounds like every other (C2)
  // Exponent field 0 is rounded as if it held IEEE subnormals, so the lowest
  // code stands for zero on the rounding grid: ue8m0 values below 2^-126 round
  // to a multiple of 2^-126 (0 -> 0x00, 2^-126 -> 0x01) (torch, ml_dtypes).
  lowest_as_zero,
};

struct ConvPolicy {
  Rounding rounding = Rounding::rne;
  Overflow overflow = Overflow::saturate;
  NanPolicy nan = NanPolicy::nan_default;
  Int8Range int8 = Int8Range::int8_full;
  bool flush_input_subnormals = false;
  // C13 fields (defaults = C2).
  NanSign nan_sign = NanSign::nan_sign_rule;
  NanPayload nan_payload = NanPayload::nan_payload_drop;
  ZeroSign zero_sign = ZeroSign::zero_keep_sign;
  OverflowNoSpecial overflow_nospecial = OverflowNoSpecial::overflow_to_max;
  NegativeUnsigned negative_unsigned = NegativeUnsigned::neg_to_nan;
  ZeroNoZero zero_nozero = ZeroNoZero::zero_to_min;
  LowestCode lowest = LowestCode::lowest_exact;

  friend bool operator==(const ConvPolicy&, const ConvPolicy&) = default;
};

// Names of the C13 values (as above).
std::string_view nan_sign_name(NanSign v);
std::string_view nan_payload_name(NanPayload v);
std::string_view zero_sign_name(ZeroSign v);
std::string_view overflow_nospecial_name(OverflowNoSpecial v);
std::string_view negative_unsigned_name(NegativeUnsigned v);
std::string_view zero_nozero_name(ZeroNoZero v);
std::string_view lowest_code_name(LowestCode v);
// Sets the one C13 field that `name` names (e.g. "neg_magnitude"); returns
// false when `name` is not a C13 value name.
bool set_c13_value(ConvPolicy& p, std::string_view name);
// The C13 value names that differ from the defaults, in field order.
std::vector<std::string> c13_modifiers(const ConvPolicy& p);
// Every C13 value name (for help texts and tests).
std::vector<std::string> c13_value_names();

// ---- fp32 / bf16 / fp16 bit helpers ------------------------------------------
inline std::uint32_t f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }
inline float bits_f32(std::uint32_t u) { return std::bit_cast<float>(u); }

// An exact finite value: (-1)^neg * sig * 2^exp. sig == 0 is a (signed) zero.
struct Exact {
  bool neg = false;
  std::int32_t exp = 0;
  std::uint64_t sig = 0;
};

enum class Class : std::uint8_t { finite, inf, nan };

struct Unpacked {
  Class cls = Class::finite;
  Exact v;
};

// Decompose an fp32 bit pattern exactly.
constexpr Unpacked unpack_f32(std::uint32_t u) {
  Unpacked r;
  r.v.neg = (u >> 31) != 0;
  const std::uint32_t e = (u >> 23) & 0xFFu;
  const std::uint32_t m = u & 0x7FFFFFu;
  if (e == 0xFFu) {
    r.cls = m ? Class::nan : Class::inf;
    return r;
  }
  if (e == 0) {
    r.v.sig = m;
    r.v.exp = -149;
  } else {
    r.v.sig = m | 0x800000u;
    r.v.exp = static_cast<std::int32_t>(e) - 150;
  }
  return r;
}

// bf16 and fp16 widen to fp32 exactly (SPEC C2).
constexpr std::uint32_t bf16_to_f32_bits(std::uint16_t h) { return std::uint32_t{h} << 16; }
std::uint32_t f16_to_f32_bits(std::uint16_t h);

enum class InType : std::uint8_t { f32, bf16, f16 };
std::string_view in_type_name(InType t);
InType parse_in_type(std::string_view s);  // "fp32"/"f32", "bf16", "fp16"/"f16"
std::size_t in_type_bytes(InType t);
// Bit pattern of element i of a buffer of type t, widened to fp32.
std::uint32_t load_as_f32_bits(const void* base, InType t, std::int64_t i);

// ---- the generic converter ---------------------------------------------------

// Does the NaN policy apply to this format? (nan_canonical/keep_sign need a
// NaN code, nan_to_max/to_zero need a format without one.)
bool nan_policy_valid(Fmt f, NanPolicy p);
// Throws InvalidArgument with a one-line message if the policy does not apply
// to the format (wrong NaN policy, int8 range on a float format, ...).
void validate_policy(Fmt f, const ConvPolicy& p);

// Round a finite exact value into format f. Returns the code (for fp32/bf16/
// fp16 the IEEE bit pattern). `rbits` is used only by Rounding::sr.
std::uint32_t encode_exact(Fmt f, const Exact& v, const ConvPolicy& p, std::uint32_t rbits = 0);
// Codes for a NaN or Inf input of the given sign. encode_nan assumes a quiet
// NaN without payload; encode_nan_f32 takes the input's fp32 bits (for
// nan_keep_payload).
std::uint32_t encode_nan(Fmt f, bool neg, const ConvPolicy& p);
std::uint32_t encode_nan_f32(Fmt f, std::uint32_t x, const ConvPolicy& p);
std::uint32_t encode_inf(Fmt f, bool neg, const ConvPolicy& p);

// encode(format, value, ...) of SPEC C2 from an fp32 bit pattern.
std::uint32_t encode_f32_bits(Fmt f, std::uint32_t x, const ConvPolicy& p, std::uint32_t rbits = 0);
inline std::uint32_t encode(Fmt f, float x, const ConvPolicy& p = {}, std::uint32_t rbits = 0) {
  return encode_f32_bits(f, f32_bits(x), p, rbits);
}
// encode(value * 2^-scale_exp): one rounding of the exact scaled value (C3).
std::uint32_t encode_scaled(Fmt f, std::uint32_t x, int scale_exp, const ConvPolicy& p,
                            std::uint32_t rbits = 0);

// decode(format, code): exact into fp32 (every element value is an fp32).
// For fp32/bf16/fp16 codes it returns the value as fp32 (fp16 exactly).
float decode(Fmt f, std::uint32_t code);
// decode to an exact value; returns the class (NaN, Inf or finite).
Class decode_exact(Fmt f, std::uint32_t code, Exact* out);

// Round an fp32 value to bf16/fp16 with RNE (for dequantization outputs).
std::uint16_t f32_to_bf16_rne(float x);
std::uint16_t f32_to_f16_rne(float x);

}  // namespace mx
