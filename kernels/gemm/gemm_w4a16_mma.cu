// gemm_w4a16_mma.cu - the w4a16 GEMM for decode shapes (M <= 64) on the warp-
// level `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` (PTX ISA 9.0,
// 9.7.14), sm_90a, defined bit for bit by reference/SPEC.md C11 `w4a16`.
//
// Transposed, like gemm_w4a16_decode.cu: D^T = B * A^T. One warp owns 16 rows
// of B (the weights, the mma's M side, widened from MXFP4 in registers) and
// 8 NT rows of A (the activations, NT mmas of n = 8 per k16 step, each on its
// own accumulator). Each element of D is one fp32 chain of m16n8k16 steps in
// increasing k from C (or +0): no split-K, no hand-over. A block = TR weight
// tiles x TG token groups (one warp each), sharing one copy of every k-tile
// of packed B, its scale codes and A in shared memory (cp.async, ST stages,
// one __syncthreads per k-tile of KT = 256).
//
// Numerics: SPEC C9 fits mma.sync m16n8k16 bf16 on the H100 with the same
// parameters as wgmma m64nNk16 bf16 (group 16 with C, 25 bits, cut toward
// zero, h100_fitted_model gives the one parameter set for both), and C11's
// w4a16 model is that group model over K, 16 at a time. Within one group the
// model aligns every nonzero term to the largest exponent of the *set*, cuts
// each term on its own and sums the cut terms exactly; its special values are
// decided per group (any NaN, Inf * 0, Infs of both signs). So a group sum does
// not depend on the order of its 16 products, and the kernel may permute the
// k slots of a step, the same way in both operands: lane l (g = l / 4, t =
// l % 4) puts logical k 4t, 4t + 1 in the fragment slots 2t, 2t + 1 and
// 4t + 2, 4t + 3 in 2t + 8, 2t + 9 (C10's m16n8k16 maps). Then a lane's B
// fragment is 8 contiguous bytes of one row of A (one 64-bit load) and its
// weights are 2 contiguous packed bytes per row (the gate checks the bits).
//
// Widening (C11): one packed byte (k even in the low nibble) becomes one bf16x2
// word by a table lookup (the two e2m1 values, exact in bf16; 32 copies of the
// 256-entry table, one per bank) and one bf16x2 multiply by 2^(e-127) (also a
// table, 8 copies, one per row of the warp: exact in range, +-Inf beyond, NaN
// for 0xff, the subnormal 2^-127 for 0). B past K is +0 (masked after the
// multiply, never a widened value), A past K is zero-filled; the steps past
// ceil(K / 16) add only zero products (no-ops under the model).
//
// Two forms (cfg::W4Mma): flat (P = 0; every warp widens its own tile and runs
// its mmas: ~30 instructions per k16 step) and producer/consumer (P = 2..6
// producer warps, each owning every P-th k-tile: it copies the k-tile, widens
// it into the stage's widened buffer and hands it over on the stage's `full`
// mbarrier; TG consumer warps only fetch the fragments and run the mmas, and
// release the stage on its `empty` mbarrier). On the H100 the flat form with 4
// tiles per block and at most 3 stages (cfg::W4Mma::STX) is the fastest at N =
// 7168 (the launcher takes it there,
// cfg::w4_mma_on); at N = 2048 (128 tiles, one warp per SM sub-partition: the
// flat form is issue-bound) the producer forms (bench/results/gemm-decode.md,
// "run 11 pc"; for M <= 8 six producers with the consumer's loads 3 chunks
// ahead, "run 13 dec"; for 8 < M <= 16 five producers, their 10 stages of 16
// tokens fitting with 4 copies of the scale table, "run 14 w16b").
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_w4a16_decode.hpp"
#include "gemm/gemm_w4a16_pc.cuh"
#include "gemm/gemm_ws.cuh"
#include "mx/error.hpp"

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
  // more producers fewer than two stages each and 4 does not (P = 5 with 16 tokens: 1012, 5012).
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
  // 21.18 / 21.22, h100-dec/call2).
  static constexpr bool EARLY = PC && OWN == 2 && C::P >= 4;
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
  static_assert(C::CL == 0 || (PC && (C::CL == 1 || C::CL == 2 || C::CL == 4)), "bulk A / clusters of 2, 4: producer forms");
  static_assert(C::CL <= 1 || 3 * ST * 8 <= STAGES - BARS, "full, empty and cluster-empty barriers");
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
template <int RS, bool RAGGED>
__device__ __forceinline__ void widen_step(std::uint32_t (&a)[4], const std::uint8_t* b0, int s, std::uint32_t f0,
                                           std::uint32_t f1, std::uint32_t lut_a, int t, int valid) {
  const std::uint32_t x0 = *reinterpret_cast<const std::uint16_t*>(b0 + 8 * s);
  const std::uint32_t x1 = *reinterpret_cast<const std::uint16_t*>(b0 + 8 * RS + 8 * s);
  auto widen = [&](std::uint32_t byte, std::uint32_t f2) { return mul_bf16x2(lut_word(lut_a, byte), f2); };
  a[0] = widen(x0 & 0xFFu, f0);
  a[1] = widen(x1 & 0xFFu, f1);
  a[2] = widen(x0 >> 8, f0);
  a[3] = widen(x1 >> 8, f1);
  if constexpr (RAGGED) {
    const int k = 16 * s + 4 * t;
    const std::uint32_t m01 = k + 1 < valid ? 0xFFFFFFFFu : k < valid ? 0x0000FFFFu : 0u;
    const std::uint32_t m23 = k + 3 < valid ? 0xFFFFFFFFu : k + 2 < valid ? 0x0000FFFFu : 0u;
    a[0] &= m01;
    a[1] &= m01;
    a[2] &= m23;
    a[3] &= m23;
  }
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
      widen_step<L::RS, RAGGED>(a, b0, s, f0, f1, lut_a, t, valid);
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

// The flat form: TR x TG warps, each widening its own 16 rows and running NT
// mmas per step; all threads copy, one __syncthreads per k-tile.
template <class C, bool BF16>
__global__ void __launch_bounds__(32 * C::TR * C::TG, 1) w4a16_mma_kernel(const MmaParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = MmaLayout<C>;
  extern __shared__ __align__(128) std::uint8_t smem[];
  const int tid = static_cast<int>(threadIdx.x), l = tid & 31, w = tid >> 5;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x / p.mt) * L::ROWS;
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.x % p.mt) * L::TOK;
  const std::int64_t ntiles = (p.k + L::KT - 1) / L::KT;
  std::uint8_t* const stages = smem + L::STAGES;
  const MmaLoader q = mma_loader<MmaLayout<C>>(p, m0, n0, tid);
