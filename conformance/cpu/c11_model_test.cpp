// c11_model_test.cpp - the C11 models (reference/SPEC.md C11): the block
// scale s, the e2m1 -> bf16 widening, hand-worked GEMM elements, agreement
// with C9 `exact` where no rounding can occur, and the H100 wgmma hardware
// cases checked in under conformance/probes/h100 (C9 hardware models).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/gemm.hpp"
#include "mx/gemm_c11.hpp"

namespace {

using mx::bits_f32;
using mx::C11Operand;
using mx::f32_bits;
using mx::Fmt;

C11Operand op(Fmt e, std::int64_t rows, std::int64_t k, std::vector<std::uint8_t> codes,
              std::vector<std::uint8_t> scales) {
  C11Operand o;
  o.elem = e;
  o.rows = rows;
  o.k = k;
  o.nkb = (k + 31) / 32;
  o.codes = std::move(codes);
  o.scales = std::move(scales);
  EXPECT_EQ(o.codes.size(), static_cast<std::size_t>(rows * k));
  EXPECT_EQ(o.scales.size(), static_cast<std::size_t>(rows * o.nkb));
  return o;
}

// One row of K codes: `first` at the given positions, zero elsewhere.
std::vector<std::uint8_t> row(std::int64_t k, std::vector<std::pair<int, std::uint8_t>> set) {
  std::vector<std::uint8_t> r(static_cast<std::size_t>(k), 0);
  for (auto [i, c] : set) r[static_cast<std::size_t>(i)] = c;
  return r;
}

std::uint32_t mxfp8_1x1(Fmt e, std::int64_t k, const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& sa,
                        const std::vector<std::uint8_t>& b, const std::vector<std::uint8_t>& sb, float c,
                        Fmt out = Fmt::fp32) {
  const C11Operand A = op(e, 1, k, a, sa), B = op(e, 1, k, b, sb);
  return mx::c11_mxfp8_gemm(A, B, &c, out)[0];
}

// ---- s (C11 worked values, and glibc's ldexpf for every pair) ----------------

TEST(C11_Scale, WorkedValues) {
  EXPECT_EQ(f32_bits(mx::c11_block_scale(127, 127)), 0x3f800000u);
  EXPECT_EQ(f32_bits(mx::c11_block_scale(127, 0)), 0x00400000u);
  EXPECT_EQ(f32_bits(mx::c11_block_scale(100, 30)), 0x01800000u);
  EXPECT_EQ(f32_bits(mx::c11_block_scale(55, 50)), 0x00000001u);
  EXPECT_EQ(f32_bits(mx::c11_block_scale(54, 50)), 0x00000000u);
  EXPECT_EQ(f32_bits(mx::c11_block_scale(254, 127)), 0x7f000000u);
  EXPECT_EQ(f32_bits(mx::c11_block_scale(200, 200)), 0x7f800000u);
  EXPECT_TRUE(std::isnan(mx::c11_block_scale(255, 1)));
  EXPECT_TRUE(std::isnan(mx::c11_block_scale(0, 255)));
}

TEST(C11_Scale, EqualsLdexpfForEveryPair) {
  for (int a = 0; a < 255; ++a)
    for (int b = 0; b < 255; ++b) {
      const float want = std::ldexp(1.0f, a + b - 254);  // glibc, RNE: 2^-150 -> 0
      ASSERT_EQ(f32_bits(mx::c11_block_scale(static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b))),
                f32_bits(want))
          << a << "," << b;
    }
}

// ---- widening (C11 w4a16) -----------------------------------------------------

