// gemm_gate_util.hpp - the helpers of the C11 GEMM gate (gemm_gate_test.cpp,
// gemm_gate_w4_test.cpp): random operands, planted specials, the C11 model
// beside the kernel under two output poisons, the first differing elements.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>
#include <tuple>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/gemm_c11.hpp"
#include "mx/layout.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"
#include "mxk/gemm.hpp"

namespace mx_gemm_gate {


using mx::Fmt;

// In the test body (GTEST_SKIP returns from the enclosing function only).
#define REQUIRE_GPU()                                         \
  do {                                                        \
    std::string why_;                                         \
    if (!mxk::gemm_available(&why_)) GTEST_SKIP() << why_;    \
  } while (0)

// fp32 [rows][k] with a different magnitude per 32-block (scales vary) and
// some exact zeros; deterministic.
inline std::vector<float> random_matrix(std::int64_t rows, std::int64_t k, std::uint64_t seed, double spread = 8.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd(0.0, 1.0);
  std::uniform_real_distribution<double> ud(-spread, spread);
  std::vector<float> x(static_cast<std::size_t>(rows * k));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t b = 0; b * 32 < k; ++b) {
      const double mag = std::exp2(ud(rng));
      for (std::int64_t i = b * 32; i < std::min(k, b * 32 + 32); ++i)
        x[static_cast<std::size_t>(r * k + i)] = rng() % 16 == 0 ? 0.0f : static_cast<float>(nd(rng) * mag);
    }
  return x;
}

inline mx::Quantized quantize(const std::string& recipe, const std::vector<float>& x, std::int64_t rows, std::int64_t k,
                       mx::ScaleLayout layout) {
  mx::QuantizeOptions o;
  o.scale_layout = layout;
  return mx::quantize(mx::parse_recipe(recipe), mx::TensorView{x.data(), mx::InType::f32, 1, rows, k}, o);
}

// Plant special values: element codes (8-bit formats, one byte each) and
// scale codes, chosen by `rng`.
inline void plant(mx::Quantized& q, std::mt19937_64& rng, int n_elems, int n_scales) {
  const bool e5 = q.recipe.elem == Fmt::e5m2;
  const std::uint8_t elem_specials[] = {static_cast<std::uint8_t>(e5 ? 0x7C : 0x7F),  // Inf (e5m2) / NaN (e4m3)
                                        static_cast<std::uint8_t>(e5 ? 0xFC : 0xFF),  // -Inf / -NaN
                                        static_cast<std::uint8_t>(e5 ? 0x7F : 0x7E),  // NaN / 448
                                        0x80, 0x01, 0x81};
  if (q.rows == 0 || q.cols == 0) return;
  for (int i = 0; i < n_elems; ++i) {
    const std::int64_t r = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(q.rows));
    const std::int64_t c = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(q.cols));
    q.data[static_cast<std::size_t>(r * q.row_bytes + c)] = elem_specials[rng() % 6];
  }
  const std::uint8_t scale_specials[] = {0xFF, 0x00, 0xFE, 0x01, 0xFD};
  for (int i = 0; i < n_scales; ++i) {
    const std::int64_t r = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(q.scale_shape.rows));
    const std::int64_t b = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(q.scale_shape.blocks));
    q.scales[static_cast<std::size_t>(mx::scale_offset(q.opts.scale_layout, q.scale_shape, 0, r, b))] =
        scale_specials[rng() % 5];
  }
}

inline std::string first_diffs(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want,
                        std::int64_t n) {
  std::ostringstream os;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (bad < 5)
        os << " [" << static_cast<std::int64_t>(i) / n << "," << static_cast<std::int64_t>(i) % n << "] got "
           << std::hex << got[i] << " want " << want[i] << std::dec;
      ++bad;
    }
  if (got.size() != want.size()) os << " size " << got.size() << " vs " << want.size();
  return bad == 0 && got.size() == want.size() ? "" : std::to_string(bad) + " differing:" + os.str();
}

struct Fp8Case {
  const char* recipe;
  std::int64_t m, n, k;
  mx::ScaleLayout layout;
  Fmt out;
  bool with_c;
  int planted;  // special elements and scales planted per operand
};