#pragma unroll 1  // one copy of the copy code (run once per block: every instruction of it is fetched cold)
  for (int s = 0; s < L::ST - 1; ++s) {
    if (s < ntiles) mma_load<MmaLayout<C>>(stages + s * L::STAGE, p, q, s, tid);
    cp_async_commit();
  }
  mma_prepare<C>(smem, q);
  const std::int64_t row0 = n0 + 16 * (w % C::TR), tok0 = m0 + 8 * C::NT * (w / C::TR);
  float acc[C::NT][4];
  mma_init<C::NT>(acc, p, row0, tok0);
  const std::uint8_t* const lut = smem + 4 * l;
  const std::uint8_t* const stab = smem + L::STAB + 4 * ((l >> 2) % L::SCOPY);
  int cur = 0, nxt = L::ST - 1;  // stages of tiles kt and kt + ST - 1
  for (std::int64_t kt = 0; kt < ntiles; ++kt) {
    cp_async_wait<L::ST - 2>();
    __syncthreads();  // tile kt landed (every thread's copies); every warp is done with stage (kt - 1) % ST
    if (kt + L::ST - 1 < ntiles) mma_load<MmaLayout<C>>(stages + nxt * L::STAGE, p, q, kt + L::ST - 1, tid);
    cp_async_commit();
    const std::uint8_t* const st = stages + cur * L::STAGE;
    const std::int64_t valid = p.k - kt * L::KT;
    if (valid < L::KT)
      mma_tile<C, true>(st, lut, stab, static_cast<int>(valid), acc);
    else
      mma_tile<C, false>(st, lut, stab, L::KT, acc);
    cur = cur + 1 == L::ST ? 0 : cur + 1;
    nxt = nxt + 1 == L::ST ? 0 : nxt + 1;
  }
  cp_async_wait_all();
  mma_store<BF16, C::NT>(acc, p, row0, tok0);
#else
  (void)p;
  __trap();
#endif
}

