// sol.cu - bench-only "speed of light" of the MXFP8 rowwise traffic on one
// GPU (issue 9): read a bf16 tensor, write one byte per element (its high
// byte) and one byte per 32 elements (the max of those high bytes over the
// block), with no other work, in several kernel shapes; beside them, in the
// same process, the bf16 D2D cudaMemcpy of the same tensor and a read-only
// kernel. Not part of the library (no mxconform code is used).
//
// Every figure is the median of ITERS launches, each timed alone between two
// CUDA events, after WARM launches, over two rotating input/output buffer
// sets (each 537 MB at 16384^2: together far over the 50 MB L2), the way
// mxbench times (kernels/bench/bench.cu). Effective bandwidth = bytes read
// + written over time; ratio = that over the copy's.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90a -o sol bench/sol/sol.cu
// Run:   ./sol [M K] [iters]    (default 16384 16384 30)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

// ---- loads and stores -------------------------------------------------------------
// LD: 0 plain ld.global, 1 ld.global.nc.L1::no_allocate, 2 the same with the
// .L2::256B prefetch-size hint (PTX ISA, ld / ld.global.nc).
template <int LD>
__device__ __forceinline__ uint4 ld16(const void* p) {
  uint4 r;
  if constexpr (LD == 0) {
    asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  } else if constexpr (LD == 1) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
  } else {
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
                 : "l"(p));
  }
  return r;
}
// CS: st.global.cs (streaming, evict first) or plain st.global
template <bool CS>
__device__ __forceinline__ void st8(void* p, uint32_t a, uint32_t b) {
  if constexpr (CS) {
    asm volatile("st.global.cs.v2.u32 [%0], {%1,%2};" ::"l"(p), "r"(a), "r"(b) : "memory");
  } else {
    asm volatile("st.global.v2.u32 [%0], {%1,%2};" ::"l"(p), "r"(a), "r"(b) : "memory");
  }
}
template <bool CS>
__device__ __forceinline__ void st16(void* p, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  if constexpr (CS) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
  } else {
    asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
  }
}

// the high bytes of 8 bf16 (one 16-byte word) as 8 bytes, and their max
__device__ __forceinline__ uint2 hi8(uint4 w, uint32_t& mx) {
  const uint32_t a = __byte_perm(w.x, w.y, 0x7531), b = __byte_perm(w.z, w.w, 0x7531);
  mx = max(max(__byte_perm(a, 0, 0x4440), __byte_perm(a, 0, 0x4441)), max(__byte_perm(a, 0, 0x4442), __byte_perm(a, 0, 0x4443)));
  mx = max(mx, max(max(__byte_perm(b, 0, 0x4440), __byte_perm(b, 0, 0x4441)), max(__byte_perm(b, 0, 0x4442), __byte_perm(b, 0, 0x4443))));
  return make_uint2(a, b);
}