TEST(C11_Widen, HandValues) {
  EXPECT_EQ(mx::c11_widen_e2m1(0x1, 127), 0x3f00);  // 0.5
  EXPECT_EQ(mx::c11_widen_e2m1(0xF, 127), 0xc0c0);  // -6
  EXPECT_EQ(mx::c11_widen_e2m1(0x3, 254), 0x7f40);  // 1.5 * 2^127, the largest finite
  EXPECT_EQ(mx::c11_widen_e2m1(0x4, 254), 0x7f80);  // 2 * 2^127 = 2^128 -> +Inf
  EXPECT_EQ(mx::c11_widen_e2m1(0xF, 254), 0xff80);  // -6 * 2^127 -> -Inf
  EXPECT_EQ(mx::c11_widen_e2m1(0x1, 0), 0x0020);    // 2^-128 = 32 * 2^-133 (bf16 subnormal)
  EXPECT_EQ(mx::c11_widen_e2m1(0xB, 0), 0x8060);    // -1.5 * 2^-127 = -96 * 2^-133
  EXPECT_EQ(mx::c11_widen_e2m1(0x8, 127), 0x8000);  // -0
  EXPECT_EQ(mx::c11_widen_e2m1(0x0, 255), 0x7fc0);  // NaN scale: NaN even for 0
  EXPECT_EQ(mx::c11_widen_e2m1(0x2, 130), 0x4100);  // 1 * 2^3 = 8
}

// ---- mxfp8 hand-worked elements (e4m3: 1 = 0x38, 256 = 0x78, 2^-6 = 0x08,
// 2^-8 = 0x02, -0 = 0x80; e5m2: 1 = 0x3c) ---------------------------------------

TEST(C11_Mxfp8, HandWorked) {
  const std::vector<std::uint8_t> s1{127}, s2{127, 127};
  // 32 ones x 32 ones, s = 1: p = 32 -> 0x42000000.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, std::vector<std::uint8_t>(32, 0x38), s1, std::vector<std::uint8_t>(32, 0x38), s1,
                      0.0f),
            0x42000000u);
  // K = 64, block scales A (128, 126), B (127, 127): 32 * 2 + 32 * 0.5 = 80.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 64, std::vector<std::uint8_t>(64, 0x38), {128, 126},
                      std::vector<std::uint8_t>(64, 0x38), s2, 0.0f),
            0x42a00000u);
  // 256*1 + 2^-6*1: the largest exponent-field sum is 8, 13 bits below it
  // keep multiples of 2^-5, so 2^-6 is cut: p = 256 (C9 exact: 256 + 2^-6).
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, row(32, {{0, 0x78}, {1, 0x08}}), s1, row(32, {{0, 0x38}, {1, 0x38}}), s1, 0.0f),
            0x43800000u);
  // Same block with K = 20 (ragged, zero-padded): identical.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 20, row(20, {{0, 0x78}, {1, 0x08}}), s1, row(20, {{0, 0x38}, {1, 0x38}}), s1, 0.0f),
            0x43800000u);
  // 1 + 2^-6 (kept: E = 0, resolution 2^-13) times s = 2^-24 (127 + 103 -
  // 254), plus C = 1: one fmaf, 1 + 2^-24 + 2^-30 rounds up to 1 + 2^-23.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, row(32, {{0, 0x38}, {1, 0x08}}), s1, row(32, {{0, 0x38}, {1, 0x38}}), {103},
                      1.0f),
            0x3f800001u);
  // One fmaf, not a rounded product then a sum: C = 2^-149, p = 1.5 (e4m3
  // 0x3c = 1.5 times 1), s = 2^-149 (55 + 50 - 254): 2^-149 + 1.5 * 2^-149
  // = 2.5 * 2^-149 ties to 2 * 2^-149 (0x00000002); rounding p * s first
  // would give 2 * 2^-149 + 2^-149 = 0x00000003.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, row(32, {{0, 0x3c}}), {55}, row(32, {{0, 0x38}}), {50}, bits_f32(1)),
            0x00000002u);
  // All-zero block times s = +Inf (200 + 200): fmaf(0, Inf, acc) = NaN
  // (C9 exact would give 0); written as the canonical NaN.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, row(32, {}), {200}, row(32, {}), {200}, 5.0f), 0x7fc00000u);
  // s below 2^-149 (50 + 50 - 254 = -154) is 0: C = 3 is returned untouched.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, std::vector<std::uint8_t>(32, 0x38), {50}, std::vector<std::uint8_t>(32, 0x38),
                      {50}, 3.0f),
            0x40400000u);
  // 0xff scale: NaN.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, std::vector<std::uint8_t>(32, 0x38), {255}, std::vector<std::uint8_t>(32, 0x38),
                      s1, 0.0f),
            0x7fc00000u);
  // C = -0, one product 1 * -0: the block from +0 gives +0, fmaf(+0, 1, -0)
  // = +0 (C9 exact: every term -0, so -0).
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, row(32, {{0, 0x38}}), s1, row(32, {{0, 0x80}}), s1, -0.0f), 0x00000000u);
  // bf16 output: 1 + 2^-8 (2^-8 is the e4m3 subnormal 0x02, kept) is a tie
  // between bf16 1 and 1 + 2^-7: RNE gives 1.0 (0x3f80); fp32 keeps it.
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, row(32, {{0, 0x38}, {1, 0x02}}), s1, row(32, {{0, 0x38}, {1, 0x38}}), s1, 0.0f,
                      Fmt::bf16),
            0x3f80u);
  EXPECT_EQ(mxfp8_1x1(Fmt::e4m3, 32, row(32, {{0, 0x38}, {1, 0x02}}), s1, row(32, {{0, 0x38}, {1, 0x38}}), s1, 0.0f),
            0x3f808000u);
  // e5m2: 32 ones (0x3c) against 32 ones, s = 2^-2 (126 + 126): 8.
  EXPECT_EQ(mxfp8_1x1(Fmt::e5m2, 32, std::vector<std::uint8_t>(32, 0x3c), {126}, std::vector<std::uint8_t>(32, 0x3c),
                      {126}, 0.0f),
            0x41000000u);
  // e5m2 Inf (0x7c) times 1 -> +Inf; plus C = -Inf -> NaN.
  EXPECT_EQ(mxfp8_1x1(Fmt::e5m2, 32, row(32, {{3, 0x7c}}), s1, row(32, {{3, 0x3c}}), s1, 0.0f), 0x7f800000u);
  EXPECT_EQ(mxfp8_1x1(Fmt::e5m2, 32, row(32, {{3, 0x7c}}), s1, row(32, {{3, 0x3c}}), s1, -INFINITY), 0x7fc00000u);
}

