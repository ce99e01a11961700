// gemm_w4a16.cu - the bf16 x MXFP4 GEMM on sm_90a, defined bit for bit by
// reference/SPEC.md C11 `w4a16`: every B element widened to bf16 as
// e2m1 * 2^(e-127) (exact; +-Inf beyond bf16; NaN for a 0xff scale), then
// bf16 wgmma m64nNk16 steps in increasing k accumulating in fp32 from C (or
// +0); D = the accumulator rounded (RNE) to fp32 or bf16.
//
// One kernel template, two uses (kernels/gemm/gemm_config.hpp):
// - M > 64: 128 x 128 blocks (two warpgroups of 64 rows), the widened
//   128 x 64 slice of B shared by all 128 rows, two blocks per SM;
// - M <= 64 with an explicit tile width bn (the decode kernels of
//   gemm_w4a16_mma.cu / gemm_w4a16_decode.cu run otherwise, and are faster): one warpgroup, 64 x BN blocks with
//   BN = 16..64 so that N alone gives enough blocks (no split-K: C11 fixes the
//   k order of every element), deep cp.async pipelines, and only the first AR
//   rows of A in shared memory (the wgmma's other rows read neighbouring bytes
//   of the same stage, which only reach rows of D that are never stored).
// Per k-tile: the stage's raw B (packed) and its scale codes (one word per
// row), both by cp.async, are widened by all threads
// into one of two widened buffers while the wgmma steps of the previous
// k-tile run; then KT/16 wgmma steps. Every tile issues all its k-steps: the
// steps past the model's ceil(K / 16) have only zero products (A and B are
// zero past K; B's padding is +0, never a widened value), which leave the
// accumulator unchanged under the model (mx_c11_cpu_test
// C11_W4a16.ExtraZeroStepsAreNoOps).
#include <cuda_runtime.h>

#include <string>
#include <type_traits>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_widen.cuh"
#include "gemm/gemm_ws.cuh"
#include "gemm/gemm_w4a16_decode.hpp"
#include "gemm/wgmma_ops.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

using W4Params = W4aParams;  // gemm_host.hpp

template <class C>
struct W4Layout {
  static constexpr int THREADS = 128 * C::NWG, S16 = C::KT / 16, KB = C::KT / 32;
  static constexpr int A_BYTES = S16 * C::AR * 32 + (C::AR < 64 ? 2048 - C::AR * 32 : 0);
  static constexpr int RAW = A_BYTES;                // packed B: [KB][BN][16 bytes]
  static constexpr int CODES = RAW + KB * C::BN * 16;  // B's scale codes: CW words (4 k-blocks each) per row
  static constexpr int CW = (KB + 3) / 4;             // KT = 64: the aligned word holding the tile's 2 k-blocks
  static constexpr int STAGE = (CODES + 4 * CW * C::BN + 127) / 128 * 128;
  static constexpr int WB = C::ST * STAGE, WB_BYTES = S16 * C::BN * 32;  // two widened buffers
  static constexpr int BYTES = WB + 2 * WB_BYTES;
  static constexpr int TASKS = C::BN * KB, TPT = (TASKS + THREADS - 1) / THREADS;  // widening tasks
  static_assert(C::AR == C::BM || (C::NWG == 1 && C::MI == 1 && C::AR <= 64), "AR < BM only for one 64-row tile");
  static_assert(C::KT == 64 || C::KT % 128 == 0, "k-tiles of 64 or of whole scale words");
  static_assert(C::BN * CW <= THREADS, "one scale word per thread");
};

#ifdef MXK_GEMM_HAVE_WGMMA
// What a thread loads of every k-tile, fixed for the block: TPR threads per
// row of A (thread t: row t / TPR, every TPR-th 8-element chunk from t % TPR),
// one or two 32-element chunks of one row of B; pointers and shared-memory
// offsets computed once.
template <class C>
struct W4Rows {
  static constexpr int TPR = W4Layout<C>::THREADS / C::AR, CPR = C::KT / 8, NCH = CPR / TPR;
  static_assert(W4Layout<C>::THREADS % C::AR == 0 && TPR % 2 == 0 && CPR % TPR == 0, "A chunks per thread");
  static_assert(W4Layout<C>::THREADS % C::BN == 0, "B rows per thread");
  const std::uint16_t* a;  // row start + first chunk
  const std::uint8_t* b;   // row start
  int da, ka;              // shared-memory offset and k of the first chunk
  bool la, lb;
};

