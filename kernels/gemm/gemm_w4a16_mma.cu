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
// tokens fitting with 4 copies of the scale table, "run 14 w16b"). The flat forms' PIPE knob (FORM +
// 100000 PIPE, run 16 pipe): whole k-tiles copied from per-thread pointers (87 SASS instructions per
// thread and k-tile for 418 instead of ~350) and each table address in a PRMT and a multiply-add (37 per
// k16 step instead of 41); the launcher takes 330411, 330412 and, at M = 64, 300418.
// The layout and per-step device code are in gemm_w4a16_mma.cuh.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_w4a16_decode.hpp"
#include "gemm/gemm_w4a16_mma.cuh"
#include "gemm/gemm_w4a16_pc.cuh"
#include "gemm/gemm_ws.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

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
  // PIPE & 1: whole k-tiles (kt < wtiles) of a whole block from per-thread pointers (mma_fast_load)
  MmaFast fq{};
  std::int64_t wtiles = 0;
  if constexpr ((C::PIPE & 1) != 0) {
    fq = mma_fast<MmaLayout<C>>(p, q, tid);
    wtiles = fq.on ? p.k / L::KT : 0;
  }
  if constexpr (L::PDL) {
    pdl_trigger();
    mma_prepare<C>(smem, q);  // shared memory only (tables, zero rows: none the copies below write)
    pdl_wait();               // the kernel before this one (PDL) is done: global memory from here on
  }
#pragma unroll 1  // one copy of the copy code (run once per block: every instruction of it is fetched cold)
  for (int s = 0; s < L::ST - 1; ++s) {
    if (mma_fast_tile<L, (C::PIPE & 1) != 0>(s < wtiles, stages, s, fq, s, tid)) {
    } else if (s < ntiles) {
      mma_load<MmaLayout<C>>(stages + s * L::STAGE, p, q, s, tid);
    }
    cp_async_commit();
  }
  if constexpr (!L::PDL) mma_prepare<C>(smem, q);  // the tables while the first copies land
  const std::int64_t row0 = n0 + 16 * (w % C::TR), tok0 = m0 + 8 * C::NT * (w / C::TR);
  float acc[C::NT][4];
  mma_init<C::NT>(acc, p, row0, tok0);
  const std::uint8_t* const lut = smem + 4 * l;
  const std::uint8_t* const stab = smem + L::STAB + 4 * ((l >> 2) % L::SCOPY);
  int cur = 0, nxt = L::ST - 1;  // stages of tiles kt and kt + ST - 1
  for (std::int64_t kt = 0; kt < ntiles; ++kt) {
    cp_async_wait<L::ST - 2>();
    __syncthreads();  // tile kt landed (every thread's copies); every warp is done with stage (kt - 1) % ST
    if (mma_fast_tile<L, (C::PIPE & 1) != 0>(kt + L::ST - 1 < wtiles, stages, nxt, fq, kt + L::ST - 1, tid)) {
    } else if (kt + L::ST - 1 < ntiles) {
      mma_load<MmaLayout<C>>(stages + nxt * L::STAGE, p, q, kt + L::ST - 1, tid);
    }
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
template <class C, bool BF16>
__global__ void __launch_bounds__(32 * (C::P + C::TG), 1) w4a16_mma_pc_kernel(const MmaParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = MmaLayout<C>;
  extern __shared__ __align__(128) std::uint8_t smem[];
  const int tid = static_cast<int>(threadIdx.x), l = tid & 31, w = L::producer_of(tid >> 5);
  const bool producer = w >= 0;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x / p.mt) * L::ROWS;
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.x % p.mt) * L::TOK;
  const std::int64_t ntiles = (p.k + L::KT - 1) / L::KT;
  std::uint8_t* const stages = smem + L::STAGES;
  std::uint64_t* const full = reinterpret_cast<std::uint64_t*>(smem + L::BARS);
  std::uint64_t* const empty = full + L::ST;
  const MmaLoader q = mma_loader<MmaLayout<C>>(p, m0, n0, l);
  pdl_trigger();
  if (tid == 0) {
    for (int b = 0; b < L::ST; ++b) {
      mbar_init(full + b, 32);
      mbar_init(empty + b, 32 * C::TG);
    }
    mbar_init_fence();
  }
  mma_prepare<C>(smem, q);  // shared memory only (tables, zero rows: none the copies below write)
  pdl_wait();               // the kernel before this one (PDL) is done: global memory from here on
  if (producer) {  // own k-tiles 0 .. OWN - 2 (a loop, not unrolled: one copy of the copy code, fetched cold)
#pragma unroll 1
    for (int j = 0; j < L::OWN - 1; ++j) {
      if (w + C::P * j < ntiles) mma_load<MmaLayout<C>>(stages + (w + C::P * j) * L::STAGE, p, q, w + C::P * j, l);
      cp_async_commit();
    }
  }
  __syncthreads();  // tables, zero rows, barriers
  if (producer) {
    const std::uint8_t* const lut = smem + 4 * l;
    const std::uint8_t* const stab = smem + L::STAB + 4 * ((l >> 2) % L::SCOPY);
    // own k-tile j + OWN - 1 (k-tile kt + P (OWN - 1)) into the stage of own k-tile j - 1, once the consumers
    // have released it; one commit group per own k-tile, empty or not
    auto copy_ahead = [&](std::int64_t j, std::int64_t kt) {
      const std::int64_t ktn = kt + C::P * (L::OWN - 1);
      if (ktn < ntiles) {
        const int sn = w + C::P * static_cast<int>((j + L::OWN - 1) % L::OWN);
        if (j > 0) mbar_wait(empty + sn, static_cast<std::uint32_t>((ktn - L::ST) / L::ST) & 1u);
        mma_load<MmaLayout<C>>(stages + sn * L::STAGE, p, q, ktn, l);
      }
      cp_async_commit();
    };
    for (std::int64_t j = 0, kt = w; kt < ntiles; ++j, kt += C::P) {
      std::uint8_t* const st = stages + (w + C::P * static_cast<int>(j % L::OWN)) * L::STAGE;
      if constexpr (L::EARLY) copy_ahead(j, kt);
      cp_async_wait<L::EARLY ? L::OWN - 1 : L::OWN - 2>();  // own k-tile j landed (this lane's copies)
      __syncwarp();                                         // .. and the other lanes'
      const std::int64_t valid = p.k - kt * L::KT;
      if (valid < L::KT)
        pc_widen<MmaLayout<C>, true>(st, lut, stab, static_cast<int>(valid));
      else
        pc_widen<MmaLayout<C>, false>(st, lut, stab, L::KT);
      mbar_arrive(full + (st - stages) / L::STAGE);
      if constexpr (!L::EARLY) copy_ahead(j, kt);
    }
    cp_async_wait_all();
    return;
  }
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
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool BF16>
void mma_launch(MmaParams p, cudaStream_t stream) {
  using L = MmaLayout<C>;
  p.mt = (p.m + L::TOK - 1) / L::TOK;
  const std::int64_t blocks = (p.n + L::ROWS - 1) / L::ROWS * p.mt;
  if (blocks > 0x7FFFFFFF) throw mx::ShapeError("w4a16 GEMM: too many tiles");
  if constexpr (L::PC)
    launch_smem<w4a16_mma_pc_kernel<C, BF16>, L::BYTES, MmaParams, L::PDL>(blocks, L::THREADS, p, stream,
                                                                             "w4a16_mma_pc_kernel");
  else
    launch_smem<w4a16_mma_kernel<C, BF16>, L::BYTES, MmaParams, L::PDL>(blocks, L::THREADS, p, stream,
                                                                          "w4a16_mma_kernel");
}