// ---- w4a16 hand-worked elements (bf16 1 = 0x3f80; e2m1 1 = 0x2, 1.5 = 0x3) ------

std::uint32_t w4a16_1x1(std::int64_t k, const std::vector<std::uint16_t>& a, const std::vector<std::uint8_t>& b,
                        const std::vector<std::uint8_t>& sb, float c, Fmt out = Fmt::fp32) {
  const C11Operand B = op(Fmt::e2m1, 1, k, b, sb);
  return mx::c11_w4a16_gemm(a.data(), 1, B, &c, out)[0];
}

TEST(C11_W4a16, HandWorked) {
  // K = 20 ones against e2m1 1 at scale 127: 20 (two k-steps, the second
  // zero-padded) -> 0x41a00000; at scale 128 each B is 2: 40.
  EXPECT_EQ(w4a16_1x1(20, std::vector<std::uint16_t>(20, 0x3f80), std::vector<std::uint8_t>(20, 0x2), {127}, 0.0f),
            0x41a00000u);
  EXPECT_EQ(w4a16_1x1(20, std::vector<std::uint16_t>(20, 0x3f80), std::vector<std::uint8_t>(20, 0x2), {128}, 0.0f),
            0x42200000u);
  // C = 2^24, one product 1 * 1.5 in each of two k-steps (k = 0 and k =
  // 16): each step aligns on 2^24 (25 bits keep 2^-1), 2^24 + 1.5 is cut
  // toward zero to 2^24, twice: 0x4b800000. C9 exact: 2^24 + 3 -> RNE
  // 2^24 + 4 (0x4b800002).
  std::vector<std::uint16_t> a(32, 0);
  a[0] = a[16] = 0x3f80;
  std::vector<std::uint8_t> b(32, 0);
  b[0] = b[16] = 0x3;
  EXPECT_EQ(w4a16_1x1(32, a, b, {127}, 16777216.0f), 0x4b800000u);
  const C11Operand B = op(Fmt::e2m1, 1, 32, b, {127});
  const float c = 16777216.0f;
  EXPECT_EQ(mx::c11_w4a16_exact(a.data(), 1, B, &c)[0], 0x4b800002u);
  // 1 * 1 + 2^-20 * 1 (bf16 2^-20 = 0x3580): 25 bits below 2^0 keep 2^-20,
  // so 1 + 2^-20 = 0x3f800008 (the fp8 model's 13 bits would give 1.0).
  {
    std::vector<std::uint16_t> a2(16, 0);
    a2[0] = 0x3f80;
    a2[1] = 0x3580;
    EXPECT_EQ(w4a16_1x1(16, a2, row(16, {{0, 0x2}, {1, 0x2}}), {127}, 0.0f), 0x3f800008u);
  }
  // 0xff scale: NaN.
  EXPECT_EQ(w4a16_1x1(20, std::vector<std::uint16_t>(20, 0x3f80), std::vector<std::uint8_t>(20, 0x2), {255}, 0.0f),
            0x7fc00000u);
  // B widened to +Inf (e2m1 2 at scale 254) times A = 1: +Inf; bf16 +Inf.
  EXPECT_EQ(w4a16_1x1(16, std::vector<std::uint16_t>(16, 0x3f80), std::vector<std::uint8_t>(16, 0x4), {254}, 0.0f, Fmt::bf16), 0x7f80u);
}