inline void run_fp8(const Fp8Case& t, std::uint64_t seed) {
  SCOPED_TRACE(std::string(t.recipe) + " m=" + std::to_string(t.m) + " n=" + std::to_string(t.n) +
               " k=" + std::to_string(t.k) + " " + std::string(mx::scale_layout_name(t.layout)) +
               (t.out == Fmt::bf16 ? " bf16" : " fp32") + (t.with_c ? " +C" : ""));
  std::mt19937_64 rng(seed);
  mx::Quantized a = quantize(t.recipe, random_matrix(t.m, t.k, seed * 3 + 1), t.m, t.k, t.layout);
  mx::Quantized b = quantize(t.recipe, random_matrix(t.n, t.k, seed * 3 + 2), t.n, t.k, t.layout);
  plant(a, rng, t.planted, t.planted);
  plant(b, rng, t.planted, t.planted);
  std::vector<float> c;
  if (t.with_c) c = random_matrix(t.m, t.n, seed * 3 + 3, 20.0);
  const float* cp = t.with_c ? c.data() : nullptr;
  const auto want = mx::c11_mxfp8_gemm(mx::c11_unpack(a), mx::c11_unpack(b), cp, t.out, 4);
  for (std::uint8_t poison : {std::uint8_t{0x7F}, std::uint8_t{0xA5}}) {
    const auto got = mxk::mxfp8_gemm_device(a, b, cp, t.out, poison);
    const std::string d = first_diffs(got, want, t.n);
    ASSERT_EQ(d, "") << "poison " << int{poison};
  }
}

struct W4Case {
  std::int64_t m, n, k;
  mx::ScaleLayout layout;
  Fmt out;
  bool with_c;
  int planted;  // special A values and B scales
  int bn;
  int cols = 0;  // bn 0, M <= 64: rows of A per block of the decode kernel (0 = choose)
};

// Every output bit of the w4a16 launcher (bn, cols) equals the C11 model, under two poisons.
inline void check_w4(const std::vector<std::uint16_t>& a, std::int64_t m, const mx::Quantized& b, const float* cp, Fmt out,
              int bn, int cols) {
  const auto want = mx::c11_w4a16_gemm(a.data(), m, mx::c11_unpack(b), cp, out, 4);
  for (std::uint8_t poison : {std::uint8_t{0x7F}, std::uint8_t{0xA5}}) {
    const auto got = mxk::w4a16_gemm_device(a.data(), m, b, cp, out, poison, bn, cols);
    const std::string d = first_diffs(got, want, b.rows);
    ASSERT_EQ(d, "") << "poison " << int{poison};
  }
}

inline void run_w4(const W4Case& t, std::uint64_t seed) {
  SCOPED_TRACE("w4a16 m=" + std::to_string(t.m) + " n=" + std::to_string(t.n) + " k=" + std::to_string(t.k) + " " +
               std::string(mx::scale_layout_name(t.layout)) + (t.out == Fmt::bf16 ? " bf16" : " fp32") +
               (t.with_c ? " +C" : "") + " bn=" + std::to_string(t.bn) +
               " cols=" + std::to_string(t.cols));
  std::mt19937_64 rng(seed);
  const auto af = random_matrix(t.m, t.k, seed * 5 + 1, 4.0);
  std::vector<std::uint16_t> a(af.size());
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = mx::f32_to_bf16_rne(af[i]);
  const std::uint16_t a_specials[] = {0x7F80, 0xFF80, 0x7FC0, 0x8000, 0x0001, 0x7F7F};
  if (!a.empty())
    for (int i = 0; i < t.planted; ++i) a[rng() % a.size()] = a_specials[rng() % 6];
  mx::Quantized b = quantize("mxfp4", random_matrix(t.n, t.k, seed * 5 + 2), t.n, t.k, t.layout);
  const std::uint8_t scale_specials[] = {0xFF, 0x00, 0xFE, 0x01};
  if (t.n > 0 && t.k > 0)
    for (int i = 0; i < t.planted; ++i) {
      const std::int64_t r = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(t.n));
      const std::int64_t kb = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(b.scale_shape.blocks));
      b.scales[static_cast<std::size_t>(mx::scale_offset(t.layout, b.scale_shape, 0, r, kb))] = scale_specials[rng() % 4];
    }
  std::vector<float> c;
  if (t.with_c) c = random_matrix(t.m, t.n, seed * 5 + 3, 20.0);
  const float* cp = t.with_c ? c.data() : nullptr;
  const auto want = mx::c11_w4a16_gemm(a.data(), t.m, mx::c11_unpack(b), cp, t.out, 4);
  for (std::uint8_t poison : {std::uint8_t{0x7F}, std::uint8_t{0xA5}}) {
    const auto got = mxk::w4a16_gemm_device(a.data(), t.m, b, cp, t.out, poison, t.bn, t.cols);
    const std::string d = first_diffs(got, want, t.n);
    ASSERT_EQ(d, "") << "poison " << int{poison};
  }
}

inline constexpr auto kDense = mx::ScaleLayout::dense;
inline constexpr auto kTc = mx::ScaleLayout::tcgen05;

}  // namespace mx_gemm_gate
