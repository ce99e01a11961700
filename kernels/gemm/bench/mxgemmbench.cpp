// mxgemmbench.cpp - timing and model-distance harness for the C11 GEMMs
// (kernels/gemm, reference/SPEC.md C11). Used by kernels/gemm/run-gemm.sh.
//
//   mxgemmbench time mxfp8|mxfp8_e5m2|w4a16 M N K [iters] [bn (w4a16 M <= 64: tile width;
//       w4a16 M > 64: 128 = the kernel without TMA, 256 = the warp-specialized one, 512 = the register-A one; mxfp8: 1 = rows padded to K + 8 bytes, i.e. the
//       M > 64 kernel without TMA)]
//       one CSV line: kernel,M,N,K,us_per_call,tflops (device pointers,
//       random codes, scales 120..134, bf16 out; median of 5 runs of `iters`
//       back-to-back launches; with MXGEMMBENCH_GRAPH=1 a second line, tag
//       "(graph)", of one CUDA graph of them, as torch_bench.py times cuBLAS; B rotates over enough copies (>= 128 MB) that
//       it comes from device memory, not L2, as torch_bench.py does for cuBLAS)
//   mxgemmbench distance mxfp8|mxfp8_e5m2|w4a16 M N K [threads]
//       realistic data (normal values with a log-uniform magnitude per row),
//       quantized by libmxref; C11 model vs C9 exact (max/mean ulp, fraction
//       differing), and, with an sm_90 device, the kernel vs the model.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/gemm.hpp"
#include "mx/gemm_c11.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"
#include "mxk/gemm.hpp"

namespace {

void ck(cudaError_t e, const char* w) {
  if (e != cudaSuccess) throw mx::Error(std::string(w) + ": " + cudaGetErrorString(e));
}

template <typename T>
T* dev_random(std::size_t n, std::mt19937_64& rng, T (*gen)(std::mt19937_64&)) {
  std::vector<T> h(n);
  for (auto& x : h) x = gen(rng);
  T* p = nullptr;
  ck(cudaMalloc(&p, n * sizeof(T) + 16), "cudaMalloc");
  ck(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), "H2D");
  return p;
}

std::uint8_t gen_fp8(std::mt19937_64& r) { return static_cast<std::uint8_t>((r() % 0x7E) | ((r() & 1) << 7)); }
std::uint8_t gen_fp4(std::mt19937_64& r) { return static_cast<std::uint8_t>(r() & 0xFF); }
std::uint8_t gen_scale(std::mt19937_64& r) { return static_cast<std::uint8_t>(120 + r() % 15); }
std::uint16_t gen_bf16(std::mt19937_64& r) {
  return mx::f32_to_bf16_rne(static_cast<float>(static_cast<double>(r() % 2001) / 1000.0 - 1.0));
}

// Copies of B (with scales) to rotate over so that each launch reads B from
// device memory: at least 128 MB in all, at most 16.
int rotations(std::size_t b_bytes) {
  const std::size_t want = std::size_t{128} << 20;
  const std::size_t n = (want + b_bytes - 1) / std::max<std::size_t>(b_bytes, 1);
  return static_cast<int>(std::clamp<std::size_t>(n, 1, 16));
}

