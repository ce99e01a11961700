// mx/testing/gtest.hpp - GoogleTest assertions that gate a kernel against the
// reference byte for byte (issue 8), with the first-difference reports of
// mx/testing/diff.hpp (the same text as mxconform.testing in Python):
//
//   EXPECT_MX_BYTES_EQ(expected, observed)        any two contiguous byte ranges
//   EXPECT_MX_QUANTIZED_EQ(recipe, x, opts, data, scales)
//       data/scales (a kernel's output bytes) must equal
//       mx::quantize(mx::parse_recipe(recipe), x, opts), padding included
//   ASSERT_MX_BYTES_EQ, ASSERT_MX_QUANTIZED_EQ    the fatal forms
//
// In a consumer project: find_package(mxconform CONFIG REQUIRED), link
// mxconform::testing and GTest::gtest_main, #include "mx/testing/gtest.hpp".
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <string>

#include "mx/error.hpp"
#include "mx/quantize.hpp"
#include "mx/testing/diff.hpp"

namespace mx::testing {

template <class R>
const std::uint8_t* byte_data(const R& r) {
  static_assert(sizeof(*std::data(r)) == 1, "EXPECT_MX_*: pass a contiguous range of bytes");
  return reinterpret_cast<const std::uint8_t*>(std::data(r));
}

template <class A, class B>
::testing::AssertionResult BytesEq(const char* e_expr, const char* o_expr, const A& expected, const B& observed) {
  const std::string d = describe_bytes_difference(byte_data(expected), static_cast<std::int64_t>(std::size(expected)),
                                                  byte_data(observed), static_cast<std::int64_t>(std::size(observed)));
  if (d.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << o_expr << " differs from " << e_expr << ":\n" << d;
}

template <class D, class S>
::testing::AssertionResult QuantizedEq(const char* r_expr, const char*, const char*, const char* d_expr, const char*,
                                       const std::string& recipe, const TensorView& x, const QuantizeOptions& opts,
                                       const D& data, const S& scales) {
  try {
    const Quantized e = quantize(parse_recipe(recipe), x, opts);
    const Quantized o = with_bytes(e, byte_data(data), static_cast<std::int64_t>(std::size(data)), byte_data(scales),
                                   static_cast<std::int64_t>(std::size(scales)));
    const std::string d = describe_quantized_difference(e, o, &x);
    if (d.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << d_expr << " is not the reference's " << r_expr << " result:\n" << d;
  } catch (const Error& ex) {
    return ::testing::AssertionFailure() << "mx::Error: " << ex.what();
  }
}

}  // namespace mx::testing

#define EXPECT_MX_BYTES_EQ(expected, observed) EXPECT_PRED_FORMAT2(::mx::testing::BytesEq, expected, observed)
#define ASSERT_MX_BYTES_EQ(expected, observed) ASSERT_PRED_FORMAT2(::mx::testing::BytesEq, expected, observed)
#define EXPECT_MX_QUANTIZED_EQ(recipe, x, opts, data, scales) \
  EXPECT_PRED_FORMAT5(::mx::testing::QuantizedEq, recipe, x, opts, data, scales)
#define ASSERT_MX_QUANTIZED_EQ(recipe, x, opts, data, scales) \
  ASSERT_PRED_FORMAT5(::mx::testing::QuantizedEq, recipe, x, opts, data, scales)
