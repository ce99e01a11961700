// gpu_gate.hpp - inputs and byte comparison for the `gpu` gate (issue 4).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mx/quantize.hpp"

namespace gate {

// Input distributions (STYLE 5: structured inputs as well as random bits).
enum class Dist { uniform, wide, tiny, special, midpoints };
const char* dist_name(Dist d);
inline constexpr Dist kDists[] = {Dist::uniform, Dist::wide, Dist::tiny, Dist::special, Dist::midpoints};

struct Input {
  std::vector<std::uint8_t> bytes;
  mx::TensorView view() const { return {bytes.data(), type, batch, rows, cols}; }
  mx::InType type = mx::InType::f32;
  std::int64_t batch = 1, rows = 0, cols = 0;
};

// Deterministic input of shape [batch, rows, cols]; `elem` steers the
// midpoint distribution (midpoints between adjacent codes of that format).
Input make_input(Dist d, mx::InType t, std::int64_t batch, std::int64_t rows, std::int64_t cols, mx::Fmt elem,
                 std::uint64_t seed);

// "0x3c000000": fp32 bits for failure messages.
std::string hex32(std::uint32_t v);

// A tensor shape [batch, rows, cols] and its "[b,m,k]" form for messages.
struct Shape {
  std::int64_t b, m, k;
};
inline std::string shape_str(const Shape& s) {
  return "[" + std::to_string(s.b) + "," + std::to_string(s.m) + "," + std::to_string(s.k) + "]";
}

// gtest parameter name of a recipe ("mxfp8_e4m3:rceil" -> "mxfp8_e4m3_rceil").
inline std::string param_name(const ::testing::TestParamInfo<std::string>& i) {
  std::string s = i.param;
  for (char& ch : s) {
    if (ch == ':') ch = '_';
  }
  return s;
}

// "" when equal, else a one-line description of the first difference.
std::string diff_bytes(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want, const char* what);
std::string diff_quantized(const mx::Quantized& got, const mx::Quantized& want);

}  // namespace gate

// In a gate test body: skip (reported as skipped, never as passed) when no
// CUDA device can run the kernels (needs GoogleTest and mxk/api.hpp).
#define REQUIRE_GPU()                                                       \
  do {                                                                      \
    std::string why_;                                                       \
    if (!mxk::device_available(&why_)) GTEST_SKIP() << "no GPU: " << why_; \
  } while (0)
