// gemm_mxfp8.cu - the MXFP8 GEMM on sm_90a, defined bit for bit by
// reference/SPEC.md C11 `mxfp8`: per 32-wide k-block (in increasing order)
// one wgmma m64nNk32 from a zero accumulator gives p; s = 2^(ea-127) *
// 2^(eb-127) in fp32 (= C11's s, see ue8m0_f32); acc = fma(p, s, acc), acc
// starting at C or +0; D = acc rounded (RNE) to fp32 or bf16.
//
// One warpgroup (128 threads) per 64 x BN output tile. Two shared-memory
// stages: while the wgmma of k-block kb runs (async), the threads fetch
// k-block kb + 1 (cp.async for whole aligned 16-byte chunks, ordinary loads
// with zero fill at the ragged edges) and its scales, then wait and apply the
// scales. Rows past M / N and k past K are zeros in shared memory, so a
// ragged last block is zero-padded exactly as the model pads it.
#include <cuda_runtime.h>

#include <string>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/wgmma_ops.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

struct Fp8Params {
  std::int64_t m, n, k, nkb;
  const std::uint8_t *a, *b, *sa, *sb;
  std::int64_t lda, ldb;
  bool tc_a, tc_b, vec_a, vec_b;
  const float* c;
  void* d;
};

template <int BN>
struct Fp8Smem {
  alignas(128) std::uint8_t a[2][64 * 32];
  alignas(128) std::uint8_t b[2][BN * 32];
  float sa[2][64];
  float sb[2][BN];
};

#ifdef MXK_GEMM_HAVE_WGMMA
// One 16-byte chunk (row r of the tile, chunk j of the k-block) into shared memory.
__device__ __forceinline__ void load_chunk(std::uint8_t* dst, const std::uint8_t* src, std::int64_t grow,
                                           std::int64_t rows, std::int64_t ld, std::int64_t k0, std::int64_t k,
                                           bool vec) {
  if (grow < rows && vec && k0 + 16 <= k) {
    cp_async16(dst, src + grow * ld + k0);
    return;
  }
  std::uint32_t w[4] = {0, 0, 0, 0};
  if (grow < rows) {
    for (int i = 0; i < 16; ++i)
      if (k0 + i < k) w[i >> 2] |= std::uint32_t{src[grow * ld + k0 + i]} << (8 * (i & 3));
  }
  *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
}

template <int BN>
__device__ __forceinline__ void load_stage(Fp8Smem<BN>& s, int st, const Fp8Params& p, std::int64_t m0,
                                           std::int64_t n0, std::int64_t kb) {
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t kbase = kb * 32;
  {  // A: 64 rows x 2 chunks = one chunk per thread
    const int r = tid >> 1, j = tid & 1;
    load_chunk(&s.a[st][core_off(r, j)], p.a, m0 + r, p.m, p.lda, kbase + 16 * j, p.k, p.vec_a);
  }
  for (int u = tid; u < BN * 2; u += 128) {
    const int r = u >> 1, j = u & 1;
    load_chunk(&s.b[st][core_off(r, j)], p.b, n0 + r, p.n, p.ldb, kbase + 16 * j, p.k, p.vec_b);
  }
  if (tid < 64) {
    const std::int64_t r = m0 + tid;
    s.sa[st][tid] = r < p.m ? ue8m0_f32(p.sa[scale_off(p.tc_a, r, kb, p.nkb)]) : 1.0f;
  }
  for (int u = tid; u < BN; u += 128) {
    const std::int64_t r = n0 + u;
    s.sb[st][u] = r < p.n ? ue8m0_f32(p.sb[scale_off(p.tc_b, r, kb, p.nkb)]) : 1.0f;
  }
}

#endif  // MXK_GEMM_HAVE_WGMMA

template <int BN, bool E5M2, bool BF16>
__global__ void __launch_bounds__(128) mxfp8_kernel(const Fp8Params p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  __shared__ Fp8Smem<BN> s;
  constexpr int R = BN / 2;  // accumulators per thread
  const int tid = static_cast<int>(threadIdx.x);
  const int w = tid >> 5, l = tid & 31;
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.y) * 64, n0 = static_cast<std::int64_t>(blockIdx.x) * BN;
  // C10 wgmma D map: value i -> row 16w + l/4 + 8((i>>1)&1), col 8(i>>2) + 2(l%4) + (i&1).
  const int row0 = 16 * w + (l >> 2), col0 = 2 * (l & 3);
  float acc[R], pr[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const std::int64_t r = m0 + row0 + 8 * ((i >> 1) & 1), c = n0 + col0 + 8 * (i >> 2) + (i & 1);
    acc[i] = (p.c != nullptr && r < p.m && c < p.n) ? p.c[r * p.n + c] : 0.0f;
    pr[i] = 0.0f;
  }
  if (p.nkb > 0) load_stage<BN>(s, 0, p, m0, n0, 0);
  cp_async_commit();
  cp_async_wait_all();
  fence_proxy_async();
  __syncthreads();
  for (std::int64_t kb = 0; kb < p.nkb; ++kb) {
    const int st = static_cast<int>(kb & 1);
    wgmma_fence();
    if constexpr (E5M2) {
      Wgmma<BN>::e5m2(pr, smem_desc(s.a[st]), smem_desc(s.b[st]), 0);
    } else {
      Wgmma<BN>::e4m3(pr, smem_desc(s.a[st]), smem_desc(s.b[st]), 0);
    }
    wgmma_commit();
    if (kb + 1 < p.nkb) load_stage<BN>(s, st ^ 1, p, m0, n0, kb + 1);  // overlaps the wgmma
    cp_async_commit();
    cp_async_wait_all();
    wgmma_wait0();
#pragma unroll
    for (int i = 0; i < R; ++i) {
      pin(pr[i]);
      const float sc = mul_rn(s.sa[st][row0 + 8 * ((i >> 1) & 1)], s.sb[st][col0 + 8 * (i >> 2) + (i & 1)]);
      acc[i] = fma_rn(pr[i], sc, acc[i]);
    }
    fence_proxy_async();
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const std::int64_t r = m0 + row0 + 8 * ((i >> 1) & 1), c = n0 + col0 + 8 * (i >> 2) + (i & 1);
    if (r < p.m && c < p.n) {
      if constexpr (BF16) {
        static_cast<std::uint16_t*>(p.d)[r * p.n + c] = out_bf16(acc[i]);
      } else {
        static_cast<std::uint32_t*>(p.d)[r * p.n + c] = out_f32(acc[i]);
      }
    }
  }
#else
  (void)p;
  __trap();
#endif
}

template <int BN, bool E5M2, bool BF16>
void launch(const Fp8Params& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((p.n + BN - 1) / BN), static_cast<unsigned>((p.m + 63) / 64));
  mxfp8_kernel<BN, E5M2, BF16><<<grid, 128, 0, stream>>>(p);
  check_cuda(cudaGetLastError(), "mxfp8_kernel launch");
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
  p.c = x.c;
  p.d = x.d;
  const auto s = static_cast<cudaStream_t>(stream);
  // K = 0: no k-block; D = C (or +0), still written by the kernel.
  const bool e5 = x.elem == mx::Fmt::e5m2, bf = x.out == mx::Fmt::bf16;
  if (e5) {
    bf ? launch<128, true, true>(p, s) : launch<128, true, false>(p, s);
  } else {
    bf ? launch<128, false, true>(p, s) : launch<128, false, false>(p, s);
  }
}

}  // namespace mxk
