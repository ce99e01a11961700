// gemm_mxfp8.cu - the MXFP8 GEMM on sm_90a, defined bit for bit by
// reference/SPEC.md C11 `mxfp8`: per 32-wide k-block (in increasing order)
// one wgmma m64nNk32 from a zero accumulator gives p; s = 2^(ea-127) *
// 2^(eb-127) in fp32 (= C11's s, see ue8m0_f32); acc = fma(p, s, acc), acc
// starting at C or +0; D = acc rounded (RNE) to fp32 or bf16.
//
// A block is NWG warpgroups, each owning a 64 x BN tile of D (its own chain
// of k-blocks, so the bits do not depend on the tiling). k-tiles of 4
// k-blocks stream through ST shared-memory stages by cp.async (ST - 1 tiles
// in flight; zero fill past K, rows past M / N are not loaded since their D
// rows / columns are never stored). Each k-block: wgmma into p (scale_d 0),
// then 2 x BN/2 fp32 ops per thread (s = sa * sb, fma) while the wgmma of the
// next k-block runs (two p buffers), and the other warpgroup's too (this fp32
// work is the bound: see bench/results/gemm.md). The scale codes of a tile travel
// with it (cp.async, one word per row of A and of B, copied by an owner
// thread per row), and the owner turns them into fp32 powers of two one
// iteration ahead of use.
#include <cuda_runtime.h>

#include <string>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_ws.cuh"
#include "gemm/wgmma_ops.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

struct Fp8Params {
  std::int64_t m, n, k, nkb, mt, nt;
  const std::uint8_t *a, *b, *sa, *sb;
  std::int64_t lda, ldb;
  bool tc_a, tc_b, vec_a, vec_b, vsc_a, vsc_b;
  const float* c;
  void* d;
};

constexpr int kKb = cfg::kFp8Kt / 32;  // k-blocks per k-tile

template <class C>
struct Fp8Layout {
  static constexpr int BM = 64 * C::NWG, BN = C::BN, THREADS = 128 * C::NWG;
  static constexpr int SBW = BN / 4 + 4;  // floats per (k-block, l%4) row of B scales (padded)
  static constexpr int A = 0, B = A + kKb * BM * 32, SA = B + kKb * BN * 32, SB = SA + kKb * BM * 4;
  static constexpr int CODES = SB + kKb * 4 * SBW * 4;  // raw scale codes: one word per row of A, then of B
  static constexpr int STAGE = ((CODES + 4 * (BM + BN)) + 127) / 128 * 128;
  static constexpr int BYTES = C::ST * STAGE;
  static_assert(BM + BN <= THREADS, "one scale owner thread per row of A and B");
};

#ifdef MXK_GEMM_HAVE_WGMMA
// What a thread loads of every k-tile, fixed for the block: two threads per
// row of A and of B (thread t: row t / 2, 16-byte chunk t % 2 of each of the
// 4 k-blocks), its row pointers and shared-memory offsets computed once.
struct Fp8Rows {
  const std::uint8_t *a, *b;  // row start + 16 * chunk
  int da, db;                 // shared-memory offset of k-block 0 within A / B
  bool la, lb;                // the rows exist (rows past M / N are never loaded)
  int ja;                     // the chunk (0 or 1)
};

template <class C>
__device__ __forceinline__ Fp8Rows fp8_rows(const Fp8Params& p, std::int64_t m0, std::int64_t n0) {
  using L = Fp8Layout<C>;
  static_assert(L::THREADS == 2 * L::BM && L::THREADS == 2 * L::BN, "two loading threads per row");
  const int tid = static_cast<int>(threadIdx.x), r = tid >> 1, j = tid & 1;
  Fp8Rows w;
  w.la = m0 + r < p.m;
  w.lb = n0 + r < p.n;
  w.a = p.a + (w.la ? (m0 + r) * p.lda : 0) + 16 * j;
  w.b = p.b + (w.lb ? (n0 + r) * p.ldb : 0) + 16 * j;
  w.da = L::A + core_off(r, j);
  w.db = L::B + core_off(r, j);
  w.ja = j;
  return w;
}

