// probe.cu - scratch probe for run 12 nvd (not part of any build; derived
// from run 11 nvs's h100-nvs/probe.cu): the NVFP4 one-pass quantize at
// 128x7168 bf16, event time and back-to-back time per launch, beside the
// bf16 D2D copy; the barrier's two waits (kOnePassPollCount false / true:
// call 1 ran with false as the default, call 2 with true);
// 8- and 16-warp CTAs (call 2); with -DMXK_ONE_PASS_STAMPS the kernel's
// per-CTA phases (clock64). Built
// on the device (nvd.sh):
//   nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr
//        -arch=sm_90a [-DMXK_ONE_PASS_STAMPS] -Ikernels -Ikernels/include -Ireference/include
//        bench/results/h100-nvd/probe.cu -o probe
// Every event figure is a median over 400 launches timed as mxbench times
// them (an event pair around each launch); back-to-back: 200 launches
// enqueued with no events between them, per launch.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
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
  static int n = 0;
  if (n == 0) {
    int d = 0;
    cudaGetDevice(&d);
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, d);
  }
  return n;
}
}  // namespace mxk::detail

using namespace mxk;
using clk = std::chrono::steady_clock;

__global__ void fill(std::uint16_t* x, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B9u ^ seed;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    x[i] = static_cast<std::uint16_t>(0x3800u + (h & 0x0FFFu)) | static_cast<std::uint16_t>((h >> 16) & 0x8000u);
  }
}

template <class T>
T med(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timing {
  float ev_us;    // event time per launch, median
  float host_us;  // host time of the launch call, median
  float b2b_us;   // 200 launches back to back, per launch
};

template <class F>
Timing time_it(F f, cudaStream_t s) {
  const int iters = 400;
  for (int i = 0; i < 5; ++i) f(i);
  std::vector<cudaEvent_t> ev(2 * iters);
  for (auto& e : ev) cudaEventCreate(&e);
  std::vector<float> host(iters);
  for (int i = 0; i < iters; ++i) {
    cudaEventRecord(ev[2 * i], s);
    const auto t0 = clk::now();
    f(5 + i);
    host[i] = std::chrono::duration<float, std::micro>(clk::now() - t0).count();
    cudaEventRecord(ev[2 * i + 1], s);
  }
  detail::check(cudaStreamSynchronize(s), "timed launches");
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]);
  // back to back
  cudaEventRecord(ev[0], s);
  for (int i = 0; i < 200; ++i) f(i);
  cudaEventRecord(ev[1], s);
  detail::check(cudaStreamSynchronize(s), "back-to-back launches");
  float b2b = 0;
  cudaEventElapsedTime(&b2b, ev[0], ev[1]);
  for (auto& e : ev) cudaEventDestroy(e);
  return {med(ms) * 1e3f, med(host), b2b * 1e3f / 200};
}

// host ns per call of f, median of 50 batches of 100 calls
template <class F>
double host_ns(F f) {
  std::vector<double> b;
  for (int r = 0; r < 50; ++r) {
    const auto t0 = clk::now();
    for (int i = 0; i < 100; ++i) f();
    b.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 100);
  }
  return med(b);
}

