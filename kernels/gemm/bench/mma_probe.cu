// mma_probe.cu - cycles per dependent `mma.sync.aligned.m16n8k16.row.col.f32.
// bf16.bf16.f32` (PTX ISA 9.7.14) on this GPU: the chain the decode kernel of
// gemm_w4a16_mma.cu runs (C11: 448 dependent steps per element at K = 7168).
// NT independent chains interleaved per warp (NT mmas per step, as the
// kernel's n8 tiles), W warps per block (warp w on SM sub-partition w % 4),
// one block per SM on every SM. Numbers only (arbitrary data), for
// bench/results/gemm-decode.md. Usage: mxmmaprobe   (prints a CSV table)
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

namespace {

template <int NT>
__global__ void __launch_bounds__(256, 1) probe(int steps, float* out, long long* cyc) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned l = threadIdx.x & 31u;
  std::uint32_t a[4] = {0x3F803F80u ^ l, 0x3F80BF80u, 0x3F003F80u, 0xBF803F00u};  // +-1, +-0.5
  std::uint32_t b[2] = {0x3C003C00u, 0xBC003C00u ^ (l << 1)};
  float d[NT][4];
#pragma unroll
  for (int j = 0; j < NT; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) d[j][i] = 0.0f;
  __syncthreads();
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int j = 0; j < NT; ++j)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
          "{%0, %1, %2, %3};"
          : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  const long long t1 = clock64();
  float x = 0.0f;
#pragma unroll
  for (int j = 0; j < NT; ++j) x += d[j][0] + d[j][1] + d[j][2] + d[j][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
  if (l == 0) cyc[blockIdx.x * 8 + (threadIdx.x >> 5)] = t1 - t0;
#else
  (void)steps, (void)out, (void)cyc;
#endif
}

template <int NT>
void run(int warps, int sms, int steps) {
  float* out = nullptr;
  long long* cyc = nullptr;
  cudaMalloc(&out, sizeof(float) * sms * 256);
  cudaMalloc(&cyc, sizeof(long long) * sms * 8);
  probe<NT><<<sms, 32 * warps>>>(steps, out, cyc);  // warm-up
  probe<NT><<<sms, 32 * warps>>>(steps, out, cyc);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("error,%s\n", cudaGetErrorString(e));
    return;
  }
  long long h[8 * 256];
  const int nb = sms < 256 ? sms : 256;
  cudaMemcpy(h, cyc, sizeof(long long) * 8 * nb, cudaMemcpyDeviceToHost);
  long long mx = 0, sum = 0;
  for (int b = 0; b < nb; ++b)
    for (int w = 0; w < warps; ++w) {
      mx = h[b * 8 + w] > mx ? h[b * 8 + w] : mx;
      sum += h[b * 8 + w];
    }
  std::printf("mma.sync m16n8k16 bf16,%d,%d,%d,%.2f,%.2f\n", NT, warps, steps,
              static_cast<double>(sum) / (nb * warps) / steps, static_cast<double>(mx) / steps);
  cudaFree(out);
  cudaFree(cyc);
}

}  // namespace

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  std::printf("instr,chains_per_warp,warps_per_block,steps,cycles_per_step_mean,cycles_per_step_max\n");
  for (int warps : {1, 4, 8}) {
    run<1>(warps, sms, 448);
    run<2>(warps, sms, 448);
    run<4>(warps, sms, 448);
  }
  run<1>(1, sms, 4480);
  return 0;
}
