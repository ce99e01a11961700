// gemm_gate_test.cpp - the `gpu` gate of the C11 GEMMs (reference/SPEC.md
// C11, issue 10): every output bit of the sm_90a kernels (kernels/gemm)
// equals the C11 model of libmxref (mx/gemm_c11.hpp), for e4m3, e5m2 and
// w4a16, fp32 and bf16 outputs, dense and tcgen05 scales, ragged M, N, K,
// planted special values, random data. Each launch runs twice with the
// output poisoned by two different byte patterns first (an element the
// kernel fails to write shows as a poison in one of the runs).
// GTEST_SKIP without an sm_90 device. GemmGateSanitizer.* is the small
// subset run under compute-sanitizer memcheck/racecheck.
// Kernel paths (kernels/gemm/gemm_config.hpp) and where they are covered:
// mxfp8 M <= 64 (Fp8Small) and M > 64 (Fp8Large); w4a16 M <= 16 (Decode16),
// 16 < M <= 64 (Decode64), each with tile widths 16, 32, 64 (explicit bn), and
// M > 64 (Large); w4a16 M <= 64 with bn 0 (gemm_w4a16_decode.cu, B widened in
// registers) with 8, 16, 32 and 64 rows of A per block, four (8, 16), three
// (32; 8, 16 as decode_cols 308, 316) or two warpgroups, and k-tiles of 512
// (decode_cols 508, 516) (W4a16DecodeKernel, GemmGateSanitizer.W4a16Small);
// every one with 16-byte-aligned rows (cp.async, K a multiple of 16
// for fp8, of 32 for MXFP4) and unaligned rows (byte loads), K ragged
// against the 32-block and against the k-tile (64, 128 or 256). The warp-
// specialized M > 64 kernels (TMA): GemmGate.*WarpSpecialized; the mxfp8 one
// is persistent, so a shape with more tiles than SMs (1100 x 2000) has blocks
// take two tiles through one stage ring. w4a16's register-A M > 64 kernel (bn
// 512, or bn 0 where packed rows of B are 16-byte multiples): W4a16RegisterA.
// w4a16 M <= 64 on mma.sync (gemm_w4a16_mma.cu; decode_cols 2000 + form, and
// bn 0 / decode_cols 0 where cfg::w4_mma_on picks it): every form (TR weight
// tiles x TG token groups x NT n8 tiles; 2, 3 or 4 producer warps + TG
// consumers), aligned (cp.async) and unaligned rows, K ragged against 16, 32 and the k-tile 256, rings that wrap, planted
// specials, in-group cancellation, extreme scales (W4a16MmaKernel,
// W4a16MmaCancellation, GemmGateSanitizer.W4a16Mma).
// w4a16 M <= 64 on the warp-specialized kernel's BM = 64 forms (decode_cols
// 6000 / 6100 / 6300 + BN: TMA of A, so K % 8 == 0 here): W4a16WsDecode,
// GemmGateSanitizer.W4a16WsDecode; A that TMA cannot read: GemmGate.Errors.
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

