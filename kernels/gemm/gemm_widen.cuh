// gemm_widen.cuh - device and host helpers of the register-A w4a16 GEMM
// (gemm_w4a16_rs.cu, sm_90a): MXFP4 widened by the consumer threads straight
// into the wgmma A fragment, the register-A wgmma forms it issues, the
// cp.async -> mbarrier hand-over for the scale codes, and a 2-D TMA map of a
// byte matrix without swizzle (packed B).
//
// wgmma with A from registers (PTX ISA 9.0, 9.7.15.5: `d, a, b-desc,
// scale-d, imm-scale-a, imm-scale-b, imm-trans-b`): A is the m64k16 bf16
// fragment, four .b32 registers per thread (9.7.15.5.1, reference/SPEC.md
// C10): warp w of the warpgroup holds rows 16w .. 16w + 15; lane l (g = l / 4,
// c = l % 4) holds a0a1 = (row g, k 2c, 2c + 1), a2a3 = (row g + 8, the same
// k), a4a5 = (row g, k 2c + 8, 2c + 9), a6a7 = (row g + 8, k 2c + 8, 2c + 9);
// B K-major from a shared-memory descriptor; always accumulates, scales +1.
// The forms (WgmmaRs<128>, <256>) are generated into wgmma_rs_ops.cuh.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/gemm_common.cuh"
#include "gemm/wgmma_rs_ops.cuh"
#include "mxk/gemm.hpp"

namespace mxk::gemm {

#ifdef MXK_GEMM_HAVE_WGMMA
// Byte c (0..3, a register: the lane's k pair) of the packed word w (4 bytes,
// 8 e2m1 values, low nibble = even k) widened to bf16x2 and scaled by f2 =
// ue8m0_bf16x2(code): the widening of widen32 (gemm_common.cuh) for one byte,
// C11's e2m1 * 2^(e-127) bit for bit (exact in range, +-Inf beyond it, NaN
// for a 0xff scale, signed zeros kept). sel = c | c << 4 | (4 + c) << 8 |
// (4 + c) << 12.
__device__ __forceinline__ std::uint32_t widen_byte(std::uint32_t w, std::uint32_t sel, std::uint32_t f2) {
  constexpr std::uint32_t kTwo126 = 0x7E807E80u;  // bf16x2 of 2^126
  const std::uint32_t hi = w & 0xF0F0F0F0u, lo = (w << 4) & 0xF0F0F0F0u;
  const std::uint32_t t = prmt(lo, hi, sel);  // byte 1 = lo.byte c, byte 3 = hi.byte c
  const std::uint32_t pat = (t & 0x80008000u) | ((t >> 6) & 0x01C001C0u);
  return mul_bf16x2(mul_bf16x2(pat, kTwo126), f2);
}

// The A fragments of two k16 steps (one 32-element k-block) for rows r and
// r + 8 of the thread: x0, x1 = the k-block's 16 packed bytes of row r and of
// row r + 8 (word q = k 8q .. 8q + 7), f0, f1 their scales. f[0..3]: step 0
// (k 0..15), f[4..7]: step 1 (k 16..31). valid < 32 (the k-block reaching
// past K): elements at or past `valid` are +0 (C11's padding of B, never a
// widened value).
__device__ __forceinline__ void widen_frag(const uint4 x0, const uint4 x1, std::uint32_t f0, std::uint32_t f1,
                                           std::uint32_t sel, int c, int valid, std::uint32_t (&f)[8]) {
  const std::uint32_t w0[4] = {x0.x, x0.y, x0.z, x0.w}, w1[4] = {x1.x, x1.y, x1.z, x1.w};
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    std::uint32_t o0 = widen_byte(w0[q], sel, f0), o1 = widen_byte(w1[q], sel, f1);
    if (valid < 32) {
      const int k = 8 * q + 2 * c;
      const std::uint32_t m = k + 1 < valid ? 0xFFFFFFFFu : k < valid ? 0x0000FFFFu : 0u;
      o0 &= m;
      o1 &= m;
    }
    // q = 2t + u: step t, a0a1 / a2a3 (u = 0) or a4a5 / a6a7 (u = 1)
    f[4 * (q >> 1) + 2 * (q & 1)] = o0;
    f[4 * (q >> 1) + 2 * (q & 1) + 1] = o1;
  }
}
#endif

// Makes `bar` track this thread's earlier cp.async copies: the pending count
// is raised by one now and lowered when they have landed (PTX ISA 9.0,
// 9.7.9.8.3, without .noinc), so the phase cannot complete before they land;
// the thread still arrives itself (mbar_arrive) as for its ordinary stores.
__device__ __forceinline__ void cp_async_mbar_arrive(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.shared::cta.b64 [%0];" ::"r"(
                   static_cast<std::uint32_t>(__cvta_generic_to_shared(bar)))
               : "memory");
}

// The register-A w4a16 kernel for M > 64 (gemm_w4a16_rs.cu); false (nothing
// launched) where TMA cannot read A or packed B.
bool w4a16_rega_launch(const W4a16GemmArgs& x, cudaStream_t stream);

}  // namespace mxk::gemm
