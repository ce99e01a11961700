// gemm_common.cuh - device helpers shared by the C11 GEMM kernels (reference/
// SPEC.md C11): shared-memory descriptors for wgmma, cp.async, the ue8m0 and
// e2m1 decodes, the output rounding, and the tile layout.
//
// Tile layout (the one the probes validated on the H100, kernels/probes): a
// 32-byte-wide K slice of R rows is stored K-major without swizzle as 8x16-
// byte core matrices, core (i, j) (i = row / 8, j = 16-byte chunk 0..1) at
// byte (2i + j) * 128; descriptor LBO (K direction) = 128, SBO (row
// direction) = 256 (PTX ISA 9.0, 9.7.15.5.1). A slice is one wgmma's K
// (32 fp8 or 16 bf16); wider tiles stack slices, R * 32 bytes apart.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "mx/layout.hpp"

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MXK_GEMM_HAVE_WGMMA 1
#endif

namespace mxk::gemm {

// Byte offset of (row r, 16-byte chunk j of a 32-byte slice) in a slice.
__device__ __forceinline__ int core_off(int r, int j) { return (2 * (r >> 3) + j) * 128 + (r & 7) * 16; }

__device__ __forceinline__ std::uint64_t smem_desc(const void* p) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  std::uint64_t d = 0;
  d |= static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4);
  d |= static_cast<std::uint64_t>(128 >> 4) << 16;  // LBO: next core matrix along K
  d |= static_cast<std::uint64_t>(256 >> 4) << 32;  // SBO: next 8 rows
  return d;  // base offset 0, no swizzle
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  const auto s = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// Ordinary and cp.async writes to shared memory, then read by wgmma (async proxy).
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

#ifdef MXK_GEMM_HAVE_WGMMA
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
#endif
// Keeps the compiler from moving an accumulator register across the async
// wgmma window (the register is "used and redefined" here).
__device__ __forceinline__ void pin(float& r) { asm volatile("" : "+f"(r)::"memory"); }

// IEEE fp32 multiply and fused multiply-add, round to nearest even, no flush
// to zero (PTX without .ftz), whatever the compiler flags.
__device__ __forceinline__ float mul_rn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float fma_rn(float a, float b, float c) {
  float r;
  asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
  return r;
}

// 2^(e - 127) as fp32 (e = 0: the subnormal 2^-127), NaN for 0xff. The
// product of two of these under mul.rn is C11's s = 2^(ea + eb - 254) with
// its flush below 2^-149 (2^-150 ties to 0) and +Inf above 2^127.
__device__ __forceinline__ float ue8m0_f32(std::uint32_t e) {
  const std::uint32_t bits = e == 0xFF ? 0x7FC00000u : e == 0 ? 0x00400000u : (e << 23);
  return __uint_as_float(bits);
}

// e2m1 code (low 4 bits) as fp32 bits: exponent field E = (c >> 1) & 3,
// mantissa bit c & 1; E = 0 is 0 or 0.5.
__device__ __forceinline__ std::uint32_t e2m1_f32_bits(std::uint32_t c) {
  const std::uint32_t sign = (c & 8u) << 28, e = (c >> 1) & 3u, m = c & 1u;
  const std::uint32_t mag = e == 0 ? (m ? 0x3F000000u : 0u) : (((e + 126u) << 23) | (m << 22));
  return sign | mag;
}

// C11 widening: bf16 bits of e2m1 * 2^(e - 127) (exact in fp32, low 16 bits
// zero; overflow gives +-Inf; a NaN scale gives NaN).
__device__ __forceinline__ std::uint32_t widen_bf16(std::uint32_t code, float scale) {
  return __float_as_uint(mul_rn(__uint_as_float(e2m1_f32_bits(code)), scale)) >> 16;
}

// Output rounding (C11): NaN as the canonical NaN, else fp32 bits, or bf16
// by round-to-nearest-even on the bit pattern (exact IEEE RNE incl. overflow).
__device__ __forceinline__ std::uint32_t out_f32(float v) {
  const std::uint32_t u = __float_as_uint(v);
  return (u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : u;
}
__device__ __forceinline__ std::uint16_t out_bf16(float v) {
  const std::uint32_t u = __float_as_uint(v);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// Scale offset of (row r, k-block kb) for a dense [rows][nkb] or tcgen05 buffer.
__device__ __forceinline__ std::int64_t scale_off(bool tcgen05, std::int64_t r, std::int64_t kb, std::int64_t nkb) {
  return tcgen05 ? mx::tcgen05_offset(r, kb, (nkb + 3) / 4) : r * nkb + kb;
}

}  // namespace mxk::gemm
