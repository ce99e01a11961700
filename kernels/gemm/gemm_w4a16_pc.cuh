// gemm_w4a16_pc.cuh - what the w4a16 decode kernels with producer warps share
// (gemm_w4a16_mma.cu; also the wgmma-consumer kernel of branch wip/wg, run 11,
// measured slower and not merged): the parameters, the copy of a k-tile
// of packed B, its scale codes and A into a shared-memory stage (cp.async or
// byte loads), and the producer's widening of a k-tile (C11: MXFP4 -> bf16 by
// table, exact) into the consumer's operand layout. Templated on the kernel's
// shared-memory layout L, which names: KT, STEPS, KB, CW, THREADS, LOADERS,
// ROWS, TOK, RS (packed row stride), PB (packed B in a stage), SC (scale
// words), STAB (scale table), BSTEP / ASTEP / B_PT / A_PT (a loader's rows),
// a_dst(row, chunk) (byte of 16-byte chunk `chunk` of row `row` of A in a
// stage), a_step(i) (offset of row + i ASTEP from row) and
// store_widened(stage, tile, step, lane, a[4]) (where the widened fragment of
// a lane goes). Moved from gemm_w4a16_mma.cu, behaviour unchanged.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_ws.cuh"  // smem_u32

namespace mxk::gemm {
namespace {

using MmaParams = W4aParams;  // gemm_host.hpp

constexpr int cmin(int a, int b) { return a < b ? a : b; }

#ifdef MXK_GEMM_HAVE_WGMMA
__device__ __forceinline__ std::uint32_t e2m1_bf16(std::uint32_t c) { return e2m1_f32_bits(c) >> 16; }

// The widening table's word for packed byte `byte` (lut_a: the shared-memory
// address of this lane's copy): one LEA and one LDS (the pointer form let the
// compiler split the lane offset out of the base: a multiply, an OR and an add).
__device__ __forceinline__ std::uint32_t lut_word(std::uint32_t lut_a, std::uint32_t byte) {
  std::uint32_t v;
  asm("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(lut_a + (byte << 7)));
  return v;
}

// The same word for byte c (0 or 1, a compile-time index) of x: the byte picked by a PRMT (the other
// bytes zero), the address by one multiply-add, written out so that ptxas keeps the two instructions.
__device__ __forceinline__ std::uint32_t lut_at(std::uint32_t lut_a, std::uint32_t x, int c) {
  std::uint32_t v;
  if (c == 0)
    asm("{\n\t.reg .b32 i;\n\tprmt.b32 i, %1, 0, 0x4440;\n\tmad.lo.u32 i, i, 128, %2;\n\tld.shared.u32 %0, [i];\n\t}"
        : "=r"(v)
        : "r"(x), "r"(lut_a));
  else
    asm("{\n\t.reg .b32 i;\n\tprmt.b32 i, %1, 0, 0x4441;\n\tmad.lo.u32 i, i, 128, %2;\n\tld.shared.u32 %0, [i];\n\t}"
        : "=r"(v)
        : "r"(x), "r"(lut_a));
  return v;
}

// What loader thread lt copies of every k-tile, fixed for the block: B rows
// rb + i BSTEP (16 bytes at 16 (lt % 8), one k-block), A rows ra + i ASTEP (8
// elements at 8 (lt % 32)); vb, va: rows inside N and M. Pointers are formed
// for valid rows only.
struct MmaLoader {
  const std::uint8_t* b;
  const std::uint16_t* a;
  std::int64_t bstep, astep, n0;
  int rb, ra, vb, va, db, da, cb, ca;
};

template <class L>
__device__ __forceinline__ MmaLoader mma_loader(const MmaParams& p, std::int64_t m0, std::int64_t n0, int lt) {
  MmaLoader q;
  q.n0 = n0;
  q.vb = static_cast<int>(p.n - n0 < L::ROWS ? p.n - n0 : L::ROWS);
  q.va = static_cast<int>(p.m - m0 < L::TOK ? p.m - m0 : L::TOK);
  q.rb = lt >> 3;
  q.ra = lt >> 5;
  q.cb = lt & 7;
  q.ca = lt & 31;
  q.b = q.rb < q.vb ? p.b + (n0 + q.rb) * p.ldb + 16 * q.cb : p.b;
  q.a = q.ra < q.va ? p.a + (m0 + q.ra) * p.lda + 8 * q.ca : p.a;
  q.bstep = L::BSTEP * p.ldb;
  q.astep = L::ASTEP * p.lda;
  q.db = L::PB + q.rb * L::RS + 16 * q.cb;
  q.da = L::a_dst(q.ra, q.ca);
  return q;
}

// The copies of k-tile kt into stage st by loader thread lt. Whole k-tiles
// with aligned rows: cp.async only; otherwise load16 (zero-filled past K).
template <class L>
__device__ __forceinline__ void mma_load(std::uint8_t* st, const MmaParams& p, const MmaLoader& q, std::int64_t kt,
                                         int lt) {
  const std::int64_t k0 = kt * L::KT;
  if (p.vec_a && p.vec_b && k0 + L::KT <= p.k) {  // whole k-tile, aligned rows: compact cp.async loops
#pragma unroll
    for (int i = 0; i < L::B_PT; ++i)
      if (q.rb + i * L::BSTEP < q.vb) cp_async16(st + q.db + i * L::BSTEP * L::RS, q.b + i * q.bstep + k0 / 2);
#pragma unroll
    for (int i = 0; i < L::A_PT; ++i)
      if (q.ra + i * L::ASTEP < q.va) cp_async16(st + q.da + L::a_step(i), q.a + i * q.astep + k0);
  } else {  // the last k-tile or unaligned rows, not unrolled
    const std::int64_t kb = k0 + 32 * q.cb, ka = k0 + 8 * q.ca;
#pragma unroll 1
    for (int i = 0; i < L::B_PT; ++i)
      if (q.rb + i * L::BSTEP < q.vb)
        load16(st + q.db + i * L::BSTEP * L::RS, q.b + i * q.bstep + k0 / 2, (p.k - kb + 1) / 2, p.vec_b, p.b);
#pragma unroll 1
    for (int i = 0; i < L::A_PT; ++i)
      if (q.ra + i * L::ASTEP < q.va)
        load16(st + q.da + L::a_step(i), reinterpret_cast<const std::uint8_t*>(q.a + i * q.astep + k0),
               2 * (p.k - ka), p.vec_a, p.a);
  }
  // scale word u % CW (k-blocks 8 kt + 4 (u % CW) ..) of row u / CW: one per loader (a second pass where
  // ROWS CW > LOADERS)
  for (int u = lt; u < L::ROWS * L::CW; u += L::LOADERS) {
    const int r = u / L::CW, wi = u % L::CW;
    const std::int64_t kb4 = kt * L::KB + 4 * wi;
    if (r < q.vb && kb4 < p.nkb)
      load_codes4(reinterpret_cast<std::uint32_t*>(st + L::SC) + u, p.sb, p.tc_b, p.vsc_b, q.n0 + r, kb4, p.nkb);
    if constexpr (L::ROWS * L::CW <= L::LOADERS) break;
  }
}

// What loader thread lt copies of k-tile 0 of a block whose rows of B are all inside N (rows 16-byte
// aligned, scale words aligned): the same chunks as MmaLoader, as byte pointers (k-tile kt at + kt KT / 2,
// + kt 2 KT, + kt SSTEP), byte strides between a loader's rows, and offsets in a stage; rows of A past M
// (va of them inside) are not copied. Only for k-tiles inside K (every k-block's scale code of them inside
// nkb).
struct MmaFast {
  const std::uint8_t *b, *a, *s;
  std::int64_t bstep, astep, sstep;
  std::uint32_t db, da, ds;
  int va;
  bool on;     // B whole and every operand aligned: the k-tiles inside K take this path
  bool afull;  // every row of A inside M (no test per chunk)
};

template <class L>
__device__ __forceinline__ MmaFast mma_fast(const MmaParams& p, const MmaLoader& q, int lt) {
  MmaFast f;
  f.on = p.vec_a && p.vec_b && p.vsc_b && q.vb == L::ROWS;
  f.afull = q.va == L::TOK;
  f.va = q.va;
  f.b = q.b;
  f.a = reinterpret_cast<const std::uint8_t*>(q.a);
  f.bstep = L::BSTEP * p.ldb;
  f.astep = 2 * L::ASTEP * p.lda;
  const int r = lt / L::CW, wi = lt % L::CW;  // scale word: row r, k-blocks 4 wi .. 4 wi + 3 of the k-tile
  f.s = p.sb + (r < q.vb ? scale_off(p.tc_b, q.n0 + r, 4 * wi, p.nkb) : 0);
  f.sstep = p.tc_b ? 2 * 512 : L::KB;  // tcgen05: one 512-byte block per 4 k-blocks (of 128 rows)
  f.db = static_cast<std::uint32_t>(q.db);
  f.da = static_cast<std::uint32_t>(q.da);
  f.ds = static_cast<std::uint32_t>(L::SC + 4 * lt);
  return f;
}

// The copies of whole k-tile kt (inside K) into the stage at shared address st (f.on): one running
// pointer per operand, no bounds tests but the rows of A against M where not AFULL.
template <class L, bool AFULL>
__device__ __forceinline__ void mma_fast_load(std::uint32_t st, const MmaFast& f, std::int64_t kt, int lt) {
  const std::uint8_t* const b = f.b + kt * (L::KT / 2);
  std::int64_t o = 0;  // byte offset of the row (pointers formed for copied rows only)
#pragma unroll
  for (int i = 0; i < L::B_PT; ++i) {
    if (L::B_PT * L::BSTEP == L::ROWS || (lt >> 3) + i * L::BSTEP < L::ROWS)
      cp_async16(st + f.db + i * L::BSTEP * L::RS, b + o);
    o += f.bstep;
  }
  const std::uint8_t* const a = f.a + kt * (2 * L::KT);
  o = 0;
#pragma unroll
  for (int i = 0; i < L::A_PT; ++i) {
    if (AFULL ? L::A_PT * L::ASTEP == L::TOK || (lt >> 5) + i * L::ASTEP < L::TOK : (lt >> 5) + i * L::ASTEP < f.va)
      cp_async16(st + f.da + L::a_step(i), a + o);
    o += f.astep;
  }
  if (L::ROWS * L::CW == L::LOADERS || lt < L::ROWS * L::CW) cp_async4(st + f.ds, f.s + kt * f.sstep);
}

// The flat kernel's copies of whole k-tile kt into stage s by mma_fast_load where `fast` (kt < wtiles)
// and ON (cfg::W4Mma::PIPE & 1); false where the caller copies (mma_load).
template <class L, bool ON>
__device__ __forceinline__ bool mma_fast_tile(bool fast, std::uint8_t* stages, int s, const MmaFast& fq,
                                              std::int64_t kt, int tid) {
  if constexpr (ON) {
    if (fast && fq.afull)
      mma_fast_load<L, true>(smem_u32(stages + s * L::STAGE), fq, kt, tid);
    else if (fast)
      mma_fast_load<L, false>(smem_u32(stages + s * L::STAGE), fq, kt, tid);
    return fast;
  } else {
    (void)fast, (void)stages, (void)s, (void)fq, (void)kt, (void)tid;
    return false;
  }
}

// Zero the elements of a lane's widened A fragment (registers 0, 1: k and
// k + 1 of rows g, g + 8; registers 2, 3: k + 2, k + 3) at or past `valid`,
// the k-tile's elements inside K (C11: B past K is +0, masked after the
// multiply, never a widened value). k: the logical k of register 0's low half.
__device__ __forceinline__ void mask_past_k(std::uint32_t (&a)[4], int k, int valid) {
  const std::uint32_t m01 = k + 1 < valid ? 0xFFFFFFFFu : k < valid ? 0x0000FFFFu : 0u;
  const std::uint32_t m23 = k + 3 < valid ? 0xFFFFFFFFu : k + 2 < valid ? 0x0000FFFFu : 0u;
  a[0] &= m01;
  a[1] &= m01;
  a[2] &= m23;
  a[3] &= m23;
}

// 2^(e-127) as bf16x2 for the code of k-block j in a row's scale words (stab:
// this lane's copy of the scale table of SCOPY copies).
template <int SCOPY, int CW>
__device__ __forceinline__ std::uint32_t scale_f2(const std::uint32_t (&codes)[CW], int j, const std::uint8_t* stab) {
  return *reinterpret_cast<const std::uint32_t*>(stab + 4 * SCOPY * prmt(codes[j >> 2], 0u, 0x4440u | (j & 3)));
}

// Both scale words of rows `row` and row + 8 of the stage.
template <class L>
__device__ __forceinline__ void stage_codes(const std::uint8_t* st, int row, std::uint32_t (&c0)[L::CW],
                                            std::uint32_t (&c1)[L::CW]) {
#pragma unroll
  for (int i = 0; i < L::CW; ++i) {
    c0[i] = reinterpret_cast<const std::uint32_t*>(st + L::SC)[row * L::CW + i];
    c1[i] = reinterpret_cast<const std::uint32_t*>(st + L::SC)[(row + 8) * L::CW + i];
  }
}

// A producer lane widens the KT / 16 steps of the k-tile in stage st into
// the consumer's layout (L::store_widened; tile: rows 16 tile .. + 15), 8 steps at a
// time in three batches (the 32 packed bytes, their 32 table entries, the
// multiplies and stores) so that the loads of a batch overlap; every step
// and scale word at a compile-time index (no local memory). Byte r of a
// step: A fragment register r (rows g, g + 8, g, g + 8; bytes 2t, 2t, 2t + 1,
// 2t + 1 of the step's 8), as in widen_step.
template <class L, bool RAGGED>
__device__ __forceinline__ void pc_widen(std::uint8_t* st, const std::uint8_t* lut, const std::uint8_t* stab,
                                         int valid, int tile = 0) {
  constexpr int H = 8;
  const int l = static_cast<int>(threadIdx.x) & 31, g = l >> 2, t = l & 3;
  const int row = 16 * tile + g;
  const std::uint8_t* const b0 = st + L::PB + row * L::RS + 2 * t;
  const std::uint32_t lut_a = smem_u32(lut);
  std::uint32_t c0[L::CW], c1[L::CW];
  stage_codes<L>(st, row, c0, c1);
#pragma unroll
  for (int h = 0; h < L::STEPS; h += H) {
    std::uint32_t x[H][4], v[H][4], f[H / 2][2];
#pragma unroll
    for (int i = 0; i < H; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r) x[i][r] = b0[8 * (h + i) + (r & 1) * 8 * L::RS + (r >> 1)];
#pragma unroll
    for (int j = 0; j < H / 2; ++j) {
      f[j][0] = scale_f2<L::SCOPY>(c0, (h >> 1) + j, stab);
      f[j][1] = scale_f2<L::SCOPY>(c1, (h >> 1) + j, stab);
    }
#pragma unroll
    for (int i = 0; i < H; ++i)
#pragma unroll
      for (int r = 0; r < 4; ++r) v[i][r] = lut_word(lut_a, x[i][r]);
#pragma unroll
    for (int i = 0; i < H; ++i) {
      std::uint32_t a[4];
#pragma unroll
      for (int r = 0; r < 4; ++r) a[r] = mul_bf16x2(v[i][r], f[i >> 1][r & 1]);
      if constexpr (RAGGED) mask_past_k(a, 16 * (h + i) + 4 * t, valid);
      L::store_widened(st, tile, h + i, l, a);
    }
  }
}

// The widening table (entry (byte b, lane l) at 128 b + 4 l) and the scale
// table ((code e, copy c) at STAB + 4 SCOPY e + 4 c), by the block's L::THREADS.
template <class L>
__device__ __forceinline__ void pc_tables(std::uint8_t* smem) {
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll 1  // not unrolled: run once per block, its code fetched cold (less code, fewer misses)
  for (int i = tid; i < 256 * 8; i += L::THREADS) {  // 4 lanes of byte i / 8
    const std::uint32_t b = static_cast<std::uint32_t>(i >> 3), v = e2m1_bf16(b & 15u) | (e2m1_bf16(b >> 4) << 16);
    reinterpret_cast<uint4*>(smem)[i] = make_uint4(v, v, v, v);
  }
  constexpr int Q = L::SCOPY / 4;  // uint4 (4 copies) per code
#pragma unroll 1
  for (int i = tid; i < 256 * Q; i += L::THREADS) {  // 4 copies of code i / Q
    const std::uint32_t v = ue8m0_bf16x2(static_cast<std::uint32_t>(i / Q));
    reinterpret_cast<uint4*>(smem + L::STAB)[i] = make_uint4(v, v, v, v);
  }
}
#endif  // MXK_GEMM_HAVE_WGMMA

}  // namespace
}  // namespace mxk::gemm