namespace {

using mx::Fmt;

// In the test body (GTEST_SKIP returns from the enclosing function only).
#define REQUIRE_GPU()                                         \
  do {                                                        \
    std::string why_;                                         \
    if (!mxk::gemm_available(&why_)) GTEST_SKIP() << why_;    \
  } while (0)

// fp32 [rows][k] with a different magnitude per 32-block (scales vary) and
// some exact zeros; deterministic.
std::vector<float> random_matrix(std::int64_t rows, std::int64_t k, std::uint64_t seed, double spread = 8.0) {
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

mx::Quantized quantize(const std::string& recipe, const std::vector<float>& x, std::int64_t rows, std::int64_t k,
                       mx::ScaleLayout layout) {
  mx::QuantizeOptions o;
  o.scale_layout = layout;
  return mx::quantize(mx::parse_recipe(recipe), mx::TensorView{x.data(), mx::InType::f32, 1, rows, k}, o);
}

// Plant special values: element codes (8-bit formats, one byte each) and
// scale codes, chosen by `rng`.
void plant(mx::Quantized& q, std::mt19937_64& rng, int n_elems, int n_scales) {
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

std::string first_diffs(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want,
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

void run_fp8(const Fp8Case& t, std::uint64_t seed) {
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
void check_w4(const std::vector<std::uint16_t>& a, std::int64_t m, const mx::Quantized& b, const float* cp, Fmt out,
              int bn, int cols) {
  const auto want = mx::c11_w4a16_gemm(a.data(), m, mx::c11_unpack(b), cp, out, 4);
  for (std::uint8_t poison : {std::uint8_t{0x7F}, std::uint8_t{0xA5}}) {
    const auto got = mxk::w4a16_gemm_device(a.data(), m, b, cp, out, poison, bn, cols);
    const std::string d = first_diffs(got, want, b.rows);
    ASSERT_EQ(d, "") << "poison " << int{poison};
  }
}

void run_w4(const W4Case& t, std::uint64_t seed) {
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

constexpr auto kDense = mx::ScaleLayout::dense;
constexpr auto kTc = mx::ScaleLayout::tcgen05;

// ---- the sanitizer subset (small, every code path) ---------------------------

TEST(GemmGateSanitizer, Mxfp8Small) {
  REQUIRE_GPU();
  run_fp8({"mxfp8_e4m3", 17, 33, 70, kDense, Fmt::fp32, true, 3}, 1);
  run_fp8({"mxfp8_e5m2", 5, 130, 33, kTc, Fmt::bf16, false, 3}, 2);
  run_fp8({"mxfp8_e4m3", 70, 136, 208, kTc, Fmt::bf16, true, 3}, 5);   // large tiles, cp.async, ragged k-tile
  run_fp8({"mxfp8_e5m2", 9, 72, 256, kDense, Fmt::fp32, false, 3}, 6);  // small tiles, cp.async (scales too)
  run_fp8({"mxfp8_e5m2", 70, 136, 200, kDense, Fmt::fp32, true, 3}, 11);  // large tiles (K % 16 != 0: no TMA)
  run_fp8({"mxfp8_e4m3", 130, 130, 1040, kDense, Fmt::bf16, false, 3}, 12);  // warp-specialized, ring wraps
  run_fp8({"mxfp8_e5m2", 1100, 2000, 160, kTc, Fmt::fp32, true, 3}, 14);  // warp-specialized, 144 tiles (two per block)
}

TEST(GemmGateSanitizer, W4a16Small) {
  REQUIRE_GPU();
  run_w4({3, 40, 77, kDense, Fmt::fp32, true, 3, 32}, 3);
  run_w4({66, 130, 64, kTc, Fmt::bf16, false, 3, 128}, 4);
  run_w4({5, 50, 256, kDense, Fmt::bf16, true, 3, 16}, 7);   // decode (AR 16), cp.async (scales too)
  run_w4({6, 40, 352, kTc, Fmt::fp32, false, 3, 32}, 10);    // decode (AR 16), ragged k-tile
  run_w4({40, 70, 96, kTc, Fmt::fp32, false, 3, 64}, 8);     // decode (AR 64)
  run_w4({130, 136, 224, kDense, Fmt::fp32, true, 3, 0}, 9);  // warp-specialized (TMA), ring wraps
  run_w4({70, 200, 72, kTc, Fmt::bf16, false, 3, 0}, 13);      // warp-specialized, ragged k-tile
  run_w4({5, 70, 300, kDense, Fmt::bf16, true, 3, 0, 8}, 11);    // decode kernel, byte loads, ragged k-tile
  run_w4({20, 64, 544, kTc, Fmt::fp32, false, 3, 0, 16}, 12);    // decode kernel, cp.async, ragged k-tile
  run_w4({40, 65, 512, kDense, Fmt::fp32, false, 3, 0, 32}, 13);  // decode kernel, cp.async, whole k-tiles
  run_w4({64, 72, 256, kTc, Fmt::bf16, true, 3, 0, 64}, 14);     // decode kernel, one k-tile
  run_w4({9, 64, 1312, kDense, Fmt::bf16, false, 3, 0, 0}, 15);   // decode kernel, each warpgroup 1-2 k-tiles
  run_w4({12, 70, 800, kTc, Fmt::fp32, true, 3, 0, 1016}, 16);   // decode kernel, two-warpgroup form
  run_w4({20, 64, 2600, kTc, Fmt::fp32, true, 3, 0, 316}, 18);   // three warpgroups, rings wrap, ragged k-tile
  run_w4({16, 70, 2592, kDense, Fmt::bf16, false, 3, 0, 516}, 19);  // k-tiles of 512, cp.async, rings wrap, ragged
  run_w4({5, 70, 1300, kTc, Fmt::bf16, true, 3, 0, 508}, 20);     // k-tiles of 512, byte loads, ragged
  run_w4({7, 66, 1824, kDense, Fmt::bf16, true, 3, 0, 308}, 30);  // three warpgroups, byte loads, ragged k-tile
  run_w4({40, 64, 3104, kTc, Fmt::fp32, false, 3, 0, 1016}, 31);  // two warpgroups of 16 columns, rings wrap
  run_w4({17, 64, 2048, kTc, Fmt::fp32, false, 3, 0, 316}, 33);   // three warpgroups, whole k-tiles, M = 17
  run_w4({130, 136, 712, kDense, Fmt::bf16, false, 3, 0}, 17);  // warp-specialized, both rings wrap
}

// The mma.sync decode kernel (decode_cols 2000 + form; cfg::W4Mma::FORM):
// every form once; byte loads with K ragged against 16 and the k-tile; cp.async
// with a ragged last k-tile; whole k-tiles; partial blocks in M and N; stage
// rings that wrap (flat: ST 8 for 16-row blocks of 8 tokens, 4 for 64 tokens;
// producer forms: ST 12 / 9 / 6 / 4 for 8 / 16 / 32 / 64 tokens (3 producers),
// 12 / 8 / 4 (2 producers), 12 / 8 (4 producers), 10 (5; with 16 tokens and 4 scale-table
// copies: 3012), 12 (6), every producer warp's own
// ring wrapping),
// producer warps without any k-tile (K <= 256); flat forms with at most 3
// stages (+ 10000 STX: 8 k-tiles over 3, byte loads) and with two token
// groups (224).
TEST(GemmGateSanitizer, W4a16Mma) {
  REQUIRE_GPU();
  run_w4({1, 40, 77, kDense, Fmt::fp32, true, 3, 0, 2111}, 21);     // byte loads, one ragged k-tile
  run_w4({3, 20, 2337, kTc, Fmt::bf16, false, 3, 0, 2111}, 22);     // 10 k-tiles over 8 stages, byte loads
  run_w4({5, 70, 300, kTc, Fmt::bf16, false, 3, 0, 2411}, 23);      // partial block of 4 tiles, ragged k-tile
  run_w4({12, 64, 544, kDense, Fmt::fp32, true, 3, 0, 2812}, 24);   // producers/consumer, cp.async, ragged last k-tile
  run_w4({16, 100, 512, kTc, Fmt::bf16, true, 3, 0, 2412}, 25);     // cp.async, whole k-tiles
  run_w4({33, 40, 256, kDense, Fmt::fp32, false, 3, 0, 2224}, 26);  // 64-token block, 33 rows of A
  run_w4({64, 72, 1312, kTc, Fmt::bf16, true, 3, 0, 2418}, 27);     // 6 k-tiles over 4 stages
  run_w4({40, 33, 1056, kDense, Fmt::fp32, false, 3, 0, 2724}, 28);  // 5 k-tiles over 4 stages, ragged
  run_w4({1, 20, 4001, kTc, Fmt::bf16, true, 3, 0, 2811}, 29);     // 16 k-tiles over 12 stages, byte loads
  run_w4({9, 40, 77, kDense, Fmt::fp32, false, 3, 0, 2821}, 30);     // two consumers, one ragged k-tile, byte loads
  run_w4({16, 130, 4608, kTc, Fmt::bf16, false, 3, 0, 2812}, 31);   // 18 whole k-tiles over 9 stages
  run_w4({30, 50, 2080, kTc, Fmt::bf16, true, 3, 0, 2814}, 32);     // 9 k-tiles over 6 stages, ragged
  run_w4({1, 16, 6000, kDense, Fmt::bf16, false, 3, 0, 2711}, 33);  // 24 k-tiles over 12 stages, ragged
  run_w4({13, 24, 2300, kTc, Fmt::fp32, true, 3, 0, 2712}, 34);     // 9 k-tiles over 8 stages, byte loads
  run_w4({2, 24, 3400, kDense, Fmt::bf16, true, 3, 0, 2911}, 35);   // 4 producers: 14 k-tiles over 12 stages, ragged
  run_w4({16, 40, 2560, kTc, Fmt::fp32, false, 3, 0, 2912}, 36);   // 10 whole k-tiles over 8 stages
  run_w4({3, 40, 6880, kTc, Fmt::bf16, true, 3, 0, 3111}, 37);     // 6 producers: 27 k-tiles over 12, cp.async, ragged
  run_w4({1, 24, 1100, kDense, Fmt::fp32, false, 3, 0, 3111}, 38);  // 6 producers, one without a k-tile, byte loads
  run_w4({8, 30, 5120, kDense, Fmt::bf16, false, 3, 0, 3011}, 39);  // 5 producers, 20 whole k-tiles over 10 stages
  run_w4({5, 40, 4100, kTc, Fmt::fp32, true, 3, 0, 6811}, 40);      // consumer ring of 4 chunks: 17 k-tiles, byte loads
  run_w4({16, 24, 2848, kDense, Fmt::bf16, false, 3, 0, 6912}, 41);  // the same, NT 2: 12 k-tiles over 8, ragged
  run_w4({2, 20, 300, kTc, Fmt::bf16, true, 3, 0, 7111}, 42);       // the same, 6 producers, two k-tiles
  run_w4({16, 90, 2000, kTc, Fmt::bf16, false, 3, 0, 32412}, 43);   // flat, 3 stages: 8 k-tiles, ragged, cp.async
  run_w4({7, 50, 1500, kDense, Fmt::fp32, true, 3, 0, 32411}, 44);  // 4 tiles, 3 stages, byte loads
  run_w4({13, 70, 1100, kTc, Fmt::bf16, true, 3, 0, 2224}, 45);     // two token groups of 32, 13 rows of A
  run_w4({50, 40, 800, kDense, Fmt::fp32, false, 3, 0, 2724}, 46);  // two consumers of 32 tokens, 50 rows of A
  run_w4({16, 40, 5408, kTc, Fmt::bf16, true, 3, 0, 3012}, 47);     // 5 producers, 16 tokens, 4 scale copies:
                                                                     // 22 k-tiles over 10, cp.async, ragged
  run_w4({13, 33, 2600, kDense, Fmt::fp32, false, 3, 0, 3012}, 48);  // the same, 13 rows: 11 k-tiles, byte loads
}

// The register-A kernel (gemm_w4a16_rs.cu, bn 512 forces it; packed rows of
// B a multiple of 16 bytes: K = 32 j or 32 j - 1): the ring wraps (8 k-tiles
// over 6 stages), K odd (the last element's byte is masked), scale codes by
// cp.async (nkb % 4 == 0) and by byte loads (nkb = 3, dense).
TEST(GemmGateSanitizer, W4a16RegisterA) {
  REQUIRE_GPU();
  run_w4({130, 136, 511, kDense, Fmt::fp32, true, 3, 512}, 14);
  run_w4({70, 200, 95, kDense, Fmt::bf16, false, 3, 512}, 15);
  run_w4({300, 70, 128, kTc, Fmt::bf16, true, 3, 512}, 16);
  run_w4({130, 136, 224, kDense, Fmt::fp32, true, 3, 256}, 17);  // the warp-specialized kernel (bn 256) there
}

// The warp-specialized kernel's BM = 64 forms (decode_cols 6000 + BN with one
// producer warpgroup, 6100 + BN with two, 6300 + BN with four), one case each:
// stage rings that wrap (ST and RS per form: cfg::W4WsDecode), producer groups
// (G = 128 NP / GT > 1, each with its own raw ring: 6016 G 4, 6116 G 8,
// 6132 G 4, 6316 G 16, 6332 G 8, 6364 G 4, 6428 G 2, 6156 G 2, 6356 G 4) with
// raw rings that wrap
// and groups without a k-tile, ragged last k-tile, K below one k-tile, whole
// k-tiles, partial tiles in N; two k-tiles of wgmma in flight (10006356).
TEST(GemmGateSanitizer, W4a16WsDecode) {
  REQUIRE_GPU();
  run_w4({3, 40, 1224, kDense, Fmt::fp32, true, 3, 0, 6016}, 61);  // 20 k-tiles over 16 stages, ragged
  run_w4({17, 70, 1032, kTc, Fmt::bf16, false, 3, 0, 6032}, 62);   // 17 over 15, ragged
  run_w4({64, 130, 776, kDense, Fmt::fp32, false, 3, 0, 6064}, 63);  // 13 over 11, ragged
  run_w4({40, 200, 520, kTc, Fmt::bf16, true, 3, 0, 6128}, 64);    // 9 over 7, ragged
  run_w4({1, 24, 1096, kTc, Fmt::fp32, false, 3, 0, 6116}, 65);    // two producer warpgroups: 18 over 16
  run_w4({63, 33, 40, kDense, Fmt::bf16, true, 3, 0, 6132}, 66);   // K below one k-tile
  run_w4({5, 64, 2048, kDense, Fmt::bf16, false, 3, 0, 6164}, 67);  // 32 whole k-tiles over 11
  run_w4({64, 129, 512, kTc, Fmt::fp32, true, 3, 0, 6228}, 68);    // 8 whole k-tiles over 6
  run_w4({2, 24, 3208, kDense, Fmt::bf16, false, 3, 0, 6316}, 69);  // 51 k-tiles: 16 groups' raw rings of 3 wrap
  run_w4({33, 40, 2632, kTc, Fmt::fp32, true, 3, 0, 6332}, 70);    // 42 over 8 stages, 8 groups, ragged
  run_w4({64, 70, 1480, kDense, Fmt::fp32, false, 3, 0, 6364}, 71);  // 24 over 8, 4 groups (rings of 4 wrap)
  run_w4({17, 130, 72, kTc, Fmt::bf16, true, 3, 0, 6428}, 72);     // 2 k-tiles, one per group, ragged
  // BN 56 (m64n56; 2 BN = 112 chunks: groups of 128 threads, 16 idle): 6056 G 1, 6156 G 2, 6356 G 4
  run_w4({64, 120, 1480, kTc, Fmt::bf16, true, 3, 0, 6056}, 73);    // 24 over 12, ragged N (56 + 56 + 8)
  run_w4({29, 57, 2120, kDense, Fmt::fp32, false, 3, 0, 6156}, 74);  // 34 over 10, 2 groups, ragged
  run_w4({64, 113, 2632, kTc, Fmt::fp32, true, 3, 0, 6356}, 75);    // 42 over 8, 4 groups (rings of 4 wrap)
  // two k-tiles of wgmma in flight (10006356: 6356 with CW 2, the launcher's form where N / 56 blocks fit)
  run_w4({64, 113, 2632, kDense, Fmt::bf16, false, 3, 0, 10006356}, 77);  // 42 over 8, ragged N
  run_w4({33, 57, 136, kTc, Fmt::fp32, true, 3, 0, 10006356}, 78);        // 3 k-tiles: fewer than CW + 1 releases
  // TK k-tiles per consumer round trip (+ TK * 100000000), IW (+ 1000000000): partial last groups, fewer k-tiles
  // than stages, and the first group partial (fewer k-tiles than TK)
  run_w4({64, 40, 1160, kDense, Fmt::fp32, true, 3, 0, 200006016}, 79);    // 19 over 16, TK 2: last group 1
  run_w4({33, 24, 136, kTc, Fmt::bf16, false, 3, 0, 400006016}, 80);       // 3 < TK 4: one partial group
  run_w4({48, 40, 1096, kDense, Fmt::bf16, true, 3, 0, 400006016}, 81);    // 18 over 16, TK 4: last group 2
  run_w4({40, 33, 392, kTc, Fmt::fp32, false, 3, 0, 1200006016}, 82);      // 7 < 16, TK 2 + IW: last group 1
  run_w4({64, 20, 1480, kDense, Fmt::bf16, true, 3, 0, 1400006016}, 83);   // 24 over 16, TK 4 + IW
  run_w4({63, 17, 200, kTc, Fmt::fp32, true, 3, 0, 1400006016}, 84);       // 4 k-tiles: one whole group
  run_w4({64, 113, 1032, kTc, Fmt::bf16, true, 3, 0, 1200006356}, 85);     // 17 over 8, last group 1
  run_w4({35, 57, 320, kDense, Fmt::fp32, false, 3, 0, 200006356}, 86);    // 5 < 8, TK 2: last group 1
  run_w4({50, 24, 904, kTc, Fmt::fp32, true, 3, 0, 200006116}, 87);       // 15 over 16, 8 groups, TK 2
}

// ---- the full gate ------------------------------------------------------------

TEST(GemmGate, Mxfp8RaggedShapes) {
  REQUIRE_GPU();
  std::uint64_t seed = 100;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 1, 1}, {1, 8, 32}, {2, 7, 31},
                           {64, 128, 64}, {65, 129, 96}, {130, 257, 100}, {33, 300, 513}, {128, 128, 1024}})
      for (Fmt out : {Fmt::fp32, Fmt::bf16})
        run_fp8({r, m, n, k, (seed % 2) ? kTc : kDense, out, (seed % 3) != 0, 0}, seed++);
}

TEST(GemmGate, Mxfp8AlignedRaggedKTiles) {  // the cp.async path; K past the last k-tile's 4 blocks
  REQUIRE_GPU();
  std::uint64_t seed = 150;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 16, 16}, {16, 64, 48}, {64, 200, 208},
                           {65, 128, 336}, {200, 136, 400}, {129, 257, 1040}})
      run_fp8({r, m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 2}, seed++);
}

