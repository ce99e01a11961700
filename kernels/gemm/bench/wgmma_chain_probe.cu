// wgmma_chain_probe.cu - the floor of the w4a16 ws consumer's chain (issue 10,
// run 18 k128): clock64 cycles per step of a chain of dependent bf16 wgmma
// m64nNk16 (N = 16, 56, 64) into one fp32 accumulator, A from shared memory
// with the 128-byte swizzle (as TMA writes it) and B in the no-swizzle core-
// matrix layout (as the producers widen it), one warpgroup per SM on every SM,
// 448 steps per pass (K = 7168), 8 passes. How the steps are issued (MODE):
//   0 nowait  groups of 4 (one k-tile), fence + commit per group, no wait
//             until the end (the tensor core's dependent chain alone)
//   1 wait1   groups of 4, commit + wait_group 1 (the kernel's CW 1)
//   2 wait0   groups of 4, commit + wait_group 0
//   3 bar     as 1 plus the kernel's barrier traffic per k-tile: try_wait on
//             a completed `full` phase before, every thread's arrive on an
//             `empty` after (no producers: the consumer's own overhead)
//   4 bar2    as 3 with two k-tiles per round trip (8 steps, two try_waits,
//             one commit + wait_group 1, two arrives: the TK 2 forms)
//   5 wait1x8 groups of 8, commit + wait_group 1, no barriers
// Numbers only (the data is arbitrary, small and finite). Built by the device
// script (bench/results/h200-k128/run-k128.sh), not by CMake:
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -Ikernels -Ikernels/include \
//        -Ireference/include kernels/gemm/bench/wgmma_chain_probe.cu -o mxwgmmachain
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_ws.cuh"
#include "gemm/wgmma_ops.cuh"

namespace {

using namespace mxk::gemm;

constexpr int kSteps = 448, kPasses = 8;

template <int N, int MODE>
__global__ void __launch_bounds__(128, 1) chain(float* out, long long* cyc) {
#ifdef MXK_GEMM_HAVE_WGMMA
  extern __shared__ __align__(1024) std::uint8_t smem[];
  auto* bars = reinterpret_cast<std::uint64_t*>(smem + 65536);  // full, empty
  for (int i = threadIdx.x; i < 65536 / 4; i += blockDim.x)
    reinterpret_cast<std::uint32_t*>(smem)[i] = (i * 2654435761u) & 0x3C3C3C3Cu;  // small finite bf16 pairs
  if (threadIdx.x == 0) {
    mbar_init(&bars[0], 1);
    mbar_init(&bars[1], 128);
    mbar_init_fence();
  }
  fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) mbar_arrive(&bars[0]);  // phase 0 of `full` completes: every try_wait (parity 0) succeeds
  __syncthreads();
  const std::uint64_t da0 = smem_desc_sw128(smem), db0 = smem_desc(smem + 32768);
  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc[i] = 0.0f;
  constexpr int G = MODE == 4 || MODE == 5 ? 8 : 4;  // steps per commit group
  auto steps = [&](int g) {
#pragma unroll
    for (int k = 0; k < G; ++k)
      Wgmma<N>::bf16(acc, desc_add(da0, (8192 * (k / 4) + 32 * (k % 4)) >> 4),
                     desc_add(db0, ((k % 4) * N * 32 + 8192 * (k / 4)) >> 4), 1);
    (void)g;
  };
  // one group first, retired (no non-wgmma definition of acc reaches an open wgmma)
  wgmma_fence();
  steps(0);
  wgmma_commit();
  wgmma_wait<0>();
  const long long t0 = clock64();
  for (int pass = 0; pass < kPasses; ++pass) {
    for (int g = 0; g < kSteps / G; ++g) {
      if constexpr (MODE == 3 || MODE == 4) {
        mbar_wait(&bars[0], 0);
        if constexpr (MODE == 4) mbar_wait(&bars[0], 0);
      }
      wgmma_fence();
      steps(g);
      wgmma_commit();
      if constexpr (MODE == 1 || MODE == 3 || MODE == 4 || MODE == 5) wgmma_wait<1>();
      if constexpr (MODE == 2) wgmma_wait<0>();
      if constexpr (MODE == 3 || MODE == 4) {
        mbar_arrive(&bars[1]);
        if constexpr (MODE == 4) mbar_arrive(&bars[1]);
      }
    }
  }
  wgmma_wait<0>();
  const long long t1 = clock64();
  float s = 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    pin(acc[i]);
    s += acc[i];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
#else
  (void)out, (void)cyc;
  __trap();
#endif
}

const char* const kModes[] = {"nowait", "wait1", "wait0", "bar", "bar2", "wait1x8"};

template <int N, int MODE>
void run(int sms, float* out, long long* cyc, long long* host) {
  auto* k = chain<N, MODE>;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536 + 64);
  k<<<sms, 128, 65536 + 64>>>(out, cyc);  // warm-up
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  k<<<sms, 128, 65536 + 64>>>(out, cyc);
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  const cudaError_t err = cudaGetLastError();
  cudaMemcpy(host, cyc, sizeof(long long) * sms, cudaMemcpyDeviceToHost);
  long long mn = host[0], mx = host[0];
  for (int i = 1; i < sms; ++i) {
    mn = host[i] < mn ? host[i] : mn;
    mx = host[i] > mx ? host[i] : mx;
  }
  const double steps = static_cast<double>(kSteps) * kPasses;
  std::printf("wgmma_chain,n=%d,%s,cycles_per_step_min=%.2f,max=%.2f,cycles_per_ktile=%.1f,us_per_448=%.3f,err=%s\n", N,
              kModes[MODE], mn / steps, mx / steps, 4.0 * mx / steps, ms * 1e3 / kPasses, cudaGetErrorString(err));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

template <int N>
void all_modes(int sms, float* out, long long* cyc, long long* host) {
  run<N, 0>(sms, out, cyc, host);
  run<N, 1>(sms, out, cyc, host);
  run<N, 2>(sms, out, cyc, host);
  run<N, 3>(sms, out, cyc, host);
  run<N, 4>(sms, out, cyc, host);
  run<N, 5>(sms, out, cyc, host);
}

}  // namespace

int main() {
  int dev = 0, sms = 0, clk = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev);
  std::printf("wgmma_chain,sms=%d,clock_khz=%d,steps=%d,passes=%d\n", sms, clk, kSteps, kPasses);
  float* out = nullptr;
  long long* cyc = nullptr;
  cudaMalloc(&out, sizeof(float) * 128 * sms);
  cudaMalloc(&cyc, sizeof(long long) * sms);
  auto* host = new long long[sms];
  all_modes<16>(sms, out, cyc, host);
  all_modes<56>(sms, out, cyc, host);
  all_modes<64>(sms, out, cyc, host);
  delete[] host;
  cudaFree(out);
  cudaFree(cyc);
  return 0;
}
