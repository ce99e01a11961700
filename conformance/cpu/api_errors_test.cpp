// api_errors_test.cpp - bad input raises a typed mx:: error with a one-line
// message; nothing aborts (issue 2 acceptance; SPEC C2/C4/C7 domains).
#include <gtest/gtest.h>

#include <limits>

#include "common.hpp"
#include "mx/error.hpp"
#include "mx/gemm.hpp"
#include "mx/layout.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"

using namespace cpu;

namespace {
template <class E, class F>
void expect_error(F&& f, const char* what, const char* needle) {
  try {
    f();
    ADD_FAILURE() << what << ": expected " << typeid(E).name() << ", nothing was thrown";
  } catch (const E& e) {
    const std::string m = e.what();
    EXPECT_FALSE(m.empty()) << what << ": empty message";
    EXPECT_EQ(m.find('\n'), std::string::npos) << what << ": message must be one line: " << m;
    EXPECT_NE(m.find(needle), std::string::npos) << what << ": message '" << m << "' should mention '" << needle << "'";
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": wrong exception type: " << e.what();
  }
}
}  // namespace

TEST(ApiErrors, UnknownRecipeAndModifier) {
  expect_error<mx::UnknownName>([] { mx::parse_recipe("mxfp7"); }, "C4: unknown recipe name", "mxfp7");
  expect_error<mx::UnknownName>([] { mx::parse_recipe("mxfp8_e4m3:banana"); }, "C4: bad modifier", "banana");
  expect_error<mx::UnknownName>([] { mx::parse_recipe(""); }, "C4: empty recipe name", "");
  expect_error<mx::UnknownName>([] { mx::parse_scale_rule("round"); }, "C3: unknown scale rule", "round");
  expect_error<mx::UnknownName>([] { mx::parse_scale_layout("swizzle"); }, "C7: unknown layout", "swizzle");
  expect_error<mx::UnknownName>([] { mx::parse_format("e6m1"); }, "C1: unknown format", "e6m1");
  expect_error<mx::UnknownName>([] { mx::parse_rounding("up"); }, "C2: unknown rounding", "up");
}

TEST(ApiErrors, WrongNanPolicyForFormat) {
  expect_error<mx::Error>([] { mx::parse_recipe("mxfp4:nan_keep_sign"); }, "C2: nan_keep_sign on e2m1", "NaN");
  expect_error<mx::Error>([] { mx::parse_recipe("mxfp8_e4m3:nan_to_zero"); }, "C2: nan_to_zero on e4m3", "NaN");
  expect_error<mx::Error>([] { mx::parse_recipe("mxfp8_e4m3:int8_symmetric"); }, "C2: int8_symmetric on e4m3", "int8");
  mx::ConvPolicy p;
  p.nan = mx::NanPolicy::nan_to_max;
  expect_error<mx::InvalidArgument>([&] { mx::validate_policy(mx::Fmt::e5m2, p); }, "C2: nan_to_max on e5m2", "NaN");
}

TEST(ApiErrors, QuantizeDomain) {
  const float x[4] = {1, 2, 3, 4};
  mx::Recipe r = mx::parse_recipe("mxfp8_e4m3");
  r.block = 0;
  expect_error<mx::InvalidArgument>([&] { mx::quantize(r, {x, mx::InType::f32, 1, 1, 4}); }, "C4: block size 0", "block");
  r.block = 32;
  const std::int64_t big = std::int64_t{1} << 32;
  expect_error<mx::ShapeError>([&] { mx::quantize(r, {x, mx::InType::f32, 1, big, big}); },
                               "C4: rows*cols > 2^63 overflows 64-bit indices", "overflow");
  expect_error<mx::ShapeError>([&] { mx::quantize(r, {x, mx::InType::f32, 4, big, big / 2}); },
                               "C4: batch*rows*cols overflows", "overflow");
  expect_error<mx::ShapeError>([&] { mx::quantize(r, {x, mx::InType::f32, 1, -1, 4}); }, "C4: negative rows", "shape");
  expect_error<mx::InvalidArgument>([&] { mx::quantize(r, {nullptr, mx::InType::f32, 1, 1, 4}); }, "null data pointer", "null");
  const mx::Recipe sr = mx::parse_recipe("mxfp8_e4m3:sr");
  expect_error<mx::InvalidArgument>([&] { mx::quantize(sr, {x, mx::InType::f32, 1, 1, 4}); }, "C2: sr without rbits", "rbits");
  mx::QuantizeOptions o;
  o.scale_layout = mx::ScaleLayout::dense_colwise;
  expect_error<mx::InvalidArgument>([&] { mx::quantize(r, {x, mx::InType::f32, 1, 1, 4}, o); },
                                    "C7: dense_colwise for rowwise", "colwise");
  // An empty tensor is fine, not an error.
  EXPECT_NO_THROW(mx::quantize(r, {nullptr, mx::InType::f32, 1, 0, 4})) << "C4: an empty tensor quantizes to nothing";
}

