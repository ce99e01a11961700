// layout.cpp - SPEC C7 scale layouts and their inverses.
#include "mx/layout.hpp"

#include <string>

#include "mx/error.hpp"

namespace mx {

std::string_view scale_layout_name(ScaleLayout l) {
  switch (l) {
    case ScaleLayout::dense: return "dense";
    case ScaleLayout::dense_colwise: return "dense_colwise";
    case ScaleLayout::tcgen05: return "tcgen05";
  }
  return "?";
}

ScaleLayout parse_scale_layout(std::string_view s) {
  if (s == "dense") return ScaleLayout::dense;
  if (s == "dense_colwise") return ScaleLayout::dense_colwise;
  if (s == "tcgen05") return ScaleLayout::tcgen05;
  throw UnknownName("unknown scale layout '" + std::string(s) +
                    "' (expected dense, dense_colwise or tcgen05)");
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  if (a < 0 || b < 0) throw ShapeError(std::string(what) + ": negative size");
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw ShapeError(std::string(what) + ": size overflows 64-bit indices (" + std::to_string(a) +
                     " x " + std::to_string(b) + ")");
  }
  return r;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

namespace {
void check_shape(const ScaleShape& s) {
  if (s.rows < 0 || s.blocks < 0 || s.batch < 1) {
    throw ShapeError("scale shape must have rows >= 0, blocks >= 0, batch >= 1 (got " +
                     std::to_string(s.rows) + ", " + std::to_string(s.blocks) + ", " +
                     std::to_string(s.batch) + ")");
  }
}
}  // namespace

std::int64_t scale_matrix_bytes(ScaleLayout l, const ScaleShape& s) {
  check_shape(s);
  if (l == ScaleLayout::tcgen05) {
    const std::int64_t rp = checked_mul(ceil_div(s.rows, 128), 128, "tcgen05 scale rows");
    const std::int64_t kp = checked_mul(ceil_div(s.blocks, 4), 4, "tcgen05 scale blocks");
    return checked_mul(rp, kp, "tcgen05 scale buffer");
  }
  return checked_mul(s.rows, s.blocks, "scale buffer");
}

std::int64_t scale_buffer_bytes(ScaleLayout l, const ScaleShape& s) {
  return checked_mul(scale_matrix_bytes(l, s), s.batch, "batched scale buffer");
}

std::int64_t scale_offset(ScaleLayout l, const ScaleShape& s, std::int64_t batch, std::int64_t r,
                          std::int64_t b) {
  check_shape(s);
  if (batch < 0 || batch >= s.batch || r < 0 || r >= s.rows || b < 0 || b >= s.blocks) {
    throw ShapeError("scale index (" + std::to_string(batch) + ", " + std::to_string(r) + ", " +
                     std::to_string(b) + ") outside the scale matrix");
  }
  const std::int64_t base = batch * scale_matrix_bytes(l, s);
  switch (l) {
    case ScaleLayout::dense: return base + r * s.blocks + b;
    case ScaleLayout::dense_colwise: return base + b * s.rows + r;
    case ScaleLayout::tcgen05: return base + tcgen05_offset(r, b, ceil_div(s.blocks, 4));
  }
  return -1;
}

ScaleCoord scale_coord(ScaleLayout l, const ScaleShape& s, std::int64_t offset) {
  const std::int64_t mat = scale_matrix_bytes(l, s);
  if (offset < 0 || mat == 0 || offset >= mat * s.batch) {
    throw ShapeError("scale buffer offset " + std::to_string(offset) + " outside the buffer");
  }
  ScaleCoord c;
  c.batch = offset / mat;
  std::int64_t o = offset % mat;
  switch (l) {
    case ScaleLayout::dense:
      c.row = o / s.blocks;
      c.block = o % s.blocks;
      break;
    case ScaleLayout::dense_colwise:
      c.block = o / s.rows;
      c.row = o % s.rows;
      break;
    case ScaleLayout::tcgen05: {
      const std::int64_t nkt = ceil_div(s.blocks, 4);
      const std::int64_t rb = o / (nkt * 512);
      o %= nkt * 512;
      const std::int64_t kt = o / 512;
      o %= 512;
      const std::int64_t r32 = o / 16;
      o %= 16;
      const std::int64_t r4 = o / 4;
      const std::int64_t k4 = o % 4;
      c.row = rb * 128 + r4 * 32 + r32;
      c.block = kt * 4 + k4;
      c.padding = c.row >= s.rows || c.block >= s.blocks;
      break;
    }
  }
  return c;
}

}  // namespace mx
