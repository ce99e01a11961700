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

// cp.async of 16 bytes to the 32-bit shared-memory address s (a compile-time
// offset added to s folds into the instruction), and to a generic pointer.
__device__ __forceinline__ void cp_async16(std::uint32_t s, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  cp_async16(static_cast<std::uint32_t>(__cvta_generic_to_shared(smem)), gmem);
}
// 16 bytes into shared memory of which the first `src_bytes` (0..16) come
// from global memory and the rest are zero (gmem must be 16-byte aligned).
__device__ __forceinline__ void cp_async16_zfill(void* smem, const void* gmem, int src_bytes) {
  const auto s = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(s), "l"(gmem), "r"(src_bytes) : "memory");
}
// 4 bytes (scale codes) into shared memory; src 4-byte aligned.
__device__ __forceinline__ void cp_async4(std::uint32_t s, const void* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem) {
  cp_async4(static_cast<std::uint32_t>(__cvta_generic_to_shared(smem)), gmem);
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
// Ordinary and cp.async writes to shared memory, then read by wgmma (async proxy).
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// 16 bytes of a row into shared memory: `valid` (<= 16, may be <= 0) bytes
// from src, zeros after them. vec: src is 16-byte aligned (cp.async; with
// nothing valid it reads from `safe`, an aligned in-bounds address, none of
// whose bytes are used); otherwise byte loads (ragged leading dimensions).
__device__ __forceinline__ void load16(void* smem, const std::uint8_t* src, std::int64_t valid, bool vec,
                                       const void* safe) {
  const int v = valid <= 0 ? 0 : valid >= 16 ? 16 : static_cast<int>(valid);
  if (vec) {
    cp_async16_zfill(smem, v > 0 ? static_cast<const void*>(src) : safe, v);
    return;
  }
  std::uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
  for (int i = 0; i < 16; ++i)
    if (i < v) w[i >> 2] |= std::uint32_t{src[i]} << (8 * (i & 3));
  *reinterpret_cast<uint4*>(smem) = make_uint4(w[0], w[1], w[2], w[3]);
}

#ifdef MXK_GEMM_HAVE_WGMMA
// Programmatic dependent launch (PTX ISA 9.7.13.13, griddepcontrol; the
// kernels launched by launch_smem<..., true>): pdl_trigger lets the next
// kernel of the stream, if it was launched with the attribute, start its
// blocks once every block of this grid has triggered (they still wait for
// free SM resources); pdl_wait blocks the thread until the grids this one
// depends on have completed and their memory is visible (at once without a
// programmatic predecessor). A kernel calls pdl_wait before its first global
// memory access; only shared-memory set-up may come before it.
__device__ __forceinline__ void pdl_trigger() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
__device__ __forceinline__ void pdl_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }
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

// The 4 scale codes of row r, k-blocks kb4 .. kb4 + 3 (kb4 a multiple of 4),
// into a shared-memory word (byte j = k-block kb4 + j). vec: those 4 bytes
// are one aligned word of the buffer (tcgen05, or dense with nkb % 4 == 0;
// 4-byte aligned base), copied by cp.async; otherwise byte loads (codes past
// nkb are 0 there; they meet only k-blocks past K).
__device__ __forceinline__ void load_codes4(std::uint32_t* smem, const std::uint8_t* sc, bool tcgen05, bool vec,
                                            std::int64_t r, std::int64_t kb4, std::int64_t nkb) {
  if (vec) {
    cp_async4(smem, sc + scale_off(tcgen05, r, kb4, nkb));
    return;
  }
  std::uint32_t w = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (kb4 + j < nkb) w |= std::uint32_t{sc[scale_off(tcgen05, r, kb4 + j, nkb)]} << (8 * j);
  *smem = w;
}

