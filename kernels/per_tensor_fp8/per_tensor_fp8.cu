// per_tensor_fp8.cu - per-tensor FP8 (e4m3, e5m2) with current scaling on
// the GPU (reference/SPEC.md C12): amax = NaN-dropping fmax of |x| over the
// tensor; scale = fp32(max_finite) / fmaxf(amax, 1e-12f); scale_inv =
// 1 / scale (both written to device memory, so the gate compares their
// bits); q = encode(rne, satfinite)(x * scale) (C2 defaults); dequant
// y = decode(q) * scale_inv rounded (RNE) to the output type, NaN canonical.
// The gate compares every byte with libmxref's mx::quantize_per_tensor /
// mx::dequantize_per_tensor; no device code here calls the reference.
#include <cuda_runtime.h>

#include <algorithm>

#include "common/launch.hpp"
#include "common/supported.hpp"
#include "common/tiles.cuh"
#include "mx/error.hpp"

namespace mxk::detail {
namespace {

template <int F>
__device__ __forceinline__ float pt_max() {
  return F == dev::kE4M3 ? 448.0f : 57344.0f;
}

template <class In, int F, bool HW>
__global__ void __launch_bounds__(256) k_pt_cast(const In* __restrict__ x, int64_t n, int vec, const uint32_t* amax,
                                                 uint8_t* __restrict__ q, float* scale_out, float* scale_inv) {
  const float sc = __fdiv_rn(pt_max<F>(), fmaxf(__uint_as_float(*amax), 1e-12f));
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t0 == 0) {
    *scale_out = sc;
    *scale_inv = __fdiv_rn(1.0f, sc);
  }
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
      dev::encode8<F, HW>(s8, 0, c);
      dev::store8<8>(q, g0 + u * stride, cnt[u], c, 0, 0, vec != 0);
    }
  }
}

// |decode| of an e5m2 code (sign cleared): e5m2 is the upper byte of fp16.
__device__ __forceinline__ float decode_e5m2_mag(uint32_t c) {
  c &= 0x7Fu;
  const uint32_t e = c >> 2, m = c & 3u;
  if (e == 31) return __uint_as_float(m ? 0x7FC00000u : 0x7F800000u);
  if (e == 0) return static_cast<float>(m) * 0.0000152587890625f;  // m * 2^-16, exact
  return __uint_as_float(((e + 112u) << 23) | (m << 21));
}

template <int F>
__global__ void __launch_bounds__(256) k_pt_dequant(const uint8_t* __restrict__ q, int64_t n, const float* scale_inv,
                                                    int out, void* y) {
  const float si = *scale_inv;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t c = q[i];
    float d = F == dev::kE4M3 ? dev::decode_e4m3_mag(c) : decode_e5m2_mag(c);
    if (c & 0x80u) d = __uint_as_float(__float_as_uint(d) ^ 0x80000000u);
    float v = __fmul_rn(d, si);
    if (v != v) v = __uint_as_float(0x7FC00000u);  // NaN code or 0 * Inf: canonical (C12 step 4, C8)
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

template <int F, bool HW>
void cast_fmt(mx::InType in, const void* x, std::int64_t n, int vec, int grid, const std::uint32_t* amax,
              std::uint8_t* q, float* scale, float* scale_inv, cudaStream_t s) {
  switch (in) {
    case mx::InType::bf16:
      k_pt_cast<__nv_bfloat16, F, HW><<<grid, 256, 0, s>>>(static_cast<const __nv_bfloat16*>(x), n, vec, amax, q, scale, scale_inv);
      break;
    case mx::InType::f16:
      k_pt_cast<__half, F, HW><<<grid, 256, 0, s>>>(static_cast<const __half*>(x), n, vec, amax, q, scale, scale_inv);
      break;
    case mx::InType::f32:
      k_pt_cast<float, F, HW><<<grid, 256, 0, s>>>(static_cast<const float*>(x), n, vec, amax, q, scale, scale_inv);
      break;
  }
}

}  // namespace

void launch_pt_amax(mx::InType in, const void* x, std::int64_t n, std::uint32_t* amax, cudaStream_t s) {
  launch_amax(in, x, n, amax, s);
}

void launch_pt_cast(mx::Fmt f, mx::InType in, const void* x, std::int64_t n, const std::uint32_t* amax, std::uint8_t* q,
                    float* scale, float* scale_inv, cudaStream_t s, bool force_software) {
  check_device_per_tensor_format(f);
  const int vec = ((reinterpret_cast<std::uintptr_t>(x) % 16) == 0 && (reinterpret_cast<std::uintptr_t>(q) % 8) == 0) ? 1 : 0;
  const std::int64_t groups = std::max<std::int64_t>(1, (n + 7) / 8);
  const int grid = static_cast<int>(std::min<std::int64_t>((groups + 511) / 512, std::int64_t{sm_count()} * 32));
  if (f == mx::Fmt::e4m3) {
    (force_software ? cast_fmt<dev::kE4M3, false> : cast_fmt<dev::kE4M3, true>)(in, x, n, vec, grid, amax, q, scale, scale_inv, s);
  } else {
    (force_software ? cast_fmt<dev::kE5M2, false> : cast_fmt<dev::kE5M2, true>)(in, x, n, vec, grid, amax, q, scale, scale_inv, s);
  }
  check(cudaGetLastError(), "per-tensor cast kernel launch");
}

void launch_pt_dequant(mx::Fmt f, const std::uint8_t* q, std::int64_t n, const float* scale_inv, mx::Fmt out, void* y,
                       cudaStream_t s) {
  check_device_per_tensor_format(f);
  check_device_dequant_output(out);
  if (n == 0) return;
  const int grid = static_cast<int>(std::min<std::int64_t>((n + 255) / 256, std::int64_t{1} << 20));
  const int o = out == mx::Fmt::fp32 ? 0 : out == mx::Fmt::bf16 ? 1 : 2;
  if (f == mx::Fmt::e4m3) {
    k_pt_dequant<dev::kE4M3><<<grid, 256, 0, s>>>(q, n, scale_inv, o, y);
  } else {
    k_pt_dequant<dev::kE5M2><<<grid, 256, 0, s>>>(q, n, scale_inv, o, y);
  }
  check(cudaGetLastError(), "per-tensor dequant kernel launch");
}

}  // namespace mxk::detail