// ---- agreement with C9 exact where nothing can round ----------------------------
// Small integer elements, scales 127/128: every block sum is an integer
// below 2^12 (13 bits are plenty), every p * s and running sum an integer
// below 2^24, so the model must equal C9 `exact` (mx::exact_gemm) bit for bit.

std::uint8_t e4m3_int(int v) {  // e4m3 code of a small integer |v| <= 8
  return static_cast<std::uint8_t>(mx::encode(Fmt::e4m3, static_cast<float>(v)));
}

TEST(C11_Mxfp8, EqualsExactOnSmallIntegers) {
  std::mt19937 rng(11);
  for (Fmt e : {Fmt::e4m3, Fmt::e5m2}) {
    for (std::int64_t k : {1, 31, 32, 33, 96, 200}) {
      const std::int64_t M = 5, N = 7, nkb = (k + 31) / 32;
      std::vector<std::uint8_t> ca(static_cast<std::size_t>(M * k)), cb(static_cast<std::size_t>(N * k));
      std::vector<std::uint8_t> sa(static_cast<std::size_t>(M * nkb)), sb(static_cast<std::size_t>(N * nkb));
      auto code = [&] {
        const int v = static_cast<int>(rng() % 17) - 8;
        return e == Fmt::e4m3 ? e4m3_int(v) : static_cast<std::uint8_t>(mx::encode(Fmt::e5m2, static_cast<float>(v)));
      };
      for (auto& x : ca) x = code();
      for (auto& x : cb) x = code();
      for (auto& x : sa) x = static_cast<std::uint8_t>(127 + rng() % 2);
      for (auto& x : sb) x = static_cast<std::uint8_t>(127 + rng() % 2);
      std::vector<float> c(static_cast<std::size_t>(M * N));
      for (auto& x : c) x = static_cast<float>(static_cast<int>(rng() % 2001) - 1000);
      const C11Operand A = op(e, M, k, ca, sa), B = op(e, N, k, cb, sb);
      const auto model = mx::c11_mxfp8_gemm(A, B, c.data(), Fmt::fp32, 2);
      const auto exact = mx::exact_gemm(A.view(), B.view(), c.data());
      for (std::size_t i = 0; i < model.size(); ++i)
        ASSERT_EQ(model[i], f32_bits(exact[i])) << "k=" << k << " i=" << i;
    }
  }
}