template <class C>
__device__ __forceinline__ W4Rows<C> w4_rows(const W4Params& p, std::int64_t m0, std::int64_t n0) {
  using W = W4Rows<C>;
  const int tid = static_cast<int>(threadIdx.x), r = tid / W::TPR, sub = tid % W::TPR, rb = tid % C::BN;
  W w;
  w.la = m0 + r < p.m;
  w.ka = 16 * (sub >> 1) + 8 * (sub & 1);
  w.a = p.a + (w.la ? (m0 + r) * p.lda : 0) + w.ka;
  w.da = (sub >> 1) * C::AR * 32 + core_off(r, sub & 1);
  w.lb = n0 + rb < p.n;
  w.b = p.b + (w.lb ? (n0 + rb) * p.ldb : 0);
  return w;
}

template <class C>
__device__ __forceinline__ void load_tile(std::uint8_t* st, const W4Params& p, const W4Rows<C>& w, std::int64_t n0,
                                          std::int64_t kt) {
  using L = W4Layout<C>;
  using W = W4Rows<C>;
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t k0 = kt * C::KT;
  if (p.vec_a && p.vec_b && k0 + C::KT <= p.k) {  // whole tile inside K: plain copies
#pragma unroll
    for (int i = 0; i < W::NCH; ++i)  // chunk i: TPR / 2 slices further on
      if (w.la) cp_async16(st + w.da + i * (W::TPR / 2) * C::AR * 32, w.a + k0 + i * 8 * W::TPR);
#pragma unroll
    for (int i = 0; i < L::TPT; ++i) {
      const int t = tid + i * L::THREADS;
      if ((L::TASKS % L::THREADS == 0 || t < L::TASKS) && w.lb)
        cp_async16(st + L::RAW + t * 16, w.b + (k0 + 32 * (t / C::BN)) / 2);
    }
  } else {
#pragma unroll
    for (int i = 0; i < W::NCH; ++i) {
      const std::int64_t kc = k0 + w.ka + i * 8 * W::TPR;
      if (w.la)
        load16(st + w.da + i * (W::TPR / 2) * C::AR * 32, reinterpret_cast<const std::uint8_t*>(w.a + k0 + i * 8 * W::TPR),
               2 * (p.k - kc), p.vec_a, p.a);
    }
#pragma unroll
    for (int i = 0; i < L::TPT; ++i) {
      const int t = tid + i * L::THREADS;
      const std::int64_t kc = k0 + 32 * (t / C::BN);
      if ((L::TASKS % L::THREADS == 0 || t < L::TASKS) && w.lb)
        load16(st + L::RAW + t * 16, w.b + kc / 2, (p.k - kc + 1) / 2, p.vec_b, p.b);
    }
  }
  if (tid < C::BN * L::CW) {  // word tid % CW of row tid / CW
    const int r = tid / L::CW, wi = tid % L::CW;
    const std::int64_t kb4 = ((kt * L::KB) & ~std::int64_t{3}) + 4 * wi;
    if (n0 + r < p.n && kb4 < p.nkb)
      load_codes4(reinterpret_cast<std::uint32_t*>(st + L::CODES) + tid, p.sb, p.tc_b, p.vsc_b, n0 + r, kb4, p.nkb);
  }
}

#endif  // MXK_GEMM_HAVE_WGMMA

template <class C, bool BF16>
__global__ void __launch_bounds__(128 * C::NWG, C::MINB) w4a16_kernel(const W4Params p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = W4Layout<C>;
  constexpr int BN = C::BN, R = BN / 2, ST = C::ST, MI = C::MI;
  extern __shared__ __align__(1024) std::uint8_t smem[];
  const int tid = static_cast<int>(threadIdx.x), wg = tid >> 7;
  std::int64_t tm, tn;
  tile_of_block(p.mt, p.nt, cfg::kW4Group, tm, tn);
  const std::int64_t m0 = tm * C::BM, n0 = tn * BN;
  float acc[MI][R];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
    frag_init(acc[mi], FragPos(m0 + 64 * (wg * MI + mi), n0), p.c, p.m, p.n);
#pragma unroll
    for (int i = 0; i < R; ++i) pin(acc[mi][i]);  // keeps the chain in fp32 registers
  }
  const std::int64_t ntiles = (p.k + C::KT - 1) / C::KT;
  const W4Rows<C> rows = w4_rows<C>(p, m0, n0);
