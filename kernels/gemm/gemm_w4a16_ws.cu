// gemm_w4a16_ws.cu - the warp-specialized w4a16 GEMM on sm_90a (M > 64, and
// M <= 64 by a forced decode_cols code),
// bit for bit reference/SPEC.md C11 `w4a16` (the same widening and the same
// k-ordered chain of bf16 wgmma m64nNk16 steps into an fp32 accumulator as
// gemm_w4a16.cu, so D does not depend on which kernel ran).
//
// A block owns a BM x BN tile of D (cfg::W4Ws: 256 x 128; cfg::W4WsDecode:
// 64 x BN, BN = 16, 32, 56, 64, 128) and runs NP + NC warpgroups (gemm_ws.cuh):
// - warpgroups 0 .. NP - 1, the producers: one thread loads A's k-tile (BM x
//   64 bf16) by TMA with the 128-byte swizzle into stage s of the ring (zero
//   fill past K; a box of M rows where M < BM); every producer thread copies its 32-element chunks of
//   B's packed k-tile and their scale-code words by cp.async into a raw ring
//   RS - 1 tiles ahead, widens them (the C11 widening of widen32; +0 past K)
//   into stage s as bf16, fences the stores for the async proxy and arrives
//   on full[s] (widening is the producers' bulk of work: NP = 2 share it;
//   where a k-tile has fewer chunks than producer threads - the narrow
//   BM = 64 tiles - the producers form G groups, each taking every G-th
//   k-tile with a raw ring of its own: G k-tiles are copied, widened and
//   handed over at once instead of one k-tile's chain of latencies at a time);
// - the last NC warpgroups (2, or 1 for BM = 64), the consumers: BM / NC rows
//   each (MI m64nBN row tiles), wait on full[s], issue the 4 k-steps, keep CW k-tiles of wgmma in
//   flight (cfg::W4WsT: 1, or 2 in 10006356), and arrive on empty[s] of the k-tile CW before (every thread: its
//   reads are then ordered before the producer's next writes); with TK > 1 all of that per group of TK
//   k-tiles (TK full waits back to back, then 4 TK wgmmas, one commit, TK arrivals).
// Every tile issues all its k-steps: steps past ceil(K / 16) have only zero
// products (A is zero past K by TMA, B's padding is +0), which leave the
// accumulator unchanged under the model (C11_W4a16.ExtraZeroStepsAreNoOps).
// The BM = 64 forms (M <= 64: the tokens are the wgmma's M side, B's BN rows
// are widened once per block) are launched as programmatic dependents: all
// threads wait (griddepcontrol.wait) before the first global access.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_ws.cuh"
#include "gemm/wgmma_ops.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

struct W4WsParams {
  CUtensorMap a_map;  // A [M][K] bf16, boxes of 64 x min(BM, M), 128-byte swizzle
  std::int64_t m, n, k, nkb, mt, nt;
  std::uint32_t a_bytes;  // what one A box lands: 128 min(BM, M)
  const std::uint8_t *b, *sb;
  std::int64_t ldb;
  bool tc_b, vec_b, vsc_b;
  const float* c;
  void* d;
};

