// xcheck/cuda_host.hpp - the CUDA 13 toolkit's host conversions
// (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h, compiled by the host C++ compiler, no
// GPU and no CUDA runtime library needed) as an independent implementation
// of SPEC C2 (elements) and C1/C3 (ue8m0), with the policy each of them
// matches.
//
// Semantics read from the headers (CUDA 13.0, /usr/local/cuda/include):
// - __nv_cvt_float_to_fp8: RNE; __NV_SATFINITE = C2 `saturate`, __NV_NOSAT =
//   `propagate` (e4m3 0x7F|sign, e5m2 0x7C|sign); a float NaN is first made
//   the canonical 0x7FFFFFFF, so NaN -> 0x7F = `nan_canonical`.
// - __nv_cvt_float_to_fp6 / _fp4: cudaRoundNearest = `rne`, cudaRoundZero =
//   `rtz`; overflow and Inf clamp to +-max (C2 `saturate`); NaN -> +max
//   (`nan_to_max`).
// - __nv_cvt_float_to_e8m0: rounds |x| (the sign is dropped) to a power of
//   two with cudaRoundZero (`rtz`) or cudaRoundPosInf (`ru`); results below
//   2^-127 clip to 0x00; above 2^127 clip to 0xFE (__NV_SATFINITE =
//   `saturate`) or give NaN 0xFF (__NV_NOSAT = `propagate`); NaN -> 0xFF.
//   The reference (C1: ue8m0 has no sign) encodes a negative non-zero input
//   as NaN 0xFF; the checks compare CUDA(x) with reference(|x|) there and
//   count those cases as a documented difference.
// - bf16 / fp16 inputs: __nv_cvt_bfloat16raw_to_* and __nv_cvt_halfraw_to_*
//   (same semantics; their NaNs also give 0x7F / +max, compared exactly).
#pragma once

#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "xcheck/sweep.hpp"