// ---- register kernel ----------------------------------------------------------------
// 256 threads; a CTA tile is 256*V 16-byte words (V loads in flight per
// thread, all issued before any is used), TR rows x (2048*V/TR) elements of
// the M x K tensor (TR = 1: one contiguous piece). ST16: each thread loads
// two adjacent words per pair and stores 16 bytes (TR = 1 only). PERSIST: a
// grid of (occupancy x SMs) CTAs walks the tiles grid-stride; else one tile
// per CTA.
template <int V, int LD, bool CS, bool ST16, int TR, bool PERSIST>
__global__ void __launch_bounds__(256) k_mx(const uint16_t* __restrict__ x, uint8_t* __restrict__ y,
                                            uint8_t* __restrict__ sc, int64_t M, int64_t K) {
  const int tid = threadIdx.x, lane = tid & 31;
  constexpr int TE = 256 * V * 8;  // elements per tile
  constexpr int TC = TE / TR;      // tile columns
  const int64_t tpr = K / TC;      // tiles per row band
  const int64_t ntiles = (M / TR) * tpr;
  for (int64_t t = blockIdx.x; t < ntiles; t += PERSIST ? gridDim.x : ntiles) {
    const int64_t tr = t / tpr, tc = t - tr * tpr;
    const int64_t base = tr * TR * K + tc * TC;  // first element of the tile
    if constexpr (ST16) {
      static_assert(TR == 1 && V % 2 == 0, "16-byte stores: contiguous tiles, pairs of loads");
      uint4 w[V];
#pragma unroll
      for (int j = 0; j < V / 2; ++j) {
        const int64_t e = base + (static_cast<int64_t>(j) * 256 + tid) * 16;
        w[2 * j] = ld16<LD>(x + e);
        w[2 * j + 1] = ld16<LD>(x + e + 8);
      }
#pragma unroll
      for (int j = 0; j < V / 2; ++j) {
        const int64_t e = base + (static_cast<int64_t>(j) * 256 + tid) * 16;
        uint32_t m0, m1;
        const uint2 a = hi8(w[2 * j], m0), b = hi8(w[2 * j + 1], m1);
        st16<CS>(y + e, a.x, a.y, b.x, b.y);
        uint32_t m = max(m0, m1);
        m = max(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
        if ((lane & 1) == 0) sc[e >> 5] = static_cast<uint8_t>(m);
      }
    } else {
      uint4 w[V];
      int64_t e[V];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const int li = j * 256 + tid;  // word in the tile
        const int r = li / (TC / 8), c = li % (TC / 8);
        e[j] = base + r * K + c * 8;
        w[j] = ld16<LD>(x + e[j]);
      }
#pragma unroll
      for (int j = 0; j < V; ++j) {
        uint32_t m;
        const uint2 a = hi8(w[j], m);
        st8<CS>(y + e[j], a.x, a.y);
        m = max(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
        m = max(m, __shfl_xor_sync(0xFFFFFFFFu, m, 2));
        if ((lane & 3) == 0) sc[e[j] >> 5] = static_cast<uint8_t>(m);
      }
    }
  }
}

// ---- read-only and copy kernels -----------------------------------------------------
template <int V>
__global__ void __launch_bounds__(256) k_read(const uint16_t* __restrict__ x, int64_t n, uint32_t* out) {
  uint32_t acc = 0;
  const int64_t words = n / 8, step = static_cast<int64_t>(gridDim.x) * 256 * V;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * 256 * V + threadIdx.x; i < words; i += step) {
    uint4 w[V];
#pragma unroll
    for (int j = 0; j < V; ++j) w[j] = ld16<1>(x + (i + j * 256) * 8);
#pragma unroll
    for (int j = 0; j < V; ++j) acc ^= w[j].x ^ w[j].y ^ w[j].z ^ w[j].w;
  }
  if (acc == 0x12345678u) *out = acc;  // keeps the loads; (almost) never stores
}
template <int V>
__global__ void __launch_bounds__(256) k_copy(const uint4* __restrict__ x, uint4* __restrict__ y, int64_t words) {
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * 256 * V + threadIdx.x;
  uint4 w[V];
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (t0 + j * 256 < words) w[j] = ld16<1>(x + t0 + j * 256);
#pragma unroll
  for (int j = 0; j < V; ++j)
    if (t0 + j * 256 < words) y[t0 + j * 256] = w[j];
}

