// tail8.cu - scratch probe for issue 9 "8192x7168 within 3% of the 16384^2
// ratios" on the H200 (helper tail8; not part of any build). Built by
// tail8.sh (or here, then carried):
//   nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr
//        -O3 -arch=sm_90a -Ikernels -Ikernels/include -Ireference/include bench/results/h200-tail8/tail8.cu -o tail8
// For 16384^2 and 8192x7168 bf16 (buffers rotating as in mxbench: at least
// 4x the L2 in all, at least 2), event-time medians (us) of:
//   copy: cudaMemcpyAsync D2D (the yardstick);
//   auto: the library launcher (launch_rowwise; NVFP4: launch_nvfp4, i.e.
//     amax word zeroing + k_amax + quantize);
//   NVFP4 (TE order: tcgen05 and dense scales; torchao order: tcgen05):
//     the amax pass alone, the quantize pass alone, and the amax pass
//     followed by k_rowstream (rowstream_body, launched here plainly) in
//     nw x cpw shapes (warps per CTA x items per warp) or by the ring
//     (launcher, forced, split 1..4).
// (Call 1's version, tail8-call1.cu, also swept MXFP4 / MXFP6 / MXINT8 /
// MXFP8 shapes, a software-pipelined k_rowstream and a PDL zeroing of the
// amax word: call1/tried.patch.)
// Every variant's bytes (codes and scales) are compared with the launcher's
// at 8192x7168 ("bytes ok" / "BYTES DIFFER").
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "common/launch_impl.cuh"
#include "nvfp4/nvfp4.cu"

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
using In = __nv_bfloat16;
using L = mx::ScaleLayout;

template <class Q>
__global__ void __launch_bounds__(256, 4) p_rowstream(const In* __restrict__ x, dev::Params p, int64_t nch, int cpw) {
  dev::rowstream_body<In, Q, dev::kStreamStQ<Q>>(x, p, nch, cpw);
}

__global__ void fill(std::uint16_t* p, std::int64_t n, std::uint32_t seed) {
  for (std::int64_t i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const std::uint32_t e = 119u + (h >> 24) % 16u;
    p[i] = static_cast<std::uint16_t>(((h & 1u) << 15) | (e << 7) | ((h >> 8) & 0x7Fu));
  }
}

template <class T>
T med(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

cudaStream_t g_s;
int g_iters = 50;

template <class F>
double time_ev(F f, int nbuf) {
  for (int i = 0; i < 5; ++i) f(i % nbuf);
  std::vector<cudaEvent_t> ev(2 * g_iters);
  for (auto& e : ev) cudaEventCreate(&e);
  for (int i = 0; i < g_iters; ++i) {
    cudaEventRecord(ev[2 * i], g_s);
    f((5 + i) % nbuf);
    cudaEventRecord(ev[2 * i + 1], g_s);
  }
  detail::check(cudaStreamSynchronize(g_s), "timed launches");
  std::vector<float> ms(g_iters);
  for (int i = 0; i < g_iters; ++i) cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]);
  for (auto& e : ev) cudaEventDestroy(e);
  return med(ms) * 1e3;
}

struct Bufs {
  int nbuf;
  std::int64_t M, K;
  std::vector<void*> X, Y, D, S;
  std::vector<std::uint32_t*> GA;
  double copy_us;
};

std::int64_t tc_bytes(std::int64_t rows, std::int64_t blocks) { return ((rows + 127) / 128) * 128 * ((blocks + 3) / 4) * 4; }

template <class Q>
dev::Params params(const Bufs& b, int i, L lay, int rule = 0) {
  detail::ScaleOut o{static_cast<std::uint8_t*>(b.D[i]), static_cast<std::uint8_t*>(b.S[i]), lay, false};
  dev::Params p{};
  p.batch = 1;
  p.M = b.M;
  p.K = b.K;
  p.row = detail::make_side(o, 1, b.M, (b.K + Q::V - 1) / Q::V, b.K, Q::BITS, false);
  p.rule = rule;
  p.vec_in = (b.K % 8) == 0 ? 1 : 0;
  p.gamax = b.GA[i];
  return p;
}

// bytes read + written (NVFP4: the input twice), as mxbench counts them
template <class Q>
double case_bytes(const Bufs& b, L lay) {
  const double n = static_cast<double>(b.M * b.K);
  double by = n * 2.0 * (Q::V == 16 ? 2.0 : 1.0) + n * Q::BITS / 8.0;
  by += static_cast<double>(lay == L::tcgen05 ? tc_bytes(b.M, (b.K + Q::V - 1) / Q::V) : b.M * ((b.K + Q::V - 1) / Q::V));
  return by;
}

struct Ref {
  std::vector<std::uint8_t> d, s;
};
Ref grab(const Bufs& b, int i, std::size_t dn, std::size_t sn) {
  detail::check(cudaStreamSynchronize(g_s), "grab");
  Ref r{std::vector<std::uint8_t>(dn), std::vector<std::uint8_t>(sn)};
  detail::check(cudaMemcpy(r.d.data(), b.D[i], dn, cudaMemcpyDeviceToHost), "grab d");
  detail::check(cudaMemcpy(r.s.data(), b.S[i], sn, cudaMemcpyDeviceToHost), "grab s");
  return r;
}

