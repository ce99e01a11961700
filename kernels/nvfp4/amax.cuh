// amax.cuh - NVFP4's global amax pass (SPEC C5): the NaN-dropping fmax of
// |x| over the whole tensor, one atomicMax of the fp32 bits per CTA into a
// zeroed 4-byte buffer (the launcher, nvfp4.cu, zeroes it first). The
// per-CTA reduction (cta_amax) is shared with the one-pass kernel for small
// tensors (one_pass.cuh).
#pragma once

#include "common/block_quant.cuh"

namespace mxk::dev {

// ---- tuning knobs (amax) -----------------------------------------------------------
// 8-element groups loaded per thread before any is reduced: k_amax (2
// measured the same as 1: 178 us, 90.3% of DRAM peak at 16384^2), the
// one-pass kernel (small tensors: every load of a thread in flight at once;
// with 1, its amax phase took several DRAM round trips, 11.5 us at 128x7168)
constexpr int kAmaxLoads = 2;
constexpr int kAmaxLoadsOnePass = 4;
// k_amax: a full SM of 256-thread CTAs (8 on sm_90/sm_100: at most 32
// registers; sm_120 holds 1536 threads, 6 CTAs); the launcher (nvfp4.cu)
// sizes the grid to one wave by the occupancy API
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
constexpr int kAmaxCtasPerSm = 6;
#else
constexpr int kAmaxCtasPerSm = 8;
#endif

// The NaN-dropping max of |x| over the 8-element groups of the calling CTA
// (thread t0 of nthreads, grid-stride), valid in thread 0. The walk runs from
// the tensor's end to its start: the last bytes read, the tensor's first
// ones, are still in L2 when the quantize pass (which starts there) reads
// them. Within a sweep a warp reads 32 consecutive groups.
template <class In, int LOADS>
__device__ __forceinline__ float cta_amax(const In* __restrict__ x, int64_t n, int vec, int64_t t0, int64_t nthreads) {
  float m = 0.0f;
  const int64_t ngroups = (n + 7) / 8;
  for (int64_t hi = ngroups; hi > 0; hi -= nthreads * LOADS) {
    uint32_t v[LOADS][8];
#pragma unroll
    for (int u = 0; u < LOADS; ++u) {
      const int64_t g = hi - (u + 1) * nthreads + t0;  // < ngroups
      const int64_t r = g < 0 ? 0 : n - g * 8;
      load8<In>(x, g < 0 ? 0 : g * 8, r >= 8 ? 8 : static_cast<int>(r), vec, v[u]);
    }
#pragma unroll
    for (int u = 0; u < LOADS; ++u) {
#pragma unroll
      for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v[u][i])));
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  __shared__ float sm[32];
  __syncthreads();  // sm may be in use by a previous call
  if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < (blockDim.x >> 5) ? sm[threadIdx.x] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  }
  return m;
}

// ---- global amax (NVFP4, per-tensor): NaN-dropping fmax of |x| -------------------
template <class In>
__global__ void __launch_bounds__(256, kAmaxCtasPerSm) k_amax(const In* __restrict__ x, int64_t n, int vec, uint32_t* out) {
  // The next kernel on the stream (NVFP4's quantize, a programmatic
  // dependent launch) may be scheduled now: its CTAs wait for this grid to
  // complete (wait_prior_grid, rowwise.cuh) before reading the amax. A no-op
  // where the next launch is not programmatic (PTX ISA, griddepcontrol).
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const float m = cta_amax<In, kAmaxLoads>(x, n, vec, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                               static_cast<int64_t>(gridDim.x) * blockDim.x);
  // non-negative fp32 values order like their bit patterns
  if (threadIdx.x == 0 && m > 0.0f) atomicMax(out, __float_as_uint(m));
}

}  // namespace mxk::dev
