// gemm_w4a16_mma.cuh - the device side of the mma.sync w4a16 decode kernels
// (gemm_w4a16_mma.cu, which holds the kernels, the form switch and the
// launcher): their shared-memory layout (MmaLayout), one m16n8k16 step, the
// fragment fetch and widening of a k16 step, the producer/consumer chunk, the
// accumulator's start from C and its store, and the tables' fill. Moved out of
// gemm_w4a16_mma.cu unchanged (the sm_90a machine code of every kernel is
// byte-identical); the numerics and the forms are described there.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_w4a16_pc.cuh"
#include "gemm/gemm_ws.cuh"

namespace mxk::gemm {
namespace {

// Shared memory: the widening table (256 bytes x 32 lanes, 32 KB), the scale
// table (256 codes x SCOPY = 8 or 4 copies), with P producers 2 ST mbarriers, then ST stages
// of: packed B [ROWS][KT / 2] (rows RS bytes apart: 8 rows of a warp on
// different banks), its scale codes [ROWS][CW words], A [TOK][KT] bf16 (rows RA
// bytes apart, RA / 4 = 8 mod 32: a warp's 64-bit loads of 8 rows x 4 lanes
// cover every bank twice) and, with P producers, the widened k-tile ([step]
// [lane] A fragments, 16 bytes each). LOADERS threads copy a k-tile (every
// thread of the flat form; the one producer warp that owns it otherwise).
// Producer warp w owns the k-tiles w, w + P, .. and the stages w, w + P, ..
// (OWN of them; ST a multiple of P).
template <class C>
struct MmaLayout {
  static constexpr bool PC = C::P > 0;
  static constexpr int KT = C::KT, STEPS = KT / 16, KB = KT / 32, CW = KB / 4;
  static constexpr int WARPS = PC ? C::P + C::TG : C::TR * C::TG, THREADS = 32 * WARPS;
  static constexpr int LOADERS = PC ? 32 : THREADS;
  static constexpr int ROWS = 16 * C::TR, TOK = 8 * C::NT * C::TG;
  static constexpr int RS = KT / 2 + 16, RA = 2 * KT + 32;
  static constexpr int SC = ROWS * RS, ACT = SC + ROWS * CW * 4, WB = ACT + TOK * RA;
  static constexpr int STAGE = (WB + (PC ? STEPS * 512 : 0) + 127) / 128 * 128;
  // SCOPY copies of the scale table (lane l reads copy (l / 4) % SCOPY): 8, one per row of a warp's 8 (no
  // bank conflict); 4 (two rows per bank, 4 KB less) only where 8 would leave a producer form with four or
  // more producers fewer than two stages each and 4 does not (P = 5 with 16 tokens: 1012).
  static constexpr int STAB = 256 * 32 * 4, BARS8 = STAB + 256 * 8 * 4, BARS4 = STAB + 256 * 4 * 4;
  static constexpr bool TIGHT = PC && C::P >= 4 && (C::SMEM - BARS8 - 256) / STAGE < 2 * C::P &&
                                (C::SMEM - BARS4 - 256) / STAGE >= 2 * C::P;
  static constexpr int SCOPY = TIGHT ? 4 : 8;
  static constexpr int BARS = TIGHT ? BARS4 : BARS8, STAGES = BARS + (PC ? 256 : 0);
  static constexpr int FIT = cmin(PC ? 12 : C::STX > 0 ? C::STX : 8, (C::SMEM - STAGES) / STAGE);
  static constexpr int ST = PC ? FIT / C::P * C::P : FIT, OWN = PC ? ST / C::P : 1;
  static constexpr int BYTES = STAGES + ST * STAGE;
  static constexpr int BSTEP = LOADERS / 8, ASTEP = LOADERS / 32;  // rows between a loader's chunks
  static constexpr int B_PT = (ROWS + BSTEP - 1) / BSTEP, A_PT = (TOK + ASTEP - 1) / ASTEP;
  static constexpr int PB = 0;  // packed B at the start of a stage
  // Warp roles (warp w runs on SM sub-partition w % 4): the producers are
  // warps 0 .. P - 1 and the consumers P .., except that with one consumer and
  // P >= 4 producers the consumer is warp 3, alone on its sub-partition (the
  // producers two to a sub-partition on the other three).
  static constexpr bool ALONE = PC && C::TG == 1 && C::P >= 4;
  static_assert(!ALONE || C::P <= 7, "eight warps at most");
  // EARLY (OWN = 2 and P >= 4: each producer one k-tile of its own ahead): a
  // producer issues the copy of its next k-tile before it widens the current
  // one, not after (there the copy's latency was exposed once per own k-tile:
  // P = 6 only 5% faster than P = 3, long-scoreboard stalls per issue 0.97 vs
  // 0.16, ncu, bench/results/h100-dec/call1). Not for P <= 3: 814 (OWN 2) was
  // 3% slower with it (32 x 2048 x 7168: 21.84 / 21.75 us against main's
  // 21.18 / 21.22, h100-dec/call2). Run 15 (h100-e724, H200, two rounds, us,
  // branch wip/e724): forced for P = 2 it is slower still at 64 x 2048 x 7168
  // (724 34.72 / 33.74 against 45.14 / 43.06; 718 34.32 / 33.83 against
  // 45.89 / 45.98; 742 40.43 / 40.32 against 64.24 / 62.25), and 814 at
  // 32 x 2048 x 7168 20.57 / 20.48 against 20.92 / 20.74.
  static constexpr bool EARLY = PC && OWN == 2 && C::P >= 4;
  // PDL: launched as a programmatic dependent (launch_smem<..., true>; shared-memory set-up before
  // pdl_wait, the copies after it). Not for the flat forms of at most STX stages (two blocks per SM): the
  // next grid's early blocks share SMs with this one's, and the tables before the first copies cost them.
  // Run 15 (h100-pdl/call1, H100, same binary, us, PDL / not / cuBLAS bf16): 16 x 2048 x 7168 (1012) 15.09 /
  // 17.30 / 15.47; 64 x 7168 x 2048 (418) 14.75 / 17.20 / 13.36; 16 x 7168 x 2048 (30412) 13.20 / 12.51 /
  // 12.79, where main's order (copies first, no PDL) took 11.91 (run15-final).
  static constexpr bool PDL = PC || C::STX == 0;
  static_assert(!EARLY || ST == 2 * C::P, "two stages per producer");
  static __device__ __forceinline__ int producer_of(int w) {  // producer index of warp w, or -1
    if constexpr (ALONE) return w == 3 ? -1 : w < 3 ? w : w - 1;
    return w < C::P ? w : -1;
  }
  static __device__ __forceinline__ int consumer_of(int w) { return ALONE ? 0 : w - C::P; }
  // A row `row`, 16-byte chunk c at ACT + row RA + 16 c; the widened fragment
  // of step s of lane l at WB + 512 s + 16 l (gemm_w4a16_pc.cuh).
  static __device__ __forceinline__ int a_dst(int row, int c) { return ACT + row * RA + 16 * c; }
  static __device__ __forceinline__ int a_step(int i) { return i * ASTEP * RA; }
  static __device__ __forceinline__ void store_widened(std::uint8_t* st, int, int s, int l, const std::uint32_t (&a)[4]) {
    *reinterpret_cast<uint4*>(st + WB + s * 512 + 16 * l) = make_uint4(a[0], a[1], a[2], a[3]);
  }
  // A consumer's register ring: RING chunks of CH steps (fragments of B and
  // A), fetched RING - 1 chunks ahead (DEEP: 4 chunks of half the steps, the
  // loads 3 chunks ahead instead of 1, the same registers). With 6 producers
  // the shared-memory loads of a chunk outlast 8 dependent mmas (ncu source
  // counters of 1111, h100-dec/call2: the consumer's first use of a chunk
  // waits on the short scoreboard, the producers on `empty`); DEEP hides them
  // (5111 14.95 us against 1111 17.07 at 1 x 2048 x 7168), while with 3
  // producers it costs 4% (4811 17.82 against 811 17.15-17.32).
  static constexpr int CH = (C::NT <= 2 ? 8 : C::NT <= 4 ? 4 : 2) / (C::DEEP ? 2 : 1), NCH = STEPS / CH;
  static constexpr int RING = C::DEEP ? 4 : 2;
  static_assert(NCH % RING == 0 && RING - 1 <= NCH, "ring slots at compile-time indices");
  static_assert(KT % 128 == 0 && KB == 8, "k-tiles of 8 k-blocks (one 16-byte chunk per row and k-block)");
  static_assert(LOADERS % 32 == 0 && ROWS * CW <= LOADERS, "one scale word per loader");
  static_assert(!PC || C::TR == 1, "producer warps serve one weight tile");
  static_assert(PC || !C::DEEP, "DEEP: a consumer's ring");
  static_assert(!PC || C::STX == 0, "STX: flat forms only");
  static_assert(!PC || C::PIPE == 0, "PIPE: flat forms only");
  static_assert(B_PT * BSTEP >= ROWS && A_PT * ASTEP >= TOK && BSTEP * 8 == LOADERS && ASTEP * 32 == LOADERS,
                "chunks per loader");
  static_assert((PC ? OWN >= 2 && 2 * ST * 8 <= STAGES - BARS && NCH % 2 == 0 : ST >= 3) &&
                    BYTES <= 227 * 1024 && STAGES % 128 == 0,
                "shared memory");
};

#ifdef MXK_GEMM_HAVE_WGMMA

// d += a * b, one m16n8k16 bf16 step with an fp32 accumulator (PTX ISA 9.7.14).
__device__ __forceinline__ void mma_bf16(float (&d)[4], const std::uint32_t (&a)[4], uint2 b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
}



// The A fragment of k16 step s (of the stage) for this lane: b0 points at
// byte 2t of row g's packed k-tile, row g + 8 is RS bytes x 8 further; f0, f1
// their scales; lut_a: this lane's copy of the widening table (lut_word).
// Slots 2t, 2t + 1 take k 4t, 4t + 1 (byte 2t), slots 2t + 8, 2t + 9 take
// k 4t + 2, 4t + 3 (byte 2t + 1). RAGGED: elements at or past `valid` (of
// the k-tile) are +0.
// ADDR (C::PIPE & 2): each table address by lut_at (a PRMT and a multiply-add; from `x & 0xFF` and
// `x >> 8` ptxas made a shift, a mask and an add: 12 instructions per step instead of 8, run 16 pipe).
template <int RS, bool RAGGED, bool ADDR = false>
__device__ __forceinline__ void widen_step(std::uint32_t (&a)[4], const std::uint8_t* b0, int s, std::uint32_t f0,
                                           std::uint32_t f1, std::uint32_t lut_a, int t, int valid) {
  const std::uint32_t x0 = *reinterpret_cast<const std::uint16_t*>(b0 + 8 * s);
  const std::uint32_t x1 = *reinterpret_cast<const std::uint16_t*>(b0 + 8 * RS + 8 * s);
  auto widen = [&](std::uint32_t x, int c, std::uint32_t f2) {
    if constexpr (ADDR)
      return mul_bf16x2(lut_at(lut_a, x, c), f2);
    else
      return mul_bf16x2(lut_word(lut_a, c ? x >> 8 : x & 0xFFu), f2);
  };
  a[0] = widen(x0, 0, f0);
  a[1] = widen(x1, 0, f1);
  a[2] = widen(x0, 1, f0);
  a[3] = widen(x1, 1, f1);
  if constexpr (RAGGED) mask_past_k(a, 16 * s + 4 * t, valid);
}


// The flat form: the KT / 16 steps of one k-tile for this warp, widening and
// mma in the same warp (st: the stage, lut: this lane's copy of the widening
// table, stab: this row group's copy of the scale table).
template <class C, bool RAGGED>
__device__ __forceinline__ void mma_tile(const std::uint8_t* st, const std::uint8_t* lut, const std::uint8_t* stab,
                                         int valid, float (&acc)[C::NT][4]) {
  using L = MmaLayout<C>;
  const int l = static_cast<int>(threadIdx.x) & 31, w = static_cast<int>(threadIdx.x) >> 5, g = l >> 2, t = l & 3;
  const int row = 16 * (w % C::TR) + g, tok = 8 * C::NT * (w / C::TR) + g;
  const std::uint8_t* const b0 = st + row * L::RS + 2 * t;
  const std::uint8_t* const a0 = st + L::ACT + tok * L::RA + 8 * t;  // token g, k 4t .. 4t + 3 (+ 32 s, + 8 RA jn)
  std::uint32_t c0[L::CW], c1[L::CW];
  stage_codes<MmaLayout<C>>(st, row, c0, c1);
  const std::uint32_t lut_a = smem_u32(lut);
#pragma unroll
  for (int j = 0; j < L::KB; ++j) {  // k-block j: steps 2j, 2j + 1
    const std::uint32_t f0 = scale_f2<L::SCOPY>(c0, j, stab), f1 = scale_f2<L::SCOPY>(c1, j, stab);
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int s = 2 * j + u;
      std::uint32_t a[4];
      widen_step<L::RS, RAGGED, (C::PIPE & 2) != 0>(a, b0, s, f0, f1, lut_a, t, valid);
#pragma unroll
      for (int jn = 0; jn < C::NT; ++jn)
        mma_bf16(acc[jn], a, *reinterpret_cast<const uint2*>(a0 + jn * 8 * L::RA + 32 * s));
    }
  }
}


// A consumer lane's operands of CH steps: the widened B fragments and NT A
// fragments (token rows of its n8 tiles) per step.
template <class C>
struct PcChunk {
  uint4 b[MmaLayout<C>::CH];
  uint2 a[MmaLayout<C>::CH][C::NT];
};

// Chunk c of the k-tile in stage st: this lane's widened fragments at st + wo,
// its A fragments at st + ao (token row tok + g, k 4t .. 4t + 3).
template <class C>
__device__ __forceinline__ void pc_fetch(PcChunk<C>& x, const std::uint8_t* st, int wo, int ao, int c) {
  using L = MmaLayout<C>;
#pragma unroll
  for (int i = 0; i < L::CH; ++i) {
    const int s = c * L::CH + i;
    x.b[i] = *reinterpret_cast<const uint4*>(st + wo + s * 512);
#pragma unroll
    for (int jn = 0; jn < C::NT; ++jn)
      x.a[i][jn] = *reinterpret_cast<const uint2*>(st + ao + jn * 8 * L::RA + 32 * s);
  }
}

// The mma steps of one chunk, in increasing k (C11's chain order).
template <class C>
__device__ __forceinline__ void pc_run(const PcChunk<C>& x, float (&acc)[C::NT][4]) {
  using L = MmaLayout<C>;
#pragma unroll
  for (int i = 0; i < L::CH; ++i) {
    const std::uint32_t a[4] = {x.b[i].x, x.b[i].y, x.b[i].z, x.b[i].w};
#pragma unroll
    for (int jn = 0; jn < C::NT; ++jn) mma_bf16(acc[jn], a, x.a[i][jn]);
  }
}

// acc = C (or +0) and D = acc for the values of n8 tile jn: D[tok0 + 8 jn +
// 2t + (i & 1)][row0 + g + 8 (i >> 1)] (C10's m16n8k16 D map, transposed).
// Both run once per warp, their code fetched cold: without C the start is
// only zeros, and a whole tile (all 8 NT tokens and 16 rows inside D) is
// stored through two pointers (tokens 2t and 2t + 1 of n8 tile jn, stepped
// by 8 rows of D) with no per-element tests or 64-bit index products.
template <int NT>
__device__ __forceinline__ void mma_init(float (&acc)[NT][4], const MmaParams& p, std::int64_t row0, std::int64_t tok0) {
  const int l = static_cast<int>(threadIdx.x) & 31;
  if (p.c == nullptr) {
#pragma unroll
    for (int jn = 0; jn < NT; ++jn)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[jn][i] = 0.0f;
    return;
  }
#pragma unroll
  for (int jn = 0; jn < NT; ++jn)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t row = row0 + (l >> 2) + 8 * (i >> 1), tok = tok0 + 8 * jn + 2 * (l & 3) + (i & 1);
      acc[jn][i] = (tok < p.m && row < p.n) ? p.c[tok * p.n + row] : 0.0f;
    }
}