// ---- TMA bulk kernel (PTX ISA 9.7.9.25, cp.async.bulk; mbarrier 9.7.13.15) --------------
// Persistent CTAs of 256 threads; tile = 8192 elements (16 KB in, 8 KB + 256
// scale bytes out). Thread 0 loads tiles with cp.async.bulk global->shared
// into an S-stage ring, each stage completing an mbarrier (expect_tx); all
// threads convert from shared memory; BULKST: the codes and scales go back
// with cp.async.bulk shared->global (bulk_group), else st.global.cs from
// registers. One __syncthreads per tile.
constexpr int kTmaTile = 8192;
template <int S, bool BULKST>
struct TmaSmem {
  uint4 in[S][kTmaTile / 8];
  uint2 out[BULKST ? S : 1][kTmaTile / 8];
  uint8_t sc[BULKST ? S : 1][kTmaTile / 32];
  unsigned long long bar[S];
};
__device__ __forceinline__ uint32_t sa(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <int S, bool BULKST>
__global__ void __launch_bounds__(256) k_tma(const uint16_t* __restrict__ x, uint8_t* __restrict__ y,
                                             uint8_t* __restrict__ sc, int64_t n) {
  extern __shared__ __align__(128) unsigned char smraw[];
  auto& sm = *reinterpret_cast<TmaSmem<S, BULKST>*>(smraw);
  const int tid = threadIdx.x, lane = tid & 31;
  const int64_t ntiles = n / kTmaTile;
  const int64_t my = (ntiles - blockIdx.x + gridDim.x - 1) / gridDim.x;  // tiles of this CTA
  if (tid == 0) {
    for (int s = 0; s < S; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&sm.bar[s])));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  auto load = [&](int64_t k, int s) {  // thread 0: tile k of this CTA into stage s
    const int64_t t = blockIdx.x + k * gridDim.x;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sa(&sm.bar[s])), "r"(kTmaTile * 2)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(sa(&sm.in[s][0])),
        "l"(x + t * kTmaTile), "r"(kTmaTile * 2), "r"(sa(&sm.bar[s]))
        : "memory");
  };
  if (tid == 0)
    for (int s = 0; s < S && s < my; ++s) load(s, s);
  for (int64_t k = 0; k < my; ++k) {
    const int s = static_cast<int>(k % S);
    const uint32_t par = static_cast<uint32_t>((k / S) & 1);
    asm volatile(
        "{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(sa(&sm.bar[s])),
        "r"(par)
        : "memory");
    const int64_t t = blockIdx.x + k * gridDim.x;
#pragma unroll
    for (int i = 0; i < kTmaTile / 8 / 256; ++i) {
      const int wd = i * 256 + tid;
      uint32_t m;
      const uint2 a = hi8(sm.in[s][wd], m);
      m = max(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
      m = max(m, __shfl_xor_sync(0xFFFFFFFFu, m, 2));
      if constexpr (BULKST) {
        sm.out[s][wd] = a;
        if ((lane & 3) == 0) sm.sc[s][wd >> 2] = static_cast<uint8_t>(m);
      } else {
        st8<true>(y + t * kTmaTile + wd * 8, a.x, a.y);
        if ((lane & 3) == 0) sc[t * (kTmaTile / 32) + (wd >> 2)] = static_cast<uint8_t>(m);
      }
    }
    if constexpr (BULKST) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic-proxy writes -> the bulk copy
      // this tile's output buffer was last read by the bulk store of tile k-S
      // (waited below, before the barrier of tile k-1)
    }
    __syncthreads();  // stage s consumed (and, BULKST, written) by every thread
    if (tid == 0) {
      if constexpr (BULKST) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(y + t * kTmaTile),
                     "r"(sa(&sm.out[s][0])), "r"(kTmaTile)
                     : "memory");
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(sc + t * (kTmaTile / 32)),
                     "r"(sa(&sm.sc[s][0])), "r"(kTmaTile / 32)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      }
      if (k + S < my) load(k + S, s);
      if constexpr (BULKST) {
        // before the next barrier: the stores of tiles <= k+1-S have read their
        // buffers, so tile k+1 may overwrite out[(k+1) % S]
        asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(S - 2) : "memory");
      }
    }
  }
  if constexpr (BULKST) {
    if (tid == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// ---- harness ----------------------------------------------------------------------
struct Case {
  std::string name;
  double bytes;
  std::function<void(int, cudaStream_t)> launch;
};

static double median_us(const Case& c, int warm, int iters, cudaStream_t s) {
  for (int i = 0; i < warm; ++i) c.launch(i % 2, s);
  std::vector<cudaEvent_t> ev(2 * iters);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < iters; ++i) {
    CK(cudaEventRecord(ev[2 * i], s));
    c.launch((warm + i) % 2, s);
    CK(cudaEventRecord(ev[2 * i + 1], s));
  }
  CK(cudaStreamSynchronize(s));
  CK(cudaGetLastError());
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) CK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return 1e3 * (iters % 2 ? ms[iters / 2] : 0.5 * (ms[iters / 2 - 1] + ms[iters / 2]));
}

__global__ void k_fill(uint16_t* p, int64_t n, uint32_t seed) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = static_cast<uint16_t>(((h & 1u) << 15) | ((119u + (h >> 24) % 16u) << 7) | ((h >> 8) & 0x7Fu));
  }
}

