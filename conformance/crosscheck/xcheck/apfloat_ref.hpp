// xcheck/apfloat_ref.hpp - LLVM APFloat (llvm-19-dev) as an independent
// implementation of SPEC C2, mapped onto the contract's policies.
//
// LLVM 19 semantics used: Float8E4M3FN (e4m3, and ue4m3 for non-negative
// inputs), Float8E5M2 (e5m2), Float6E3M2FN (e3m2), Float6E2M3FN (e2m3),
// Float4E2M1FN (e2m1); int8 through IEEEdouble x * 64 and roundToIntegral.
// LLVM 19 has no Float8E8M0FNU (added in LLVM 20): ue8m0 is not compared
// here (the CUDA host sweep and the oracle cover it). Rounding modes:
// rne = NearestTiesToEven, rtz = TowardZero, rna = NearestTiesToAway,
// ru = TowardPositive; `sr` has no APFloat counterpart.
//
// Policy mapping (how APFloat's IEEE-style answer becomes the contract's):
// - finite input, finite APFloat result: compared as is (APFloat's rtz
//   overflow already gives +-max, and its FiniteOnly formats saturate).
// - finite input that overflows to NaN/Inf in APFloat: `saturate` -> +-max
//   finite of the format; `propagate` -> APFloat's NaN/Inf code as is.
// - Inf input: `saturate` -> +-max; `propagate` -> APFloat's code.
// - NaN input (e4m3/e5m2): `nan_keep_sign` -> APFloat's code (it keeps the
//   sign); `nan_canonical` -> 0x7F when APFloat gives a NaN.
// Documented differences (counted, one example printed) are listed by
// apfloat_reasons().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "xcheck/sweep.hpp"

namespace xcheck {

enum class Src : std::uint8_t { f32, bf16, f16 };

// Does APFloat give an answer for this format and rounding?
bool apfloat_supports(mx::Fmt f, mx::Rounding r);

std::vector<std::string> apfloat_reasons();

// One case: APFloat (mapped to policy p) vs the reference encoder.
Outcome apfloat_case(mx::Fmt f, const mx::ConvPolicy& p, Src src, std::uint32_t bits);

// encode_scaled(f, x, e) (SPEC C3 "scaling is exact": one rounding of
// x * 2^-e) against APFloat converting the exact double x * 2^-e.
Outcome apfloat_scaled_case(mx::Fmt f, const mx::ConvPolicy& p, std::uint32_t bits, int scale_exp);

// APFloat's fp32 bits of an e4m3/e5m2/e3m2/e2m3/e2m1 code (C1 decode).
std::uint32_t apfloat_decode_f32(mx::Fmt f, std::uint32_t code);
// APFloat's RNE rounding of fp32 bits to bf16 / fp16 (C8 outputs).
std::uint32_t apfloat_round_f32(mx::Fmt out, std::uint32_t bits);

// Reference encode of a bf16/fp16/fp32 pattern (widened by the reference).
std::uint32_t ref_encode(mx::Fmt f, const mx::ConvPolicy& p, Src src, std::uint32_t bits,
                         std::uint32_t rbits = 0);

const char* rounding_name(mx::Rounding r);
const char* overflow_name(mx::Overflow o);
const char* nan_name(mx::NanPolicy n);
std::string policy_name(mx::Fmt f, const mx::ConvPolicy& p);

// Every (rounding, overflow, nan, int8 range) policy valid for f; with
// `all_nan` false only the default NaN policy.
std::vector<mx::ConvPolicy> policies_for(mx::Fmt f, bool all_nan, bool with_sr);

}  // namespace xcheck