int time_cmd(const std::string& kind, std::int64_t m, std::int64_t n, std::int64_t k, int iters, int bn, int cols) {
  std::mt19937_64 rng(1);
  const std::int64_t nkb = (k + 31) / 32;
  cudaEvent_t e0, e1;
  ck(cudaEventCreate(&e0), "event");
  ck(cudaEventCreate(&e1), "event");
  void* d = nullptr;
  ck(cudaMalloc(&d, static_cast<std::size_t>(m * n) * 2), "cudaMalloc D");
  // MXGEMMBENCH_GRAPH=1: after the `iters` launches one by one, the same
  // launches captured once into a CUDA graph (programmatic edges kept) and the
  // graph replayed, as torch_bench.py times cuBLAS (no host launch cost
  // between kernels): a second line, tag "(graph)".
  const char* genv = std::getenv("MXGEMMBENCH_GRAPH");
  const bool graph = genv != nullptr && std::string(genv) == "1";
  cudaStream_t s = nullptr;
  ck(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  auto report = [&](std::vector<double> t, bool g) {
    std::sort(t.begin(), t.end());
    const double us = t[2];
    std::string tag = bn ? "(bn" + std::to_string(bn) + ")" : cols ? "(cols" + std::to_string(cols) + ")" : "";
    if (g) tag += "(graph)";
    std::printf("%s%s,%lld,%lld,%lld,%.2f,%.1f\n", kind.c_str(), tag.c_str(), static_cast<long long>(m),
                static_cast<long long>(n), static_cast<long long>(k), us,
                2.0 * static_cast<double>(m) * n * k / (us * 1e-6) / 1e12);
  };
  auto timed = [&](auto&& step) {  // median-of-5 input: us per call of 5 runs of `iters` calls
    std::vector<double> t;
    for (int rep = 0; rep < 5; ++rep) {
      ck(cudaEventRecord(e0, s), "record");
      step();
      ck(cudaEventRecord(e1, s), "record");
      ck(cudaEventSynchronize(e1), "sync");
      float ms = 0;
      ck(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
      t.push_back(1000.0 * ms / iters);
    }
    return t;
  };
  auto run = [&](int nrot, auto&& launch) {
    for (int r = 0; r < nrot; ++r) launch(r, s);  // warm-up
    ck(cudaStreamSynchronize(s), "warm-up");
    auto all = [&] {
      for (int i = 0; i < iters; ++i) launch(i % nrot, s);
    };
    report(timed(all), false);
    if (!graph) return;
    cudaGraph_t g = nullptr;
    cudaGraphExec_t gx = nullptr;
    ck(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "begin capture");
    all();
    ck(cudaStreamEndCapture(s, &g), "end capture");
    ck(cudaGraphInstantiate(&gx, g, 0), "graph instantiate");
    ck(cudaGraphDestroy(g), "graph destroy");
    ck(cudaGraphLaunch(gx, s), "graph warm-up");
    ck(cudaStreamSynchronize(s), "graph warm-up");
    report(timed([&] { ck(cudaGraphLaunch(gx, s), "graph launch"); }), true);
    ck(cudaGraphExecDestroy(gx), "graph destroy");
  };
  if (kind == "w4a16") {
    const std::size_t bb = static_cast<std::size_t>(n * ((k + 1) / 2)), sbb = static_cast<std::size_t>(n * nkb);
    const int nrot = rotations(bb + sbb);
    auto* a = dev_random<std::uint16_t>(static_cast<std::size_t>(m * k), rng, gen_bf16);
    std::vector<std::uint8_t*> b, sb;
    for (int r = 0; r < nrot; ++r) {
      b.push_back(dev_random<std::uint8_t>(bb, rng, gen_fp4));
      sb.push_back(dev_random<std::uint8_t>(sbb, rng, gen_scale));
    }
    mxk::W4a16GemmArgs x;
    x.m = m; x.n = n; x.k = k; x.a = a; x.lda = k;
    x.d = d;
    x.bn = bn;
    x.decode_cols = cols;
    x.out = mx::Fmt::bf16;
    run(nrot, [&](int r, cudaStream_t st) {
      x.b = {b[static_cast<std::size_t>(r)], (k + 1) / 2, sb[static_cast<std::size_t>(r)], mx::ScaleLayout::dense};
      mxk::w4a16_gemm_launch(x, st);
    });
  } else {
    // bn = 1: rows of K + 8 bytes, which TMA cannot read (the M > 64 kernel without TMA)
    const std::int64_t ld = bn == 1 ? k + 8 : k;
    const std::size_t bb = static_cast<std::size_t>(n * ld), sbb = static_cast<std::size_t>(n * nkb);
    const int nrot = rotations(bb + sbb);
    auto* a = dev_random<std::uint8_t>(static_cast<std::size_t>(m * ld), rng, gen_fp8);
    auto* sa = dev_random<std::uint8_t>(static_cast<std::size_t>(m * nkb), rng, gen_scale);
    std::vector<std::uint8_t*> b, sb;
    for (int r = 0; r < nrot; ++r) {
      b.push_back(dev_random<std::uint8_t>(bb, rng, gen_fp8));
      sb.push_back(dev_random<std::uint8_t>(sbb, rng, gen_scale));
    }
    mxk::Mxfp8GemmArgs x;
    x.m = m; x.n = n; x.k = k;
    x.elem = kind == "mxfp8_e5m2" ? mx::Fmt::e5m2 : mx::Fmt::e4m3;
    x.a = {a, ld, sa, mx::ScaleLayout::dense};
    x.d = d;
    x.out = mx::Fmt::bf16;
    run(nrot, [&](int r, cudaStream_t st) {
      x.b = {b[static_cast<std::size_t>(r)], ld, sb[static_cast<std::size_t>(r)], mx::ScaleLayout::dense};
      mxk::mxfp8_gemm_launch(x, st);
    });
  }
  ck(cudaStreamDestroy(s), "stream");
  return 0;
}

std::vector<float> realistic(std::int64_t rows, std::int64_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_real_distribution<double> ud(-4.0, 4.0);
  std::vector<float> x(static_cast<std::size_t>(rows * k));
  for (std::int64_t r = 0; r < rows; ++r) {
    const double mag = std::exp2(ud(rng));  // per-row magnitude (outlier channels)
    for (std::int64_t i = 0; i < k; ++i) x[static_cast<std::size_t>(r * k + i)] = static_cast<float>(nd(rng) * mag);
  }
  return x;
}

void print_stats(const char* what, const mx::UlpStats& s) {
  std::printf("%s: %lld elements, differ %lld (%.4f%%), max %.0f ulp, mean %.4f ulp, special %lld\n", what,
              static_cast<long long>(s.count), static_cast<long long>(s.differ),
              s.count ? 100.0 * static_cast<double>(s.differ) / static_cast<double>(s.count) : 0.0, s.max_ulp,
              s.mean_ulp, static_cast<long long>(s.special));
}

int distance_cmd(const std::string& kind, std::int64_t m, std::int64_t n, std::int64_t k, int threads) {
  const auto xa = realistic(m, k, 1), xb = realistic(n, k, 2);
  const bool w4 = kind == "w4a16";
  const std::string recipe = w4 ? "mxfp4" : kind == "mxfp8_e5m2" ? "mxfp8_e5m2" : "mxfp8_e4m3";
  const mx::Quantized b = mx::quantize(mx::parse_recipe(recipe), {xb.data(), mx::InType::f32, 1, n, k});
  const mx::C11Operand ub = mx::c11_unpack(b);
  std::vector<std::uint32_t> model, exact, dev;
  std::string why;
  const bool gpu = mxk::gemm_available(&why);
  const auto t0 = std::chrono::steady_clock::now();
  if (w4) {
    std::vector<std::uint16_t> a(xa.size());
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = mx::f32_to_bf16_rne(xa[i]);
    model = mx::c11_w4a16_gemm(a.data(), m, ub, nullptr, mx::Fmt::fp32, threads);
    exact = mx::c11_w4a16_exact(a.data(), m, ub, nullptr, threads);
    if (gpu) dev = mxk::w4a16_gemm_device(a.data(), m, b, nullptr, mx::Fmt::fp32);
  } else {
    const mx::Quantized a = mx::quantize(mx::parse_recipe(recipe), {xa.data(), mx::InType::f32, 1, m, k});
    const mx::C11Operand ua = mx::c11_unpack(a);
    model = mx::c11_mxfp8_gemm(ua, ub, nullptr, mx::Fmt::fp32, threads);
    const auto ex = mx::exact_gemm(ua.view(), ub.view(), nullptr);
    for (float f : ex) exact.push_back(mx::f32_bits(f));
    if (gpu) dev = mxk::mxfp8_gemm_device(a, b, nullptr, mx::Fmt::fp32);
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("# %s %lldx%lldx%lld (recipe %s, realistic normal data, per-row magnitude 2^U(-4,4)), %.1f s\n",
              kind.c_str(), static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
              recipe.c_str(), secs);
  print_stats("C11 model vs C9 exact", mx::c11_ulp_stats(model, exact));
  if (gpu) {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < model.size(); ++i) bad += dev[i] != model[i];
    std::printf("kernel vs C11 model: %zu of %zu elements differ%s\n", bad, model.size(), bad ? "  <-- FAIL" : "");
    return bad ? 1 : 0;
  }
  std::printf("kernel vs C11 model: not run (%s)\n", why.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 6) {
      std::fprintf(stderr,
                   "usage: mxgemmbench time|distance mxfp8|mxfp8_e5m2|w4a16 M N K [iters|threads] [bn] [decode_cols]\n"
                   "(time: bn and decode_cols as in mxk::W4a16GemmArgs; w4a16 M > 64: bn 256 / 512 force the\n"
                   " warp-specialized / the register-A kernel; w4a16 M <= 64: decode_cols 6000 / 6100 / 6300 + BN\n"
                   " (BN 16, 32, 56, 64, 128) force the warp-specialized kernel's 64 x BN tiles, 1 / 2 / 4 producer\n"
                   " warpgroups; 10006356: 6356 with two k-tiles of wgmma in flight per consumer)\n"
                   "(the kernels run only on sm_90 devices: wgmma, built for sm_90a)\n"
                   "(w4a16 M <= 64: the decode kernels are launched as programmatic dependents, so back-to-back\n"
                   " calls overlap one kernel's start with the previous one's end; MXK_GEMM_PDL=0 turns it off)\n"
                   "(time with MXGEMMBENCH_GRAPH=1: a second line, tag \"(graph)\", for the same launches replayed as\n"
                   " one CUDA graph, as kernels/gemm/bench/torch_bench.py times cuBLAS)\n");
      return 2;
    }
    const std::string cmd = argv[1], kind = argv[2];
    const std::int64_t m = std::atoll(argv[3]), n = std::atoll(argv[4]), k = std::atoll(argv[5]);
    const int extra = argc > 6 ? std::atoi(argv[6]) : 0;
    if (kind != "mxfp8" && kind != "mxfp8_e5m2" && kind != "w4a16") throw mx::InvalidArgument("unknown kernel " + kind);
    if (m <= 0 || n <= 0 || k <= 0) throw mx::InvalidArgument("M, N, K must be positive");
    if (cmd == "time") return time_cmd(kind, m, n, k, extra > 0 ? extra : 20, argc > 7 ? std::atoi(argv[7]) : 0,
                                          argc > 8 ? std::atoi(argv[8]) : 0);
    if (cmd == "distance") return distance_cmd(kind, m, n, k, extra > 0 ? extra : 8);
    throw mx::InvalidArgument("unknown command " + cmd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mxgemmbench: %s\n", e.what());
    return 1;
  }
}