TEST(C11_W4a16, EqualsExactOnSmallIntegers) {
  std::mt19937 rng(12);
  for (std::int64_t k : {1, 15, 16, 17, 33, 100}) {
    const std::int64_t M = 4, N = 6, nkb = (k + 31) / 32;
    std::vector<std::uint16_t> a(static_cast<std::size_t>(M * k));
    for (auto& x : a) x = mx::f32_to_bf16_rne(static_cast<float>(static_cast<int>(rng() % 17) - 8));
    std::vector<std::uint8_t> cb(static_cast<std::size_t>(N * k)), sb(static_cast<std::size_t>(N * nkb));
    for (auto& x : cb) x = static_cast<std::uint8_t>(rng() % 16);
    for (auto& x : sb) x = static_cast<std::uint8_t>(127 + rng() % 2);
    std::vector<float> c(static_cast<std::size_t>(M * N), 0.0f);
    for (auto& x : c) x = static_cast<float>(static_cast<int>(rng() % 2001) - 1000);
    const C11Operand B = op(Fmt::e2m1, N, k, cb, sb);
    const auto model = mx::c11_w4a16_gemm(a.data(), M, B, c.data(), Fmt::fp32, 2);
    // Second reference: the plain double sum (every term a multiple of 2^-1
    // below 2^16, exact in double) rounded to fp32.
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t n = 0; n < N; ++n) {
        double sum = c[static_cast<std::size_t>(m * N + n)];
        for (std::int64_t i = 0; i < k; ++i)
          sum += static_cast<double>(mx::bits_f32(std::uint32_t{a[static_cast<std::size_t>(m * k + i)]} << 16)) *
                 static_cast<double>(mx::bits_f32(std::uint32_t{mx::c11_widen_e2m1(
                                                      cb[static_cast<std::size_t>(n * k + i)],
                                                      sb[static_cast<std::size_t>(n * nkb + i / 32)])}
                                                  << 16));
        float want = static_cast<float>(sum);
        if (want == 0.0f) want = 0.0f;  // an exact zero sum of mixed terms is +0
        ASSERT_EQ(model[static_cast<std::size_t>(m * N + n)], f32_bits(want)) << "k=" << k;
      }
  }
}

// ---- the H100 hardware cases (conformance/probes/h100) ---------------------------
// A wgmma case with C = +0 is one mxfp8 k-block with s = 1 and C = +0:
// fmaf(p, 1, +0) = p, so the C11 element must be the hardware's d (a NaN as
// the canonical NaN; a -0 becomes +0). The bf16 cases check that C11's bf16
// parameters are the fitted ones (all cases, C included).

std::vector<std::uint8_t> hex_bytes(const std::string& s) {
  std::vector<std::uint8_t> v;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2) v.push_back(static_cast<std::uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return v;
}

struct HwCase {
  std::string kind, a, b;
  std::uint32_t c = 0, d = 0;
};
std::vector<HwCase> read_cases(const std::string& stem) {
  std::ifstream in(std::filesystem::path(MX_PROBES_H100_DIR) / (stem + "_cases.csv"));
  EXPECT_TRUE(in.good()) << stem;
  std::vector<HwCase> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    HwCase h;
    std::string c, d;
    std::getline(ss, h.kind, ',');
    std::getline(ss, h.a, ',');
    std::getline(ss, h.b, ',');
    std::getline(ss, c, ',');
    std::getline(ss, d, ',');
    h.c = static_cast<std::uint32_t>(std::stoul(c, nullptr, 16));
    h.d = static_cast<std::uint32_t>(std::stoul(d, nullptr, 16));
    out.push_back(h);
  }
  return out;
}

TEST(C11_Mxfp8, H100WgmmaE4m3CasesWithZeroC) {
  for (const char* stem : {"wgmma_m64n8k32_e4m3_ss", "wgmma_m64n8k32_e4m3_rs"}) {
    int used = 0;
    for (const HwCase& h : read_cases(stem)) {
      if (h.c != 0) continue;
      const auto a = hex_bytes(h.a), b = hex_bytes(h.b);
      ASSERT_EQ(a.size(), 32u);
      const std::uint32_t got = mxfp8_1x1(Fmt::e4m3, 32, a, {127}, b, {127}, 0.0f);
      std::uint32_t want = h.d;
      if ((want & 0x7F800000u) == 0x7F800000u && (want & 0x7FFFFFu)) want = 0x7fc00000u;
      if (want == 0x80000000u) want = 0;
      EXPECT_EQ(got, want) << stem << " " << h.kind << " a=" << h.a << " b=" << h.b;
      ++used;
    }
    EXPECT_GT(used, 400) << stem;  // 429 / 425 cases with C = +0
  }
}

