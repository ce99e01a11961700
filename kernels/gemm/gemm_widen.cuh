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
// The forms below are written out by a generator like gen_wgmma.py's.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/gemm_common.cuh"
#include "mxk/gemm.hpp"

namespace mxk::gemm {

template <int N>
struct WgmmaRegA;

template <>
struct WgmmaRegA<128> {
  static __device__ __forceinline__ void bf16(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t db) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, {%64,%65,%66,%67}, %68, 1, 1, 1, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)
        : "memory");
  }
};

template <>
struct WgmmaRegA<256> {
  static __device__ __forceinline__ void bf16(float (&d)[128], const std::uint32_t (&a)[4], std::uint64_t db) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, {%128,%129,%130,%131}, %132, 1, 1, 1, 0;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)
        : "memory");
  }
};

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

// A row-major [rows][cols] byte matrix (row pitch ld_bytes) as a 2-D TMA map
// with boxes of box_cols x box_rows bytes, no swizzle (box_cols a multiple of
// 16), zero fill out of range. False where TMA cannot read it (base not 16-byte
// aligned, pitch not a multiple of 16, sizes out of range) or the driver has
// no entry point.
inline bool make_tma_map_bytes(CUtensorMap* map, const void* base, std::int64_t rows, std::int64_t cols,
                               std::int64_t ld_bytes, std::uint32_t box_cols, std::uint32_t box_rows) {
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
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld_bytes)};
  const cuuint32_t box[2] = {box_cols, box_rows}, estr[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(base), dims, strides, box, estr,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// The register-A w4a16 kernel for M > 64 (gemm_w4a16_rs.cu); false (nothing
// launched) where TMA cannot read A or packed B.
bool w4a16_rega_launch(const W4a16GemmArgs& x, cudaStream_t stream);

}  // namespace mxk::gemm