template <class C>
struct WsLayout {
  static constexpr int KB = C::KT / 32;                    // k-blocks per k-tile (2)
  static constexpr int MI = C::BM / (64 * C::NC);          // m64 row tiles per consumer warpgroup
  static constexpr int PT = 128 * C::NP;                   // producer threads
  static constexpr int TASKS = C::BN * KB;                 // 32-element chunks of B per k-tile
  // Producer groups: where a k-tile has fewer chunks than producer threads, G groups of GT >= TASKS threads
  // (cfg::w4_ws_groups: whole warps, a power of two), group g taking k-tiles g, g + G, g + 2 G ... (each with
  // its own raw ring); else one group of all PT.
  static constexpr int G = cfg::w4_ws_groups(C::BN, C::NP), GT = PT / G;
  static constexpr int TPT = (TASKS + GT - 1) / GT;          // chunks per producer thread
  static constexpr bool ALL = TASKS % GT == 0;             // every producer thread has TPT chunks
  static constexpr int A_BYTES = C::BM * C::KT * 2;         // per stage, 128-byte rows
  static constexpr int WB_BYTES = C::BN * C::KT * 2;        // widened B per stage: KT / 16 slices
  static constexpr int RAW_BYTES = TASKS * 16;              // packed B per raw stage: [KB][BN][16]
  static constexpr int RAW_STAGE = RAW_BYTES + 4 * TASKS;   // + the row's scale-code word per chunk
  static constexpr int A0 = 0;  // A stages, then widened B stages, raw stages, barriers
  static constexpr int WB0 = C::ST * A_BYTES, RAW0 = WB0 + C::ST * WB_BYTES;
  static constexpr int BAR0 = RAW0 + G * C::RS * RAW_STAGE;
  static constexpr int BYTES = BAR0 + 2 * C::ST * 8;
  static constexpr int THREADS = PT + 128 * C::NC;
  static_assert(C::KT == 64 && A0 == 0, "one 128-byte swizzle span of bf16 per k-tile; one code word covers it");
  static_assert(ALL || TPT == 1, "whole chunks per producer thread, or at most one");
  static_assert(C::BN % 8 == 0 && PT % GT == 0 && GT % 32 == 0, "wgmma n a multiple of 8; whole-warp groups");
  static_assert(C::ST % G == 0 && C::ST >= G, "a stage always filled by the same producer group");
  static_assert(C::BM == 64 * C::NC * MI && MI * C::BN <= 256, "consumers: NC x MI x m64nBN, <= 128 fp32 each");
  static_assert(C::CW == 1 || C::CW == 2, "one or two groups of wgmma in flight per consumer");
  static_assert(C::TK == 1 || C::TK == 2 || C::TK == 4, "k-tiles per consumer round trip (the last group: 1 .. 3)");
  static_assert(C::ST >= (C::CW + 1) * C::TK, "stages for the groups a consumer holds and waits on");
  static_assert((C::PRODUCER_REGS == 0) == (C::CONSUMER_REGS == 0), "setmaxnreg for both roles or neither");
  static_assert(PT * C::PRODUCER_REGS + 128 * C::NC * C::CONSUMER_REGS <= 65536, "register file");
  static_assert(A_BYTES % 1024 == 0 && WB_BYTES % 1024 == 0 && RAW_STAGE % 16 == 0, "stage alignment");
  static_assert(BYTES <= 227 * 1024, "shared memory");
};

#ifdef MXK_GEMM_HAVE_WGMMA
// Producer: chunk t of B's packed k-tile kt (row t % BN, k-block t / BN) and
// the code word of that row holding its k-blocks into raw stage `st`. bsrc:
// the chunk's 16 bytes of k-tile 0 (brow + 16 (t / BN)); csrc: the row's
// code word of k-tiles 0 and 1, the one of k-tiles 2j and 2j + 1 lying cstep
// j bytes on (KB = 2 k-blocks per k-tile: a word covers two k-tiles; dense
// rows 4, tcgen05 512): addresses by one multiply-add per k-tile.
template <class C>
__device__ __forceinline__ void load_raw(std::uint8_t* st, const W4WsParams& p, const std::uint8_t* brow,
                                         const std::uint8_t* bsrc, const std::uint8_t* csrc, std::int64_t cstep,
                                         bool lb, std::int64_t n, std::int64_t kt, int t) {
  using L = WsLayout<C>;
  static_assert(L::KB == 2, "a code word covers two k-tiles");
  if (!lb) return;
  const std::int64_t kc = kt * C::KT + 32 * (t / C::BN);
  if (p.vec_b && kc + 32 <= p.k) {
    cp_async16(st + t * 16, bsrc + kt * (C::KT / 2));
  } else {
    load16(st + t * 16, brow + kc / 2, (p.k - kc + 1) / 2, p.vec_b, p.b);
  }
  const std::int64_t kb4 = (kt * L::KB) & ~std::int64_t{3};
  if (kb4 < p.nkb) {
    auto* w = reinterpret_cast<std::uint32_t*>(st + L::RAW_BYTES) + t;
    if (p.vsc_b) {
      cp_async4(w, csrc + (kt >> 1) * cstep);
    } else {
      load_codes4(w, p.sb, p.tc_b, false, n, kb4, p.nkb);
    }
  }
}
#endif