// ---- bulk copies of A and clusters (W4Mma::CL >= 1) -------------------------
#ifdef MXK_GEMM_HAVE_WGMMA
// This block's rank in its cluster (PTX ISA 10.1, %cluster_ctarank).
__device__ __forceinline__ int cluster_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return static_cast<int>(r);
}
// Every thread of every block of the cluster (barrier.cluster, PTX ISA 9.7.13.3):
// the writes before it are seen by every block after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// One arrival on the mbarrier at b's offset in block `rank` of the cluster
// (mapa, PTX ISA 9.7.9.22; mbarrier.arrive on shared::cluster, 9.7.13.15.13).
__device__ __forceinline__ void mbar_arrive_remote(std::uint64_t* b, int rank) {
  asm volatile(
      "{\n\t.reg .b32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\t"
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n\t}" ::"r"(smem_u32(b)),
      "r"(rank)
      : "memory");
}
// The same, relaxed: an arrival that publishes no data of its own.
__device__ __forceinline__ void mbar_arrive_remote_relaxed(std::uint64_t* b, int rank) {
  asm volatile(
      "{\n\t.reg .b32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\t"
      "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [ra];\n\t}" ::"r"(smem_u32(b)),
      "r"(rank)
      : "memory");
}
// mbar_wait, acquiring at cluster scope (the arrivals came from other blocks).
__device__ __forceinline__ void mbar_wait_cluster(std::uint64_t* b, std::uint32_t parity) {
  asm volatile(
      "{\n.reg .pred done;\nMXK_WAITC:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra MXK_WAITC;\n}\n" ::"r"(smem_u32(b)),
      "r"(parity)
      : "memory");
}
// `bytes` (a multiple of 16, both addresses 16-byte aligned) from global
// memory to dst's offset in every block of `mask`, each completing its bytes
// on the mbarrier at bar's offset in that block (PTX ISA 9.7.9.25,
// cp.async.bulk with .multicast::cluster).
__device__ __forceinline__ void bulk_copy_mc(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar,
                                             std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], "
      "%4;" ::"r"(smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(smem_u32(bar)), "h"(mask)
      : "memory");
}
// The same into this block only (no cluster launch needed: a block is a cluster of one).
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, std::uint32_t bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_u32(dst)),
               "l"(src), "r"(bytes), "r"(smem_u32(bar))
               : "memory");
}
// Block `rank`'s share of A of whole k-tile kt (rows rank R .. rank R + R - 1
// of the block's tokens, R = TOK / CL, inside M; one row of 2 KT bytes per
// bulk copy, lanes taking rows in turn) into stage st of this block (CL = 1) or
// of every block of the cluster, completing on their `full` barrier bar.
template <class L, int CL>
__device__ __forceinline__ void mma_copy_a_bulk(std::uint8_t* st, const MmaParams& p, std::int64_t m0, int va,
                                                std::int64_t kt, int lane, int rank, std::uint64_t* bar) {
  constexpr int R = L::TOK / CL;
  static_assert(L::TOK % CL == 0, "equal shares");
  const int end = rank * R + R < va ? rank * R + R : va;
#pragma unroll 1
  for (int row = rank * R + lane; row < end; row += 32) {
    const std::uint16_t* const src = p.a + (m0 + row) * p.lda + kt * L::KT;
    if constexpr (CL > 1)
      bulk_copy_mc(st + L::ACT + row * L::RA, src, 2 * L::KT, bar, static_cast<std::uint16_t>((1u << CL) - 1));
    else
      bulk_copy(st + L::ACT + row * L::RA, src, 2 * L::KT, bar);
  }
}
#endif  // MXK_GEMM_HAVE_WGMMA