template <bool BF16, int NT>
__device__ __forceinline__ void mma_store(const float (&acc)[NT][4], const MmaParams& p, std::int64_t row0,
                                          std::int64_t tok0) {
  using E = std::conditional_t<BF16, std::uint16_t, std::uint32_t>;
  auto out = [](float v) -> E {
    if constexpr (BF16)
      return out_bf16(v);
    else
      return out_f32(v);
  };
  const int l = static_cast<int>(threadIdx.x) & 31;
  if (tok0 + 8 * NT <= p.m && row0 + 16 <= p.n) {  // a whole tile
    E* d0 = static_cast<E*>(p.d) + (tok0 + 2 * (l & 3)) * p.n + row0 + (l >> 2);
    E* d1 = d0 + p.n;
    const std::int64_t step = 8 * p.n;
#pragma unroll
    for (int jn = 0; jn < NT; ++jn) {
      d0[0] = out(acc[jn][0]);
      d1[0] = out(acc[jn][1]);
      d0[8] = out(acc[jn][2]);
      d1[8] = out(acc[jn][3]);
      if (jn + 1 < NT) {  // (no pointer past the tile)
        d0 += step;
        d1 += step;
      }
    }
    return;
  }
#pragma unroll
  for (int jn = 0; jn < NT; ++jn)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t row = row0 + (l >> 2) + 8 * (i >> 1), tok = tok0 + 8 * jn + 2 * (l & 3) + (i & 1);
      if (tok >= p.m || row >= p.n) continue;
      static_cast<E*>(p.d)[tok * p.n + row] = out(acc[jn][i]);
    }
}

