// mx/per_tensor.hpp - per-tensor FP8 quantization with current scaling
// (reference/SPEC.md C12), for e4m3 and e5m2.
//
// For a tensor x (fp32, bf16 or fp16, [batch, rows, cols]) and f in {e4m3, e5m2}:
//   amax      = fmaxf over |x[i]| from +0 (NaN passed over, Inf kept)
//   scale     = fp32(max_finite(f)) / fmaxf(amax, 1e-12f)      (one fp32 division)
//   scale_inv = 1.0f / scale                                     (one fp32 division)
//   q[i]      = encode(f, fp32(x[i] * scale))  with rne, saturate, default NaN (C2)
//   y[i]      = fp32(decode(f, q[i]) * scale_inv), then one rne to bf16/fp16;
//               a NaN result is the canonical quiet NaN of the output (C8)
// amax, scale and scale_inv (fp32 bits) are part of the result, like q.
#pragma once

#include <cstdint>
#include <vector>

#include "mx/quantize.hpp"

namespace mx {

struct PerTensorQuantized {
  Fmt elem = Fmt::e4m3;
  std::int64_t batch = 1, rows = 0, cols = 0;  // the source shape
  std::vector<std::uint8_t> data;              // one code per element, source order
  std::uint32_t amax_bits = 0;                 // fp32 bits
  std::uint32_t scale_bits = 0;                // fp32 bits
  std::uint32_t scale_inv_bits = 0;            // fp32 bits
};

struct PerTensorScale {
  std::uint32_t scale_bits = 0, scale_inv_bits = 0;
};

// C12 step 1: fp32 bits of the amax (validates the tensor like quantize).
std::uint32_t per_tensor_amax(const TensorView& t);
// C12 step 2 for an amax (fp32 bits; its sign is ignored). f: e4m3 or e5m2.
PerTensorScale per_tensor_scale(Fmt f, std::uint32_t amax_bits);
// C12 steps 1-3. Throws InvalidArgument (f not e4m3/e5m2, null data) or
// ShapeError (bad shape) with a one-line message.
PerTensorQuantized quantize_per_tensor(Fmt f, const TensorView& t);
// C12 step 4 for one code: fp32 bits of decode(f, code) * scale_inv.
std::uint32_t per_tensor_dequant_f32(Fmt f, std::uint8_t code, std::uint32_t scale_inv_bits);
// C12 step 4 for the tensor: raw little-endian bytes of `out` (fp32, bf16 or fp16).
std::vector<std::uint8_t> dequantize_per_tensor(const PerTensorQuantized& q, Fmt out);

}  // namespace mx