// The producer/consumer form: one tile of 16 weight rows. Producer warp w
// (of P) owns the k-tiles w, w + P, .. : it copies its k-tile OWN - 1 ahead
// (cp.async, each lane its own chunks; after widening the one before, or with
// OWN = 2 before it, L::EARLY), waits for its own copies (wait_group,
// __syncwarp), widens the k-tile into the stage's widened buffer and arrives
// on the stage's `full` mbarrier (32 arrivals); before it copies into a stage
// again it waits on the stage's `empty` mbarrier, where every consumer thread
// arrives once it has read the stage. TG consumer warps run the mma steps of
// every k-tile in order (NT n8 tiles of A each), their operands fetched one
// chunk ahead into registers. No block-wide barrier after the start.
// Bulk A (CL >= 1; K a multiple of KT, rows of A 16-byte aligned, else A by
// cp.async as with CL = 0): the producer copies B and the scale codes by
// cp.async and A by bulk copies completing on the stage's `full` barrier
// (lane 0's arrival expects the bytes). Clusters (CL > 1; grid: the weight
// tiles padded to a multiple of CL, x the token tiles): every block runs the
// same k-tiles through the same stages, and each block's producer copies 1/CL
// of the rows of A into every block (multicast). Before a producer refills a
// stage it waits for its own consumers (`empty`, as without clusters), then
// arrives on the stage's `cempty` in every block of the cluster and waits on
// its own (CL arrivals: every block's consumers are done with the stage),
// then copies and arrives on the other blocks' `full` (32 + CL - 1
// arrivals), so no block's phases run ahead of another's even where its share
// of A is empty. The consumers arrive only on their own block's barrier (a
// cluster-scope release there stalled the mma chain). The cluster barrier at
// the start (barriers set up) and the end (nothing writes into or arrives on a
// block that has exited).
template <class C, bool BF16>
__global__ void __launch_bounds__(32 * (C::P + C::TG), 1) w4a16_mma_pc_kernel(const MmaParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = MmaLayout<C>;
  constexpr int CL = C::CL;            // 0: A by cp.async; 1: by bulk copies; 2, 4: clusters (multicast)
  constexpr bool CLU = CL > 1;
  extern __shared__ __align__(128) std::uint8_t smem[];
  const int tid = static_cast<int>(threadIdx.x), l = tid & 31, w = L::producer_of(tid >> 5);
  const bool producer = w >= 0;
  const std::int64_t nb = CLU ? blockIdx.x % p.nt : blockIdx.x / p.mt;  // CLU: p.nt padded to CL
  const std::int64_t mb = CLU ? blockIdx.x / p.nt : blockIdx.x % p.mt;
  const std::int64_t n0 = nb * L::ROWS, m0 = mb * L::TOK;
  const std::int64_t ntiles = (p.k + L::KT - 1) / L::KT;
  std::uint8_t* const stages = smem + L::STAGES;
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(smem + L::BARS);
  std::uint64_t* const empty = full + L::ST;
  std::uint64_t* const cempty = empty + L::ST;  // CLU only
  const MmaLoader q = mma_loader<MmaLayout<C>>(p, m0, n0, l);
  const int rank = CLU ? cluster_rank() : 0;
  const bool bulk = CL > 0 && p.vec_a && p.k % L::KT == 0;  // A of every k-tile by bulk copies
  // k-tile kt into stage sn (a producer's lanes)
  auto load = [&](int sn, std::int64_t kt) {
    std::uint8_t* const st = stages + sn * L::STAGE;
    if constexpr (CL > 0) {
      mma_load<MmaLayout<C>>(st, p, q, kt, l, !bulk);
      if (bulk) mma_copy_a_bulk<L, CL>(st, p, m0, q.va, kt, l, rank, full + sn);
      if constexpr (CLU)
        if (l < CL && l != rank) mbar_arrive_remote_relaxed(full + sn, l);
    } else {
      mma_load<MmaLayout<C>>(st, p, q, kt, l);
    }
  };
  // own k-tiles 0 .. OWN - 2 (a loop, not unrolled: one copy of the copy code, fetched cold); with bulk copies
  // (CL >= 1) after the barriers are set up (a bulk copy completes on `full`; with a cluster, the other
  // blocks' too: after the cluster barrier). Call 2 of run 15 mc hung with CL = 1 issuing them before.
  // TODO(run 15 mc): this fix has not run on a GPU yet.
  auto prologue = [&] {
#pragma unroll 1
    for (int j = 0; j < L::OWN - 1; ++j) {
      if (w + C::P * j < ntiles) load(w + C::P * j, w + C::P * j);
      cp_async_commit();
    }
  };
  if (CL == 0 && producer) prologue();
  if (tid == 0) {
    for (int b = 0; b < L::ST; ++b) {
      mbar_init(full + b, CLU ? 32 + CL - 1 : 32);
      mbar_init(empty + b, 32 * C::TG);
      if constexpr (CLU) mbar_init(cempty + b, CL);
    }
    mbar_init_fence();
  }
  mma_prepare<C>(smem, q);
  if constexpr (CLU)
    cluster_sync();  // tables, zero rows, every block's barriers
  else
    __syncthreads();  // tables, zero rows, barriers
  if (producer) {
    if (CL > 0) prologue();
    const std::uint8_t* const lut = smem + 4 * l;
    const std::uint8_t* const stab = smem + L::STAB + 4 * ((l >> 2) % L::SCOPY);
    // own k-tile j + OWN - 1 (k-tile kt + P (OWN - 1)) into the stage of own k-tile j - 1, once the consumers
    // have released it (with a cluster: every block's); one commit group per own k-tile, empty or not
    auto copy_ahead = [&](std::int64_t j, std::int64_t kt) {
      const std::int64_t ktn = kt + C::P * (L::OWN - 1);
      if (ktn < ntiles) {
        const int sn = w + C::P * static_cast<int>((j + L::OWN - 1) % L::OWN);
        const std::uint32_t par = static_cast<std::uint32_t>((ktn - L::ST) / L::ST) & 1u;
        if (j > 0) {
          mbar_wait(empty + sn, par);
          if constexpr (CLU) {
            if (l < CL) mbar_arrive_remote(cempty + sn, l);  // release: this block's consumers are done
            mbar_wait_cluster(cempty + sn, par);
          }
        }
        load(sn, ktn);
      }
      cp_async_commit();
    };
    for (std::int64_t j = 0, kt = w; kt < ntiles; ++j, kt += C::P) {
      const int si = w + C::P * static_cast<int>(j % L::OWN);
      std::uint8_t* const st = stages + si * L::STAGE;
      if constexpr (L::EARLY) copy_ahead(j, kt);
      cp_async_wait<L::EARLY ? L::OWN - 1 : L::OWN - 2>();  // own k-tile j landed (this lane's copies)
      __syncwarp();                                         // .. and the other lanes'
      const std::int64_t valid = p.k - kt * L::KT;
      if (valid < L::KT)
        pc_widen<MmaLayout<C>, true>(st, lut, stab, static_cast<int>(valid));
      else
        pc_widen<MmaLayout<C>, false>(st, lut, stab, L::KT);
      if (CL > 0 && l == 0 && bulk)  // A of this k-tile comes by bulk copies: its bytes
        mbar_arrive_tx(full + si, static_cast<std::uint32_t>(q.va * 2 * L::KT));
      else
        mbar_arrive(full + si);
      if constexpr (!L::EARLY) copy_ahead(j, kt);
    }
    cp_async_wait_all();
    if constexpr (!CLU) return;
  } else {
    const int tok = 8 * C::NT * L::consumer_of(tid >> 5);
    float acc[C::NT][4];
    mma_init<C::NT>(acc, p, n0, m0 + tok);
    const int wo = L::WB + 16 * l, ao = L::ACT + (tok + (l >> 2)) * L::RA + 8 * (l & 3);
    constexpr int D = L::RING - 1;  // chunks fetched ahead
    PcChunk<C> ring[L::RING];
    if (ntiles > 0) {
      mbar_wait(full, 0u);
#pragma unroll
      for (int c = 0; c < D; ++c) pc_fetch<C>(ring[c], stages, wo, ao, c);
    }
    int cur = 0;
    for (std::int64_t kt = 0; kt < ntiles; ++kt) {
      const int next = cur + 1 == L::ST ? 0 : cur + 1;
#pragma unroll
      for (int c = 0; c < L::NCH; ++c) {
        const int f = c + D;  // the chunk fetched now: of this k-tile, or f - NCH of the next
        if (f < L::NCH) {
          pc_fetch<C>(ring[f % L::RING], stages + cur * L::STAGE, wo, ao, f);
        } else if (kt + 1 < ntiles) {
          if (f == L::NCH) mbar_wait(full + next, static_cast<std::uint32_t>((kt + 1) / L::ST) & 1u);
          pc_fetch<C>(ring[f % L::RING], stages + next * L::STAGE, wo, ao, f - L::NCH);
        }
        pc_run<C>(ring[c % L::RING], acc);
      }
      mbar_arrive(empty + cur);  // after the mmas that read this stage's last fragments
      cur = next;
    }
    mma_store<BF16, C::NT>(acc, p, n0, m0 + tok);
  }
  if constexpr (CLU) cluster_sync();
#else
  (void)p;
  __trap();
#endif
}