template <class Q>
struct Runner {
  const char* name;
  Bufs& b;
  L lay;
  std::function<void(int)> full;  // the library's whole launch sequence
  double bytes;
  bool verify;
  Ref ref;
  std::size_t dn, sn;
  Runner(const char* nm, Bufs& bb, L l, std::function<void(int)> f, bool v) : name(nm), b(bb), lay(l), full(std::move(f)), verify(v) {
    bytes = case_bytes<Q>(b, lay);
    dn = static_cast<std::size_t>(b.M * b.K * Q::BITS / 8);
    sn = static_cast<std::size_t>(lay == L::tcgen05 ? tc_bytes(b.M, (b.K + Q::V - 1) / Q::V) : b.M * ((b.K + Q::V - 1) / Q::V));
    if (verify) {
      cudaMemsetAsync(b.D[0], 0xA5, dn, g_s);
      cudaMemsetAsync(b.S[0], 0xA5, sn, g_s);
      full(0);
      ref = grab(b, 0, dn, sn);
    }
  }
  // times f (event median); pre: what runs before f on buffer 0 for the byte check (the amax pass)
  void row(const std::string& var, const std::function<void(int)>& f, const std::function<void(int)>& pre = nullptr) {
    const double us = time_ev(f, b.nbuf);
    const double gbs = bytes / us / 1e3;
    const double ratio = gbs / (4.0 * b.M * b.K / b.copy_us / 1e3);
    std::string ok = "";
    if (verify) {
      cudaMemsetAsync(b.D[0], 0x5A, dn, g_s);
      cudaMemsetAsync(b.S[0], 0x5A, sn, g_s);
      if (pre) pre(0);
      f(0);
      Ref r = grab(b, 0, dn, sn);
      ok = (r.d == ref.d && r.s == ref.s) ? "bytes ok" : "BYTES DIFFER";
    }
    std::printf("%lldx%lld %-26s %-34s %9.2f us %8.1f GB/s ratio %.4f %s\n", static_cast<long long>(b.M),
                static_cast<long long>(b.K), name, var.c_str(), us, gbs, ratio, ok.c_str());
    std::fflush(stdout);
  }
};

template <class Q>
std::function<void(int)> stream_fn(Bufs& b, L lay, int nw, int cpw, int rule = 0) {
  constexpr std::int64_t CH = dev::RowShape<In>::CH;
  const std::int64_t nch = (b.K + CH - 1) / CH, items = b.M * nch;
  const std::int64_t grid = (items + nw * cpw - 1) / (nw * cpw);
  return [&b, lay, nw, cpw, rule, nch, grid](int i) {
    p_rowstream<Q><<<static_cast<unsigned>(grid), 32 * nw, 0, g_s>>>(static_cast<const In*>(b.X[i]),
                                                                                 params<Q>(b, i, lay, rule), nch, cpw);
  };
}

// the k_rowstream sweep of one quantizer (with `pre` before each launch: NVFP4's amax pass)
template <class Q>
void stream_sweep(Runner<Q>& R, const std::function<void(int)>& pre, bool wide) {
  const std::vector<std::pair<int, int>> shapes =
      wide ? std::vector<std::pair<int, int>>{{1, 2}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {4, 1}, {4, 2}, {4, 3}, {8, 1}, {8, 2}}
           : std::vector<std::pair<int, int>>{{2, 2}, {8, 1}};
  for (auto [nw, cpw] : shapes) {
    auto run = [&](const char* tag, std::function<void(int)> f) {
      if (pre) {
        R.row(std::string(tag) + " " + std::to_string(nw) + "x" + std::to_string(cpw), [pre, f](int i) { pre(i); f(i); }, nullptr);
      } else {
        R.row(std::string(tag) + " " + std::to_string(nw) + "x" + std::to_string(cpw), f);
      }
    };
    run("stream", stream_fn<Q>(R.b, R.lay, nw, cpw));
  }
}

template <class Q>
void ring_sweep(Runner<Q>& R, const std::function<void(int)>& pre) {
  for (int sp = 1; sp <= 4; ++sp) {
    auto f = [&R, sp](int i) {
      detail::g_row_kernel.store(1);
      detail::g_work_split.store(sp);
      detail::launch_rowwise<In, Q>(static_cast<const In*>(R.b.X[i]), params<Q>(R.b, i, R.lay), g_s);
      detail::g_row_kernel.store(0);
      detail::g_work_split.store(0);
    };
    if (pre) {
      R.row("ring split " + std::to_string(sp), [pre, f](int i) { pre(i); f(i); });
    } else {
      R.row("ring split " + std::to_string(sp), f);
    }
  }
}

