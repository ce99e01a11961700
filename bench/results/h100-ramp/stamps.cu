// stamps.cu - scratch probe for run 12 ramp (issue 9: the first wave's
// ramp of k_rowstream; not part of any build), adapted from run 12 tail's
// bench/results/h100-tail/stamps.cu. It needs the light-head code of
// h100-ramp/head.patch (StreamHead, detail::stream_head, g_stream_head;
// measured in call 1 and not kept: `git apply bench/results/h100-ramp/head.patch`
// on main e8c40c5 first). Built on the device (ramp.sh):
//   nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr
//        -arch=sm_90a -Ikernels -Ikernels/include -Ireference/include bench/results/h100-ramp/stamps.cu -o stamps
// For 16384^2 and 8192x7168 bf16 (buffers rotating as mxbench rotates
// them: at least 4x the L2 in all, at least 2):
//   stamps (as tail's): event time of the library launcher (ev) and of the
//   stamped body (st_ev), medians; from one stamped launch the span, the
//   end times of 10/50/90% of the CTAs, the steady rate between 10% and
//   90%, the head and tail overheads against that rate, CTA durations
//   (first wave / all / last 10%), active CTAs at 21 points; for the
//   bytes-only copy k_copy16 and k_rowstream MXFP8 / MXINT8 dense with the
//   light heads named below (g_stream_head: -1 none, 10000 * D + 100 * S
//   + A: S slots of sm_count CTAs, slot s's CTAs A + D * s items), and with
//   at most 3 resident CTAs per SM (dynamic shared memory, "cap3");
//   sweep: event time through the launcher (launch_rowwise) for each head,
//   two rounds, heads interleaved, ratio to the cudaMemcpyAsync copy timed
//   in the same process.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
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
using In = __nv_bfloat16;

__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
struct Stamp {
  unsigned long long t0, t1;
  unsigned long long sm;
};
// per warp, lane 0, no barrier (a final __syncthreads held the ring's CTAs
// ~4% longer in call 1): slot 8 * CTA + warp; the host takes each CTA's
// earliest start and latest end
__device__ __forceinline__ void stamp_end(Stamp* st, unsigned long long t0) {
  __syncwarp();
  if ((threadIdx.x & 31) == 0) st[8 * static_cast<int64_t>(blockIdx.x) + (threadIdx.x >> 5)] = {t0, gtime(), smid()};
}

template <class Q>
__global__ void __launch_bounds__(256, dev::kStreamCtasPerSm) s_rowstream(const In* __restrict__ x, dev::Params p,
                                                                          int64_t nch, int cpw, dev::StreamHead h,
                                                                          Stamp* st) {
  const unsigned long long t0 = gtime();
  dev::rowstream_body<In, Q>(x, p, nch, cpw, h);
  stamp_end(st, t0);
}
template <class Q>
__global__ void __launch_bounds__(256, dev::kRowCtasPerSm) s_rowwise(const In* __restrict__ x, dev::Params p, int gx,
                                                                    int gy, int cf, Stamp* st) {
  const unsigned long long t0 = gtime();
  dev::rowwise_body<In, Q>(x, p, gx, gy, cf);
  stamp_end(st, t0);
}
template <class Q>
__global__ void __launch_bounds__(256, dev::kTileCtasPerSm) s_rowtile(const In* __restrict__ x, dev::Params p,
                                                                     int64_t ntc, Stamp* st) {
  const unsigned long long t0 = gtime();
  dev::rowtile_body<In, Q>(x, p, ntc);
  stamp_end(st, t0);
}
// bytes only: each thread 4 x 16 bytes (loads first), 16 KB per CTA
__global__ void __launch_bounds__(256, 4) k_copy16(const uint4* __restrict__ x, uint4* __restrict__ y, int64_t n16,
                                                   Stamp* st) {
  const unsigned long long t0 = gtime();
  const int64_t base = static_cast<int64_t>(blockIdx.x) * 1024 + threadIdx.x;
  uint4 w[4];
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int64_t i = base + u * 256;
    if (i < n16) w[u] = dev::ld_stream(x + i);
  }
#pragma unroll
  for (int u = 0; u < 4; ++u) {
    const int64_t i = base + u * 256;
    if (i < n16) y[i] = w[u];
  }
  if (st != nullptr) stamp_end(st, t0);
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

// event time per launch (median), launches f(buffer index)
template <class F>
double time_ev(F f, int nbuf, int iters, cudaStream_t s) {
  for (int i = 0; i < 5; ++i) f(i % nbuf);
  std::vector<cudaEvent_t> ev(2 * iters);
  for (auto& e : ev) cudaEventCreate(&e);
  for (int i = 0; i < iters; ++i) {
    cudaEventRecord(ev[2 * i], s);
    f((5 + i) % nbuf);
    cudaEventRecord(ev[2 * i + 1], s);
  }
  detail::check(cudaStreamSynchronize(s), "timed launches");
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]);
  for (auto& e : ev) cudaEventDestroy(e);
  return med(ms) * 1e3;
}

