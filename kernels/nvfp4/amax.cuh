// amax.cuh - NVFP4's global amax pass (SPEC C5): the NaN-dropping fmax of
// |x| over the whole tensor, one atomicMax of the fp32 bits per CTA into a
// zeroed 4-byte buffer (the launcher, nvfp4.cu, zeroes it first).
#pragma once

#include "common/block_quant.cuh"

namespace mxk::dev {

// ---- global amax (NVFP4, per-tensor): NaN-dropping fmax of |x| -------------------
template <class In>
__global__ void __launch_bounds__(256) k_amax(const In* __restrict__ x, int64_t n, int vec, uint32_t* out) {
  float m = 0.0f;
  const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t ngroups = (n + 7) / 8;
  for (int64_t g = t0; g < ngroups; g += nthreads) {
    const int64_t i0 = g * 8;
    const int64_t r = n - i0;
    const int cnt = r >= 8 ? 8 : static_cast<int>(r);
    uint32_t v[8];
    load8<In>(x, i0, cnt, vec, v);
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  __shared__ float sm[8];
  if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < (blockDim.x >> 5) ? sm[threadIdx.x] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    // non-negative fp32 values order like their bit patterns
    if (threadIdx.x == 0 && m > 0.0f) atomicMax(out, __float_as_uint(m));
  }
}

}  // namespace mxk::dev
