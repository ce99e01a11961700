// per_tensor_fp8.cu - per-tensor FP8 (e4m3) quantization on the GPU, after
// the per-tensor article in shared/references (002): amax = NaN-dropping
// fmax of |x| over the tensor; scale = 448 / fmaxf(amax, 1e-12) (fp32);
// scale_inv = 1 / scale; q = e4m3(rne, satfinite)(x * scale) (C2 defaults);
// dequant y = decode(q) * scale_inv rounded (RNE) to the output type.
// The exact host definition is per_tensor_fp8_reference (reference.cpp).
#include <cuda_runtime.h>

#include <algorithm>

#include "common/launch.hpp"
#include "common/tiles.cuh"
#include "mx/error.hpp"

namespace mxk::detail {
namespace {

__device__ __forceinline__ float pt_scale(const uint32_t* amax) {
  return __fdiv_rn(448.0f, fmaxf(__uint_as_float(*amax), 1e-12f));
}

template <class In, bool HW>
__global__ void __launch_bounds__(256) k_pt_cast(const In* __restrict__ x, int64_t n, int vec, const uint32_t* amax,
                                                 uint8_t* __restrict__ q, float* scale_inv) {
  const float sc = pt_scale(amax);
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t0 == 0) *scale_inv = __fdiv_rn(1.0f, sc);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t ngroups = (n + 7) / 8;
  // Two independent groups per iteration (both loads in flight first).
  for (int64_t g0 = t0; g0 < ngroups; g0 += 2 * stride) {
    uint32_t v[2][8];
    int cnt[2];
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int64_t g = g0 + u * stride;
      const int64_t r = n - g * 8;
      cnt[u] = r <= 0 ? 0 : (r >= 8 ? 8 : static_cast<int>(r));
      dev::load8<In>(x, g * 8, cnt[u], vec, v[u]);
    }
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      if (cnt[u] == 0) continue;
      uint32_t s8[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) s8[i] = __float_as_uint(__fmul_rn(__uint_as_float(v[u][i]), sc));
      uint32_t c[8];
      dev::encode8<dev::kE4M3, HW>(s8, 0, c);
      dev::store8<8>(q, g0 + u * stride, cnt[u], c, 0, 0, vec != 0);
    }
  }
}

__global__ void __launch_bounds__(256) k_pt_dequant(const uint8_t* __restrict__ q, int64_t n, const float* scale_inv,
                                                    int out, void* y) {
  const float si = *scale_inv;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t c = q[i];
    float d = dev::decode_e4m3_mag(c);
    if (c & 0x80u) d = __uint_as_float(__float_as_uint(d) ^ 0x80000000u);
    if ((c & 0x7Fu) == 0x7Fu) d = __uint_as_float(0x7FC00000u);  // decode gives the positive quiet NaN
    const float v = dev::mul_x86(d, si);
    if (out == 0) static_cast<uint32_t*>(y)[i] = __float_as_uint(v);
    else if (out == 1) static_cast<uint16_t*>(y)[i] = static_cast<uint16_t>(dev::f32_to_bf16_bits(v));
    else static_cast<uint16_t*>(y)[i] = static_cast<uint16_t>(dev::f32_to_f16_bits(v));
  }
}

int sm_count() {
  int sms = 132, dev = 0;
  if (cudaGetDevice(&dev) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  return sms;
}

}  // namespace

void launch_pt_amax(mx::InType in, const void* x, std::int64_t n, std::uint32_t* amax, cudaStream_t s) {
  launch_amax(in, x, n, amax, s);
}

void launch_pt_cast(mx::InType in, const void* x, std::int64_t n, const std::uint32_t* amax, std::uint8_t* q,
                    float* scale_inv, cudaStream_t s, bool force_software) {
  const int vec = ((reinterpret_cast<std::uintptr_t>(x) % 16) == 0 && (reinterpret_cast<std::uintptr_t>(q) % 8) == 0) ? 1 : 0;
  const std::int64_t groups = std::max<std::int64_t>(1, (n + 7) / 8);
  const int grid = static_cast<int>(std::min<std::int64_t>((groups + 511) / 512, std::int64_t{sm_count()} * 32));
  switch (in) {
    case mx::InType::bf16: (force_software ? k_pt_cast<__nv_bfloat16, false> : k_pt_cast<__nv_bfloat16, true>)<<<grid, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(x), n, vec, amax, q, scale_inv); break;
    case mx::InType::f16: (force_software ? k_pt_cast<__half, false> : k_pt_cast<__half, true>)<<<grid, 256, 0, s>>>(static_cast<const __half*>(x), n, vec, amax, q, scale_inv); break;
    case mx::InType::f32: (force_software ? k_pt_cast<float, false> : k_pt_cast<float, true>)<<<grid, 256, 0, s>>>(static_cast<const float*>(x), n, vec, amax, q, scale_inv); break;
  }
  check(cudaGetLastError(), "per-tensor cast kernel launch");
}

void launch_pt_dequant(const std::uint8_t* q, std::int64_t n, const float* scale_inv, mx::Fmt out, void* y,
                       cudaStream_t s) {
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16 && out != mx::Fmt::fp16) {
    throw mx::InvalidArgument("per-tensor dequantize output must be fp32, bf16 or fp16");
  }
  if (n == 0) return;
  const int grid = static_cast<int>(std::min<std::int64_t>((n + 255) / 256, std::int64_t{1} << 20));
  k_pt_dequant<<<grid, 256, 0, s>>>(q, n, scale_inv, out == mx::Fmt::fp32 ? 0 : out == mx::Fmt::bf16 ? 1 : 2, y);
  check(cudaGetLastError(), "per-tensor dequant kernel launch");
}

}  // namespace mxk::detail
