// gemm_mxfp8_ws.cu - the warp-specialized MXFP8 GEMM for M > 64 on sm_90a,
// bit for bit reference/SPEC.md C11 `mxfp8` (as gemm_mxfp8.cu: per 32-wide
// k-block in increasing order one wgmma m64nNk32 from zero gives p, then
// acc = fma(p, 2^(ea-127) * 2^(eb-127), acc) in fp32).
//
// Persistent: one block per SM takes the 64 NC x 128 output tiles blockIdx.x,
// + gridDim.x, ... (cfg::Fp8Ws) through one ring of ST stages, with three
// warpgroups (gemm_ws.cuh):
// - warpgroup 0, the producer: one thread loads the k-tiles of A (BM rows)
//   and B (128 rows), 128 bytes of K each, by TMA with the 128-byte swizzle
//   into stage s (zero fill past M, N and K); all 128 threads copy the scale
//   codes (one word of 4 k-blocks per row of A and of B, from an address
//   stepped per k-tile) by cp.async RS - 1 k-tiles ahead (across tile
//   boundaries), turn those of stage s into fp32 powers of two, and arrive on
//   full[s]; it runs on into the next tile while the consumers store the last;
// - warpgroups 1 .. NC, the consumers: 64 rows each; per k-block one wgmma
//   into p and the FMUL + FFMA of the fold. PB = 1 (cfg::Fp8Ws): the factors
//   of k-block j + 1 are loaded while the wgmma of j runs, the two consumer
//   warpgroups' wgmmas and folds interleave; PB = 2: two p buffers, the fold
//   of j while the wgmma of j + 1 runs. The stage is released on empty[s]
//   once its last fold is done.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>
#include <utility>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_ws.cuh"
#include "gemm/wgmma_ops.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

struct Fp8WsParams {
  CUtensorMap a_map, b_map;  // [M][K] / [N][K] bytes, boxes of 128 x BM (A) / 128 x 128 (B)
  std::int64_t m, n, k, nkb, mt, nt;
  const std::uint8_t *sa, *sb;
  bool tc_a, tc_b, vsc_a, vsc_b;
  const float* c;
  void* d;
};

template <class C>
struct WsLayout {
  static constexpr int BM = 64 * C::NC, BN = 128, KB = 4;  // k-tiles of 128 = 4 k-blocks
  static constexpr int SBW = BN / 4 + 4;                 // floats per (k-block, l % 4) row of B factors (padded)
  static constexpr int A_BYTES = BM * 128, B_BYTES = BN * 128;
  static constexpr int SA_BYTES = KB * BM * 4, SB_BYTES = KB * 4 * SBW * 4;
  static constexpr int A0 = 0;  // A stages, B stages, factor stages, code ring, barriers
  static constexpr int B0 = A0 + C::ST * A_BYTES, F0 = B0 + C::ST * B_BYTES;
  static constexpr int F_STAGE = SA_BYTES + SB_BYTES;
  static constexpr int CODES0 = F0 + C::ST * F_STAGE, CODE_STAGE = 4 * (BM + BN);
  static constexpr int BAR0 = CODES0 + C::RS * CODE_STAGE;
  static constexpr int BYTES = BAR0 + 2 * C::ST * 8;
  static constexpr int THREADS = 128 * (1 + C::NC);
  static_assert(A0 == 0 && BM <= 256, "TMA box rows");
  static_assert(C::PB == 1 || (C::PB == 2 && KB % 2 == 0), "p buffers (two: the last k-block is in pb)");
  static_assert(C::PF >= 0 && C::PF <= BN / 16, "prefetched groups of column factors");
  static_assert(A_BYTES % 1024 == 0 && B_BYTES % 1024 == 0 && F_STAGE % 16 == 0, "stage alignment");
  static_assert(128 * C::PRODUCER_REGS + 128 * C::NC * C::CONSUMER_REGS <= 65536, "register file");
  static_assert(BYTES <= 227 * 1024, "shared memory");
};