#pragma unroll
  for (int s = 0; s < ST - 2; ++s) {
    if (s < ntiles) load_tile<C>(smem + s * L::STAGE, p, rows, n0, s);
    cp_async_commit();
  }
  // One k-tile. The first is peeled (its wgmma steps retire before the loop)
  // so that ptxas sees no non-wgmma definition of the accumulators reaching
  // an open wgmma pipeline stage (it would serialize every wgmma: C7515).
  auto tile = [&](std::int64_t kt, auto pending) {
    std::uint8_t* st = smem + (kt % ST) * L::STAGE;
    std::uint8_t* wb = smem + L::WB + (kt & 1) * L::WB_BYTES;
    cp_async_wait<ST - 3>();
    fence_proxy_async();
    __syncthreads();  // tile kt landed; the wgmma steps of tile kt - 2 are complete
    if (kt + ST - 2 < ntiles) load_tile<C>(smem + ((kt + ST - 2) % ST) * L::STAGE, p, rows, n0, kt + ST - 2);
    cp_async_commit();
#pragma unroll
    for (int i = 0; i < L::TPT; ++i) {  // widen this thread's 32-element chunks of B
      const int t = tid + i * L::THREADS;
      if (L::TASKS % L::THREADS == 0 || t < L::TASKS) {
        const int r = t % BN, kb = t / BN;
        const uint4 raw = *reinterpret_cast<const uint4*>(st + L::RAW + t * 16);
        const std::int64_t kbg = kt * L::KB + kb;  // k-block of the chunk
        const int wi = static_cast<int>((kbg - ((kt * L::KB) & ~std::int64_t{3})) >> 2);
        const std::uint32_t code =
            (reinterpret_cast<const std::uint32_t*>(st + L::CODES)[r * L::CW + wi] >> (8 * (kbg & 3))) & 0xFFu;
        std::uint8_t* dst = wb + 2 * kb * BN * 32;
        widen32(raw, ue8m0_bf16x2(code), p.k - (kt * C::KT + 32 * kb), [&](int q, uint4 v) {
          *reinterpret_cast<uint4*>(dst + (q >> 1) * BN * 32 + core_off(r, q & 1)) = v;
        });
      }
    }
    fence_proxy_async();
    __syncthreads();  // the widened slice is complete
    wgmma_fence();
#pragma unroll
    for (int s = 0; s < L::S16; ++s) {
      const std::uint64_t db = smem_desc(wb + s * BN * 32);
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
        Wgmma<BN>::bf16(acc[mi], smem_desc(st + s * C::AR * 32 + 64 * (wg * MI + mi) * 32), db, 1);
    }
    wgmma_commit();
    wgmma_wait<decltype(pending)::value>();
  };
  if (ntiles > 0) tile(0, std::integral_constant<int, 0>{});
  for (std::int64_t kt = 1; kt < ntiles; ++kt) tile(kt, std::integral_constant<int, 1>{});
  wgmma_wait<0>();
  cp_async_wait_all();
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int i = 0; i < R; ++i) pin(acc[mi][i]);
    frag_store<BF16>(acc[mi], FragPos(m0 + 64 * (wg * MI + mi), n0), p.d, p.m, p.n);
  }
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool BF16>
void launch(W4Params p, cudaStream_t stream) {
  using L = W4Layout<C>;
  p.mt = (p.m + C::BM - 1) / C::BM;
  p.nt = (p.n + C::BN - 1) / C::BN;
  if (p.mt * p.nt > 0x7FFFFFFF) throw mx::ShapeError("w4a16 GEMM: too many tiles");
  launch_smem<w4a16_kernel<C, BF16>, L::BYTES>(p.mt * p.nt, L::THREADS, p, stream, "w4a16_kernel");
}

template <template <int> class C, bool BF16>
void launch_decode(int bn, const W4Params& p, cudaStream_t s) {
  if (bn >= 64) return launch<C<64>, BF16>(p, s);
  if (bn >= 32) return launch<C<32>, BF16>(p, s);
  return launch<C<16>, BF16>(p, s);
}