template <class C, bool BF16>
__global__ void __launch_bounds__(WsLayout<C>::THREADS, 1) w4a16_ws_kernel(const __grid_constant__ W4WsParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = WsLayout<C>;
  constexpr int BN = C::BN, MI = L::MI, TPT = L::TPT;
  extern __shared__ __align__(1024) std::uint8_t smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + L::BAR0);
  auto* empty = full + C::ST;
  const int tid = static_cast<int>(threadIdx.x), wg = tid >> 7;
  if constexpr (C::PDL) pdl_trigger();
  std::int64_t tm, tn;
  tile_of_block(p.mt, p.nt, C::GROUP, tm, tn);
  const std::int64_t m0 = tm * C::BM, n0 = tn * BN;
  const std::int64_t ntiles = (p.k + C::KT - 1) / C::KT;
  if (tid == 0) {
    for (int s = 0; s < C::ST; ++s) {
      mbar_init(&full[s], L::GT + 1);  // the producer group's threads + the TMA's expect_tx arrival
      mbar_init(&empty[s], 128 * C::NC);  // every consumer thread
    }
    mbar_init_fence();
    tma_prefetch_map(&p.a_map);
  }
  __syncthreads();
  if constexpr (C::PDL) pdl_wait();  // the kernel before this one (PDL) is done: global memory from here on

  if (wg < C::NP) {  // ---- producers: TMA of A, cp.async + widening of B (group g, chunks lt + GT i) ----
    if constexpr (C::PRODUCER_REGS > 0) regs_dec<C::PRODUCER_REGS>();
    constexpr int G = L::G, GT = L::GT;
    const int g = G > 1 ? tid / GT : 0, lt = G > 1 ? tid % GT : tid;
    const std::uint8_t *brow[TPT], *bsrc[TPT], *csrc[TPT];
    bool lb[TPT];
    const std::int64_t cstep = p.tc_b ? 512 : 4;
#pragma unroll
    for (int i = 0; i < TPT; ++i) {
      const std::int64_t n = n0 + (lt + GT * i) % BN;
      lb[i] = n < p.n && (L::ALL || lt + GT * i < L::TASKS);  // else this thread has no chunk
      brow[i] = p.b + (lb[i] ? n * p.ldb : 0);
      bsrc[i] = brow[i] + 16 * ((lt + GT * i) / BN);
      csrc[i] = p.sb + (lb[i] ? scale_off(p.tc_b, n, 0, p.nkb) : 0);
    }
    std::uint8_t* raw = smem + L::RAW0 + g * C::RS * L::RAW_STAGE;  // the group's raw ring
    // the group's k-tile kt into raw slot `slot` (its j-th k-tile, kt = g + G j, goes to slot j % RS: the
    // slots are counted, not divided out, RS being 3 or 5 in some forms)
    auto load = [&](std::int64_t kt, int slot) {
#pragma unroll
      for (int i = 0; i < TPT; ++i) {
        const int t = lt + GT * i;
        load_raw<C>(raw + slot * L::RAW_STAGE, p, brow[i], bsrc[i], csrc[i], cstep, lb[i], n0 + t % BN, kt, t);
      }
    };
#pragma unroll
    for (int s = 0; s < C::RS - 1; ++s) {
      if (g + G * s < ntiles) load(g + G * s, s);
      cp_async_commit();
    }
    int cur = 0, nxt = C::RS - 1;  // raw slots of this k-tile (j % RS) and of the one RS - 1 ahead
    for (std::int64_t kt = g; kt < ntiles; kt += G) {
      const int s = static_cast<int>(kt % C::ST);
      const auto use = static_cast<std::uint32_t>(kt / C::ST);
      cp_async_wait<C::RS - 2>();  // raw tile kt landed (each thread reads only what it copied)
      if (kt + G * (C::RS - 1) < ntiles) load(kt + G * (C::RS - 1), nxt);
      cp_async_commit();
      if (kt >= C::ST) mbar_wait(&empty[s], (use - 1) & 1);  // the consumers are done with stage s
      if (lt == 0) {
        mbar_arrive_tx(&full[s], p.a_bytes);
        tma_load_2d(smem + L::A0 + s * L::A_BYTES, &p.a_map, static_cast<std::int32_t>(kt * C::KT),
                    static_cast<std::int32_t>(m0), &full[s]);
      }
      const std::uint8_t* rst = raw + cur * L::RAW_STAGE;
      std::uint8_t* wb = smem + L::WB0 + s * L::WB_BYTES;
      const int sh = static_cast<int>(8 * ((kt * L::KB) & 3));
      const bool inside = (kt + 1) * C::KT <= p.k;  // no element past K: no masking
#pragma unroll
      for (int i = 0; i < TPT; ++i) {  // chunk t: row r, k-block kb, 32 elements
        const int t = lt + GT * i, r = t % BN, kb = t / BN;
        if (!L::ALL && t >= L::TASKS) continue;
        const std::uint32_t word = reinterpret_cast<const std::uint32_t*>(rst + L::RAW_BYTES)[t];
        const uint4 rv = *reinterpret_cast<const uint4*>(rst + t * 16);
        const std::uint32_t f2 = ue8m0_bf16x2((word >> (sh + 8 * kb)) & 0xFFu);
        std::uint8_t* dst = wb + 2 * kb * BN * 32;
        auto store = [&](int q, uint4 v) {
          *reinterpret_cast<uint4*>(dst + (q >> 1) * BN * 32 + core_off(r, q & 1)) = v;
        };
        if (inside) {
          widen32(rv, f2, 32, store);
        } else {
          widen32(rv, f2, p.k - (kt * C::KT + 32 * kb), store);
        }
      }
      fence_proxy_async();  // the widened stores, then the wgmmas (async proxy) read them
      mbar_arrive(&full[s]);
      cur = cur + 1 == C::RS ? 0 : cur + 1;
      nxt = nxt + 1 == C::RS ? 0 : nxt + 1;
    }
    cp_async_wait_all();
    return;
  }

  // ---- consumers: BM / NC rows each, MI m64nBN row tiles ----
  if constexpr (C::CONSUMER_REGS > 0) regs_inc<C::CONSUMER_REGS>();
  // cw: this consumer warpgroup (0 where NC = 1, a constant: the operand
  // addresses below then derive from no thread index, and the compiler keeps
  // them in uniform registers).
  const int cw = C::NC == 1 ? 0 : wg - C::NP;
  // The wgmma descriptors of stage 0's operands, once: a step's descriptor is
  // one of these with the step's 16-byte offset added to its address field
  // (desc_add; the offsets stay inside shared memory), not a fresh address
  // computation per step.
  const std::uint64_t da0 = smem_desc_sw128(smem + L::A0 + 64 * 128 * MI * cw);
  const std::uint64_t db0 = smem_desc(smem + L::WB0);
  float acc[MI][BN / 2];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
    frag_init(acc[mi], FragPos(m0 + 64 * (MI * cw + mi), n0), p.c, p.m, p.n);
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) pin(acc[mi][i]);
  }
  // Group gi: k-tiles TK gi .. TK gi + TK - 1; the last group may hold fewer (NK, a constant: no branch
  // between the wgmmas of a group, so ptxas injects no warpgroup.arrive into the loop's chain).
  constexpr int TK = C::TK;
  const std::int64_t nfull = ntiles / TK, rem = ntiles % TK;
  auto group = [&](std::int64_t gi, auto first, auto nk) {
    constexpr int NK = decltype(nk)::value;
    const auto k0 = static_cast<std::uint64_t>(gi) * TK;  // gi >= 0: unsigned stage arithmetic
    auto wait_full = [&](int j) {
      const std::uint64_t ku = k0 + j;
      const auto s = static_cast<std::uint32_t>(ku % C::ST);
      mbar_wait(&full[s], static_cast<std::uint32_t>(ku / C::ST) & 1);
    };
#pragma unroll
    for (int j = 0; j < NK; ++j) wait_full(j);  // back to back (each just before its k-tile's wgmmas was slower:
                                                // ptxas then injects warpgroup.arrive, run 18 k128 "IW")
#pragma unroll
    for (int j = 0; j < NK; ++j) {
      const auto s = static_cast<std::uint32_t>((k0 + j) % C::ST);
      const std::uint64_t da = desc_add(da0, s * (L::A_BYTES >> 4));
      const std::uint64_t db = desc_add(db0, s * (L::WB_BYTES >> 4));
      if (j == 0) wgmma_fence();
#pragma unroll
      for (int k = 0; k < C::KT / 16; ++k) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
          Wgmma<BN>::bf16(acc[mi], desc_add(da, (64 * 128 * mi + 32 * k) >> 4), desc_add(db, (k * BN * 32) >> 4),
                          1);
      }
    }
    wgmma_commit();
    if constexpr (decltype(first)::value) {
      wgmma_wait<0>();
    } else {
      wgmma_wait<C::CW>();  // the group CW before this one is complete: release its TK stages (a full group)
      if (C::CW == 1 || gi >= C::CW) {
#pragma unroll
        for (int j = 0; j < TK; ++j) mbar_arrive(&empty[(k0 - C::CW * TK + j) % C::ST]);
      }
    }
  };
  auto last = [&](std::int64_t gi, auto first) {  // the partial last group: rem = 1 .. TK - 1 k-tiles
    if constexpr (TK >= 2) {
      if (rem == 1) group(gi, first, std::integral_constant<int, 1>{});
    }
    if constexpr (TK >= 4) {
      if (rem == 2) group(gi, first, std::integral_constant<int, 2>{});
      if (rem == 3) group(gi, first, std::integral_constant<int, 3>{});
    }
  };
  // The first group is peeled (its wgmmas retire before the loop) so that
  // ptxas sees no non-wgmma definition of the accumulators reaching an open
  // wgmma (it would serialize every wgmma: C7515).
  if (nfull > 0) {
    group(0, std::true_type{}, std::integral_constant<int, TK>{});
  } else if (TK > 1 && rem > 0) {
    last(0, std::true_type{});
  }
  for (std::int64_t gi = 1; gi < nfull; ++gi) group(gi, std::false_type{}, std::integral_constant<int, TK>{});
  if (TK > 1 && nfull > 0 && rem > 0) last(nfull, std::false_type{});
  wgmma_wait<0>();
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) pin(acc[mi][i]);
    frag_store<BF16>(acc[mi], FragPos(m0 + 64 * (MI * cw + mi), n0), p.d, p.m, p.n);
  }
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool BF16>
void launch(const W4WsParams& p0, cudaStream_t stream) {
  using L = WsLayout<C>;
  W4WsParams p = p0;
  p.mt = (p.m + C::BM - 1) / C::BM;
  p.nt = (p.n + C::BN - 1) / C::BN;
  if (p.mt * p.nt > 0x7FFFFFFF) throw mx::ShapeError("w4a16 GEMM: too many tiles");
  launch_smem<w4a16_ws_kernel<C, BF16>, L::BYTES, W4WsParams, C::PDL>(p.mt * p.nt, L::THREADS, p, stream,
                                                                      "w4a16_ws_kernel");
}