#ifdef MXK_GEMM_HAVE_WGMMA
// Fixed-rate ring position: stage s of ST (or RS) and the parity of its use.
template <int N>
struct Ring {
  int s = 0;
  std::uint32_t phase = 0;
  __device__ __forceinline__ void next() {
    if (++s == N) {
      s = 0;
      phase ^= 1u;
    }
  }
};

// The 4 ue8m0 codes of w as fp32 powers of two (C11: 2^(e-127), 2^-127 for
// 0, NaN for 0xff); codes 1..254 are just the code in the exponent field.
__device__ __forceinline__ void codes_f32(std::uint32_t w, float (&f)[4]) {
  const std::uint32_t zero = (w - 0x01010101u) & ~w & 0x80808080u, ones = (~w - 0x01010101u) & w & 0x80808080u;
  if ((zero | ones) == 0) {
    f[0] = __uint_as_float((w << 23) & 0x7F800000u);
    f[1] = __uint_as_float((w << 15) & 0x7F800000u);
    f[2] = __uint_as_float((w << 7) & 0x7F800000u);
    f[3] = __uint_as_float((w >> 1) & 0x7F800000u);
  } else {
#pragma unroll
    for (int j = 0; j < 4; ++j) f[j] = ue8m0_f32((w >> (8 * j)) & 0xFFu);
  }
}

// Barrier waits: HINT 0 spins on try_wait; 1 gives the producer's wait on
// `empty` a suspend-time hint (the thread sleeps until the phase completes or
// the hint runs out, instead of re-issuing); 2 both roles' waits.
template <int HINT>
__device__ __forceinline__ void wait_bar(std::uint64_t* b, std::uint32_t parity) {
  if constexpr (HINT) {
    mbar_wait_hint(b, parity);
  } else {
    mbar_wait(b, parity);
  }
}

// Output tile t (0 .. mt nt - 1) in groups of `group` tile rows, as tile_of_block.
__device__ __forceinline__ void tile_of(std::int64_t t, std::int64_t mt, std::int64_t nt, int group, std::int64_t& tm,
                                        std::int64_t& tn) {
  const std::int64_t per = group * nt, first = (t / per) * group;
  const std::int64_t gs = mt - first < group ? mt - first : group, in = t % per;
  tm = first + in % gs;
  tn = in / gs;
}

#endif