TEST(C11_W4a16, H100WgmmaBf16CasesUnderC11Params) {
  const mx::HwModelParams p = mx::c11_bf16_params();
  for (const char* stem : {"wgmma_m64n8k16_bf16_ss", "wgmma_m64n8k16_bf16_rs"}) {
    int used = 0;
    for (const HwCase& h : read_cases(stem)) {
      mx::DotCase cs;
      const auto a = hex_bytes(h.a), b = hex_bytes(h.b);
      ASSERT_EQ(a.size(), 32u);
      for (std::size_t i = 0; i < 16; ++i) {
        cs.a.push_back(std::uint64_t{a[2 * i]} << 8 | a[2 * i + 1]);
        cs.b.push_back(std::uint64_t{b[2 * i]} << 8 | b[2 * i + 1]);
      }
      cs.c = h.c;
      EXPECT_TRUE(mx::same_result(mx::hw_dot(p, mx::Elem::bf16, cs), h.d)) << stem << " " << h.kind;
      ++used;
    }
    EXPECT_GT(used, 1500) << stem;
  }
}

// The w4a16 kernel pads K to a multiple of 64 (four k-steps per tile); the
// model pads to 16. Extra all-zero k-steps must not change the model's
// result: random rows with NaN/Inf/subnormal bf16, every e2m1 code, scales
// 0, 0xfe, 0xff and C = -0, subnormal, Inf.
TEST(C11_W4a16, ExtraZeroStepsAreNoOps) {
  std::mt19937 rng(13);
  const mx::HwModelParams p = mx::c11_bf16_params();
  const std::uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x8040, 0x7f80, 0xff80, 0x7fc0, 0x7f7f, 0x3f80, 0xbf80};
  const std::uint32_t cs_[] = {0x80000000u, 0x00000000u, 0x00000001u, 0x80400000u, 0x7f800000u, 0x3f800000u,
                               0xcb800000u, 0x7f7fffffu};
  int checked = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const std::int64_t k = 1 + static_cast<std::int64_t>(rng() % 70);
    const std::int64_t nkb = (k + 31) / 32;
    std::vector<std::uint16_t> a(static_cast<std::size_t>(k));
    for (auto& x : a) {
      const auto r = rng() % 8;
      x = r == 0 ? specials[rng() % 10] : r < 3 ? std::uint16_t{0} : static_cast<std::uint16_t>(rng() & 0xFFFF);
    }
    std::vector<std::uint8_t> b(static_cast<std::size_t>(k)), sb(static_cast<std::size_t>(nkb));
    for (auto& x : b) x = static_cast<std::uint8_t>(rng() % 4 == 0 ? (rng() % 2) * 8 : rng() % 16);
    for (auto& x : sb) {
      const auto r = rng() % 10;
      x = static_cast<std::uint8_t>(r == 0 ? 0 : r == 1 ? 0xfe : r == 2 ? 0xff : 100 + rng() % 55);
    }
    const float c = mx::bits_f32(rng() % 2 ? cs_[rng() % 8] : static_cast<std::uint32_t>(rng()));
    const C11Operand B = op(Fmt::e2m1, 1, k, b, sb);
    const float model = mx::c11_w4a16_acc(a.data(), B, 0, c);
    mx::DotCase cs;
    const std::int64_t k64 = (k + 63) / 64 * 64;
    cs.a.assign(static_cast<std::size_t>(k64), 0);
    cs.b.assign(static_cast<std::size_t>(k64), 0);
    for (std::int64_t i = 0; i < k; ++i) {
      cs.a[static_cast<std::size_t>(i)] = a[static_cast<std::size_t>(i)];
      cs.b[static_cast<std::size_t>(i)] = mx::c11_widen_e2m1(b[static_cast<std::size_t>(i)], sb[static_cast<std::size_t>(i / 32)]);
    }
    cs.c = f32_bits(c);
    ASSERT_TRUE(mx::same_result(f32_bits(model), mx::hw_dot(p, mx::Elem::bf16, cs)))
        << "k=" << k << " c=" << std::hex << cs.c << " model " << f32_bits(model);
    ++checked;
  }
  EXPECT_EQ(checked, 3000);
}

}  // namespace