// per-warp slots -> per-CTA stamps (slots of warps that did not stamp hold 0)
std::vector<Stamp> per_cta(const std::vector<Stamp>& w, std::size_t ctas) {
  std::vector<Stamp> v(ctas);
  for (std::size_t b = 0; b < ctas; ++b) {
    Stamp c{~0ull, 0, 0};
    for (int k = 0; k < 8; ++k) {
      const Stamp& x = w[8 * b + k];
      if (x.t1 == 0) continue;
      c.t0 = std::min(c.t0, x.t0);
      c.t1 = std::max(c.t1, x.t1);
      c.sm = x.sm;
    }
    v[b] = c;
  }
  return v;
}

void analyze(const char* name, const std::vector<Stamp>& v, double bytes, double ev_us, double st_ev_us) {
  const std::size_t n = v.size();
  unsigned long long t0 = ~0ull, t1 = 0, ls = 0;
  for (const Stamp& s : v) {
    t0 = std::min(t0, s.t0);
    t1 = std::max(t1, s.t1);
    ls = std::max(ls, s.t0);
  }
  std::vector<double> ends(n), durs(n), first, last;
  std::vector<std::pair<double, double>> sd(n);
  for (std::size_t i = 0; i < n; ++i) {
    ends[i] = static_cast<double>(v[i].t1 - t0);
    durs[i] = static_cast<double>(v[i].t1 - v[i].t0);
    sd[i] = {static_cast<double>(v[i].t0 - t0), durs[i]};
  }
  std::sort(ends.begin(), ends.end());
  std::sort(sd.begin(), sd.end());
  for (std::size_t i = 0; i < n; ++i) {
    if (sd[i].first < 300.0) first.push_back(sd[i].second);
    if (i >= n - n / 10) last.push_back(sd[i].second);
  }
  const double span = static_cast<double>(t1 - t0);
  const double e10 = ends[n / 10], e50 = ends[n / 2], e90 = ends[(9 * n) / 10];
  const double rate = 0.8 * static_cast<double>(n) / (e90 - e10);  // CTAs per ns
  const double head = e10 - 0.1 * n / rate, tail = (span - e90) - 0.1 * n / rate;
  const double gbs = rate * bytes / static_cast<double>(n);  // bytes per ns = GB/s
  std::printf("%-34s ctas %7zu ev %8.2f st_ev %8.2f span %8.2f | t10 %7.2f t50 %7.2f t90 %7.2f last_start %7.2f | steady %6.0f GB/s head %5.2f tail %5.2f us | dur first %6.2f all %6.2f last10%% %6.2f us\n",
              name, n, ev_us, st_ev_us, span / 1e3, e10 / 1e3, e50 / 1e3, e90 / 1e3, static_cast<double>(ls - t0) / 1e3, gbs,
              head / 1e3, tail / 1e3, first.empty() ? 0.0 : med(first) / 1e3, med(durs) / 1e3, last.empty() ? 0.0 : med(last) / 1e3);
  std::printf("%-34s active:", "");
  for (int k = 0; k <= 20; ++k) {
    const double t = span * k / 20.0 + (k == 20 ? -1.0 : 0.0);
    int a = 0;
    for (const Stamp& s : v) a += (static_cast<double>(s.t0 - t0) <= t && static_cast<double>(s.t1 - t0) > t) ? 1 : 0;
    std::printf(" %d", a);
  }
  std::printf("\n");
}

static bool g_cap3 = false;  // stamped k_rowstream with at most 3 resident CTAs per SM
struct Bufs {
  int nbuf;
  std::vector<void*> X, Y, D, S;
  Stamp* st;
};

template <class Q>
dev::Params params(const Bufs& b, int i, std::int64_t M, std::int64_t K, mx::ScaleLayout lay) {
  detail::ScaleOut o{static_cast<std::uint8_t*>(b.D[i]), static_cast<std::uint8_t*>(b.S[i]), lay, false};
  dev::Params p{};
  p.batch = 1;
  p.M = M;
  p.K = K;
  p.row = detail::make_side(o, 1, M, (K + 31) / 32, K, Q::BITS, false);
  p.rule = 0;  // floor
  p.vec_in = (K % 8) == 0 ? 1 : 0;
  return p;
}