// The tables (entry (byte b, lane l) at 128 b + 4 l; (code e, copy c) at
// 4 SCOPY e + 4 c), and zeros in the rows of A past M and of B past N in every
// stage (never loaded; they reach only elements of D that are not stored).
template <class C>
__device__ __forceinline__ void mma_prepare(std::uint8_t* smem, const MmaLoader& q) {
  using L = MmaLayout<C>;
  const int tid = static_cast<int>(threadIdx.x);
  pc_tables<L>(smem);
  if (q.va == L::TOK && q.vb == L::ROWS) return;  // a whole block: nothing to zero (and no code to fetch)
  std::uint8_t* const stages = smem + L::STAGES;
#pragma unroll 1
  for (int s = 0; s < L::ST; ++s) {
    std::uint8_t* const st = stages + s * L::STAGE;
#pragma unroll 1
    for (int i = tid; i < (L::TOK - q.va) * L::RA / 16; i += L::THREADS)
      reinterpret_cast<uint4*>(st + L::ACT + q.va * L::RA)[i] = make_uint4(0, 0, 0, 0);
#pragma unroll 1
    for (int i = tid; i < (L::ROWS - q.vb) * L::RS / 16; i += L::THREADS)
      reinterpret_cast<uint4*>(st + q.vb * L::RS)[i] = make_uint4(0, 0, 0, 0);
#pragma unroll 1
    for (int i = tid; i < (L::ROWS - q.vb) * L::CW; i += L::THREADS)
      reinterpret_cast<std::uint32_t*>(st + L::SC + q.vb * L::CW * 4)[i] = 0u;
  }
}
#endif  // MXK_GEMM_HAVE_WGMMA

}  // namespace
}  // namespace mxk::gemm
