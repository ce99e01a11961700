// stamps.cu - scratch probe for run 10 one (not part of any build): where the
// NVFP4 one-pass kernel's time goes at 128x7168 bf16. Built on the device:
//   nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr
//        -arch=sm_90a -DMXK_ONE_PASS_STAMPS -Ikernels -Ikernels/include -Ireference/include
//        bench/results/h100-one/stamps.cu -o stamps
// The kernel (kernels/nvfp4/one_pass.cuh, stamps compiled in) records per
// CTA: globaltimer at entry/exit, clock64 after entry, after the loads and
// the CTA's amax (slot written), after the grid barrier, after the slot
// reduction and Q::prepare, after the quantize. (Call 2 ran the version
// of this file for the polled-slot kernel: "polls" = barrier + slot reads,
// "prepare" = Q::prepare only.) Also: event time per launch
// (as mxbench: a pair of events around each launch, median) beside the D2D
// copy of the same bytes; the same kernel as a plain launch, and with
// 4-warp CTAs.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/launch_impl.cuh"

namespace mxk::detail {
std::atomic<int> g_work_split{0};
std::atomic<int> g_tile_rows{0};
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
int device_sm_count() {
  int d = 0, n = 0;
  cudaGetDevice(&d);
  cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d);
  return n;
}
}  // namespace mxk::detail

using namespace mxk;

__global__ void fill(std::uint16_t* x, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B9u ^ seed;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    x[i] = static_cast<std::uint16_t>(0x3800u + (h & 0x0FFFu)) | static_cast<std::uint16_t>((h >> 16) & 0x8000u);
  }
}

template <class F>
float median_us(F f, int iters, cudaStream_t s) {
  for (int i = 0; i < 5; ++i) f(i);
  std::vector<cudaEvent_t> ev(2 * iters);
  for (auto& e : ev) cudaEventCreate(&e);
  for (int i = 0; i < iters; ++i) {
    cudaEventRecord(ev[2 * i], s);
    f(5 + i);
    cudaEventRecord(ev[2 * i + 1], s);
  }
  detail::check(cudaStreamSynchronize(s), "timed launches");
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]);
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  return ms[iters / 2] * 1e3f;
}