namespace xcheck {

enum class CudaOp : std::uint8_t {
  fp8_e4m3_sat,
  fp8_e4m3_nosat,
  fp8_e5m2_sat,
  fp8_e5m2_nosat,
  fp6_e3m2_rn,
  fp6_e3m2_rz,
  fp6_e2m3_rn,
  fp6_e2m3_rz,
  fp4_e2m1_rn,
  fp4_e2m1_rz,
  e8m0_rz_sat,
  e8m0_rp_sat,
  e8m0_rz_nosat,
  e8m0_rp_nosat,
};

struct CudaCheck {
  CudaOp op;
  const char* name;  // "e4m3 rne saturate"
  const char* cuda;  // the CUDA call it compares with
  mx::Fmt fmt;
  mx::ConvPolicy pol;
};

// GoogleTest prints parameters in test names' comments: print the name.
inline void PrintTo(const CudaCheck& c, std::ostream* os) { *os << c.name; }

inline const std::vector<CudaCheck>& cuda_checks() {
  using mx::Fmt;
  using mx::NanPolicy;
  using mx::Overflow;
  using mx::Rounding;
  static const std::vector<CudaCheck> v = {
      {CudaOp::fp8_e4m3_sat, "e4m3 rne saturate", "cvt_to_fp8(__NV_SATFINITE, __NV_E4M3)", Fmt::e4m3,
       {Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical}},
      {CudaOp::fp8_e4m3_nosat, "e4m3 rne propagate", "cvt_to_fp8(__NV_NOSAT, __NV_E4M3)", Fmt::e4m3,
       {Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical}},
      {CudaOp::fp8_e5m2_sat, "e5m2 rne saturate", "cvt_to_fp8(__NV_SATFINITE, __NV_E5M2)", Fmt::e5m2,
       {Rounding::rne, Overflow::saturate, NanPolicy::nan_canonical}},
      {CudaOp::fp8_e5m2_nosat, "e5m2 rne propagate", "cvt_to_fp8(__NV_NOSAT, __NV_E5M2)", Fmt::e5m2,
       {Rounding::rne, Overflow::propagate, NanPolicy::nan_canonical}},
      {CudaOp::fp6_e3m2_rn, "e3m2 rne saturate", "cvt_to_fp6(__NV_E3M2, cudaRoundNearest)", Fmt::e3m2,
       {Rounding::rne, Overflow::saturate, NanPolicy::nan_to_max}},
      {CudaOp::fp6_e3m2_rz, "e3m2 rtz saturate", "cvt_to_fp6(__NV_E3M2, cudaRoundZero)", Fmt::e3m2,
       {Rounding::rtz, Overflow::saturate, NanPolicy::nan_to_max}},
      {CudaOp::fp6_e2m3_rn, "e2m3 rne saturate", "cvt_to_fp6(__NV_E2M3, cudaRoundNearest)", Fmt::e2m3,
       {Rounding::rne, Overflow::saturate, NanPolicy::nan_to_max}},
      {CudaOp::fp6_e2m3_rz, "e2m3 rtz saturate", "cvt_to_fp6(__NV_E2M3, cudaRoundZero)", Fmt::e2m3,
       {Rounding::rtz, Overflow::saturate, NanPolicy::nan_to_max}},
      {CudaOp::fp4_e2m1_rn, "e2m1 rne saturate", "cvt_to_fp4(__NV_E2M1, cudaRoundNearest)", Fmt::e2m1,
       {Rounding::rne, Overflow::saturate, NanPolicy::nan_to_max}},
      {CudaOp::fp4_e2m1_rz, "e2m1 rtz saturate", "cvt_to_fp4(__NV_E2M1, cudaRoundZero)", Fmt::e2m1,
       {Rounding::rtz, Overflow::saturate, NanPolicy::nan_to_max}},
      {CudaOp::e8m0_rz_sat, "ue8m0 rtz saturate", "cvt_to_e8m0(__NV_SATFINITE, cudaRoundZero)", Fmt::ue8m0,
       {Rounding::rtz, Overflow::saturate, NanPolicy::nan_canonical}},
      {CudaOp::e8m0_rp_sat, "ue8m0 ru saturate", "cvt_to_e8m0(__NV_SATFINITE, cudaRoundPosInf)", Fmt::ue8m0,
       {Rounding::ru, Overflow::saturate, NanPolicy::nan_canonical}},
      {CudaOp::e8m0_rz_nosat, "ue8m0 rtz propagate", "cvt_to_e8m0(__NV_NOSAT, cudaRoundZero)", Fmt::ue8m0,
       {Rounding::rtz, Overflow::propagate, NanPolicy::nan_canonical}},
      {CudaOp::e8m0_rp_nosat, "ue8m0 ru propagate", "cvt_to_e8m0(__NV_NOSAT, cudaRoundPosInf)", Fmt::ue8m0,
       {Rounding::ru, Overflow::propagate, NanPolicy::nan_canonical}},
  };
  return v;
}

inline void PrintTo(CudaOp op, std::ostream* os) {
  for (const auto& c : cuda_checks()) {
    if (c.op == op) *os << c.name;
  }
}

// The 12 conversions the issue names for the exhaustive fp32 sweep (the two
// e8m0 __NV_NOSAT variants are sampled in the cpu label only).
inline bool in_exhaustive_set(CudaOp op) {
  return op != CudaOp::e8m0_rz_nosat && op != CudaOp::e8m0_rp_nosat;
}

inline bool is_e8m0(CudaOp op) {
  return op == CudaOp::e8m0_rz_sat || op == CudaOp::e8m0_rp_sat || op == CudaOp::e8m0_rz_nosat ||
         op == CudaOp::e8m0_rp_nosat;
}

// Reasons (documented differences), indices used in Outcome::doc.
inline constexpr int kE8m0SignReason = 0;
inline std::vector<std::string> cuda_reasons() {
  return {
      "CUDA e8m0 converts |x| (drops the sign); reference encodes negative non-zero as NaN 0xFF "
      "(C1: ue8m0 has no sign) -- compared as reference(|x|)",
  };
}

// Input kinds of the CUDA host functions.
enum class In : std::uint8_t { f32, bf16, f16 };

inline float as_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// The CUDA host conversion of one input (bits of type `in`).
inline std::uint32_t cuda_convert(CudaOp op, In in, std::uint32_t bits) {
  __nv_bfloat16_raw b;
  __half_raw h;
  b.x = static_cast<unsigned short>(bits);
  h.x = static_cast<unsigned short>(bits);
  const float f = as_float(bits);
  auto fp8 = [&](__nv_saturation_t s, __nv_fp8_interpretation_t k) -> std::uint32_t {
    switch (in) {
      case In::f32: return __nv_cvt_float_to_fp8(f, s, k);
      case In::bf16: return __nv_cvt_bfloat16raw_to_fp8(b, s, k);
      case In::f16: return __nv_cvt_halfraw_to_fp8(h, s, k);
    }
    return 0;
  };
  auto fp6 = [&](__nv_fp6_interpretation_t k, cudaRoundMode r) -> std::uint32_t {
    switch (in) {
      case In::f32: return __nv_cvt_float_to_fp6(f, k, r);
      case In::bf16: return __nv_cvt_bfloat16raw_to_fp6(b, k, r);
      case In::f16: return __nv_cvt_halfraw_to_fp6(h, k, r);
    }
    return 0;
  };
  auto fp4 = [&](cudaRoundMode r) -> std::uint32_t {
    switch (in) {
      case In::f32: return __nv_cvt_float_to_fp4(f, __NV_E2M1, r);
      case In::bf16: return __nv_cvt_bfloat16raw_to_fp4(b, __NV_E2M1, r);
      case In::f16: return __nv_cvt_halfraw_to_fp4(h, __NV_E2M1, r);
    }
    return 0;
  };
  auto e8m0 = [&](__nv_saturation_t s, cudaRoundMode r) -> std::uint32_t {
    switch (in) {
      case In::f32: return __nv_cvt_float_to_e8m0(f, s, r);
      case In::bf16: return __nv_cvt_bfloat16raw_to_e8m0(b, s, r);
      case In::f16: return 0;  // CUDA 13 has no fp16 -> e8m0 host conversion
    }
    return 0;
  };
  switch (op) {
    case CudaOp::fp8_e4m3_sat: return fp8(__NV_SATFINITE, __NV_E4M3);
    case CudaOp::fp8_e4m3_nosat: return fp8(__NV_NOSAT, __NV_E4M3);
    case CudaOp::fp8_e5m2_sat: return fp8(__NV_SATFINITE, __NV_E5M2);
    case CudaOp::fp8_e5m2_nosat: return fp8(__NV_NOSAT, __NV_E5M2);
    case CudaOp::fp6_e3m2_rn: return fp6(__NV_E3M2, cudaRoundNearest);
    case CudaOp::fp6_e3m2_rz: return fp6(__NV_E3M2, cudaRoundZero);
    case CudaOp::fp6_e2m3_rn: return fp6(__NV_E2M3, cudaRoundNearest);
    case CudaOp::fp6_e2m3_rz: return fp6(__NV_E2M3, cudaRoundZero);
    case CudaOp::fp4_e2m1_rn: return fp4(cudaRoundNearest);
    case CudaOp::fp4_e2m1_rz: return fp4(cudaRoundZero);
    case CudaOp::e8m0_rz_sat: return e8m0(__NV_SATFINITE, cudaRoundZero);
    case CudaOp::e8m0_rp_sat: return e8m0(__NV_SATFINITE, cudaRoundPosInf);
    case CudaOp::e8m0_rz_nosat: return e8m0(__NV_NOSAT, cudaRoundZero);
    case CudaOp::e8m0_rp_nosat: return e8m0(__NV_NOSAT, cudaRoundPosInf);
  }
  return 0;
}

// Reference input widening (SPEC C2: bf16 and fp16 widen exactly).
inline std::uint32_t widen(In in, std::uint32_t bits) {
  switch (in) {
    case In::f32: return bits;
    case In::bf16: return mx::bf16_to_f32_bits(static_cast<std::uint16_t>(bits));
    case In::f16: return mx::f16_to_f32_bits(static_cast<std::uint16_t>(bits));
  }
  return bits;
}

// One case: CUDA host conversion vs the reference under the matching policy.
inline Outcome cuda_case(const CudaCheck& c, In in, std::uint32_t bits) {
  const std::uint32_t cu = cuda_convert(c.op, in, bits);
  const std::uint32_t x = widen(in, bits);
  const std::uint32_t ref = mx::encode_f32_bits(c.fmt, x, c.pol);
  if (cu == ref) return plain(bits, cu, ref);
  const bool x_nan = (x & 0x7FFFFFFFu) > 0x7F800000u;
  if (is_e8m0(c.op) && (x >> 31) != 0 && !x_nan) {
    const std::uint32_t ref_abs = mx::encode_f32_bits(c.fmt, x & 0x7FFFFFFFu, c.pol);
    if (ref_abs == cu) return Outcome{bits, cu, ref, kE8m0SignReason, ref_abs};
    return plain(bits, cu, ref_abs);
  }
  return plain(bits, cu, ref);
}

}  // namespace xcheck