// ---- MXFP4 -> bf16 widening, 32 elements at a time (C11 w4a16) -------------
// For each packed byte (low nibble = even k) one bf16x2 word. The e2m1 code
// s|E|m is first placed as the bf16 pattern s<<15 | E<<7 | m<<6, which is
// exactly code * 2^-126 (E = 0, m = 1 is the subnormal 2^-127 = 0.5 * 2^-126),
// then multiplied by 2^126 (exact) and by 2^(e-127) (bf16 multiplies with
// subnormals, round to nearest: exact in range, +-Inf beyond it, NaN for
// e = 0xff; a zero code stays a signed zero) - C11's widening bit for bit.
__device__ __forceinline__ std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
  std::uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
  return d;
}
#ifdef MXK_GEMM_HAVE_WGMMA
__device__ __forceinline__ std::uint32_t mul_bf16x2(std::uint32_t a, std::uint32_t b) {
  std::uint32_t d;
  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
#endif
// bf16x2 of 2^(e-127) (e = 0: the subnormal 2^-127; 0xff: NaN).
__device__ __forceinline__ std::uint32_t ue8m0_bf16x2(std::uint32_t e) {
  const std::uint32_t h = e == 0xFF ? 0x7FC0u : e == 0 ? 0x0040u : (e << 7);
  return h | (h << 16);
}
#ifdef MXK_GEMM_HAVE_WGMMA
// Widens the 16 packed bytes `raw` (32 elements, one scale `f2` =
// ue8m0_bf16x2(code)); elements at or past `valid` are +0 (C11's padding of
// B). store(q, v) receives elements 8q .. 8q + 7 (word i of v = elements
// 8q + 2i, 8q + 2i + 1).
template <class Store>
__device__ __forceinline__ void widen32(const uint4 raw, std::uint32_t f2, std::int64_t valid, Store&& store) {
  const std::uint32_t x[4] = {raw.x, raw.y, raw.z, raw.w};
  constexpr std::uint32_t kTwo126 = 0x7E807E80u;  // bf16x2 of 2^126
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const std::uint32_t hi = x[q] & 0xF0F0F0F0u, lo = (x[q] << 4) & 0xF0F0F0F0u;
    std::uint32_t o[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      // byte 1 = lo.byte i (low nibble on top), byte 3 = hi.byte i (high nibble on top)
      const std::uint32_t t = prmt(lo, hi, static_cast<std::uint32_t>(i | (i << 4) | ((4 + i) << 8) | ((4 + i) << 12)));
      const std::uint32_t pat = (t & 0x80008000u) | ((t >> 6) & 0x01C001C0u);
      o[i] = mul_bf16x2(mul_bf16x2(pat, kTwo126), f2);
      const int e = 8 * q + 2 * i;  // element of the low half
      if (valid < 32) o[i] &= (e + 1 < valid) ? 0xFFFFFFFFu : (e < valid) ? 0x0000FFFFu : 0u;
    }
    store(q, make_uint4(o[0], o[1], o[2], o[3]));
  }
}
#endif

// ---- the accumulator fragment (C10 wgmma D map) and the shared epilogue -----
// Value i of a thread of warp w (lane l) of a warpgroup whose tile starts at
// (r0, c0): row r0 + 16w + l/4 + 8((i>>1)&1), column c0 + 8(i>>2) + 2(l%4) + (i&1).
struct FragPos {
  std::int64_t row, col;  // of value 0
  __device__ __forceinline__ FragPos(std::int64_t r0, std::int64_t c0) {
    const int t = static_cast<int>(threadIdx.x & 127), w = t >> 5, l = t & 31;
    row = r0 + 16 * w + (l >> 2);
    col = c0 + 2 * (l & 3);
  }
  __device__ __forceinline__ std::int64_t r(int i) const { return row + 8 * ((i >> 1) & 1); }
  __device__ __forceinline__ std::int64_t c(int i) const { return col + 8 * (i >> 2) + (i & 1); }
};

// A +0 in global memory (frag_init reads it for elements without C).
static __device__ const float kZeroF32 = 0.0f;

// acc = C (or +0) for the fragment's in-range elements. Every value is one
// unconditional load (from C or from kZeroF32): ptxas
// serializes all wgmmas (C7515) when the accumulators are defined in branches.
template <int R>
__device__ __forceinline__ void frag_init(float (&acc)[R], const FragPos& f, const float* c, std::int64_t m,
                                          std::int64_t n) {
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const float* src = (c != nullptr && f.r(i) < m && f.c(i) < n) ? c + f.r(i) * n + f.c(i) : &kZeroF32;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(acc[i]) : "l"(src));
  }
}

// D = acc rounded to fp32 or bf16 (C11), in-range elements only; column
// pairs are stored together where N is even (the pair is then aligned).
template <bool BF16, int R>
__device__ __forceinline__ void frag_store(const float (&acc)[R], const FragPos& f, void* d, std::int64_t m,
                                           std::int64_t n) {
#pragma unroll
  for (int i = 0; i < R; i += 2) {
    const std::int64_t r = f.r(i), c = f.c(i);
    if (r >= m) continue;
    const std::int64_t o = r * n + c;
    if ((n & 1) == 0 && c + 1 < n) {
      if constexpr (BF16) {
        const std::uint32_t v = out_bf16(acc[i]) | (std::uint32_t{out_bf16(acc[i + 1])} << 16);
        *reinterpret_cast<std::uint32_t*>(static_cast<std::uint16_t*>(d) + o) = v;
      } else {
        *reinterpret_cast<uint2*>(static_cast<std::uint32_t*>(d) + o) = make_uint2(out_f32(acc[i]), out_f32(acc[i + 1]));
      }
      continue;
    }
#pragma unroll
    for (int e = 0; e < 2; ++e)
      if (c + e < n) {
        if constexpr (BF16) {
          static_cast<std::uint16_t*>(d)[o + e] = out_bf16(acc[i + e]);
        } else {
          static_cast<std::uint32_t*>(d)[o + e] = out_f32(acc[i + e]);
        }
      }
  }
}

// Output tile of this block for a 1-D grid of mt x nt tiles, in groups of
// `group` tile rows (consecutive blocks share A rows and B columns in L2).
__device__ __forceinline__ void tile_of_block(std::int64_t mt, std::int64_t nt, int group, std::int64_t& tm,
                                              std::int64_t& tn) {
  const std::int64_t id = blockIdx.x, per = group * nt, g = id / per, first = g * group;
  const std::int64_t gs = mt - first < group ? mt - first : group, in = id % per;
  tm = first + in % gs;
  tn = in / gs;
}

}  // namespace mxk::gemm
