// reference.cpp - the exact host definition of per-tensor FP8 (e4m3), built
// from libmxref's encode/decode (CONTRACT C2): the gate compares the GPU
// kernels of per_tensor_fp8.cu with these bytes.
//   amax      = NaN-dropping fmax of |x| (fp32)
//   scale     = 448.0f / fmaxf(amax, 1e-12f)      scale_inv = 1.0f / scale
//   q[i]      = encode(e4m3, x[i] * scale)         (rne, saturate, NaN -> 0x7F)
//   y[i]      = decode(e4m3, q[i]) * scale_inv     (fp32; bf16/fp16 by one RNE)
#include <cmath>
#include <cstring>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mxk/api.hpp"

namespace mxk {

PerTensorFp8 per_tensor_fp8_reference(const mx::TensorView& t) {
  const std::int64_t n = t.batch * t.rows * t.cols;
  if (n > 0 && t.data == nullptr) throw mx::InvalidArgument("tensor data pointer is null");
  PerTensorFp8 r;
  float amax = 0.0f;
  for (std::int64_t i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(mx::bits_f32(mx::load_as_f32_bits(t.data, t.type, i))));
  r.amax_bits = mx::f32_bits(amax);
  r.scale = 448.0f / std::fmax(amax, 1e-12f);
  r.scale_inv = 1.0f / r.scale;
  r.data.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = mx::bits_f32(mx::load_as_f32_bits(t.data, t.type, i)) * r.scale;
    r.data[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(mx::encode(mx::Fmt::e4m3, v));
  }
  return r;
}

std::vector<std::uint8_t> per_tensor_fp8_dequant_reference(const PerTensorFp8& q, mx::Fmt out) {
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16 && out != mx::Fmt::fp16) {
    throw mx::InvalidArgument("per-tensor dequantize output must be fp32, bf16 or fp16");
  }
  const std::size_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  std::vector<std::uint8_t> y(q.data.size() * ob);
  for (std::size_t i = 0; i < q.data.size(); ++i) {
    const float v = mx::decode(mx::Fmt::e4m3, q.data[i]) * q.scale_inv;
    std::uint32_t bits = mx::f32_bits(v);
    if (out == mx::Fmt::bf16) bits = mx::f32_to_bf16_rne(v);
    if (out == mx::Fmt::fp16) bits = mx::f32_to_f16_rne(v);
    std::memcpy(y.data() + i * ob, &bits, ob);
  }
  return y;
}

}  // namespace mxk