TEST(GemmGate, Mxfp8SmallM) {
  REQUIRE_GPU();
  for (std::int64_t m = 1; m <= 17; ++m)
    run_fp8({m % 2 ? "mxfp8_e4m3" : "mxfp8_e5m2", m, 72, 160 + m, m % 3 ? kDense : kTc, Fmt::fp32, m % 2 == 0, 0},
            200 + static_cast<std::uint64_t>(m));
}

TEST(GemmGate, Mxfp8Specials) {
  REQUIRE_GPU();
  std::uint64_t seed = 300;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (int planted : {4, 40})
      for (Fmt out : {Fmt::fp32, Fmt::bf16}) run_fp8({r, 70, 140, 200, kDense, out, true, planted}, seed++);
}

TEST(GemmGate, Mxfp8ExtremeScalesZeroBlocksCancellation) {
  REQUIRE_GPU();
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"}) {
    SCOPED_TRACE(r);
    const std::int64_t m = 64, n = 64, k = 128;
    auto xa = random_matrix(m, k, 7), xb = random_matrix(n, k, 8);
    for (std::int64_t i = 0; i < k; ++i) {
      xa[static_cast<std::size_t>(5 * k + i)] = 0.0f;  // all-zero row of A
      xb[static_cast<std::size_t>(9 * k + i)] = (i % 2 ? -1.0f : 1.0f) * xb[static_cast<std::size_t>(9 * k + i - i % 2)];
      xa[static_cast<std::size_t>(9 * k + i)] = 3.0f;   // A row 9 . B row 9 cancels pairwise
    }
    mx::Quantized a = quantize(r, xa, m, k, kDense), b = quantize(r, xb, n, k, kDense);
    for (std::int64_t row = 0; row < 16; ++row)  // scales at both ends of the range
      for (std::int64_t kb = 0; kb < 4; ++kb) {
        a.scales[static_cast<std::size_t>(row * 4 + kb)] = static_cast<std::uint8_t>(row % 2 ? 0xFE : 0x00);
        b.scales[static_cast<std::size_t>(row * 4 + kb)] = static_cast<std::uint8_t>(kb % 2 ? 0xFE : 0x01);
      }
    const auto want = mx::c11_mxfp8_gemm(mx::c11_unpack(a), mx::c11_unpack(b), nullptr, Fmt::fp32, 4);
    for (std::uint8_t poison : {std::uint8_t{0x7F}, std::uint8_t{0xA5}})
      ASSERT_EQ(first_diffs(mxk::mxfp8_gemm_device(a, b, nullptr, Fmt::fp32, poison), want, n), "");
  }
}