template <int ORDER>
void run(std::int64_t M, std::int64_t K, cudaStream_t s) {
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
  std::vector<dev::Params> P(nbuf);
  for (int b = 0; b < nbuf; ++b) {
    detail::ScaleOut o{static_cast<std::uint8_t*>(D[b]), static_cast<std::uint8_t*>(S[b]), mx::ScaleLayout::tcgen05, false};
    dev::Params& p = P[b];
    p = dev::Params{};
    p.batch = 1;
    p.M = M;
    p.K = K;
    p.row = detail::make_side(o, 1, M, sblocks, K, 4, false);
    p.vec_in = (K % 8) == 0 ? 1 : 0;
    p.gamax = static_cast<std::uint32_t*>(G[b]);
  }
  const std::int64_t nch = (K + dev::OnePassShape<In>::CH - 1) / dev::OnePassShape<In>::CH;
  auto lib = [&](int i) {
    const int b = i % nbuf;
    detail::launch_nvfp4_one_pass<In, Q>(static_cast<const In*>(X[b]), P[b], nch, s);
  };
  // the bare launches: grid, state and config computed once
  int devi = 0;
  cudaGetDevice(&devi);
  const std::int64_t cap = std::min<std::int64_t>(std::int64_t{detail::one_pass_ctas_per_sm<In, Q>(devi)} * detail::device_sm_count(),
                                                  dev::kOnePassMaxCtas);
  const std::int64_t grid = std::min<std::int64_t>((M * nch + dev::kOnePassWarps - 1) / dev::kOnePassWarps, cap);
  unsigned long long sid = 0;
  cudaStreamGetId(s, &sid);
  dev::OnePassSync* sync = detail::one_pass_syncs().get(devi, sid, s);
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(grid));
  cfg.blockDim = dim3(32 * dev::kOnePassWarps);
  cfg.stream = s;
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeCooperative;
  at[0].val.cooperative = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  auto coop = [&](int i) {
    const int b = i % nbuf;
    detail::check(cudaLaunchKernelEx(&cfg, dev::k_nvfp4_one_pass<In, Q>, static_cast<const In*>(X[b]), P[b], nch, sync,
                                     const_cast<std::uint32_t*>(P[b].gamax)),
                  "coop");
  };
  auto plain = [&](int i) {
    const int b = i % nbuf;
    dev::k_nvfp4_one_pass<In, Q><<<static_cast<unsigned>(grid), 32 * dev::kOnePassWarps, 0, s>>>(
        static_cast<const In*>(X[b]), P[b], nch, sync, const_cast<std::uint32_t*>(P[b].gamax));
  };
  // the same kernel with the other wait (PC), cooperative, configured once
  auto coop_pc = [&](auto pcc) {
    constexpr bool PC = decltype(pcc)::value;
    const Timing t = time_it([&](int i) {
      const int b = i % nbuf;
      detail::check(cudaLaunchKernelEx(&cfg, dev::k_nvfp4_one_pass<In, Q, dev::kOnePassWarps, PC>, static_cast<const In*>(X[b]),
                                       P[b], nch, sync, const_cast<std::uint32_t*>(P[b].gamax)),
                    "coop PC");
    }, s);
    std::printf("%-8s coop, poll count %d: event %6.2f us  host %5.2f us  back-to-back %6.2f us/launch\n",
                ORDER == 0 ? "TE" : "torchao", PC ? 1 : 0, t.ev_us, t.host_us, t.b2b_us);
  };
  // the same kernel with NW warps per CTA (one item per warp), cooperative,
  // configured once
  auto coop_nw = [&](auto nwc) {
    constexpr int NW = decltype(nwc)::value;
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dev::k_nvfp4_one_pass<In, Q, NW>, 32 * NW, 0);
    const std::int64_t g = std::min<std::int64_t>((M * nch + NW - 1) / NW, std::int64_t{per_sm} * detail::device_sm_count());
    cudaLaunchConfig_t c = cfg;
    c.gridDim = dim3(static_cast<unsigned>(g));
    c.blockDim = dim3(32 * NW);
    const Timing t = time_it([&](int i) {
      const int b = i % nbuf;
      detail::check(cudaLaunchKernelEx(&c, dev::k_nvfp4_one_pass<In, Q, NW>, static_cast<const In*>(X[b]), P[b], nch, sync,
                                       const_cast<std::uint32_t*>(P[b].gamax)),
                    "coop NW");
    }, s);
    std::printf("%-8s coop, %2d warps/CTA, %lld CTAs (%d per SM fit): event %6.2f us  host %5.2f us  back-to-back %6.2f us/launch\n",
                ORDER == 0 ? "TE" : "torchao", NW, static_cast<long long>(g), per_sm, t.ev_us, t.host_us, t.b2b_us);
  };
  auto copy = [&](int i) { cudaMemcpyAsync(Y[i % nbuf], X[i % nbuf], n * 2, cudaMemcpyDeviceToDevice, s); };
  const char* on = ORDER == 0 ? "TE" : "torchao";
  auto pr = [&](const char* what, const Timing& t) {
    std::printf("%-8s %-7s event %6.2f us  host %5.2f us  back-to-back %6.2f us/launch\n", on, what, t.ev_us, t.host_us, t.b2b_us);
  };
  std::printf("%s %lldx%lld bf16: grid %lld CTAs of %d warps (cap %lld)\n", on, static_cast<long long>(M),
              static_cast<long long>(K), static_cast<long long>(grid), dev::kOnePassWarps, static_cast<long long>(cap));
  for (int rep = 0; rep < 2; ++rep) {
    pr("copy", time_it(copy, s));
    pr("lib", time_it(lib, s));
    pr("coop", time_it(coop, s));
    pr("plain", time_it(plain, s));
  }
  coop_pc(std::integral_constant<bool, false>{});
  coop_pc(std::integral_constant<bool, true>{});
  pr("copy", time_it(copy, s));
  coop_pc(std::integral_constant<bool, true>{});
  coop_pc(std::integral_constant<bool, false>{});
  coop_nw(std::integral_constant<int, 8>{});
  coop_nw(std::integral_constant<int, 16>{});
  pr("coop", time_it(coop, s));
