// mx/layout.hpp - scale-factor layouts, each a pure function with an inverse
// (SPEC C7).
//
// A scale matrix S[r][b] has `rows` rows and `blocks` blocks per row. For
// rowwise quantization of [M, K]: rows = M, blocks = ceil(K / V). For colwise
// quantization: rows = K (one per column), blocks = ceil(M / V), so that
// "r := column, kb := row block" of C7 holds for tcgen05.
//   dense          offset = r * blocks + b          (rowwise [M, NKB];
//                                                    colwise: torchao dim1 [K, ceil(M/V)])
//   dense_colwise  offset = b * rows + r            (colwise: TE compact [ceil(M/V), K])
//   tcgen05        the 128x4 blocked layout of C7, zero padding, batches stacked
#pragma once

#include <cstdint>
#include <string_view>

namespace mx {

enum class ScaleLayout : std::uint8_t { dense, dense_colwise, tcgen05 };

std::string_view scale_layout_name(ScaleLayout l);
ScaleLayout parse_scale_layout(std::string_view s);  // "dense", "dense_colwise", "tcgen05"

struct ScaleShape {
  std::int64_t rows = 0;
  std::int64_t blocks = 0;
  std::int64_t batch = 1;
};

// Bytes of one matrix's scale buffer (padding included) and of the batch.
std::int64_t scale_matrix_bytes(ScaleLayout l, const ScaleShape& s);
std::int64_t scale_buffer_bytes(ScaleLayout l, const ScaleShape& s);
// Offset of S[batch l][r][b]. Throws ShapeError when out of range.
std::int64_t scale_offset(ScaleLayout l, const ScaleShape& s, std::int64_t batch, std::int64_t r,
                          std::int64_t b);

struct ScaleCoord {
  std::int64_t batch = 0, row = 0, block = 0;
  bool padding = false;  // the byte is padding (must be 0x00)
};
// Inverse: which scale (or padding) a buffer byte holds.
ScaleCoord scale_coord(ScaleLayout l, const ScaleShape& s, std::int64_t offset);

// The tcgen05 formula of C7 for one matrix (no bounds checks, for kernels and
// tests): NKT = ceil(blocks / 4).
constexpr std::int64_t tcgen05_offset(std::int64_t r, std::int64_t kb, std::int64_t nkt) {
  return (r / 128) * nkt * 512 + (kb / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + (kb % 4);
}
static_assert(tcgen05_offset(0, 1, 2) == 1 && tcgen05_offset(1, 0, 2) == 16);
static_assert(tcgen05_offset(31, 0, 2) == 496 && tcgen05_offset(32, 0, 2) == 4);
static_assert(tcgen05_offset(127, 3, 2) == 511 && tcgen05_offset(0, 4, 2) == 512);
static_assert(tcgen05_offset(128, 0, 2) == 1024 && tcgen05_offset(255, 7, 2) == 2047);
static_assert(tcgen05_offset(199, 5, 2) == 1657);

// Multiply two non-negative 64-bit counts, throwing ShapeError on overflow.
std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what);
std::int64_t ceil_div(std::int64_t a, std::int64_t b);

}  // namespace mx