TEST(GemmGate, W4a16RaggedShapesAndTiles) {
  REQUIRE_GPU();
  std::uint64_t seed = 400;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 1, 1}, {1, 32, 16}, {2, 33, 17},
                         {64, 128, 64}, {65, 129, 65}, {130, 200, 250}, {17, 300, 1000}})
    for (int bn : {0, 32, 64, 128})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 0, bn}, seed++);
}

TEST(GemmGate, W4a16SmallM) {
  REQUIRE_GPU();
  for (std::int64_t m = 1; m <= 17; ++m)
    run_w4({m, 96, 200 + m, m % 3 ? kDense : kTc, Fmt::fp32, m % 2 == 1, 0, 0}, 500 + static_cast<std::uint64_t>(m));
  for (std::int64_t m = 1; m <= 17; ++m)  // cp.async path (K a multiple of 32), every decode tile width
    run_w4({m, 100, 32 * (5 + m), m % 2 ? kDense : kTc, m % 3 ? Fmt::bf16 : Fmt::fp32, m % 2 == 0, 1,
            16 << (m % 3)}, 520 + static_cast<std::uint64_t>(m));
}

TEST(GemmGate, W4a16DecodeAndLargeTiles) {  // M <= 16, 16 < M <= 64 and M > 64, aligned and not
  REQUIRE_GPU();
  std::uint64_t seed = 700;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 33, 96}, {17, 64, 160}, {33, 130, 288},
                         {64, 72, 1056}, {64, 40, 250}, {65, 129, 96}, {128, 128, 128}, {129, 260, 352}, {257, 136, 64}})
    for (int bn : {0, 16, 64})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 2, bn}, seed++);
}