// Kern in clusters of CL blocks along x (cudaLaunchKernelEx, cudaLaunchAttributeClusterDimension; blocks a
// multiple of CL), after setting its dynamic shared-memory limit to Bytes (once).
template <auto Kern, int Bytes, int CL>
void launch_cluster(std::int64_t blocks, int threads, const MmaParams& p, cudaStream_t stream, const char* name) {
  static const cudaError_t attr = cudaFuncSetAttribute(Kern, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes);
  if (attr != cudaSuccess) check_cuda(attr, (std::string(name) + " smem attribute").c_str());
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(blocks));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = Bytes;
  cfg.stream = stream;
  cudaLaunchAttribute at[1] = {};
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = CL;
  at[0].val.clusterDim.y = 1;
  at[0].val.clusterDim.z = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  check_cuda(cudaLaunchKernelEx(&cfg, Kern, p), (std::string(name) + " cluster launch").c_str());
}

template <class C, bool BF16>
void mma_launch(MmaParams p, cudaStream_t stream) {
  using L = MmaLayout<C>;
  p.mt = (p.m + L::TOK - 1) / L::TOK;
  const std::int64_t cl = C::CL > 1 ? C::CL : 1;
  p.nt = ((p.n + L::ROWS - 1) / L::ROWS + cl - 1) / cl * cl;  // weight tiles, padded to the cluster
  const std::int64_t blocks = p.nt * p.mt;
  if (blocks > 0x7FFFFFFF) throw mx::ShapeError("w4a16 GEMM: too many tiles");
  if constexpr (C::CL > 1)
    launch_cluster<w4a16_mma_pc_kernel<C, BF16>, L::BYTES, C::CL>(blocks, L::THREADS, p, stream,
                                                                  "w4a16_mma_pc_kernel (cluster)");
  else if constexpr (L::PC)
    launch_smem<w4a16_mma_pc_kernel<C, BF16>, L::BYTES>(blocks, L::THREADS, p, stream, "w4a16_mma_pc_kernel");
  else
    launch_smem<w4a16_mma_kernel<C, BF16>, L::BYTES>(blocks, L::THREADS, p, stream, "w4a16_mma_kernel");
}