template <class C>
bool launch_cfg(const W4a16GemmArgs& x, cudaStream_t stream) {
  W4WsParams p{};
  // M < BM (one row tile): a box of M rows, no row of it past M; the stage's
  // rows from M on keep whatever they held and reach only rows of D past M,
  // which are not stored (a wgmma's row i of D reads row i of A only).
  // The TMA's zero fill of rows past M costs time: 33 x 2048 x 7168 took 24.3
  // us with a 64-row box, 14.6 with a box of M rows (gemm-decode.md run 19).
  const auto box_rows = static_cast<std::uint32_t>(x.m < C::BM ? x.m : C::BM);
  if (!make_tma_map_2d(&p.a_map, x.a, 2, x.m, x.k, x.lda * 2, C::KT, box_rows)) return false;
  p.a_bytes = box_rows * 128;
  p.m = x.m;
  p.n = x.n;
  p.k = x.k;
  p.nkb = (x.k + 31) / 32;
  p.b = x.b.data;
  p.ldb = x.b.ld;
  p.sb = x.b.scales;
  p.tc_b = check_layout(x.b.layout);
  p.vec_b = p.ldb % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.b) % 16 == 0;
  p.vsc_b = (p.tc_b || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sb) % 4 == 0;
  p.c = x.c;
  p.d = x.d;
  x.out == mx::Fmt::bf16 ? launch<C, true>(p, stream) : launch<C, false>(p, stream);
  return true;
}

}  // namespace