TEST(GemmGate, W4a16DecodeKernel) {  // bn 0, M <= 64: every width of A rows per block, aligned or not, ragged
  REQUIRE_GPU();
  std::uint64_t seed = 800;
  // + 1000: the two-warpgroup form; 300 +: three warpgroups; 500 +: k-tiles of 512 (K 2080: 5 tiles, rings wrap)
  for (int cols : {8, 16, 32, 64, 1008, 1016, 1032, 308, 316, 508, 516})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 64, 256}, {3, 130, 544},
                           {cols % 100, 72, 1024}, {std::min(cols % 100 + 1, 64), 200, 97}, {64, 64, 2080},
                           {17, 129, 1000}, {9, 40, 33}, {20, 64, 2304}, {cols % 100, 70, 3616}})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 3, 0, cols}, seed++);
  for (std::int64_t m : {1, 16, 64})  // decode shapes of the benchmark, widths chosen by the launcher
    run_w4({m, 2048, 7168, kDense, Fmt::bf16, false, 8, 0, 0}, seed++);
  // PIPE forms (run 16 pipe): whole k-tiles from per-thread pointers (+ 100000; rows of A past M
  // skipped), then the ragged k-tile by mma_load; table addresses by PRMT + multiply-add (+ 200000)
  run_w4({64, 128, 2080, kTc, Fmt::bf16, true, 3, 0, 302418}, 42);     // 8 whole k-tiles over 4 stages, ragged
  run_w4({64, 64, 1024, kDense, Fmt::fp32, false, 3, 0, 302424}, 43);  // 8 warps, whole k-tiles
  run_w4({32, 100, 2304, kDense, Fmt::bf16, true, 3, 0, 132412}, 44);  // 9 whole k-tiles over 3, partial blocks
  run_w4({5, 64, 1312, kTc, Fmt::bf16, false, 3, 0, 332411}, 45);      // 5 of 8 rows of A, 5 whole k-tiles
  run_w4({50, 128, 2080, kTc, Fmt::fp32, true, 3, 0, 302418}, 46);     // 50 of 64 rows of A, ragged k-tile
  run_w4({40, 70, 1000, kTc, Fmt::bf16, false, 3, 0, 102424}, 47);     // byte loads (ldb 500), partial blocks
  run_w4({16, 7168, 2048, kDense, Fmt::bf16, true, 8, 0, 0}, seed++);
}