// cp.async of k-tile kt (A and B elements, scale codes) into one stage.
template <class C>
__device__ __forceinline__ void load_tile(std::uint8_t* st, const Fp8Params& p, const Fp8Rows& w, std::int64_t m0,
                                          std::int64_t n0, std::int64_t kt) {
  using L = Fp8Layout<C>;
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t k0 = kt * cfg::kFp8Kt;
  if (p.vec_a && p.vec_b && k0 + cfg::kFp8Kt <= p.k) {  // whole tile inside K: plain copies
#pragma unroll
    for (int kb = 0; kb < kKb; ++kb) {
      if (w.la) cp_async16(st + w.da + kb * L::BM * 32, w.a + k0 + 32 * kb);
      if (w.lb) cp_async16(st + w.db + kb * L::BN * 32, w.b + k0 + 32 * kb);
    }
  } else {
#pragma unroll
    for (int kb = 0; kb < kKb; ++kb) {
      const std::int64_t kc = k0 + 32 * kb + 16 * w.ja;
      if (w.la) load16(st + w.da + kb * L::BM * 32, w.a + k0 + 32 * kb, p.k - kc, p.vec_a, p.a);
      if (w.lb) load16(st + w.db + kb * L::BN * 32, w.b + k0 + 32 * kb, p.k - kc, p.vec_b, p.b);
    }
  }
  // Scale codes: thread t < BM + BN copies those of its own row (it converts them later).
  auto* codes = reinterpret_cast<std::uint32_t*>(st + L::CODES);
  if (tid < L::BM) {
    if (m0 + tid < p.m) load_codes4(codes + tid, p.sa, p.tc_a, p.vsc_a, m0 + tid, kt * kKb, p.nkb);
  } else if (tid < L::BM + L::BN) {
    if (n0 + tid - L::BM < p.n) load_codes4(codes + tid, p.sb, p.tc_b, p.vsc_b, n0 + tid - L::BM, kt * kKb, p.nkb);
  }
}

// The owner's converted scales of the tile in stage st: fp32 powers of two
// (C11's factors), A rows as [k-block][row], B rows permuted so that a thread
// reads its columns' factors with float4 loads.
template <class C>
__device__ __forceinline__ void convert_codes(std::uint8_t* st) {
  using L = Fp8Layout<C>;
  const int tid = static_cast<int>(threadIdx.x);
  if (tid >= L::BM + L::BN) return;
  const std::uint32_t w = reinterpret_cast<const std::uint32_t*>(st + L::CODES)[tid];
  const bool a = tid < L::BM;
  const int rb = tid - L::BM;
  float* dst = reinterpret_cast<float*>(st + (a ? L::SA : L::SB));
  const int off = a ? tid : ((rb >> 1) & 3) * L::SBW + 2 * (rb >> 3) + (rb & 1);
#pragma unroll
  for (int j = 0; j < kKb; ++j) dst[j * (a ? L::BM : 4 * L::SBW) + off] = ue8m0_f32((w >> (8 * j)) & 0xFFu);
}

#endif  // MXK_GEMM_HAVE_WGMMA