// kernel: 1 ring, 2 stream, 3 tile (forced through the launcher's probe)
template <class Q>
void stamp_case(const char* name, const Bufs& b, std::int64_t M, std::int64_t K, mx::ScaleLayout lay, int kernel,
                int iters, cudaStream_t s) {
  detail::g_row_kernel.store(kernel);
  const double bytes = static_cast<double>(M * K) * 2.0 + static_cast<double>(M * K * Q::BITS / 8) +
                       static_cast<double>(M * K / 32);
  auto lib = [&](int i) { detail::launch_rowwise<In, Q>(static_cast<const In*>(b.X[i]), params<Q>(b, i, M, K, lay), s); };
  const double ev = time_ev(lib, b.nbuf, iters, s);
  constexpr std::int64_t CH = dev::RowShape<In>::CH;
  const std::int64_t nch = (K + CH - 1) / CH, rows = M;
  std::function<void(int)> st;
  std::int64_t grid = 0;
  if (kernel == 3) {
    if constexpr (dev::kRowTileQ<Q>) {
      const std::int64_t ntc = K / dev::kTileCols;
      grid = rows / dev::kTileRows * ntc;
      st = [&, ntc, grid](int i) {
        s_rowtile<Q><<<static_cast<unsigned>(grid), 256, 0, s>>>(static_cast<const In*>(b.X[i]), params<Q>(b, i, M, K, lay),
                                                                 ntc, b.st);
      };
    }
  } else if (kernel == 2) {
    // as launch_rowwise for large tensors (8 warps x 1 chunk), the head as the launcher computes it
    const std::int64_t items = rows * nch, span = 8;
    const dev::StreamHead h = detail::stream_head(detail::g_stream_head.load(), dev::kStreamHeadQ<Q>, span, items, grid);
    const int smem = g_cap3 ? 60 * 1024 : 0;
    if (g_cap3) cudaFuncSetAttribute(s_rowstream<Q>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    st = [&, h, grid, smem](int i) {
      s_rowstream<Q><<<static_cast<unsigned>(grid), 256, smem, s>>>(static_cast<const In*>(b.X[i]),
                                                                    params<Q>(b, i, M, K, lay), nch, 1, h, b.st);
    };
  } else {
    const std::int64_t gx = (rows + dev::kRowWarps - 1) / dev::kRowWarps;
    const int split = detail::g_work_split.load();
    const std::int64_t cpw = split > 0 ? split : std::clamp<std::int64_t>(gx * nch / dev::kRowMinCtas, 1, dev::kRowMaxChunks<Q>);
    const std::int64_t gy = (nch + cpw - 1) / cpw;
    grid = gx * gy;
    st = [&, gx, gy, grid](int i) {
      s_rowwise<Q><<<static_cast<unsigned>(grid), 256, 0, s>>>(static_cast<const In*>(b.X[i]), params<Q>(b, i, M, K, lay),
                                                               static_cast<int>(gx), static_cast<int>(gy), 1, b.st);
    };
  }
  const double st_ev = time_ev(st, b.nbuf, iters, s);
  // one more stamped launch after 4 (steady state), then read the stamps
  for (int i = 0; i < 4; ++i) st(i % b.nbuf);
  cudaMemsetAsync(b.st, 0, sizeof(Stamp) * 8 * grid, s);
  st(0);
  detail::check(cudaStreamSynchronize(s), "stamped launches");
  std::vector<Stamp> w(static_cast<std::size_t>(8 * grid));
  detail::check(cudaMemcpy(w.data(), b.st, w.size() * sizeof(Stamp), cudaMemcpyDeviceToHost), "stamps");
  analyze(name, per_cta(w, static_cast<std::size_t>(grid)), bytes, ev, st_ev);
  detail::g_row_kernel.store(0);
}

int main() {
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s (%d SMs, L2 %d MB)\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  for (const auto& [M, K] : std::vector<std::pair<std::int64_t, std::int64_t>>{{16384, 16384}, {8192, 7168}}) {
    const std::int64_t n = M * K;
    Bufs b;
    b.nbuf = static_cast<int>(std::clamp(4.0 * prop.l2CacheSize / (2.0 * n) + 1.0, 2.0, 64.0));
    const int iters = n >= (std::int64_t{1} << 26) ? 50 : 200;
    for (int i = 0; i < b.nbuf; ++i) {
      void* p;
      cudaMalloc(&p, n * 2);
      b.X.push_back(p);
      fill<<<1024, 256, 0, s>>>(static_cast<std::uint16_t*>(p), n, 0x9E3779B9u * (i + 1));
      cudaMalloc(&p, n * 2);
      b.Y.push_back(p);
      cudaMalloc(&p, n);
      b.D.push_back(p);
      cudaMalloc(&p, n / 16 + 4096);
      b.S.push_back(p);
    }
    cudaMalloc(&b.st, sizeof(Stamp) * 8 * (n / 1024 + 1024));
    detail::check(cudaStreamSynchronize(s), "fill");
    std::printf("=== %lldx%lld bf16, %d buffers\n", static_cast<long long>(M), static_cast<long long>(K), b.nbuf);
    auto copy = [&] {
      return time_ev([&](int i) { cudaMemcpyAsync(b.Y[i], b.X[i], n * 2, cudaMemcpyDeviceToDevice, s); }, b.nbuf, iters, s);
    };
    double cp = copy();
    std::printf("copy (cudaMemcpyAsync) ev %.2f us, %.1f GB/s\n", cp, 4.0 * n / cp / 1e3);
    using L = mx::ScaleLayout;
    using F8 = dev::MxQ<dev::kE4M3, true>;
    using I8 = dev::MxQ<dev::kINT8, true>;
    {  // bytes-only kernel
      const std::int64_t n16 = n * 2 / 16;
      const unsigned g = static_cast<unsigned>((n16 + 1023) / 1024);
      auto f = [&](int i) {
        k_copy16<<<g, 256, 0, s>>>(static_cast<const uint4*>(b.X[i]), static_cast<uint4*>(b.Y[i]), n16, nullptr);
      };
      auto fs = [&](int i) {
        k_copy16<<<g, 256, 0, s>>>(static_cast<const uint4*>(b.X[i]), static_cast<uint4*>(b.Y[i]), n16, b.st);
      };
      const double ev = time_ev(f, b.nbuf, iters, s), sev = time_ev(fs, b.nbuf, iters, s);
      for (int i = 0; i < 4; ++i) fs(i % b.nbuf);
      cudaMemsetAsync(b.st, 0, sizeof(Stamp) * 8 * g, s);
      fs(0);
      detail::check(cudaStreamSynchronize(s), "copy16");
      std::vector<Stamp> w(8 * static_cast<std::size_t>(g));
      cudaMemcpy(w.data(), b.st, w.size() * sizeof(Stamp), cudaMemcpyDeviceToHost);
      analyze("k_copy16 (bytes only, 16 KB/CTA)", per_cta(w, g), 4.0 * n, ev, sev);
    }
    for (const int hd : {-1, 404, 204, 402, 804, 20402}) {
      detail::g_stream_head.store(hd);
      const std::string nm = "mxfp8 dense stream head " + std::to_string(hd);
      stamp_case<F8>(nm.c_str(), b, M, K, L::dense, 2, iters, s);
    }
    g_cap3 = true;
    detail::g_stream_head.store(-1);
    stamp_case<F8>("mxfp8 dense stream cap3 head -1", b, M, K, L::dense, 2, iters, s);
    g_cap3 = false;
    for (const int hd : {-1, 404}) {
      detail::g_stream_head.store(hd);
      const std::string nm = "mxint8 dense stream head " + std::to_string(hd);
      stamp_case<I8>(nm.c_str(), b, M, K, L::dense, 2, iters, s);
    }
    detail::g_stream_head.store(0);
    auto run = [&]<class Q>(const char* nm, L lay, int hd) {
      detail::g_stream_head.store(hd);
      const double ev = time_ev([&](int i) { detail::launch_rowwise<In, Q>(static_cast<const In*>(b.X[i]), params<Q>(b, i, M, K, lay), s); },
                                b.nbuf, iters, s);
      detail::g_stream_head.store(0);
      std::printf("sweep %5lldx%-6lld %-12s head %5d ev %8.2f us ratio %.4f (copy %.2f)\n", static_cast<long long>(M),
                  static_cast<long long>(K), nm, hd, ev, (static_cast<double>(n) * (2.0 + Q::BITS / 8.0) + n / 32.0) / ev / (4.0 * n / cp), cp);
      return ev;
    };
    const std::vector<int> heads{-1, 0, 102, 104, 106, 202, 204, 206, 302, 304, 402, 404, 406, 408, 604, 804, 1204,
                                 10101, 10102, 10201, 10202, 10304, 10401, 10402, 10501, 10702, 20202, 20402, 20301};
    for (int round = 0; round < 2; ++round) {
      cp = copy();
      for (const int hd : heads) {
        run.template operator()<F8>("mxfp8 dense", L::dense, hd);
        run.template operator()<I8>("mxint8 dense", L::dense, hd);
      }
    }
    std::fflush(stdout);
    for (int i = 0; i < b.nbuf; ++i) {
      cudaFree(b.X[i]);
      cudaFree(b.Y[i]);
      cudaFree(b.D[i]);
      cudaFree(b.S[i]);
    }
    cudaFree(b.st);
    std::fflush(stdout);
  }
  return 0;
}