TEST(GemmGate, W4a16MmaKernel) {  // bn 0, M <= 64, decode_cols 2000 + form: every form of the mma.sync kernel
  REQUIRE_GPU();
  std::uint64_t seed = 1000;
  for (int form : {111, 411, 412, 418, 224, 711, 712, 724, 811, 812, 814, 821, 911, 912, 1011, 1012, 1111, 4811,
                   4812, 4912, 5111, 30411, 30412, 100418, 300418, 100424, 300424, 130411, 130412, 330411, 330412}) {
    const std::int64_t tok = 8 * (form % 10) * (form / 10 % 10);  // rows of A per block
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 64, 256}, {3, 130, 544},
                           {tok, 72, 1024}, {std::min<std::int64_t>(tok + 1, 64), 200, 97}, {64, 64, 2080},
                           {17, 129, 1000}, {9, 40, 33}, {20, 64, 2335}, {2, 16, 4096}})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0,
              static_cast<int>(seed % 4 == 0 ? 40 : 3), 0, 2000 + form},
             seed++);
  }
  // M = 1..17, 33, 64 with the kernel's own form; K not a multiple of 16; many specials
  for (std::int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 33, 64})
    run_w4({m, 80 + m, 16 * m + 7, m % 3 ? kDense : kTc, m % 2 ? Fmt::bf16 : Fmt::fp32, m % 2 == 0, 40, 0, 2000},
           seed++);
  // the other two benchmark shapes on the launcher's path (W4a16DecodeKernel has four)
  run_w4({1, 7168, 2048, kDense, Fmt::bf16, false, 8, 0, 0}, seed++);
  run_w4({64, 7168, 2048, kTc, Fmt::bf16, true, 8, 0, 0}, seed++);
}