// The forms (cfg::W4Mma<TR, TG, NT, P>::FORM).
template <bool BF16>
void mma_any(const MmaParams& p, int form, cudaStream_t s) {
  switch (form) {
    case 111: return mma_launch<cfg::W4Mma<1, 1, 1>, BF16>(p, s);
    case 411: return mma_launch<cfg::W4Mma<4, 1, 1>, BF16>(p, s);
    case 412: return mma_launch<cfg::W4Mma<4, 1, 2>, BF16>(p, s);
    case 418: return mma_launch<cfg::W4Mma<4, 1, 8>, BF16>(p, s);
    case 30411: return mma_launch<cfg::W4Mma<4, 1, 1, 0, false, 3>, BF16>(p, s);
    case 30412: return mma_launch<cfg::W4Mma<4, 1, 2, 0, false, 3>, BF16>(p, s);
    case 100418: return mma_launch<cfg::W4Mma<4, 1, 8, 0, false, 0, 1>, BF16>(p, s);
    case 300418: return mma_launch<cfg::W4Mma<4, 1, 8, 0, false, 0, 3>, BF16>(p, s);
    case 100424: return mma_launch<cfg::W4Mma<4, 2, 4, 0, false, 0, 1>, BF16>(p, s);
    case 300424: return mma_launch<cfg::W4Mma<4, 2, 4, 0, false, 0, 3>, BF16>(p, s);
    case 130411: return mma_launch<cfg::W4Mma<4, 1, 1, 0, false, 3, 1>, BF16>(p, s);
    case 130412: return mma_launch<cfg::W4Mma<4, 1, 2, 0, false, 3, 1>, BF16>(p, s);
    case 330411: return mma_launch<cfg::W4Mma<4, 1, 1, 0, false, 3, 3>, BF16>(p, s);
    case 330412: return mma_launch<cfg::W4Mma<4, 1, 2, 0, false, 3, 3>, BF16>(p, s);
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
    case 5111: return mma_launch<cfg::W4Mma<1, 1, 1, 6, true>, BF16>(p, s);
    default:
      throw mx::InvalidArgument("w4a16 GEMM: mma.sync decode form must be one of 111, 411, 412, 418, 224 (flat), "
                                "30411, 30412 (flat, at most 3 stages), 100418, 300418, 100424, 300424, 130411, "
                                "130412, 330411, 330412 (flat, + 100000 PIPE), "
                                "711, 712, 724, 811, 812, 814, 821, 911, 912, 1011, 1012, 1111 (2 .. 6 producer warps), "
                                "4811, 4812, 4912, 5111 (the same, consumer loads 3 chunks ahead) "
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
