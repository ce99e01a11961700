// c4_tiles_test.cpp - C4 with C3, C6, C7 on tensors that span several
// 128 x 4 tcgen05 scale tiles, ragged in both directions (300 x 290,
// 257 x 161, a batch of 2 x 130 x 200): quantize rowwise and colwise (source
// and transposed data) against the bytes the slow exact oracle builds block
// by block (mxo::quantize_block, mxo::pack_row, mxo::layout_offset; padding
// 0x00). The c4 property tests use shapes below 70 x 70, which never cross a
// 128-row band or 4 scale columns (issue 11 item 5). Also C3 rceil on block
// amaxes where amax / max_finite and amax * fp32(1 / max_finite) give
// different scale codes, checked against the oracle and by hand.
#include <gtest/gtest.h>

#include <random>

#include "common.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"

using namespace cpu;
using mx::Fmt;

namespace {

struct Shape {
  std::int64_t batch, rows, cols;
};

// Expected data and scale bytes from the oracle alone (MX recipes).
void oracle_quantize(const mx::Recipe& r, const Shape& s, const std::vector<std::uint32_t>& x,
                     const mx::QuantizeOptions& o, std::vector<std::uint8_t>& data, std::vector<std::uint8_t>& scales) {
  const bool col = o.axis == mx::Axis::colwise;
  const bool tr = col && o.data_order == mx::DataOrder::transposed;
  const std::int64_t M = s.rows, K = s.cols, V = r.block;
  const std::int64_t drows = tr ? K : M, dcols = tr ? M : K;
  const std::int64_t srows = col ? K : M, sblocks = col ? (M + V - 1) / V : (K + V - 1) / V;
  const auto lay = static_cast<mxo::Layout>(o.scale_layout);
  data.clear();
  scales.assign(static_cast<std::size_t>(mxo::layout_matrix_bytes(lay, srows, sblocks) * s.batch), 0);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(drows * dcols));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::uint32_t* xb = x.data() + b * M * K;
    for (std::int64_t ro = 0; ro < srows; ++ro) {
      for (std::int64_t kb = 0; kb < sblocks; ++kb) {
        const std::int64_t i0 = kb * V, n = std::min(V, (col ? M : K) - i0);
        // a colwise block is n values one row (K) apart
        const std::uint32_t* first = col ? xb + i0 * K + ro : xb + ro * K + i0;
        const mxo::Block ob =
            mxo::quantize_block(first, n, col ? K : 1, to_o(r.elem), to_o(r.rule), to_o(r.conv), to_o(r.nfb));
        scales[static_cast<std::size_t>(mxo::layout_offset(lay, srows, sblocks, b, ro, kb))] = ob.scale;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t m = col ? i0 + j : ro, k = col ? ro : i0 + j;
          codes[static_cast<std::size_t>(tr ? k * M + m : m * K + k)] = ob.codes[static_cast<std::size_t>(j)];
        }
      }
    }
    for (std::int64_t row = 0; row < drows; ++row) {
      const std::vector<std::uint8_t> rc_(codes.begin() + row * dcols, codes.begin() + (row + 1) * dcols);
      const auto packed = mxo::pack_row(to_o(r.elem), rc_, o.packing == mx::Packing::container8);
      data.insert(data.end(), packed.begin(), packed.end());
    }
  }
}

std::string first_diff(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
  if (got.size() != want.size()) {
    return "size observed " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) return "byte " + std::to_string(i) + ": observed " + hex(got[i]) + ", expected " + hex(want[i]);
  }
  return "";
}

// Each 32 x 32 region gets its own exponent range (so neighbouring blocks,
// and so neighbouring scale bytes, differ), with specials sprinkled in.
std::vector<std::uint32_t> make_tensor(const Shape& s, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(s.batch * s.rows * s.cols));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    for (std::int64_t m = 0; m < s.rows; ++m) {
      for (std::int64_t k = 0; k < s.cols; ++k) {
        const std::uint64_t region = static_cast<std::uint64_t>(b * 7919 + (m / 32) * 131 + (k / 32) * 17);
        const int e = static_cast<int>((region * 2654435761u) % 60) - 30 - static_cast<int>(g() % 5);
        const std::uint64_t pick = g() % 200;
        std::uint32_t v = make_f32(g() & 1u, e, static_cast<std::uint32_t>(g()) & 0x7FFFFFu);
        if (pick == 0) v = 0x7FC00000u;
        if (pick == 1) v = 0xFF800000u;
        if (pick == 2) v = 0x80000000u;
        x[static_cast<std::size_t>((b * s.rows + m) * s.cols + k)] = v;
      }
    }
  }
  return x;
}

struct Cfg {
  mx::Axis axis;
  mx::DataOrder order;
  mx::ScaleLayout layout;
  mx::Packing packing;
  const char* name;
};
const Cfg kCfgs[] = {
    {mx::Axis::rowwise, mx::DataOrder::source, mx::ScaleLayout::tcgen05, mx::Packing::packed, "rowwise tcgen05"},
    {mx::Axis::colwise, mx::DataOrder::source, mx::ScaleLayout::tcgen05, mx::Packing::packed, "colwise source tcgen05"},
    {mx::Axis::colwise, mx::DataOrder::transposed, mx::ScaleLayout::tcgen05, mx::Packing::container8,
     "colwise transposed tcgen05 container8"},
    {mx::Axis::rowwise, mx::DataOrder::source, mx::ScaleLayout::dense, mx::Packing::container8, "rowwise dense container8"},
    {mx::Axis::colwise, mx::DataOrder::source, mx::ScaleLayout::dense_colwise, mx::Packing::packed,
     "colwise source dense_colwise"},
};