#ifdef MXK_ONE_PASS_STAMPS
  std::vector<unsigned long long> st(1024 * 8);
  std::vector<float> ph[6];
  for (int rep = 0; rep < 20; ++rep) {
    lib(rep);
    detail::check(cudaStreamSynchronize(s), "stamped launch");
    cudaMemcpyFromSymbol(st.data(), dev::g_one_pass_stamps, sizeof(unsigned long long) * 1024 * 8);
    unsigned long long t0 = ~0ull, t1 = 0;
    std::vector<double> d[4];
    for (std::int64_t c = 0; c < grid && c < 1024; ++c) {
      const unsigned long long* r = &st[c * 8];
      t0 = std::min(t0, r[0]);
      t1 = std::max(t1, r[6]);
      for (int k = 0; k < 4; ++k) d[k].push_back(static_cast<double>(r[k + 2] - r[k + 1]));
    }
    for (int k = 0; k < 4; ++k) {
      std::sort(d[k].begin(), d[k].end());
      ph[k].push_back(static_cast<float>(d[k][d[k].size() / 2]));
      if (k == 0) ph[5].push_back(static_cast<float>(d[k].back()));
    }
    ph[4].push_back(static_cast<float>(t1 - t0));
  }
  std::printf("%-8s stamps, per-CTA median cycles (median of 20 launches): loads+CTA amax %.0f (slowest CTA %.0f), "
              "barrier %.0f, prepare %.0f, quantize %.0f; span (globaltimer) %.0f ns\n",
              on, med(ph[0]), med(ph[5]), med(ph[1]), med(ph[2]), med(ph[3]), med(ph[4]));
#endif
  if (ORDER == 0) {
    cudaStreamCaptureStatus cs;
    int d = 0;
    cudaEvent_t e;
    cudaEventCreate(&e);
    std::printf("host ns per call: cudaGetDevice %.0f, cudaStreamGetId %.0f, cudaStreamIsCapturing %.0f, "
                "one_pass_syncs().get (cached) %.0f, cudaEventRecord %.0f\n",
                host_ns([&] { cudaGetDevice(&d); }), host_ns([&] { cudaStreamGetId(s, &sid); }),
                host_ns([&] { cudaStreamIsCapturing(s, &cs); }), host_ns([&] { (void)detail::one_pass_syncs().get(devi, sid, s); }),
                host_ns([&] { cudaEventRecord(e, s); }));
    cudaStreamSynchronize(s);
    cudaEventDestroy(e);
  }
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
  run<0>(M, K, s);
  run<1>(M, K, s);
  cudaStreamDestroy(s);
  return 0;
}