int main(int argc, char** argv) {
  const int64_t M = argc > 2 ? std::atoll(argv[1]) : 16384, K = argc > 2 ? std::atoll(argv[2]) : 16384;
  const int iters = argc > 3 ? std::atoi(argv[3]) : 30;
  const int64_t n = M * K;
  if (K % 8192 != 0 || M % 128 != 0) {
    std::fprintf(stderr, "sol: K must be a multiple of 8192 and M of 128\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  uint16_t* X[2];
  void* Yc[2];
  uint8_t *D[2], *Sc[2];
  uint32_t* sink;
  for (int b = 0; b < 2; ++b) {
    CK(cudaMalloc(&X[b], n * 2));
    CK(cudaMalloc(&Yc[b], n * 2));
    CK(cudaMalloc(&D[b], n));
    CK(cudaMalloc(&Sc[b], n / 32));
    k_fill<<<1024, 256, 0, st>>>(X[b], n, 0x9E3779B9u * (b + 1));
  }
  CK(cudaMalloc(&sink, 16));
  CK(cudaStreamSynchronize(st));
  const double in_b = 2.0 * n, mx_b = 2.0 * n + n + n / 32.0;
  std::vector<Case> cases;
  cases.push_back({"copy bf16 (cudaMemcpyAsync D2D)", 2 * in_b, [&](int b, cudaStream_t s) {
                     CK(cudaMemcpyAsync(Yc[b], X[b], n * 2, cudaMemcpyDeviceToDevice, s));
                   }});
  auto occ = [&](auto kern, int smem) {
    int per = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, 256, smem));
    return std::max(1, per) * sms;
  };
  {
    auto k4 = k_read<4>;
    const int g = occ(k4, 0);
    cases.push_back({"read only, 4 loads/thread, persistent (sum to one word)", in_b,
                     [=](int b, cudaStream_t s) { k4<<<g, 256, 0, s>>>(X[b], n, sink); }});
    auto k2 = k_read<2>;
    const int g2 = occ(k2, 0);
    cases.push_back({"read only, 2 loads/thread, persistent", in_b,
                     [=](int b, cudaStream_t s) { k2<<<g2, 256, 0, s>>>(X[b], n, sink); }});
    auto kc = k_copy<4>;
    const int64_t words = n / 8;  // 16-byte words of the bf16 tensor (8 elements each)
    cases.push_back({"copy kernel, 4 loads/thread, one tile per CTA", 2 * in_b, [=](int b, cudaStream_t s) {
                       kc<<<static_cast<unsigned>((words + 1023) / 1024), 256, 0, s>>>(
                           reinterpret_cast<const uint4*>(X[b]), reinterpret_cast<uint4*>(Yc[b]), words);
                     }});
  }
  auto add = [&](const char* name, auto kern, bool persist, int v) {
    const int64_t tiles = n / (256 * v * 8);
    const int g = persist ? occ(kern, 0) : static_cast<int>(tiles);
    cases.push_back({name, mx_b, [=](int b, cudaStream_t s) { kern<<<g, 256, 0, s>>>(X[b], D[b], Sc[b], M, K); }});
  };
  //                        V  LD  CS     ST16   TR   PERSIST
  add("mx  V1 nc  cs  st8  tile1   one-tile", k_mx<1, 1, true, false, 1, false>, false, 1);
  add("mx  V2 nc  cs  st8  tile1   one-tile", k_mx<2, 1, true, false, 1, false>, false, 2);
  add("mx  V4 nc  cs  st8  tile1   one-tile", k_mx<4, 1, true, false, 1, false>, false, 4);
  add("mx  V8 nc  cs  st8  tile1   one-tile", k_mx<8, 1, true, false, 1, false>, false, 8);
  add("mx  V1 nc  cs  st8  tile1   persist", k_mx<1, 1, true, false, 1, true>, true, 1);
  add("mx  V2 nc  cs  st8  tile1   persist", k_mx<2, 1, true, false, 1, true>, true, 2);
  add("mx  V4 nc  cs  st8  tile1   persist", k_mx<4, 1, true, false, 1, true>, true, 4);
  add("mx  V4 ld  cs  st8  tile1   one-tile", k_mx<4, 0, true, false, 1, false>, false, 4);
  add("mx  V4 256 cs  st8  tile1   one-tile", k_mx<4, 2, true, false, 1, false>, false, 4);
  add("mx  V4 nc  st  st8  tile1   one-tile", k_mx<4, 1, false, false, 1, false>, false, 4);
  add("mx  V4 nc  cs  st16 tile1   one-tile", k_mx<4, 1, true, true, 1, false>, false, 4);
  add("mx  V2 nc  cs  st16 tile1   one-tile", k_mx<2, 1, true, true, 1, false>, false, 2);
  add("mx  V4 nc  st  st16 tile1   one-tile", k_mx<4, 1, false, true, 1, false>, false, 4);
  add("mx  V4 nc  cs  st16 tile1   persist", k_mx<4, 1, true, true, 1, true>, true, 4);
  add("mx  V4 nc  cs  st8  tile8   one-tile", k_mx<4, 1, true, false, 8, false>, false, 4);
  add("mx  V4 nc  cs  st8  tile32  one-tile", k_mx<4, 1, true, false, 32, false>, false, 4);
  add("mx  V4 nc  cs  st8  tile128 one-tile", k_mx<4, 1, true, false, 128, false>, false, 4);
  add("mx  V2 nc  cs  st8  tile128 one-tile", k_mx<2, 1, true, false, 128, false>, false, 2);
  add("mx  V4 nc  st  st8  tile128 one-tile", k_mx<4, 1, false, false, 128, false>, false, 4);
  auto tma = [&](const char* name, auto kern, int smem, int per_sm) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kern, 256, smem));
    const int g = std::min(per, per_sm) * sms;
    cases.push_back({name, mx_b, [=](int b, cudaStream_t s) { kern<<<g, 256, smem, s>>>(X[b], D[b], Sc[b], n); }});
  };
  tma("tma ring S4 bulk store, 2 CTA/SM", k_tma<4, true>, sizeof(TmaSmem<4, true>), 2);
  tma("tma ring S4 bulk store, 1 CTA/SM", k_tma<4, true>, sizeof(TmaSmem<4, true>), 1);
  tma("tma ring S6 bulk store, 1 CTA/SM", k_tma<6, true>, sizeof(TmaSmem<6, true>), 1);
  tma("tma ring S3 bulk store, 3 CTA/SM", k_tma<3, true>, sizeof(TmaSmem<3, true>), 3);
  tma("tma ring S4 st.global.cs, 2 CTA/SM", k_tma<4, false>, sizeof(TmaSmem<4, false>), 2);
  tma("tma ring S6 st.global.cs, 2 CTA/SM", k_tma<6, false>, sizeof(TmaSmem<6, false>), 2);

  std::printf("device: %s (%d SMs), %lld x %lld bf16, median of %d launches after 5 warm-up, 2 rotating buffers\n",
              prop.name, sms, static_cast<long long>(M), static_cast<long long>(K), iters);
  std::printf("mx bytes = read 2n + write n + n/32 = %.1f MB; copy bytes = 4n = %.1f MB\n", mx_b / 1e6, 2 * in_b / 1e6);
  std::printf("%-58s %10s %9s %7s\n", "case", "median_us", "GB/s", "ratio");
  double copy_gbs = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const Case& c : cases) {
      const double us = median_us(c, 5, iters, st);
      const double gbs = c.bytes / (us * 1e-6) / 1e9;
      if (copy_gbs == 0) copy_gbs = gbs;
      std::printf("%-58s %10.2f %9.1f %7.3f%s\n", c.name.c_str(), us, gbs, gbs / copy_gbs, pass ? "  (pass 2)" : "");
    }
  }
  // every traffic variant's bytes against the host (the high bytes and the
  // block maxima of the first 2^20 elements), output poisoned before the launch
  {
    std::vector<uint16_t> hx(1 << 20);
    std::vector<uint8_t> hd(1 << 20), hs((1 << 20) / 32);
    CK(cudaMemcpy(hx.data(), X[0], hx.size() * 2, cudaMemcpyDeviceToHost));
    int checked = 0;
    int64_t bad = 0;
    for (const Case& c : cases) {
      if (c.bytes != mx_b) continue;
      CK(cudaMemset(D[0], 0xAB, n));
      CK(cudaMemset(Sc[0], 0xAB, n / 32));
      c.launch(0, st);
      CK(cudaStreamSynchronize(st));
      CK(cudaMemcpy(hd.data(), D[0], hd.size(), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(hs.data(), Sc[0], hs.size(), cudaMemcpyDeviceToHost));
      int64_t b0 = 0;
      for (size_t i = 0; i < hx.size(); ++i) b0 += hd[i] != (hx[i] >> 8);
      for (size_t b = 0; b < hs.size(); ++b) {
        uint8_t m = 0;
        for (int i = 0; i < 32; ++i) m = std::max<uint8_t>(m, static_cast<uint8_t>(hx[b * 32 + i] >> 8));
        b0 += hs[b] != m;
      }
      if (b0) std::printf("check FAILED: %s: %lld mismatches\n", c.name.c_str(), static_cast<long long>(b0));
      bad += b0;
      ++checked;
    }
    std::printf("check: %d traffic variants, first 2^20 elements each, %lld mismatches\n", checked,
                static_cast<long long>(bad));
  }
  return 0;
}