// The warp-specialized kernel's BM = 64 forms (decode_cols 6000 / 6100 / 6300 + BN):
// M = 1, 3, 17, 63, 64 and others, N ragged against BN, K ragged against the
// k-tile of 64 and below it (K % 8 == 0: A by TMA), rings that wrap, dense and
// tcgen05 scales, planted specials (NaN/Inf A; 0xFF/0x00/0xFE/0x01 scales),
// with and without C, fp32 and bf16 out; TK 2 / 4 and IW forms (k-tile counts 1 .. 51: every partial last group);
// the launcher's choice of them.
TEST(GemmGate, W4a16WsDecode) {
  REQUIRE_GPU();
  std::uint64_t seed = 1300;
  for (int form : {6016, 6032, 6064, 6128, 6116, 6132, 6164, 6228, 6316, 6332, 6364, 6428, 6056, 6156, 6356,
                   10006356, 200006016, 400006016, 1200006016, 1400006016, 200006356, 1200006356, 200006116})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 64, 256}, {3, 130, 520},
                           {17, 129, 1000}, {63, 200, 40}, {64, 64, 2080}, {64, 72, 8}, {9, 40, 1224},
                           {33, 257, 136}, {64, 150, 1096}, {5, 40, 3208}})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0,
              static_cast<int>(seed % 4 == 0 ? 40 : 3), 0, form},
             seed++);
  // the launcher (decode_cols 0) at 32 < M <= 64 (cfg::w4_ws_decode_code): 200006116 where N / 16 blocks fit the
  // SMs, 10006356 where N / 56 do, 6364 where N / 64 do (N = 8000 on 132 SMs), the decode kernels where TMA cannot
  // read A (K % 8 != 0)
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{33, 200, 520}, {48, 2200, 136},
                         {64, 3000, 72}, {40, 100, 77}, {64, 2200, 100}, {33, 8000, 72}})
    run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 3, 0, 0}, seed++);
}

// In-group cancellation (A row pairs against B pairs of opposite sign: each
// k16 group sums to zero exactly, or to what C and the cut leave), huge and
// tiny terms in one group (A from 2^-100 to 2^100), a large C, extreme scales
// (0xFE, 0x00, 0x01) and 0xFF on a few rows, on every form of the mma.sync
// kernel and the wgmma decode kernel.
TEST(GemmGate, W4a16MmaCancellation) {
  REQUIRE_GPU();
  const std::int64_t m = 16, n = 48, k = 544;
  std::mt19937_64 rng(77);
  std::vector<float> xb = random_matrix(n, k, 78);
  for (std::int64_t r = 0; r < n; r += 2)  // rows 0, 2, 4 ..: +x, -x pairs along k
    for (std::int64_t i = 1; i < k; i += 2)
      xb[static_cast<std::size_t>(r * k + i)] = -xb[static_cast<std::size_t>(r * k + i - 1)];
  mx::Quantized b = quantize("mxfp4", xb, n, k, kDense);
  for (std::int64_t r = 0; r < 12; ++r)
    for (std::int64_t kb = 0; kb < b.scale_shape.blocks; ++kb) {
      const std::uint8_t sc[] = {0xFE, 0x00, 0x01, 0xFE, 0x7F, 0x01};
      b.scales[static_cast<std::size_t>(r * b.scale_shape.blocks + kb)] = sc[(r + kb) % 6];
    }
  b.scales[static_cast<std::size_t>(40 * b.scale_shape.blocks + 3)] = 0xFF;
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m * k));
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t i = 0; i < k; ++i) {
      const double v = (r % 4 == 0) ? 3.0 : std::ldexp(1.0 + static_cast<double>(rng() % 128) / 128.0,
                                                         static_cast<int>(rng() % 201) - 100);
      a[static_cast<std::size_t>(r * k + i)] = mx::f32_to_bf16_rne(static_cast<float>((i / 2 + r) % 3 ? v : -v));
    }
  for (std::int64_t r = 1; r < m; r += 4)  // rows 1, 5 ..: equal neighbours (cancel against B's pairs)
    for (std::int64_t i = 1; i < k; i += 2)
      a[static_cast<std::size_t>(r * k + i)] = a[static_cast<std::size_t>(r * k + i - 1)];
  std::vector<float> c(static_cast<std::size_t>(m * n));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = i % 3 == 0 ? 16777216.0f : i % 3 == 1 ? -1e30f : 0.5f;
  for (int cols : {2111, 2411, 2412, 2224, 2418, 32411, 32412, 102418, 302418, 302424, 132412, 332411, 2711, 2712, 2724, 2811, 2812, 2814, 2821, 2911, 2912,
                   3011, 3012, 3111, 6811, 6812, 6912, 7111, 0, 16})
    for (Fmt out : {Fmt::fp32, Fmt::bf16}) {
      SCOPED_TRACE("cols " + std::to_string(cols));
      check_w4(a, m, b, cols % 2 ? c.data() : nullptr, out, 0, cols);
    }
}

