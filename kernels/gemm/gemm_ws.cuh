// gemm_ws.cuh - the pipeline machinery of the warp-specialized (M > 64) C11
// GEMM kernels on sm_90a: mbarriers (PTX ISA 9.0, 9.7.13.15), the 2-D TMA
// load `cp.async.bulk.tensor` with mbarrier completion (9.7.9.25), shared-
// memory descriptors for the 128-byte swizzle that TMA writes (9.7.15.5.1),
// and the host-side tensor map (cuTensorMapEncodeTiled, reached through
// cudaGetDriverEntryPointByVersion: no -lcuda link).
//
// The roles: a producer warpgroup fills a ring of ST stages (TMA for the
// operands that need no conversion; generic stores + fence.proxy.async for
// what it computes), each stage guarded by a `full` barrier (producer ->
// consumers) and an `empty` barrier (consumers -> producer); consumer
// warpgroups wait on `full`, issue wgmma, and arrive on `empty` once the
// wgmmas reading the stage are complete.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "gemm/gemm_common.cuh"
#include "mx/error.hpp"
#include "mxk/gemm.hpp"

namespace mxk::gemm {

// ---- device: mbarriers, TMA, setmaxnreg ---------------------------------------
__device__ __forceinline__ std::uint32_t smem_u32(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(std::uint64_t* b, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(b)), "r"(count) : "memory");
}
// Makes the initialized barriers visible to the async proxy (TMA) as well.
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void mbar_arrive(std::uint64_t* b) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem_u32(b)) : "memory");
}
// One arrival that also announces `bytes` of TMA transactions on the barrier.
__device__ __forceinline__ void mbar_arrive_tx(std::uint64_t* b, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(b)), "r"(bytes)
               : "memory");
}
// Waits until the phase with parity `parity` of the barrier has completed.
__device__ __forceinline__ void mbar_wait(std::uint64_t* b, std::uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nMXK_WAIT:\n"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra MXK_WAIT;\n}\n" ::"r"(smem_u32(b)),
      "r"(parity)
      : "memory");
}
// As mbar_wait, with a suspend-time hint (PTX ISA 9.7.13.15.16): the thread
// may sleep until the phase completes or about 10 ms pass, instead of
// returning at once and re-issuing the try_wait.
__device__ __forceinline__ void mbar_wait_hint(std::uint64_t* b, std::uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nMXK_WAITH:\n"
      "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 done, [%0], %1, %2;\n"
      "@!done bra MXK_WAITH;\n}\n" ::"r"(smem_u32(b)),
      "r"(parity), "n"(10000000)
      : "memory");
}
// 2-D TMA tile load: box at element coordinates (x = inner, y = row) into
// shared memory, completion counted in bytes on `bar`; out-of-range elements
// are written as zeros.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, std::int32_t x, std::int32_t y,
                                            std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_u32(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}
// Hands registers back (producer) or takes them (consumers): every thread of
// the warpgroup executes it (PTX ISA 9.7.19.5, sm_90a).
template <int R>
__device__ __forceinline__ void regs_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R)); }
template <int R>
__device__ __forceinline__ void regs_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R)); }
// Descriptor of a K-major tile written by TMA with the 128-byte swizzle: rows
// of 128 bytes, 8-row atoms 1024 bytes apart (SBO), the atom-aligned tile
// base 1024-byte aligned; the k-th 32-byte step of a row is at +32 k (the
// hardware applies the swizzle to the final address).
__device__ __forceinline__ std::uint64_t smem_desc_sw128(const void* p) {
  std::uint64_t d = static_cast<std::uint64_t>((smem_u32(p) & 0x3FFFF) >> 4);
  d |= std::uint64_t{1} << 16;          // LBO (unused for swizzled K-major)
  d |= std::uint64_t{1024 >> 4} << 32;  // SBO: 8 rows of 128 bytes
  d |= std::uint64_t{1} << 62;          // 128-byte swizzle
  return d;
}

// A descriptor with `add16` (bytes / 16) added to its address field (bits
// 0-13) and nothing else changed: the callers stay inside shared memory, so
// the field does not carry into the leading-offset bits.
__device__ __forceinline__ std::uint64_t desc_add(std::uint64_t d, std::uint32_t add16) {
  std::uint32_t lo, hi;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(d));
  lo += add16;
  asm("mov.b64 %0, {%1, %2};" : "=l"(d) : "r"(lo), "r"(hi));
  return d;
}
// Orders later uses of r after the preceding volatile asm (a wgmma wait)
// without a memory clobber (loads of other data may move across it).
__device__ __forceinline__ void pin_reg(float& r) { asm volatile("" : "+f"(r)); }

// ---- host: tensor maps --------------------------------------------------------
// A row-major [rows][cols] matrix of `elem_bytes`-byte elements (row pitch
// `ld_bytes`) as a 2-D TMA map with boxes of box_cols x box_rows, zero fill
// out of range: 128-byte swizzle (box_cols * elem_bytes == 128: one swizzle
// span), or with swizzle128 false none (box_cols * elem_bytes a multiple of 16,
// e.g. the packed bytes of B in gemm_w4a16_rs.cu). False where TMA cannot read it (base not 16-byte aligned, pitch not a
// multiple of 16, sizes out of range) or the driver has no entry point: the
// caller then uses a kernel without TMA.
inline bool make_tma_map_2d(CUtensorMap* map, const void* base, std::uint32_t elem_bytes, std::int64_t rows,
                            std::int64_t cols, std::int64_t ld_bytes, std::uint32_t box_cols, std::uint32_t box_rows,
                            bool swizzle128 = true) {
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                              const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static const Encode encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) !=
            cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      fn = nullptr;
    return reinterpret_cast<Encode>(fn);
  }();
  if (encode == nullptr || reinterpret_cast<std::uintptr_t>(base) % 16 != 0 || ld_bytes % 16 != 0 ||
      ld_bytes >= (std::int64_t{1} << 40) || rows <= 0 || cols <= 0 || rows > 0x7FFFFFFF || cols > 0x7FFFFFFF)
    return false;
  const CUtensorMapDataType type = elem_bytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : CU_TENSOR_MAP_DATA_TYPE_UINT16;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld_bytes)};
  const cuuint32_t box[2] = {box_cols, box_rows}, estr[2] = {1, 1};
  return encode(map, type, 2, const_cast<void*>(base), dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The warp-specialized w4a16 kernel for M > 64 (gemm_w4a16_ws.cu); false
// (nothing launched) where A cannot be read by TMA.
bool w4a16_ws_launch(const W4a16GemmArgs& x, cudaStream_t stream);
// Its BM = 64 forms for M <= 64 (decode_cols `code` = 6000 + BN with one
// producer warpgroup, 6100 + BN with two, 6300 + BN with four; BN 16, 32, 56, 64, 128;
// 10006356: 6356 with two k-tiles of wgmma in flight per consumer; + TK * 100000000:
// TK k-tiles per consumer round trip, gemm_w4a16_ws.cu lists them); false
// (nothing launched) where A cannot be read by TMA; throws InvalidArgument for another code or M > 64.
bool w4a16_ws_decode_launch(const W4a16GemmArgs& x, int code, cudaStream_t stream);
// The warp-specialized mxfp8 kernel for M > 64 (gemm_mxfp8_ws.cu); false
// (nothing launched) where A or B cannot be read by TMA.
bool mxfp8_ws_launch(const Mxfp8GemmArgs& x, cudaStream_t stream);

}  // namespace mxk::gemm