template <bool BF16>
void launch_any(const W4Params& p, int bn, cudaStream_t s) {
  if (p.m > 64) return launch<cfg::W4Large, BF16>(p, s);
  if (p.m <= 16) return launch_decode<cfg::W4Decode16, BF16>(bn, p, s);
  return launch_decode<cfg::W4Decode64, BF16>(bn, p, s);
}

}  // namespace
}  // namespace mxk::gemm

namespace mxk {

void w4a16_gemm_launch(const W4a16GemmArgs& x, void* stream) {
  using namespace gemm;
  require_gemm_device();
  check_out_fmt(x.out);
  check_shape(x.m, x.n, x.k, "w4a16 GEMM");
  // bn 256 / 512 (M > 64): the warp-specialized / the register-A kernel only (the benchmark's comparison)
  const bool force_ws = x.bn == 256 && x.m > 64, force_rega = x.bn == 512 && x.m > 64;
  if (x.bn != 0 && x.bn != 16 && x.bn != 32 && x.bn != 64 && x.bn != 128 && !force_ws && !force_rega)
    throw mx::InvalidArgument("w4a16 GEMM: tile width must be 16, 32, 64 or 128");
  if (x.m == 0 || x.n == 0) return;
  W4Params p = w4a16_params(x);
  // M > 64: the register-A kernel (gemm_w4a16_rs.cu, cfg::W4RegA::ON; bn 512
  // forces it) where TMA can read A and packed B, else the warp-specialized
  // kernel (bn 256 forces it) where TMA can read A; any other bn keeps the
  // 128 x 128 kernel below. The gate reaches all three.
  if (x.m > 64 && ((x.bn == 0 && cfg::W4RegA::ON) || force_rega) && w4a16_rega_launch(x, static_cast<cudaStream_t>(stream)))
    return;
  if (x.m > 64 && (x.bn == 0 || force_ws) && w4a16_ws_launch(x, static_cast<cudaStream_t>(stream))) return;
  int bn = x.bn;
  const auto s = static_cast<cudaStream_t>(stream);
  // M <= 64, decode_cols 6000 .. 6499 and 10006000 .. 10006499 (the same with two k-tiles of wgmma in flight,
  // cfg::W4WsT's CW; + TK * 100000000 above that: the forms gemm_w4a16_ws.cu lists): the
  // warp-specialized kernel's BM = 64 forms (gemm_w4a16_ws.cu; tokens on the wgmma's M side, B widened into
  // shared memory by producer warps); they need A readable by TMA and say so.
  // decode_cols 0: the launcher takes the form of cfg::w4_ws_decode_code where there is one and TMA can read A.
  const int wsc = x.decode_cols >= 10000000 ? x.decode_cols % 10000000 : x.decode_cols;
  if (x.m <= 64 && bn == 0 && wsc >= 6000 && wsc < 6500) {
    if (!w4a16_ws_decode_launch(x, x.decode_cols, s))
      throw mx::InvalidArgument(
          "w4a16 GEMM: the warp-specialized M <= 64 forms (decode_cols 6000 .. 6499, 10006000 .. 10006499) read A "
          "by TMA: A's base must be 16-byte aligned and its row pitch a multiple of 16 bytes (lda % 8 == 0)");
    return;
  }
  if (x.m <= 64 && bn == 0 && x.decode_cols == 0) {
    const int code = cfg::w4_ws_decode_code(x.m, x.n, sm_count());
    if (code != 0 && w4a16_ws_decode_launch(x, code, s)) return;
  }
  if (x.m <= 64 && bn == 0) {  // B widened in registers: mma.sync (decode_cols >= 2000) or wgmma (1..1064)
    const int dc = x.decode_cols;
    if (dc >= 2000 || (dc == 0 && cfg::w4_mma_on(x.m, x.n, x.k, sm_count())))
      return w4a16_mma_launch(x, dc >= 2000 ? dc - 2000 : 0, sm_count(), s);
    return w4a16_decode_launch(x, dc, sm_count(), s);
  }
  x.out == mx::Fmt::bf16 ? launch_any<true>(p, bn, s) : launch_any<false>(p, bn, s);
}

}  // namespace mxk
