// c7_layout_test.cpp - SPEC C7: the worked tcgen05 offsets by hand, the
// padded 200 x 192 buffer (2048 bytes, every padding byte 0x00 after a real
// quantization), and for many random shapes (ragged, batched) every layout
// is a bijection onto its buffer (padding excluded) with scale_coord its
// inverse, equal to the oracle's enumerated 128x4 tile.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "common.hpp"
#include "mx/layout.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"

using namespace cpu;

TEST(C7, WorkedTcgen05Offsets) {
  struct Row { std::int64_t rows, k, r, kb, off; const char* why; };
  const Row rows[] = {
      {256, 256, 0, 1, 1, "C7 worked (R=256, K=256): (0,1)->1"},
      {256, 256, 1, 0, 16, "C7 worked: (1,0)->16"},
      {256, 256, 31, 0, 496, "C7 worked: (31,0)->496"},
      {256, 256, 32, 0, 4, "C7 worked: (32,0)->4"},
      {256, 256, 127, 3, 511, "C7 worked: (127,3)->511"},
      {256, 256, 0, 4, 512, "C7 worked: (0,4)->512"},
      {256, 256, 128, 0, 1024, "C7 worked: (128,0)->1024"},
      {256, 256, 255, 7, 2047, "C7 worked: (255,7)->2047"},
      {200, 192, 199, 5, 1657, "C7 worked padded (R=200, K=192): (199,5)->1657"},
  };
  for (const auto& r : rows) {
    const mx::ScaleShape s{r.rows, (r.k + 31) / 32, 1};
    const std::int64_t got = mx::scale_offset(mx::ScaleLayout::tcgen05, s, 0, r.r, r.kb);
    EXPECT_EQ(got, r.off) << r.why << ": observed " << hex(static_cast<std::uint64_t>(got), 4) << ", expected "
                          << hex(static_cast<std::uint64_t>(r.off), 4);
    EXPECT_EQ(mxo::layout_offset(mxo::Layout::tcgen05, s.rows, s.blocks, 0, r.r, r.kb), r.off) << r.why << " (oracle)";
  }
  EXPECT_EQ(mx::scale_matrix_bytes(mx::ScaleLayout::tcgen05, {200, 6, 1}), 2048) << "C7: 200 x 192 -> 2048 bytes";
  EXPECT_EQ(mx::scale_buffer_bytes(mx::ScaleLayout::tcgen05, {200, 6, 3}), 3 * 2048) << "C7: batches stack whole buffers";
}

// Quantize a 200 x 192 tensor into tcgen05 scales: 2048 bytes; every padding
// byte is 0x00 and every real scale byte is where the formula says.
TEST(C7, PaddingBytesAreZero) {
  std::vector<float> x(200 * 192);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1e30f;  // every real scale is 0xDA (floor: 99 - 8 + 127), never 0x00
  mx::QuantizeOptions o;
  o.scale_layout = mx::ScaleLayout::tcgen05;
  const mx::Quantized q = mx::quantize(mx::parse_recipe("mxfp8_e4m3"), {x.data(), mx::InType::f32, 1, 200, 192}, o);
  ASSERT_EQ(q.scales.size(), 2048u) << "C7: ceil(200/128)*128 * ceil(6/4)*4 = 2048 bytes";
  const std::uint8_t want_scale = mx::scale_code_finite(bits(1e30f), mx::Fmt::e4m3, mx::ScaleRule::floor);
  ASSERT_NE(want_scale, 0);
  std::int64_t padding = 0;
  for (std::int64_t off = 0; off < 2048; ++off) {
    const mxo::Coord c = mxo::layout_coord(mxo::Layout::tcgen05, 200, 6, off);
    const bool pad = c.row < 0;
    padding += pad;
    const std::uint8_t want = pad ? 0x00 : want_scale;
    ASSERT_EQ(q.scales[static_cast<std::size_t>(off)], want)
        << "C7: tcgen05 (R=200, K=192) byte " << off
        << (pad ? std::string(" is padding and must be 0x00")
                : " holds scale (row " + std::to_string(c.row) + ", block " + std::to_string(c.block) + ")")
        << " => observed "
        << hex(q.scales[static_cast<std::size_t>(off)]) << ", expected " << hex(want);
  }
  EXPECT_EQ(padding, 2048 - 200 * 6) << "C7: padding bytes = buffer - R * NKB";
}

// Every layout is a bijection onto its buffer (padding excluded), the inverse
// undoes it, and the offsets equal the oracle's (which enumerates the tile).
RC_GTEST_PROP(C7Props, LayoutsAreBijectionsWithInverse, ()) {
  const auto l = *rc::gen::element(mx::ScaleLayout::dense, mx::ScaleLayout::dense_colwise, mx::ScaleLayout::tcgen05);
  const mx::ScaleShape s{*rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 300), rc::gen::element<std::int64_t>(1, 127, 128, 129, 256, 257)),
                         *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 20), rc::gen::element<std::int64_t>(1, 3, 4, 5, 8, 9)),
                         *rc::gen::inRange<std::int64_t>(1, 4)};
  const std::int64_t total = mx::scale_buffer_bytes(l, s);
  const auto ol = static_cast<mxo::Layout>(l);
  RC_ASSERT(total == mxo::layout_matrix_bytes(ol, s.rows, s.blocks) * s.batch);
  std::vector<int> hit(static_cast<std::size_t>(total), 0);
  const std::string name(mx::scale_layout_name(l));
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t r = 0; r < s.rows; ++r)
      for (std::int64_t k = 0; k < s.blocks; ++k) {
        const std::int64_t off = mx::scale_offset(l, s, b, r, k);
        const std::int64_t want = mxo::layout_offset(ol, s.rows, s.blocks, b, r, k);
        RC_ASSERT_MSG(off == want, ("C7: " + name + " [" + std::to_string(s.rows) + "x" + std::to_string(s.blocks) +
                                    "x" + std::to_string(s.batch) + "] (" + std::to_string(b) + "," + std::to_string(r) +
                                    "," + std::to_string(k) + ") => observed offset " + std::to_string(off) +
                                    ", expected " + std::to_string(want))
                                       .c_str());
        RC_ASSERT(off >= 0 && off < total);
        RC_ASSERT_MSG(++hit[static_cast<std::size_t>(off)] == 1, ("C7: " + name + " offset " + std::to_string(off) + " hit twice").c_str());
        const mx::ScaleCoord c = mx::scale_coord(l, s, off);
        RC_ASSERT_MSG(!c.padding && c.batch == b && c.row == r && c.block == k,
                      ("C7: " + name + " scale_coord(" + std::to_string(off) + ") is not the inverse of (" +
                       std::to_string(b) + "," + std::to_string(r) + "," + std::to_string(k) + ")")
                          .c_str());
      }
  for (std::int64_t off = 0; off < total; ++off) {
    if (hit[static_cast<std::size_t>(off)]) continue;
    const mx::ScaleCoord c = mx::scale_coord(l, s, off);
    RC_ASSERT_MSG(c.padding, ("C7: " + name + " byte " + std::to_string(off) + " is not hit but not marked padding").c_str());
    RC_ASSERT(mxo::layout_coord(ol, s.rows, s.blocks, off % mxo::layout_matrix_bytes(ol, s.rows, s.blocks)).row < 0);
  }
}