bool w4a16_ws_launch(const W4a16GemmArgs& x, cudaStream_t stream) { return launch_cfg<cfg::W4Ws>(x, stream); }

namespace {
template <int BN, int NP, int CW = 1, int TK = 1>
bool decode_form(const W4a16GemmArgs& x, cudaStream_t stream) {
  return launch_cfg<cfg::W4WsDecode<BN, NP, CW, TK>>(x, stream);
}
}  // namespace

bool w4a16_ws_decode_launch(const W4a16GemmArgs& x, int code, cudaStream_t stream) {
  if (x.m > 64) throw mx::InvalidArgument("w4a16 GEMM: decode_cols 6000 / 6100 / 6300 + BN take M <= 64");
  switch (code) {
    case 6016: return decode_form<16, 1>(x, stream);
    case 6032: return decode_form<32, 1>(x, stream);
    case 6056: return decode_form<56, 1>(x, stream);
    case 6064: return decode_form<64, 1>(x, stream);
    case 6128: return decode_form<128, 1>(x, stream);
    case 6116: return decode_form<16, 2>(x, stream);
    case 6132: return decode_form<32, 2>(x, stream);
    case 6156: return decode_form<56, 2>(x, stream);
    case 6164: return decode_form<64, 2>(x, stream);
    case 6228: return decode_form<128, 2>(x, stream);
    case 6316: return decode_form<16, 4>(x, stream);
    case 6332: return decode_form<32, 4>(x, stream);
    case 6356: return decode_form<56, 4>(x, stream);
    case 6364: return decode_form<64, 4>(x, stream);
    case 6428: return decode_form<128, 4>(x, stream);
    // two k-tiles of wgmma in flight per consumer (+ 10000000: CW 2)
    case 10006356: return decode_form<56, 4, 2>(x, stream);
    // TK k-tiles per consumer round trip (+ TK * 100000000); CW then counts groups of TK k-tiles
    case 200006016: return decode_form<16, 1, 1, 2>(x, stream);
    case 400006016: return decode_form<16, 1, 1, 4>(x, stream);
    case 200006356: return decode_form<56, 4, 1, 2>(x, stream);
    case 200006116: return decode_form<16, 2, 1, 2>(x, stream);
    case 400006116: return decode_form<16, 2, 1, 4>(x, stream);
    case 200006316: return decode_form<16, 4, 1, 2>(x, stream);
    default:
      throw mx::InvalidArgument(
          "w4a16 GEMM: warp-specialized M <= 64 form must be 6016, 6032, 6056, 6064, 6128 (one producer "
          "warpgroup, 6000 + BN), 6116, 6132, 6156, 6164, 6228 (two, 6100 + BN) or 6316, 6332, 6356, 6364, 6428 "
          "(four, 6300 + BN); 10006356 (6356 with two k-tiles of wgmma in flight); 200006016, 400006016, 200006116, "
          "400006116, 200006316, 200006356 (TK = 2 or 4 k-tiles per consumer round trip: + TK * 100000000)");
  }
}

}  // namespace mxk::gemm