template <class C, bool E5M2, bool BF16>
__global__ void __launch_bounds__(WsLayout<C>::THREADS, 1) mxfp8_ws_kernel(const __grid_constant__ Fp8WsParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = WsLayout<C>;
  constexpr int BN = L::BN, BM = L::BM, R = BN / 2;
  extern __shared__ __align__(1024) std::uint8_t smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + L::BAR0);
  auto* empty = full + C::ST;
  const int tid = static_cast<int>(threadIdx.x), wg = tid >> 7;
  // Persistent: this block's output tiles are blockIdx.x, + gridDim.x, ...;
  // each has nkt k-tiles, all of them taken through one ring of stages.
  const std::int64_t total = p.mt * p.nt, nkt = (p.nkb + L::KB - 1) / L::KB;
  auto origin = [&](std::int64_t t, std::int64_t& m0, std::int64_t& n0) {
    std::int64_t tm, tn;
    tile_of(t, p.mt, p.nt, C::GROUP, tm, tn);
    m0 = tm * BM;
    n0 = tn * BN;
  };
  if (tid == 0) {
    for (int s = 0; s < C::ST; ++s) {
      mbar_init(&full[s], 128 + 1);  // the producer's threads + the TMA's expect_tx arrival
      mbar_init(&empty[s], 128 * C::NC);  // every consumer thread
    }
    mbar_init_fence();
    tma_prefetch_map(&p.a_map);
    tma_prefetch_map(&p.b_map);
  }
  __syncthreads();

  if (wg == 0) {  // ---- producer: TMA of A and B; scale codes -> fp32 factors ----
    regs_dec<C::PRODUCER_REGS>();
    constexpr int AR = (BM + 127) / 128;  // rows of A per thread: tid, tid + 128
    auto* codes = reinterpret_cast<std::uint32_t*>(smem + L::CODES0);
    // Two walks over (tile, k-tile): `ld` copies scale codes RS - 1 k-tiles
    // ahead of `at`, which fills the stages.
    // `ld` also keeps the address of the code word of each row it copies
    // (A rows tid + 128 i, B row tid) for its k-tile; where that word is one
    // aligned word (vsc) the next k-tile's is a fixed step on (4 bytes dense,
    // 512 tcgen05). Addresses as integers: rows past M / N are never read.
    struct Walk {
      std::int64_t t, kt, m0, n0;
      std::uint64_t qa[AR], qb;
    };
    const std::uint64_t step_a = p.tc_a ? 512u : 4u, step_b = p.tc_b ? 512u : 4u;
    auto at_tile = [&](Walk& x, bool addr) {
      origin(x.t, x.m0, x.n0);
      if (addr) {
#pragma unroll
        for (int i = 0; i < AR; ++i)
          x.qa[i] = reinterpret_cast<std::uint64_t>(p.sa) +
                    static_cast<std::uint64_t>(scale_off(p.tc_a, x.m0 + tid + 128 * i, 0, p.nkb));
        x.qb = reinterpret_cast<std::uint64_t>(p.sb) + static_cast<std::uint64_t>(scale_off(p.tc_b, x.n0 + tid, 0, p.nkb));
      }
    };
    auto start = [&](Walk& x, bool addr) {
      x.t = blockIdx.x;
      x.kt = 0;
      if (x.t < total) at_tile(x, addr);
    };
    auto advance = [&](Walk& x, bool addr) {
      if (addr) {
#pragma unroll
        for (int i = 0; i < AR; ++i) x.qa[i] += step_a;
        x.qb += step_b;
      }
      if (++x.kt == nkt) {
        x.kt = 0;
        x.t += gridDim.x;
        if (x.t < total) at_tile(x, addr);
      }
    };
    Walk ld, at;
    start(ld, true);
    start(at, false);
    if (nkt == 0) ld.t = at.t = total;  // K = 0: nothing to load
    Ring<C::RS> lr, cr;  // code ring: next slot to load, slot of `at`
    auto load_codes = [&]() {
      if (ld.t < total) {
        std::uint32_t* c = codes + lr.s * (BM + BN);
#pragma unroll
        for (int i = 0; i < AR; ++i) {
          const int r = tid + 128 * i;
          if (r < BM && ld.m0 + r < p.m) {
            if (p.vsc_a) {
              cp_async4(c + r, reinterpret_cast<const void*>(ld.qa[i]));
            } else {
              load_codes4(c + r, p.sa, p.tc_a, p.vsc_a, ld.m0 + r, ld.kt * L::KB, p.nkb);
            }
          }
        }
        if (ld.n0 + tid < p.n) {
          if (p.vsc_b) {
            cp_async4(c + BM + tid, reinterpret_cast<const void*>(ld.qb));
          } else {
            load_codes4(c + BM + tid, p.sb, p.tc_b, p.vsc_b, ld.n0 + tid, ld.kt * L::KB, p.nkb);
          }
        }
        advance(ld, true);
      }
      cp_async_commit();
      lr.next();
    };
#pragma unroll
    for (int s = 0; s < C::RS - 1; ++s) load_codes();
    const int ob = ((tid >> 1) & 3) * L::SBW + 2 * (tid >> 3) + (tid & 1);  // B row tid's permuted slot
    Ring<C::ST> st;
    for (bool again = false; at.t < total;) {
      const int s = st.s;
      cp_async_wait<C::RS - 2>();  // codes of `at` landed (each thread reads only what it copied)
      load_codes();
      if (again) wait_bar<C::HINT>(&empty[s], st.phase ^ 1u);  // the consumers are done with stage s
      if (tid == 0) {
        mbar_arrive_tx(&full[s], L::A_BYTES + L::B_BYTES);
        const auto k0 = static_cast<std::int32_t>(at.kt * 128);
        tma_load_2d(smem + L::A0 + s * L::A_BYTES, &p.a_map, k0, static_cast<std::int32_t>(at.m0), &full[s]);
        tma_load_2d(smem + L::B0 + s * L::B_BYTES, &p.b_map, k0, static_cast<std::int32_t>(at.n0), &full[s]);
      }
      // Factors: A rows as [k-block][row] with rows r and r + 8 of each 16
      // side by side (a consumer thread's pair: one float2), B rows permuted so
      // that a consumer thread reads its columns' factors with float4 loads
      // (rows past M / N: their factors only reach D elements never stored).
      const std::uint32_t* c = codes + cr.s * (BM + BN);
      auto* fa = reinterpret_cast<float*>(smem + L::F0 + s * L::F_STAGE);
      auto* fb = reinterpret_cast<float*>(smem + L::F0 + s * L::F_STAGE + L::SA_BYTES);
      float v[4];
#pragma unroll
      for (int i = 0; i < AR; ++i) {
        const int r = tid + 128 * i;
        if (r < BM) {
          const int slot = (r & ~15) + 2 * (r & 7) + ((r >> 3) & 1);
          codes_f32(at.m0 + r < p.m ? c[r] : 0u, v);
#pragma unroll
          for (int j = 0; j < L::KB; ++j) fa[j * BM + slot] = v[j];
        }
      }
      codes_f32(at.n0 + tid < p.n ? c[BM + tid] : 0u, v);
#pragma unroll
      for (int j = 0; j < L::KB; ++j) fb[j * 4 * L::SBW + ob] = v[j];
      mbar_arrive(&full[s]);
      st.next();
      again |= st.s == 0;  // from the second pass over the stages on, wait for `empty`
      cr.next();
      advance(at, false);
    }
    cp_async_wait_all();
    return;
  }

  // ---- consumers: 64 rows each ----
  regs_inc<C::CONSUMER_REGS>();
  const int cw = wg - 1, l = tid & 31, w = (tid >> 5) & 3;
  float acc[R], pa[R], pb[C::PB == 2 ? R : 1];
  // Descriptors of stage 0, k-block 0 (this warpgroup's 64 rows of A, all of
  // B); stage s and k-block j add (s * bytes + 32 j) / 16 to the address field.
  const std::uint64_t da0 = smem_desc_sw128(smem + L::A0 + 64 * 128 * cw), db0 = smem_desc_sw128(smem + L::B0);
  // This thread's factors in a stage: rows arow and arow + 8 side by side (one
  // float2 per k-block), its columns' B factors as float4 per 16-column group.
  const int aoff = 4 * (64 * cw + 16 * w + 2 * (l >> 2)), boff = L::SA_BYTES + 4 * (l & 3) * L::SBW;
  auto mma = [&](std::uint32_t sa16, std::uint32_t sb16, int j, float(&d)[R]) {
    const std::uint64_t da = desc_add(da0, sa16 + 2 * j), db = desc_add(db0, sb16 + 2 * j);
    wgmma_fence();
    if constexpr (E5M2) {
      Wgmma<BN>::e5m2_zero(d, da, db);
    } else {
      Wgmma<BN>::e4m3_zero(d, da, db);
    }
    wgmma_commit();
  };
  // Factors of k-block j of the stage at f: the row pair and the first PF
  // groups of 4 column factors (loaded before the wait for p; the other groups
  // in the fold).
  struct Pre {
    float2 a;
    float4 b[C::PF > 0 ? C::PF : 1];
  };
  auto ld_b = [&](const std::uint8_t* f, int j, int t) {
    return *reinterpret_cast<const float4*>(f + boff + 16 * (j * L::SBW + t));
  };
  auto prefetch = [&](const std::uint8_t* f, int j) {
    Pre x;
    x.a = *reinterpret_cast<const float2*>(f + aoff + 4 * BM * j);
#pragma unroll
    for (int t = 0; t < C::PF; ++t) x.b[t] = ld_b(f, j, t);
    return x;
  };
  // acc = fma(p, sa * sb, acc) for the 64 values of k-block j (k order per element).
  auto fold = [&](const std::uint8_t* f, int j, const Pre& x, float(&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) pin_reg(d[i]);
#pragma unroll
    for (int t = 0; t < BN / 16; ++t) {  // 16-column group t
      const float4 sbv = t < C::PF ? x.b[t < C::PF ? t : 0] : ld_b(f, j, t);
      const float sbs[4] = {sbv.x, sbv.y, sbv.z, sbv.w};
#pragma unroll
      for (int u = 0; u < 8; ++u) {  // values 8t + u: column pair 2t + (u >> 2), row half (u >> 1) & 1
        const int i = 8 * t + u;
        const float sc = mul_rn((u >> 1) & 1 ? x.a.y : x.a.x, sbs[2 * (u >> 2) + (u & 1)]);
        acc[i] = fma_rn(d[i], sc, acc[i]);
      }
    }
  };
  // PB = 1: k-block j, with the factors of k-block j + 1 (if `more`) loaded
  // while its wgmma runs; returns those.
  auto step_pb1 = [&](const std::uint8_t* f, std::uint32_t sa16, std::uint32_t sb16, int j, const Pre& x, bool more) {
    mma(sa16, sb16, j, pa);
    const Pre xn = prefetch(f, more ? j + 1 : j);
    wgmma_wait<0>();
    fold(f, j, x, pa);
    return xn;
  };
  // The stage of the next k-tile: its descriptor offsets and factors, once full.
  Ring<C::ST> st;
  auto stage = [&](std::uint32_t& sa16, std::uint32_t& sb16) {
    sa16 = static_cast<std::uint32_t>(st.s) * (L::A_BYTES / 16);
    sb16 = static_cast<std::uint32_t>(st.s) * (L::B_BYTES / 16);
    wait_bar<C::HINT == 2 ? 1 : 0>(&full[st.s], st.phase);
    return smem + L::F0 + st.s * L::F_STAGE;
  };
  auto release = [&] {
    mbar_arrive(&empty[st.s]);  // this thread is done with the stage (its wgmmas and factor reads)
    st.next();
  };
  const std::int64_t full_kt = p.nkb / L::KB;
  for (std::int64_t t = blockIdx.x; t < total; t += gridDim.x) {
    std::int64_t m0, n0;
    origin(t, m0, n0);
    const FragPos fp(m0 + 64 * cw, n0);
    if (p.c == nullptr) {
#pragma unroll
      for (int i = 0; i < R; ++i) acc[i] = 0.0f;
    } else {
      frag_init(acc, fp, p.c, p.m, p.n);
    }
    // Whole k-tiles. PB = 2: k-blocks 0 .. KB - 1 alternate between pa and
    // pb, the wgmma of k-block j + 1 in flight while k-block j is folded. PB
    // = 1: one k-block at a time, the next one's factors loaded during its wgmma
    // (the other consumer warpgroup fills the gaps).
    for (std::int64_t kt = 0; kt < full_kt; ++kt) {
      std::uint32_t sa16, sb16;
      const std::uint8_t* f = stage(sa16, sb16);
      if constexpr (C::PB == 1) {
        Pre x = prefetch(f, 0);
#pragma unroll
        for (int j = 0; j < L::KB; ++j) x = step_pb1(f, sa16, sb16, j, x, j + 1 < L::KB);
      } else {
        mma(sa16, sb16, 0, pa);
        [&]<int... J>(std::integer_sequence<int, J...>) {
          (
              [&] {
                constexpr int j = J + 1;  // wgmma of k-block j, fold of j - 1
                const Pre x = prefetch(f, j - 1);
                if constexpr (j & 1) {
                  mma(sa16, sb16, j, pb);
                  wgmma_wait<1>();
                  fold(f, j - 1, x, pa);
                } else {
                  mma(sa16, sb16, j, pa);
                  wgmma_wait<1>();
                  fold(f, j - 1, x, pb);
                }
              }(),
              ...);
        }(std::make_integer_sequence<int, L::KB - 1>{});
        const Pre x = prefetch(f, L::KB - 1);
        wgmma_wait<0>();
        fold(f, L::KB - 1, x, pb);
      }
      release();
    }
    // The last k-tile when nkb % KB != 0: only its k-blocks inside K, one at
    // a time (k-blocks past K are not in the model).
    if (full_kt < nkt) {
      std::uint32_t sa16, sb16;
      const std::uint8_t* f = stage(sa16, sb16);
      const int nj = static_cast<int>(p.nkb - full_kt * L::KB);
      if constexpr (C::PB == 1) {  // unrolled and guarded (a loop over nj made ptxas spill with PB 1)
        Pre x = prefetch(f, 0);
#pragma unroll
        for (int j = 0; j < L::KB - 1; ++j)
          if (j < nj) x = step_pb1(f, sa16, sb16, j, x, j + 1 < nj);
      } else {  // a loop (unrolled, ptxas spilled here with PB 2)
        for (int j = 0; j < nj; ++j) {
          const Pre x = prefetch(f, j);
          mma(sa16, sb16, j, pa);
          wgmma_wait<0>();
          fold(f, j, x, pa);
        }
      }
      release();
    }
    frag_store<BF16>(acc, fp, p.d, p.m, p.n);
  }
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool E5M2, bool BF16>
void launch(const Fp8WsParams& p, cudaStream_t stream) {
  using L = WsLayout<C>;
  // Persistent: one block per SM (or per tile, if fewer).
  const std::int64_t grid = std::min<std::int64_t>(p.mt * p.nt, sm_count());
  launch_smem<mxfp8_ws_kernel<C, E5M2, BF16>, L::BYTES>(grid, L::THREADS, p, stream, "mxfp8_ws_kernel");
}