template <int ORDER>
void run(std::int64_t M, std::int64_t K, int split, cudaStream_t s) {
  using In = __nv_bfloat16;
  using Q = dev::Nvfp4Q<ORDER>;
  const std::int64_t n = M * K;
  const int nbuf = 64;
  std::vector<void*> X(nbuf), D(nbuf), S(nbuf), G(nbuf), Y(nbuf);
  const std::int64_t sblocks = (K + 15) / 16;
  const std::size_t sbytes = static_cast<std::size_t>(((M + 127) / 128) * 128 * ((sblocks + 3) / 4) * 4);
  for (int b = 0; b < nbuf; ++b) {
    cudaMalloc(&X[b], n * 2);
    cudaMalloc(&Y[b], n * 2);
    cudaMalloc(&D[b], n / 2 + 16);
    cudaMalloc(&S[b], sbytes);
    cudaMalloc(&G[b], 16);
    fill<<<512, 256, 0, s>>>(static_cast<std::uint16_t*>(X[b]), n, 77u + b);
  }
  detail::check(cudaStreamSynchronize(s), "fill");
  detail::g_work_split.store(split);
  auto params = [&](int b) {
    detail::ScaleOut o{static_cast<std::uint8_t*>(D[b]), static_cast<std::uint8_t*>(S[b]), mx::ScaleLayout::tcgen05, false};
    dev::Params p{};
    p.batch = 1;
    p.M = M;
    p.K = K;
    p.row = detail::make_side(o, 1, M, sblocks, K, 4, false);
    p.vec_in = (K % 8) == 0 ? 1 : 0;
    p.gamax = static_cast<std::uint32_t*>(G[b]);
    return p;
  };
  const std::int64_t nch = (K + dev::OnePassShape<In>::CH - 1) / dev::OnePassShape<In>::CH;
  auto launch = [&](int i) {
    const int b = i % nbuf;
    detail::launch_nvfp4_one_pass<In, Q>(static_cast<const In*>(X[b]), params(b), nch, s);
  };
  // the same kernel with nw warps per CTA, as a cooperative or a plain
  // launch (a probe of the launch's cost only: nothing else runs on the GPU
  // here and the grid is capped by the occupancy, so every CTA is resident)
  auto launch_var = [&](int i, int nwv, bool coop) {
    const int b = i % nbuf;
    int devi = 0, per_sm = 0;
    cudaGetDevice(&devi);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dev::k_nvfp4_one_pass<In, Q>, 32 * nwv, 0);
    const std::int64_t cap = std::int64_t{per_sm} * detail::device_sm_count();
    const std::int64_t per_warp = std::max(split, 1);
    const std::int64_t g = std::min<std::int64_t>((M * nch + nwv * per_warp - 1) / (nwv * per_warp), cap);
    unsigned long long sid = 0;
    cudaStreamGetId(s, &sid);
    float* slots = detail::one_pass_slots().get(devi, sid, 1024);
    const In* xb = static_cast<const In*>(X[b]);
    const dev::Params pb = params(b);
    std::uint32_t* gb = static_cast<std::uint32_t*>(G[b]);
    if (!coop) {
      dev::k_nvfp4_one_pass<In, Q><<<static_cast<unsigned>(g), 32 * nwv, 0, s>>>(xb, pb, nch, slots, gb);
      return;
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(static_cast<unsigned>(g));
    cfg.blockDim = dim3(static_cast<unsigned>(32 * nwv));
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeCooperative;
    at[0].val.cooperative = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    detail::check(cudaLaunchKernelEx(&cfg, dev::k_nvfp4_one_pass<In, Q>, xb, pb, nch, slots, gb), "variant launch");
  };
  auto copy = [&](int i) { cudaMemcpyAsync(Y[i % nbuf], X[i % nbuf], n * 2, cudaMemcpyDeviceToDevice, s); };
  const float tc = median_us(copy, 400, s);
  const float tk = median_us(launch, 400, s);
  const float tp = median_us([&](int i) { launch_var(i, 8, false); }, 400, s);
  const float t4 = median_us([&](int i) { launch_var(i, 4, true); }, 400, s);
  const float t4p = median_us([&](int i) { launch_var(i, 4, false); }, 400, s);
  const float tk2 = median_us(launch, 400, s);
  const float tc2 = median_us(copy, 400, s);
  // one more launch for the stamps (after the timed ones: warm)
  const std::int64_t items = M * nch;
  const std::int64_t grid = std::min<std::int64_t>((items + 8 * std::max(split, 1) - 1) / (8 * std::max(split, 1)),
                                                   2ll * detail::device_sm_count());
  std::vector<unsigned long long> st(1024 * 8);
  std::vector<float> ph[6];
  for (int rep = 0; rep < 20; ++rep) {
    launch(rep);
    detail::check(cudaStreamSynchronize(s), "stamped launch");
    cudaMemcpyFromSymbol(st.data(), dev::g_one_pass_stamps, sizeof(unsigned long long) * 1024 * 8);
    unsigned long long t0 = ~0ull, t1 = 0, t0max = 0;
    std::vector<double> d[4];
    for (std::int64_t c = 0; c < grid && c < 1024; ++c) {
      const unsigned long long* r = &st[c * 8];
      t0 = std::min(t0, r[0]);
      t0max = std::max(t0max, r[0]);
      t1 = std::max(t1, r[6]);
      for (int k = 0; k < 4; ++k) d[k].push_back(static_cast<double>(r[k + 2] - r[k + 1]));
    }
    for (int k = 0; k < 4; ++k) {
      std::sort(d[k].begin(), d[k].end());
      ph[k].push_back(static_cast<float>(d[k][d[k].size() / 2]));
      if (k == 0) ph[5].push_back(static_cast<float>(d[k].back()));
    }
    ph[4].push_back(static_cast<float>(t1 - t0));
    if (rep == 19) std::printf("  CTA start spread (globaltimer) %llu ns\n", t0max - t0);
  }
  auto med = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  int clk = 0;
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  std::printf("%s %lldx%lld split %d grid %lld: copy %.2f / %.2f us, one-pass (stamped) cooperative %.2f / %.2f us, "
              "plain launch %.2f us; 4-warp CTAs cooperative %.2f / plain %.2f us (event time)\n",
              ORDER == 0 ? "nvfp4 TE" : "nvfp4 torchao", static_cast<long long>(M), static_cast<long long>(K), split,
              static_cast<long long>(grid), tc, tc2, tk, tk2, tp, t4, t4p);
  std::printf("  per-CTA median cycles (20 launches' medians): loads+CTA amax %.0f (max CTA %.0f), polls %.0f, "
              "prepare %.0f, quantize %.0f; kernel span (globaltimer, first entry to last exit) %.0f ns; "
              "max clock %d kHz\n",
              med(ph[0]), med(ph[5]), med(ph[1]), med(ph[2]), med(ph[3]), med(ph[4]), clk);
  for (int b = 0; b < nbuf; ++b) {
    cudaFree(X[b]);
    cudaFree(Y[b]);
    cudaFree(D[b]);
    cudaFree(S[b]);
    cudaFree(G[b]);
  }
}

int main(int argc, char** argv) {
  const std::int64_t M = argc > 1 ? std::atoll(argv[1]) : 128, K = argc > 2 ? std::atoll(argv[2]) : 7168;
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int split : {0, 2}) {
    run<0>(M, K, split, s);
    run<1>(M, K, split, s);
  }
  cudaStreamDestroy(s);
  return 0;
}