template <class C, bool E5M2, bool BF16>
__global__ void __launch_bounds__(128 * C::NWG, 1) mxfp8_kernel(const Fp8Params p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = Fp8Layout<C>;
  constexpr int BN = C::BN, R = BN / 2, ST = C::ST;
  extern __shared__ __align__(1024) std::uint8_t smem[];
  const int tid = static_cast<int>(threadIdx.x);
  const int wg = tid >> 7, l = tid & 31, w = (tid >> 5) & 3;
  std::int64_t tm, tn;
  tile_of_block(p.mt, p.nt, C::GROUP, tm, tn);
  const std::int64_t m0 = tm * L::BM, n0 = tn * BN;
  const FragPos fp(m0 + 64 * wg, n0);
  float acc[R], pa[R], pb[R];
  frag_init(acc, fp, p.c, p.m, p.n);
  const std::int64_t ntiles = (p.nkb + kKb - 1) / kKb;
  const Fp8Rows rows = fp8_rows<C>(p, m0, n0);
#pragma unroll
  for (int s = 0; s < ST - 1; ++s) {
    if (s < ntiles) load_tile<C>(smem + s * L::STAGE, p, rows, m0, n0, s);
    cp_async_commit();
  }
  // The scale codes of tile kt + 1 are converted by their owners (who copied
  // them) in iteration kt, before the barrier that publishes them.
  cp_async_wait<ST - 2>();
  if (ntiles > 0) convert_codes<C>(smem);
  const int arow = 64 * wg + 16 * w + (l >> 2);  // this thread's first row within the block tile
  for (std::int64_t kt = 0; kt < ntiles; ++kt) {
    std::uint8_t* st = smem + (kt % ST) * L::STAGE;
    cp_async_wait<ST - 3>();  // tiles kt and kt + 1 landed (this thread's copies)
    if (kt + 1 < ntiles) convert_codes<C>(smem + ((kt + 1) % ST) * L::STAGE);
    fence_proxy_async();
    __syncthreads();  // tile kt and its scales visible; every thread is done with tile kt - 1
    if (kt + ST - 1 < ntiles) load_tile<C>(smem + ((kt + ST - 1) % ST) * L::STAGE, p, rows, m0, n0, kt + ST - 1);
    cp_async_commit();
    const float* sa = reinterpret_cast<const float*>(st + L::SA);
    const float* sb = reinterpret_cast<const float*>(st + L::SB) + (l & 3) * L::SBW;
    // k-block j: wgmma into a zero accumulator (p_j, two buffers so that the
    // wgmma of k-block j + 1 runs while the FMAs of k-block j do).
    auto mma = [&](int j, float(&d)[R]) {
      const std::uint64_t da = smem_desc(st + L::A + j * L::BM * 32 + 64 * wg * 32);
      const std::uint64_t db = smem_desc(st + L::B + j * BN * 32);
      wgmma_fence();
      if constexpr (E5M2) {
        Wgmma<BN>::e5m2_zero(d, da, db);
      } else {
        Wgmma<BN>::e4m3_zero(d, da, db);
      }
      wgmma_commit();
    };
    auto fold = [&](int j, float(&d)[R]) {  // acc = fma(p_j, sa * sb, acc), in k order
#pragma unroll
      for (int i = 0; i < R; ++i) pin(d[i]);
      if (kt * kKb + j >= p.nkb) return;  // k-blocks past K are not in the model
      const float sa0 = sa[j * L::BM + arow], sa1 = sa[j * L::BM + arow + 8];
#pragma unroll
      for (int t = 0; t < BN / 16; ++t) {
        const float4 sbv = *reinterpret_cast<const float4*>(sb + j * 4 * L::SBW + 4 * t);
        const float sbs[4] = {sbv.x, sbv.y, sbv.z, sbv.w};
#pragma unroll
        for (int u = 0; u < 8; ++u) {  // values i = 8t + u: column pair 2t + (u >> 2), row half (u >> 1) & 1
          const int i = 8 * t + u;
          const float s = mul_rn((u >> 1) & 1 ? sa1 : sa0, sbs[2 * (u >> 2) + (u & 1)]);
          acc[i] = fma_rn(d[i], s, acc[i]);
        }
      }
    };
    static_assert(kKb == 4, "the k-block pipeline below is written out for 4 k-blocks per tile");
    mma(0, pa);
    mma(1, pb);
    wgmma_wait<1>();
    fold(0, pa);
    mma(2, pa);
    wgmma_wait<1>();
    fold(1, pb);
    mma(3, pb);
    wgmma_wait<1>();
    fold(2, pa);
    wgmma_wait<0>();
    fold(3, pb);
  }
  cp_async_wait_all();
  frag_store<BF16>(acc, fp, p.d, p.m, p.n);
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool E5M2, bool BF16>
void launch(Fp8Params p, cudaStream_t stream) {
  using L = Fp8Layout<C>;
  p.mt = (p.m + L::BM - 1) / L::BM;
  p.nt = (p.n + C::BN - 1) / C::BN;
  if (p.mt * p.nt > 0x7FFFFFFF) throw mx::ShapeError("mxfp8 GEMM: too many tiles");
  launch_smem<mxfp8_kernel<C, E5M2, BF16>, L::BYTES>(p.mt * p.nt, L::THREADS, p, stream, "mxfp8_kernel");
}

template <class C>
void launch_cfg(const Fp8Params& p, bool e5, bool bf, cudaStream_t s) {
  if (e5) {
    bf ? launch<C, true, true>(p, s) : launch<C, true, false>(p, s);
  } else {
    bf ? launch<C, false, true>(p, s) : launch<C, false, false>(p, s);
  }
}

}  // namespace
}  // namespace mxk::gemm

namespace mxk {

void mxfp8_gemm_launch(const Mxfp8GemmArgs& x, void* stream) {
  using namespace gemm;
  require_gemm_device();
  if (x.elem != mx::Fmt::e4m3 && x.elem != mx::Fmt::e5m2)
    throw mx::InvalidArgument("mxfp8 GEMM: elements must be e4m3 or e5m2");
  check_out_fmt(x.out);
  check_shape(x.m, x.n, x.k, "mxfp8 GEMM");
  if (x.m == 0 || x.n == 0) return;
  Fp8Params p{};
  p.m = x.m;
  p.n = x.n;
  p.k = x.k;
  p.nkb = (x.k + 31) / 32;
  p.a = x.a.data;
  p.b = x.b.data;
  p.sa = x.a.scales;
  p.sb = x.b.scales;
  p.lda = x.a.ld;
  p.ldb = x.b.ld;
  if (p.lda < x.k || p.ldb < x.k) throw mx::ShapeError("mxfp8 GEMM: a row holds fewer than K bytes");
  p.tc_a = check_layout(x.a.layout);
  p.tc_b = check_layout(x.b.layout);
  p.vec_a = p.lda % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.a) % 16 == 0;
  p.vec_b = p.ldb % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.b) % 16 == 0;
  p.vsc_a = (p.tc_a || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sa) % 4 == 0;
  p.vsc_b = (p.tc_b || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sb) % 4 == 0;
  p.c = x.c;
  p.d = x.d;
  const auto s = static_cast<cudaStream_t>(stream);
  // K = 0: no k-block; D = C (or +0), still written by the kernel.
  const bool e5 = x.elem == mx::Fmt::e5m2, bf = x.out == mx::Fmt::bf16;
  if (x.m <= 64) {
    launch_cfg<cfg::Fp8Small>(p, e5, bf, s);
  } else if (!mxfp8_ws_launch(x, s)) {  // warp-specialized where TMA can read A and B
    launch_cfg<cfg::Fp8Large>(p, e5, bf, s);
  }
}

}  // namespace mxk