// The forms (cfg::W4Mma<TR, TG, NT, P>::FORM).
template <bool BF16>
void mma_any(const MmaParams& p, int form, cudaStream_t s) {
  switch (form) {
    case 111: return mma_launch<cfg::W4Mma<1, 1, 1>, BF16>(p, s);
    case 411: return mma_launch<cfg::W4Mma<4, 1, 1>, BF16>(p, s);
    case 412: return mma_launch<cfg::W4Mma<4, 1, 2>, BF16>(p, s);
    case 418: return mma_launch<cfg::W4Mma<4, 1, 8>, BF16>(p, s);
    case 421: return mma_launch<cfg::W4Mma<4, 2, 1>, BF16>(p, s);
    case 424: return mma_launch<cfg::W4Mma<4, 2, 4>, BF16>(p, s);
    case 442: return mma_launch<cfg::W4Mma<4, 4, 2>, BF16>(p, s);
    case 30211: return mma_launch<cfg::W4Mma<2, 1, 1, 0, false, 3>, BF16>(p, s);
    case 30212: return mma_launch<cfg::W4Mma<2, 1, 2, 0, false, 3>, BF16>(p, s);
    case 30221: return mma_launch<cfg::W4Mma<2, 2, 1, 0, false, 3>, BF16>(p, s);
    case 30411: return mma_launch<cfg::W4Mma<4, 1, 1, 0, false, 3>, BF16>(p, s);
    case 30412: return mma_launch<cfg::W4Mma<4, 1, 2, 0, false, 3>, BF16>(p, s);
    case 40412: return mma_launch<cfg::W4Mma<4, 1, 2, 0, false, 4>, BF16>(p, s);
    case 30421: return mma_launch<cfg::W4Mma<4, 2, 1, 0, false, 3>, BF16>(p, s);
    case 30418: return mma_launch<cfg::W4Mma<4, 1, 8, 0, false, 3>, BF16>(p, s);
    case 224: return mma_launch<cfg::W4Mma<2, 2, 4>, BF16>(p, s);
    case 711: return mma_launch<cfg::W4Mma<1, 1, 1, 2>, BF16>(p, s);
    case 712: return mma_launch<cfg::W4Mma<1, 1, 2, 2>, BF16>(p, s);
    case 724: return mma_launch<cfg::W4Mma<1, 2, 4, 2>, BF16>(p, s);
    case 811: return mma_launch<cfg::W4Mma<1, 1, 1, 3>, BF16>(p, s);
    case 812: return mma_launch<cfg::W4Mma<1, 1, 2, 3>, BF16>(p, s);
    case 814: return mma_launch<cfg::W4Mma<1, 1, 4, 3>, BF16>(p, s);
    case 821: return mma_launch<cfg::W4Mma<1, 2, 1, 3>, BF16>(p, s);
    case 911: return mma_launch<cfg::W4Mma<1, 1, 1, 4>, BF16>(p, s);
    case 912: return mma_launch<cfg::W4Mma<1, 1, 2, 4>, BF16>(p, s);
    case 1011: return mma_launch<cfg::W4Mma<1, 1, 1, 5>, BF16>(p, s);
    case 1012: return mma_launch<cfg::W4Mma<1, 1, 2, 5>, BF16>(p, s);
    case 1111: return mma_launch<cfg::W4Mma<1, 1, 1, 6>, BF16>(p, s);
    case 4811: return mma_launch<cfg::W4Mma<1, 1, 1, 3, true>, BF16>(p, s);
    case 4812: return mma_launch<cfg::W4Mma<1, 1, 2, 3, true>, BF16>(p, s);
    case 4912: return mma_launch<cfg::W4Mma<1, 1, 2, 4, true>, BF16>(p, s);
    case 5012: return mma_launch<cfg::W4Mma<1, 1, 2, 5, true>, BF16>(p, s);
    case 5111: return mma_launch<cfg::W4Mma<1, 1, 1, 6, true>, BF16>(p, s);
    case 742: return mma_launch<cfg::W4Mma<1, 4, 2, 2>, BF16>(p, s);
    case 718: return mma_launch<cfg::W4Mma<1, 1, 8, 2>, BF16>(p, s);
    case 100724: return mma_launch<cfg::W4Mma<1, 2, 4, 2, false, 0, 1>, BF16>(p, s);
    case 100742: return mma_launch<cfg::W4Mma<1, 4, 2, 2, false, 0, 1>, BF16>(p, s);
    case 100718: return mma_launch<cfg::W4Mma<1, 1, 8, 2, false, 0, 1>, BF16>(p, s);
    case 100814: return mma_launch<cfg::W4Mma<1, 1, 4, 3, false, 0, 1>, BF16>(p, s);
    case 101012: return mma_launch<cfg::W4Mma<1, 1, 2, 5, false, 0, 1>, BF16>(p, s);
    case 200724: return mma_launch<cfg::W4Mma<1, 2, 4, 2, false, 0, 2>, BF16>(p, s);
    case 400724: return mma_launch<cfg::W4Mma<1, 2, 4, 2, false, 0, 4>, BF16>(p, s);
    case 200742: return mma_launch<cfg::W4Mma<1, 4, 2, 2, false, 0, 2>, BF16>(p, s);
    case 201012: return mma_launch<cfg::W4Mma<1, 1, 2, 5, false, 0, 2>, BF16>(p, s);
    case 401012: return mma_launch<cfg::W4Mma<1, 1, 2, 5, false, 0, 4>, BF16>(p, s);
    default:
      throw mx::InvalidArgument("w4a16 GEMM: mma.sync decode form must be one of 111, 411, 412, 418, 421, 424, 442, 224 (flat), "
                                "30211, 30212, 30221, 30411, 30412, 40412, 30421, 30418 (flat, at most 3 or 4 stages), "
                                "711, 712, 724, 811, 812, 814, 821, 911, 912, 1011, 1012, 1111 (2 .. 6 producer warps), "
                                "4811, 4812, 4912, 5012, 5111 (the same, consumer loads 3 chunks ahead), 742, 718, "
                                "100724, 100742, 100718, 100814, 101012 (A by bulk copies), "
                                "200724, 400724, 200742, 201012, 401012 (clusters of 2 or 4 sharing A) "
                                "(decode_cols 2000 + form)");
  }
}

}  // namespace

void w4a16_mma_launch(const W4a16GemmArgs& x, int form, int sms, cudaStream_t stream) {
  if (x.m > 64) throw mx::InvalidArgument("w4a16 GEMM: the mma.sync decode kernel takes M <= 64");
  if (form == 0) form = cfg::w4_mma_form(x.m, x.n, sms);
  MmaParams p = w4a16_params(x);
  x.out == mx::Fmt::bf16 ? mma_any<true>(p, form, stream) : mma_any<false>(p, form, stream);
}

}  // namespace mxk::gemm
