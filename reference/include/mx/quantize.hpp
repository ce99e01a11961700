// mx/quantize.hpp - tensor-level quantize and dequantize (SPEC C4, C5, C8).
//
// A tensor is [batch, rows, cols] row-major (M = rows, K = cols). Rowwise
// blocks run along K; colwise blocks are V consecutive rows of one column.
// Data bytes:
//   rowwise:                [batch][M][packed_row_bytes(K)]
//   colwise, source order:  [batch][M][packed_row_bytes(K)]  (TransformerEngine)
//   colwise, transposed:    [batch][K][packed_row_bytes(M)]  (torchao dim1)
// Scales: the scale matrix of mx/layout.hpp (rows = M, blocks = ceil(K/V) for
// rowwise; rows = K, blocks = ceil(M/V) for colwise) in the chosen layout.
// A short last block covers only the real elements; nothing is read past the
// end. All indices are 64-bit.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "mx/convert.hpp"
#include "mx/layout.hpp"
#include "mx/pack.hpp"
#include "mx/recipe.hpp"

namespace mx {

enum class Axis : std::uint8_t { rowwise, colwise };
enum class DataOrder : std::uint8_t { source, transposed };

std::string_view axis_name(Axis a);
Axis parse_axis(std::string_view s);  // "rowwise" | "colwise"
std::string_view data_order_name(DataOrder d);
DataOrder parse_data_order(std::string_view s);  // "source" | "transposed"

struct TensorView {
  const void* data = nullptr;
  InType type = InType::f32;
  std::int64_t batch = 1, rows = 0, cols = 0;
};

struct QuantizeOptions {
  Axis axis = Axis::rowwise;
  DataOrder data_order = DataOrder::source;  // colwise only
  ScaleLayout scale_layout = ScaleLayout::dense;
  Packing packing = Packing::packed;
  // Rounding::sr only: one 32-bit random word per element, indexed like the
  // input (batch, row, col) row-major. Must be non-null for sr.
  const std::uint32_t* rbits = nullptr;
};

struct Quantized {
  Recipe recipe;
  QuantizeOptions opts;  // rbits is not kept (set to null)
  std::int64_t batch = 1, rows = 0, cols = 0;  // the source shape
  // data: data_rows rows of row_bytes bytes per batch entry
  std::int64_t data_rows = 0, data_row_elems = 0, row_bytes = 0;
  std::vector<std::uint8_t> data;
  ScaleShape scale_shape;
  std::vector<std::uint8_t> scales;
  // NVFP4 only (C5): the global amax (fp32 bits) the tensor scale came from.
  std::uint32_t global_amax_bits = 0;
};

// Validate the options against the recipe and the tensor (throws
// InvalidArgument / ShapeError with a one-line message).
void validate(const Recipe& r, const TensorView& t, const QuantizeOptions& o);

Quantized quantize(const Recipe& r, const TensorView& t, const QuantizeOptions& o = {});

// The result quantize() returns, before any element is encoded: every shape
// field set, scales zero-filled in the named layout (padding included) and,
// with `with_data`, data zero-filled (C4, C6, C7). Callers validate() first.
// For writers that fill the bytes themselves (GPU launchers, streaming CLI).
Quantized quantized_shape(const Recipe& r, const TensorView& t, const QuantizeOptions& o, bool with_data = true);

// Dequantize to `out` (Fmt::fp32, bf16 or fp16) in the source shape
// [batch, rows, cols]; returns the raw little-endian bytes.
std::vector<std::uint8_t> dequantize(const Quantized& q, Fmt out);

// Element code at source coordinates (b, m, k) and the scale code of its block.
std::uint8_t element_code_at(const Quantized& q, std::int64_t b, std::int64_t m, std::int64_t k);
std::uint8_t scale_code_at(const Quantized& q, std::int64_t b, std::int64_t m, std::int64_t k);

// NVFP4 tensor-level factors (C5), exposed for kernels and tests.
struct Nvfp4Factors {
  float s_enc = 1.0f;  // TE: fp32(448*6) / global_amax, or 1
  float s_dec = 1.0f;  // TE: 1 / s_enc
  float per_tensor_scale = 0.0f;  // torchao: global_amax / (448*6)
};
Nvfp4Factors nvfp4_factors(Nvfp4Order order, std::uint32_t global_amax_bits);
// One NVFP4 block (n <= 16 values, fp32 bits, stride apart): scale code and
// element codes.
std::uint8_t nvfp4_block(Nvfp4Order order, const Nvfp4Factors& f, const std::uint32_t* x,
                         std::int64_t n, std::int64_t stride, std::uint8_t* codes);
// Dequantize one NVFP4 element to fp32 (C5: e2m1 * s * S_dec in fp32).
float nvfp4_dequant(Nvfp4Order order, const Nvfp4Factors& f, std::uint8_t elem, std::uint8_t scale);

}  // namespace mx