template <class C>
bool launch_cfg(const Mxfp8GemmArgs& x, cudaStream_t stream) {
  using L = WsLayout<C>;
  Fp8WsParams p{};
  if (!make_tma_map_2d(&p.a_map, x.a.data, 1, x.m, x.k, x.a.ld, 128, L::BM) ||
      !make_tma_map_2d(&p.b_map, x.b.data, 1, x.n, x.k, x.b.ld, 128, L::BN))
    return false;
  p.m = x.m;
  p.n = x.n;
  p.k = x.k;
  p.nkb = (x.k + 31) / 32;
  p.sa = x.a.scales;
  p.sb = x.b.scales;
  p.tc_a = check_layout(x.a.layout);
  p.tc_b = check_layout(x.b.layout);
  p.vsc_a = (p.tc_a || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sa) % 4 == 0;
  p.vsc_b = (p.tc_b || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sb) % 4 == 0;
  p.c = x.c;
  p.d = x.d;
  p.mt = (p.m + L::BM - 1) / L::BM;
  p.nt = (p.n + L::BN - 1) / L::BN;
  if (p.mt * p.nt > 0x7FFFFFFF) throw mx::ShapeError("mxfp8 GEMM: too many tiles");
  const bool e5 = x.elem == mx::Fmt::e5m2, bf = x.out == mx::Fmt::bf16;
  if (e5) {
    bf ? launch<C, true, true>(p, stream) : launch<C, true, false>(p, stream);
  } else {
    bf ? launch<C, false, true>(p, stream) : launch<C, false, false>(p, stream);
  }
  return true;
}

}  // namespace

bool mxfp8_ws_launch(const Mxfp8GemmArgs& x, cudaStream_t stream) { return launch_cfg<cfg::Fp8Ws>(x, stream); }

}  // namespace mxk::gemm