TEST(C4Tiles, SeveralRaggedTcgen05TilesEqualOracle) {
  std::uint64_t seed = 11;
  for (const Shape& s : {Shape{1, 300, 290}, Shape{1, 257, 161}, Shape{2, 130, 200}}) {
    const std::vector<std::uint32_t> x = make_tensor(s, seed++);
    const mx::TensorView t{x.data(), mx::InType::f32, s.batch, s.rows, s.cols};
    for (const char* name : {"mxfp8_e4m3", "mxfp4:rceil", "mxfp6_e2m3:even:nonfinite_block_ignore"}) {
      const mx::Recipe r = mx::parse_recipe(name);
      for (const Cfg& c : kCfgs) {
        mx::QuantizeOptions o;
        o.axis = c.axis;
        o.data_order = c.order;
        o.scale_layout = c.layout;
        o.packing = c.packing;
        const mx::Quantized q = mx::quantize(r, t, o);
        std::vector<std::uint8_t> data, scales;
        oracle_quantize(r, s, x, o, data, scales);
        const std::string ctx = std::string(name) + " [" + std::to_string(s.batch) + "," + std::to_string(s.rows) +
                                "," + std::to_string(s.cols) + "] " + c.name;
        EXPECT_EQ(first_diff(q.data, data), "") << ctx << ": data (C4, C6)";
        EXPECT_EQ(first_diff(q.scales, scales), "") << ctx << ": scales (C3, C7 layout, padding 0x00)";
      }
    }
  }
}

// rceil (C3) on amaxes where amax / max_finite and amax * fp32(1 / max_finite)
// round up to different powers of two. By hand:
// - every format: amax = max * 2^-127 plus one fp32 ulp. The exact quotient
//   is just above 2^-127, so its ceil(log2) is -126 (code 0x01), but
//   q = amax * fp32(1/max) lies in fp32's subnormal range (spacing 2^-149)
//   and rounds to 2^-127 exactly: code 0x00. (An fp32 division rounds there
//   too, so these rows separate the product from the exact quotient only.)
// - int8 (max 127/64; fp32(64/127) = 0x3f010204 lies above 64/127): amax =
//   0x35fe0001 (127/64 * 2^-20, one ulp up): the product rounds to 2^-20
//   exactly, code 127 - 20 = 0x6b, while amax / max (exact, or one fp32
//   division) is just above 2^-20: 0x6c. Likewise 0x00fe0001: 0x01 vs 0x02.
TEST(C3Rceil, ProductAndQuotientDifferEqualOracle) {
  struct Case {
    const char* recipe;
    std::uint32_t amax;
    std::uint8_t want, quotient;
  };
  const Case cases[] = {
      {"mxfp8_e4m3:rceil", 0x04600001u, 0x00, 0x01}, {"mxfp8_e5m2:rceil", 0x07E00001u, 0x00, 0x01},
      {"mxfp6_e3m2:rceil", 0x02600001u, 0x00, 0x01}, {"mxfp6_e2m3:rceil", 0x01700001u, 0x00, 0x01},
      {"mxfp4:rceil", 0x01400001u, 0x00, 0x01},      {"mxint8:rceil", 0x35FE0001u, 0x6B, 0x6C},
      {"mxint8:rceil", 0x00FE0001u, 0x01, 0x02},
  };
  for (const Case& c : cases) {
    const mx::Recipe r = mx::parse_recipe(c.recipe);
    // one rowwise block of 32: the amax, then smaller values of both signs
    std::vector<std::uint32_t> x(64);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i % 2 ? 0x80000000u : 0u) | (c.amax - static_cast<std::uint32_t>(i % 7) * 0x10000u);
    x[0] = c.amax;
    x[32] = c.amax | 0x80000000u;
    const mx::Quantized q = mx::quantize(r, {x.data(), mx::InType::f32, 1, 2, 32}, {});
    const std::string ctx = std::string(c.recipe) + " amax " + in32(c.amax);
    ASSERT_EQ(q.scales.size(), 2u);
    EXPECT_EQ(hex(q.scales[0]), hex(c.want)) << ctx << " (amax / max would give " << hex(c.quotient) << ")";
    EXPECT_EQ(hex(mxo::scale_code(c.amax, to_o(r.elem), mxo::ScaleRule::rceil)), hex(c.want)) << ctx << " (oracle)";
    std::vector<std::uint8_t> data, scales;
    oracle_quantize(r, {1, 2, 32}, x, {}, data, scales);
    EXPECT_EQ(first_diff(q.data, data), "") << ctx << ": data";
    EXPECT_EQ(first_diff(q.scales, scales), "") << ctx << ": scales";
  }
}

}  // namespace