template <class Q>
void mx_case(const char* name, Bufs& b, L lay, bool sweep, bool wide, bool ring, bool verify) {
  auto lib = [&b, lay](int i) { detail::launch_rowwise<In, Q>(static_cast<const In*>(b.X[i]), params<Q>(b, i, lay), g_s); };
  Runner<Q> R(name, b, lay, lib, verify);
  R.row("auto", lib);
  if (sweep) stream_sweep<Q>(R, nullptr, wide);
  if (ring) ring_sweep<Q>(R, nullptr);
  R.row("auto again", lib);
}

template <int ORDER>
void nv_case(const char* name, Bufs& b, L lay, bool sweep, bool verify) {
  using Q = dev::Nvfp4Q<ORDER>;
  auto amax_with = [&b](int zero) {
    return [&b, zero](int i) {
      (void)zero;
      detail::launch_amax(mx::InType::bf16, b.X[i], b.M * b.K, b.GA[i], g_s);
    };
  };
  auto quant = [&b, lay](int i) { detail::launch_rowwise<In, Q>(static_cast<const In*>(b.X[i]), params<Q>(b, i, lay), g_s); };
  auto whole = [amax_with, quant](int zero) {
    auto a = amax_with(zero);
    return [a, quant](int i) { a(i); quant(i); };
  };
  Runner<Q> R(name, b, lay, whole(1), verify);
  R.row("auto", whole(1));
  R.row("memset + k_amax alone", amax_with(1));
  R.row("quantize pass alone", quant, amax_with(1));
  if (sweep) {
    stream_sweep<Q>(R, amax_with(1), false);
    ring_sweep<Q>(R, amax_with(1));
  }
  R.row("auto again", whole(1));
}

int main(int argc, char** argv) {
  cudaStreamCreate(&g_s);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s (%d SMs, L2 %d MB)\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 1;
  for (int round = 0; round < rounds; ++round) {
    for (const auto& [M, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{{8192, 7168}, {16384, 16384}}) {
      const std::int64_t n = M * K;
      const bool small = n < (std::int64_t{1} << 27);
      Bufs b;
      b.M = M;
      b.K = K;
      b.nbuf = static_cast<int>(std::clamp(4.0 * prop.l2CacheSize / (2.0 * n) + 1.0, 2.0, 64.0));
      g_iters = small ? 100 : 30;
      for (int i = 0; i < b.nbuf; ++i) {
        void* p;
        detail::check(cudaMalloc(&p, n * 2), "malloc");
        b.X.push_back(p);
        fill<<<1024, 256, 0, g_s>>>(static_cast<std::uint16_t*>(p), n, 0x9E3779B9u * (i + 1));
        detail::check(cudaMalloc(&p, n * 2), "malloc");
        b.Y.push_back(p);
        detail::check(cudaMalloc(&p, n), "malloc");
        b.D.push_back(p);
        detail::check(cudaMalloc(&p, n / 8 + 65536), "malloc");
        b.S.push_back(p);
        detail::check(cudaMalloc(&p, 16), "malloc");
        b.GA.push_back(static_cast<std::uint32_t*>(p));
      }
      detail::check(cudaStreamSynchronize(g_s), "fill");
      std::printf("=== round %d: %lldx%lld bf16, %d buffers, %d iterations\n", round, static_cast<long long>(M),
                  static_cast<long long>(K), b.nbuf, g_iters);
      b.copy_us = time_ev([&](int i) { cudaMemcpyAsync(b.Y[i], b.X[i], n * 2, cudaMemcpyDeviceToDevice, g_s); }, b.nbuf);
      std::printf("%lldx%lld copy (cudaMemcpyAsync D2D) %.2f us, %.1f GB/s\n", static_cast<long long>(M),
                  static_cast<long long>(K), b.copy_us, 4.0 * n / b.copy_us / 1e3);
      const bool v = small && round == 0;
      mx_case<dev::MxQ<dev::kE2M1, true>>("mxfp4 tcgen05", b, L::tcgen05, false, false, false, v);
      mx_case<dev::MxQ<dev::kE3M2, true>>("mxfp6_e3m2 tcgen05", b, L::tcgen05, false, false, false, v);
      mx_case<dev::MxQ<dev::kINT8, true>>("mxint8 dense", b, L::dense, false, false, false, v);
      mx_case<dev::MxQ<dev::kE4M3, true>>("mxfp8 dense", b, L::dense, false, false, false, v);
      nv_case<0>("nvfp4 tcgen05", b, L::tcgen05, true, v);
      nv_case<1>("nvfp4:torchao tcgen05", b, L::tcgen05, true, v);
      nv_case<0>("nvfp4 dense", b, L::dense, true, v);
      b.copy_us = time_ev([&](int i) { cudaMemcpyAsync(b.Y[i], b.X[i], n * 2, cudaMemcpyDeviceToDevice, g_s); }, b.nbuf);
      std::printf("%lldx%lld copy again %.2f us\n", static_cast<long long>(M), static_cast<long long>(K), b.copy_us);
      for (void* p : b.X) cudaFree(p);
      for (void* p : b.Y) cudaFree(p);
      for (void* p : b.D) cudaFree(p);
      for (void* p : b.S) cudaFree(p);
      for (void* p : b.GA) cudaFree(p);
    }
  }
  detail::check(cudaDeviceSynchronize(), "end");
  return 0;
}
