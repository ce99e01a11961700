// per_tensor.cpp - per-tensor FP8 with current scaling (reference/SPEC.md
// C12): amax, scale, scale_inv, codes and dequantization, built from the C2
// encode/decode of convert.cpp and plain fp32 arithmetic (one rounding per
// operation, as the clause writes each step).
#include "mx/per_tensor.hpp"

#include <cmath>
#include <cstring>
#include <string>

#include "mx/error.hpp"

namespace mx {
namespace {

void check_format(Fmt f) {
  if (f != Fmt::e4m3 && f != Fmt::e5m2) {
    throw InvalidArgument("per-tensor FP8 format must be e4m3 or e5m2 (got " + std::string(desc(f).name) + ")");
  }
}

std::int64_t checked_count(const TensorView& t) {
  if (t.batch < 1 || t.rows < 0 || t.cols < 0) {
    throw ShapeError("tensor shape must have batch >= 1, rows >= 0, cols >= 0 (got [" + std::to_string(t.batch) +
                     ", " + std::to_string(t.rows) + ", " + std::to_string(t.cols) + "])");
  }
  const std::int64_t lim = std::int64_t{1} << 62;
  if ((t.rows != 0 && t.cols > lim / t.rows) || (t.rows * t.cols != 0 && t.batch > lim / (t.rows * t.cols))) {
    throw ShapeError("tensor shape: element count does not fit 64-bit indices");
  }
  const std::int64_t n = t.batch * t.rows * t.cols;
  if (n > 0 && t.data == nullptr) throw InvalidArgument("tensor data pointer is null");
  return n;
}

float max_finite_f32(Fmt f) { return static_cast<float>(max_finite(desc(f))); }  // 448 or 57344, exact

}  // namespace

std::uint32_t per_tensor_amax(const TensorView& t) {
  const std::int64_t n = checked_count(t);
  // C12: every NaN is skipped, signaling ones too. Not std::fmax: with a
  // signaling NaN, glibc's fmax follows IEEE 754-2008 maxNum and returns a
  // NaN, after which the running maximum restarts from the next element
  // (an -Inf before an sNaN was lost: found under the asan preset).
  std::uint32_t amax = 0;  // |x| bits: for non-NaN values, integer order is value order
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t a = load_as_f32_bits(t.data, t.type, i) & 0x7FFFFFFFu;
    if (a <= 0x7F800000u && a > amax) amax = a;
  }
  return amax;
}

PerTensorScale per_tensor_scale(Fmt f, std::uint32_t amax_bits) {
  check_format(f);
  const float amax = bits_f32(amax_bits & 0x7FFFFFFFu);
  const float scale = max_finite_f32(f) / std::fmax(amax, 1e-12f);
  const float scale_inv = 1.0f / scale;
  return {f32_bits(scale), f32_bits(scale_inv)};
}

PerTensorQuantized quantize_per_tensor(Fmt f, const TensorView& t) {
  check_format(f);
  PerTensorQuantized q;
  q.elem = f;
  q.batch = t.batch;
  q.rows = t.rows;
  q.cols = t.cols;
  q.amax_bits = per_tensor_amax(t);  // validates the shape
  const PerTensorScale s = per_tensor_scale(f, q.amax_bits);
  q.scale_bits = s.scale_bits;
  q.scale_inv_bits = s.scale_inv_bits;
  const std::int64_t n = t.batch * t.rows * t.cols;
  q.data.resize(static_cast<std::size_t>(n));
  const float scale = bits_f32(s.scale_bits);
  const ConvPolicy defaults{};  // rne, saturate, default NaN policy
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = bits_f32(load_as_f32_bits(t.data, t.type, i)) * scale;
    q.data[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(encode(f, v, defaults));
  }
  return q;
}

std::uint32_t per_tensor_dequant_f32(Fmt f, std::uint8_t code, std::uint32_t scale_inv_bits) {
  check_format(f);
  const float y = decode(f, code) * bits_f32(scale_inv_bits);
  return std::isnan(y) ? 0x7FC00000u : f32_bits(y);  // canonical quiet NaN (C8)
}

std::vector<std::uint8_t> dequantize_per_tensor(const PerTensorQuantized& q, Fmt out) {
  check_format(q.elem);
  if (out != Fmt::fp32 && out != Fmt::bf16 && out != Fmt::fp16) {
    throw InvalidArgument("per-tensor dequantize output must be fp32, bf16 or fp16 (got " +
                          std::string(desc(out).name) + ")");
  }
  TensorView shape{q.data.data(), InType::f32, q.batch, q.rows, q.cols};
  const std::int64_t n = checked_count(shape);
  if (static_cast<std::int64_t>(q.data.size()) != n) {
    throw ShapeError("per-tensor dequantize: " + std::to_string(q.data.size()) + " codes for a tensor of " +
                     std::to_string(n) + " elements");
  }
  const std::size_t ob = out == Fmt::fp32 ? 4 : 2;
  std::vector<std::uint8_t> y(q.data.size() * ob);
  for (std::size_t i = 0; i < q.data.size(); ++i) {
    std::uint32_t bits = per_tensor_dequant_f32(q.elem, q.data[i], q.scale_inv_bits);
    if (out == Fmt::bf16) bits = f32_to_bf16_rne(bits_f32(bits));
    if (out == Fmt::fp16) bits = f32_to_f16_rne(bits_f32(bits));
    std::memcpy(y.data() + i * ob, &bits, ob);  // little-endian host
  }
  return y;
}

}  // namespace mx