TEST(GemmGate, W4a16Specials) {
  REQUIRE_GPU();
  std::uint64_t seed = 600;
  for (int planted : {4, 40})
    for (Fmt out : {Fmt::fp32, Fmt::bf16}) run_w4({70, 140, 200, kDense, out, true, planted, 0}, seed++);
}

// The warp-specialized M > 64 kernels (TMA: rows of A, and of B for mxfp8,
// 16-byte aligned, i.e. K % 16 == 0 for mxfp8 and K % 8 == 0 for w4a16 here):
// ragged M, N and K against the tiles, rings that wrap, specials.
TEST(GemmGate, Mxfp8WarpSpecialized) {
  REQUIRE_GPU();
  std::uint64_t seed = 700;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{65, 129, 16}, {65, 129, 96},
                           {130, 257, 528}, {257, 300, 1040}, {128, 128, 2048}, {200, 64, 48},
                           {192, 136, 1088},   // 8 whole k-tiles, then a last one of 2 k-blocks
                           {1100, 2000, 160}})  // 144 tiles: blocks of the persistent kernel take two
      run_fp8({r, m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0,
               static_cast<int>(seed % 4 == 0 ? 40 : seed % 4)},
              seed++);
}

TEST(GemmGate, W4a16WarpSpecialized) {
  REQUIRE_GPU();
  std::uint64_t seed = 800;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{65, 129, 8}, {65, 129, 72},
                         {130, 257, 520}, {257, 300, 1000}, {300, 130, 2048}, {512, 64, 96},
                         // 3, 4, 5, 7 k-tiles: around the ring depths of cfg::W4Ws (SA, SB, RS)
                         {70, 136, 136}, {200, 250, 256}, {260, 140, 320}, {129, 131, 392}})
    for (int planted : {0, 4, 40})
      for (int bn : {0, 128})  // the warp-specialized kernel and the one without TMA
        run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, planted, bn},
               seed++);
}

// The register-A kernel (bn 512; bn 0 takes it too where cfg::W4RegA::ON)
// and the warp-specialized one (bn 256) on the same shapes:
// ragged M and N against the 256 x 128 tile, K = 31 / 32 (one partial
// k-tile), 95 (a ragged k-tile and k-block, nkb % 4 != 0), 1023 (16 k-tiles
// over 6 stages, K odd), whole k-tiles; planted NaN/Inf/-0/subnormal A values
// and 0xFF/0x00/0xFE/0x01 scales; dense and tcgen05 scales, with and without C.
TEST(GemmGate, W4a16RegisterA) {
  REQUIRE_GPU();
  std::uint64_t seed = 900;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{65, 129, 32}, {65, 129, 31},
                         {130, 257, 95}, {257, 300, 1023}, {300, 130, 2048}, {512, 64, 96}, {600, 260, 448},
                         {97, 513, 160}})
    for (int planted : {0, 4, 40})
      for (int bn : {512, 256})
        run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, planted, bn},
               seed++);
}

TEST(GemmGate, Errors) {
  REQUIRE_GPU();
  const auto x = random_matrix(4, 64, 1);
  const mx::Quantized a = quantize("mxfp8_e4m3", x, 4, 64, kDense);
  const mx::Quantized b5 = quantize("mxfp8_e5m2", x, 4, 64, kDense);
  const mx::Quantized b32 = quantize("mxfp8_e4m3", random_matrix(4, 32, 2), 4, 32, kDense);
  EXPECT_THROW(mxk::mxfp8_gemm_device(a, b5, nullptr, Fmt::fp32), mx::InvalidArgument);
  EXPECT_THROW(mxk::mxfp8_gemm_device(a, b32, nullptr, Fmt::fp32), mx::ShapeError);
  EXPECT_THROW(mxk::mxfp8_gemm_device(a, a, nullptr, Fmt::fp16), mx::InvalidArgument);
  EXPECT_THROW(mxk::w4a16_gemm_device(nullptr, 0, a, nullptr, Fmt::fp32), mx::InvalidArgument);
  const mx::Quantized b4 = quantize("mxfp4", x, 4, 64, kDense);
  const std::vector<std::uint16_t> a16(4 * 64, 0x3F80);
  EXPECT_THROW(mxk::w4a16_gemm_device(a16.data(), 4, b4, nullptr, Fmt::fp32, 0x7F, 0, 2999), mx::InvalidArgument);
  EXPECT_THROW(mxk::w4a16_gemm_device(a16.data(), 4, b4, nullptr, Fmt::fp32, 0x7F, 0, 2112), mx::InvalidArgument);
  EXPECT_THROW(mxk::w4a16_gemm_device(a16.data(), 4, b4, nullptr, Fmt::fp32, 0x7F, 0, 6048), mx::InvalidArgument);
  // the warp-specialized M <= 64 forms read A by TMA: rows of 2 K bytes, K = 60 is not a multiple of 16 bytes
  const mx::Quantized b60 = quantize("mxfp4", random_matrix(4, 60, 3), 4, 60, kDense);
  const std::vector<std::uint16_t> a60(4 * 60, 0x3F80);
  EXPECT_THROW(mxk::w4a16_gemm_device(a60.data(), 4, b60, nullptr, Fmt::fp32, 0x7F, 0, 6032), mx::InvalidArgument);
}

}  // namespace