TEST(ApiErrors, LayoutAndGemmDomain) {
  const mx::ScaleShape s{200, 6, 1};
  expect_error<mx::ShapeError>([&] { mx::scale_offset(mx::ScaleLayout::tcgen05, s, 0, 200, 0); }, "C7: row out of range", "outside");
  expect_error<mx::ShapeError>([&] { mx::scale_coord(mx::ScaleLayout::tcgen05, s, 2048); }, "C7: offset past the buffer", "outside");
  expect_error<mx::ShapeError>([&] { mx::scale_buffer_bytes(mx::ScaleLayout::dense, {std::int64_t{1} << 40, std::int64_t{1} << 40, 1}); },
                               "C7: scale buffer size overflow", "overflow");
  const std::uint8_t c[2] = {0x38, 0x38}, sc[1] = {127};
  const mx::ScaledOperand a{mx::Fmt::e4m3, mx::Fmt::ue8m0, 32, 1, 2, c, sc, 1.0f};
  mx::ScaledOperand nul = a;
  nul.codes = nullptr;
  expect_error<mx::InvalidArgument>([&] { mx::exact_dot(nul, 0, a, 0); }, "C9: null codes", "null");
  mx::ScaledOperand b0 = a;
  b0.block = 0;
  expect_error<mx::InvalidArgument>([&] { mx::exact_dot(b0, 0, a, 0); }, "C9: block size 0", "block");
  mx::ScaledOperand k3 = a;
  k3.k = 1;
  expect_error<mx::ShapeError>([&] { mx::exact_dot(k3, 0, a, 0); }, "C9: mismatched K", "K");
  expect_error<mx::ShapeError>([&] { mx::exact_dot(a, 1, a, 0); }, "C9: row outside the operand", "outside");
}

TEST(ApiErrors, NullPointersInLowLevelCalls) {
  std::uint8_t buf[4] = {0, 0, 0, 0};
  expect_error<mx::InvalidArgument>([&] { mx::pack_row(mx::Fmt::e2m1, nullptr, 4, mx::Packing::packed, buf); },
                                    "C6: pack_row null codes", "null");
  expect_error<mx::InvalidArgument>([&] { mx::unpack_row(mx::Fmt::e3m2, buf, 4, mx::Packing::packed, nullptr); },
                                    "C6: unpack_row null codes", "null");
  expect_error<mx::InvalidArgument>(
      [&] { mx::block_scale(nullptr, 32, 1, mx::Fmt::e4m3, mx::ScaleRule::floor, mx::NonFiniteBlock::nonfinite_block_nan); },
      "C3: block_scale null input", "null");
  const float zero = 0.0f;
  const mx::Quantized q = mx::quantize(mx::parse_recipe("mxfp4"), {&zero, mx::InType::f32, 1, 1, 1});
  expect_error<mx::InvalidArgument>([&] { mx::dequantize(q, mx::Fmt::e4m3); }, "C8: dequantize to an element format", "fp32");
  expect_error<mx::UnknownName>([] { mx::parse_in_type("fp64"); }, "C2: unknown input type", "fp64");
  expect_error<mx::UnknownName>([] { mx::parse_recipe("nvfp4:rceil:banana"); }, "C4: bad modifier after a good one", "banana");
}
