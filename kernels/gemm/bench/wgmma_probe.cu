// wgmma_probe.cu - cycles per wgmma on this GPU for the forms and shared-
// memory layouts the C11 GEMMs use (no swizzle, LBO 128 / SBO 256) beside
// the 128-byte swizzle that TMA-based kernels use (SBO 1024): a chain of
// wgmmas into one accumulator per warpgroup, 1 or 2 warpgroups per block,
// one block per SM on every SM. Numbers only (the data is arbitrary), for
// bench/results/gemm.md. Usage: mxwgmmaprobe   (prints a CSV table)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "gemm/gemm_common.cuh"
#include "gemm/wgmma_ops.cuh"

namespace {

using namespace mxk::gemm;

__device__ __forceinline__ std::uint64_t desc(const void* p, bool sw128) {
  const auto addr = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  std::uint64_t d = static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4);
  if (sw128) {
    d |= std::uint64_t{1} << 16;              // LBO (unused for swizzled K-major)
    d |= std::uint64_t{1024 >> 4} << 32;      // SBO: 8 rows of 128 bytes
    d |= std::uint64_t{1} << 62;              // 128-byte swizzle
  } else {
    d |= std::uint64_t{128 >> 4} << 16;
    d |= std::uint64_t{256 >> 4} << 32;
  }
  return d;
}

// kind 0: e4m3 m64n128k32, 1: bf16 m64n128k16, 2: bf16 m64n16k16, 3: bf16 m64n32k16
template <int KIND, bool sw128>
__global__ void __launch_bounds__(256, 1) probe(int iters, float* out, long long* cyc) {
#ifdef MXK_GEMM_HAVE_WGMMA
  extern __shared__ __align__(1024) std::uint8_t smem[];
  for (int i = threadIdx.x; i < 64 * 1024 / 4; i += blockDim.x)
    reinterpret_cast<std::uint32_t*>(smem)[i] = (i * 2654435761u) & 0x3C3C3C3Cu;  // small finite values
  fence_proxy_async();
  __syncthreads();
  constexpr int N = KIND == 0 || KIND == 1 ? 128 : KIND == 2 ? 16 : 32;
  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) acc[i] = 0.0f;
  const int wg = threadIdx.x >> 7;
  const std::uint8_t* a = smem + wg * 8192;
  const std::uint8_t* b = smem + 32768;
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k) {  // four k-steps of a 128-byte (swizzled) or 4-slice (plain) k-tile
      const std::uint64_t da = desc(a + (sw128 ? 32 * k : k * 64 * 32), sw128);
      const std::uint64_t db = desc(b + (sw128 ? 32 * k : k * N * 32), sw128);
      if constexpr (KIND == 0) {
        Wgmma<N>::e4m3(acc, da, db, 1);
      } else {
        Wgmma<N>::bf16(acc, da, db, 1);
      }
    }
    wgmma_commit();
    wgmma_wait<1>();
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
  (void)iters, (void)out, (void)cyc;
  __trap();
#endif
}

template <int KIND>
void run(const char* name, long long macs, int sms) {
  float* out = nullptr;
  long long* cyc = nullptr;
  cudaMalloc(&out, sizeof(float) * 256 * sms);
  cudaMalloc(&cyc, sizeof(long long) * sms);
  cudaFuncSetAttribute(probe<KIND, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
  cudaFuncSetAttribute(probe<KIND, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
  for (int wgs = 1; wgs <= 2; ++wgs)
    for (int sw = 0; sw <= 1; ++sw) {
      const int iters = 2000;
      auto* k = sw ? probe<KIND, true> : probe<KIND, false>;
      k<<<sms, 128 * wgs, 64 * 1024>>>(10, out, cyc);
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0);
      cudaEventCreate(&e1);
      cudaEventRecord(e0);
      k<<<sms, 128 * wgs, 64 * 1024>>>(iters, out, cyc);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      long long c = 0;
      cudaMemcpy(&c, cyc, sizeof(c), cudaMemcpyDeviceToHost);
      const double per = static_cast<double>(c) / (iters * 4.0);
      const double tflops = 2.0 * macs * iters * 4.0 * wgs * sms / (ms * 1e-3) / 1e12;
      std::printf("wgmma_probe,%s,%s,warpgroups=%d,cycles_per_wgmma=%.1f,tflops=%.1f,err=%s\n", name,
                  sw ? "swizzle128" : "noswizzle", wgs, per, tflops, cudaGetErrorString(cudaGetLastError()));
    }
  cudaFree(out);
  cudaFree(cyc);
}

}  // namespace

int main() {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  run<0>("e4m3_m64n128k32", 64LL * 128 * 32, sms);
  run<1>("bf16_m64n128k16", 64LL * 128 * 16, sms);
  run<2>("bf16_m64n16k16", 64LL * 16 * 16, sms);
  run<3>("bf16_m64n32k16", 64LL * 32 * 16, sms);
  return 0;
}
