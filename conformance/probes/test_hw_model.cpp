// test_hw_model.cpp - reference/SPEC.md C9 hardware accumulation model:
// hand-computed cases and agreement with the exact dot product where no bits
// are cut (the checked-in H100 data: test_h100_data.cpp).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "mx/error.hpp"
#include "mx/hw_model.hpp"

namespace {

using mx::DotCase;
using mx::Elem;
using mx::HwModelParams;
using mx::HwRound;

std::uint32_t fb(float x) { return std::bit_cast<std::uint32_t>(x); }

DotCase bf16_case(std::initializer_list<float> a, std::initializer_list<float> b, float c) {
  DotCase d;
  for (float x : a) d.a.push_back(fb(x) >> 16);
  for (float x : b) d.b.push_back(fb(x) >> 16);
  d.c = fb(c);
  return d;
}

TEST(C9_HwModel, HandComputedAlignment) {
  HwModelParams p;  // group 32, 24 fraction bits, rz
  p.frac_bits = 24;
  // c = 1, p = 2^-30: cut away under rz (unit 2^-24).
  DotCase d = bf16_case({std::ldexp(1.0f, -15)}, {std::ldexp(1.0f, -15)}, 1.0f);
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), fb(1.0f)) << "C9: term below 2^-24 cut toward zero";
  // Negative tiny term under rd: -1 unit, 1 - 2^-24 then rz to 23 bits.
  d = bf16_case({-std::ldexp(1.0f, -15)}, {std::ldexp(1.0f, -15)}, 1.0f);
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), fb(1.0f));
  p.align = HwRound::rd;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), 0x3F7FFFFFu) << "C9: rd alignment makes -2^-30 one unit of 2^-24";
  // Final rounding: 1 + 2^-24 + 2^-25 is 1 under rz, 1 + 2^-23 under rne.
  p = HwModelParams{};
  p.frac_bits = 30;
  d = bf16_case({std::ldexp(1.0f, -12), std::ldexp(1.0f, -12)}, {std::ldexp(1.0f, -12), std::ldexp(1.0f, -13)}, 1.0f);
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), fb(1.0f));
  p.out_round = HwRound::rne;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), fb(1.0f) + 1);
  // out_mbits 13: 1 + 2^-13 + 2^-20 keeps 1 + 2^-13 only.
  p = HwModelParams{};
  p.out_mbits = 13;
  d = bf16_case({std::ldexp(1.0f, -7), std::ldexp(1.0f, -10)}, {std::ldexp(1.0f, -6), std::ldexp(1.0f, -10)}, 1.0f);
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), fb(1.0f + std::ldexp(1.0f, -13)));
}

TEST(C9_HwModel, GroupsRoundBetweenSteps) {
  // p0 = 2^16, p1 = -2^16, p2 = 2^-16: one group of 4 cuts p2 away (24 bits),
  // groups of 2 keep it (the first group cancels to 0).
  DotCase d = bf16_case({256.0f, -256.0f, std::ldexp(1.0f, -8), 0.0f}, {256.0f, 256.0f, std::ldexp(1.0f, -8), 0.0f}, 0.0f);
  HwModelParams p;
  p.group = 4;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), 0u);
  p.group = 2;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), fb(std::ldexp(1.0f, -16)));
}

TEST(C9_HwModel, H100Fp8MmaSyncAddsCLastWithRne) {
  // e5m2: p0 = (1.5 * 2^-12) * 2^-12 = 1.5 * 2^-24 and c = 1. Aligned with c
  // and cut (rz) it vanishes; summed from 0 and added by one RNE fp32 add
  // (the H100 mma.sync fp8 model) it rounds 1 up to 1 + 2^-23.
  DotCase d;
  d.a.assign(32, 0);
  d.b.assign(32, 0);
  d.a[0] = 0x0E;  // e5m2 1.5 * 2^-12 (exponent field 3, mantissa 10)
  d.b[0] = 0x0C;  // e5m2 2^-12
  d.c = fb(1.0f);
  const HwModelParams fp8 = mx::h100_fitted_model(mx::MmaForm::mma_e5m2_m16n8k32);
  EXPECT_TRUE(fp8.c_fadd_end);
  EXPECT_EQ(mx::hw_dot(fp8, Elem::e5m2, d), fb(1.0f) + 1);
  HwModelParams in_group = fp8;
  in_group.c_fadd_end = false;
  EXPECT_EQ(mx::hw_dot(in_group, Elem::e5m2, d), fb(1.0f));
  // The (k & 2) order: p0 = 2^16, p1 = -2^16, p2 = 2^-16 sit in different
  // groups (k = 2 runs in the second step), so 2^-16 survives; with p4
  // instead of p2 (same step as p0) it is cut.
  DotCase g;
  g.a.assign(32, 0);
  g.b.assign(32, 0);
  g.a[0] = 0x5C; g.b[0] = 0x5C;  // 2^8 * 2^8
  g.a[1] = 0xDC; g.b[1] = 0x5C;  // -2^8 * 2^8
  g.a[2] = 0x1C; g.b[2] = 0x1C;  // 2^-8 * 2^-8
  EXPECT_EQ(mx::hw_dot(fp8, Elem::e5m2, g), fb(std::ldexp(1.0f, -16)));
  std::swap(g.a[2], g.a[4]);
  std::swap(g.b[2], g.b[4]);
  EXPECT_EQ(mx::hw_dot(fp8, Elem::e5m2, g), 0u);
}

TEST(C9_HwModel, SpecialsPropagate) {
  HwModelParams p;
  DotCase d = bf16_case({INFINITY, 1.0f}, {1.0f, 1.0f}, 0.0f);
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, d), 0x7F800000u);
  d = bf16_case({INFINITY, INFINITY}, {1.0f, -1.0f}, 0.0f);
  EXPECT_TRUE(mx::same_result(mx::hw_dot(p, Elem::bf16, d), 0x7FC00000u));
  d = bf16_case({INFINITY}, {0.0f}, 0.0f);
  EXPECT_TRUE(mx::same_result(mx::hw_dot(p, Elem::bf16, d), 0x7FC00000u));
  DotCase e;
  e.a = {0x7F};  // e4m3 NaN
  e.b = {0x38};
  EXPECT_TRUE(mx::same_result(mx::hw_dot(p, Elem::e4m3, e), 0xFFFFFFFFu));
  EXPECT_FALSE(mx::same_result(0x7F800000u, 0x7FC00000u));
  EXPECT_THROW(mx::hw_dot(p, Elem::s8, e), mx::InvalidArgument);
}

TEST(C9_HwModel, WideModelEqualsExactWhenNothingIsCut) {
  // Narrow exponent range, 40 fraction bits, one group, RNE: no term loses a
  // bit, so the model must equal the exact C9 dot product.
  HwModelParams p;
  p.group = 32;
  p.frac_bits = 40;
  p.out_round = HwRound::rne;
  std::uint64_t s = 7;
  auto rnd = [&] { s = s * 6364136223846793005ull + 1442695040888963407ull; return s >> 33; };
  for (int t = 0; t < 2000; ++t) {
    DotCase d;
    for (int i = 0; i < 32; ++i) {
      d.a.push_back(((rnd() & 1) << 7) | ((5 + rnd() % 5) << 3) | (rnd() & 7));
      d.b.push_back(((rnd() & 1) << 7) | ((5 + rnd() % 5) << 3) | (rnd() & 7));
    }
    d.c = fb(static_cast<float>(static_cast<int>(rnd() % 2001) - 1000) / 64.0f);
    ASSERT_EQ(mx::hw_dot(p, Elem::e4m3, d), mx::exact_dot_rne(Elem::e4m3, d)) << "case " << t;
  }
}

TEST(C9_HwModel, FitRecoversAKnownModel) {
  HwModelParams truth;
  truth.group = 8;
  truth.frac_bits = 13;
  truth.out_mbits = 13;
  std::vector<DotCase> cs;
  std::uint64_t s = 11;
  auto rnd = [&] { s = s * 6364136223846793005ull + 1442695040888963407ull; return s >> 33; };
  for (int t = 0; t < 400; ++t) {
    DotCase d;
    for (int i = 0; i < 16; ++i) {
      d.a.push_back(((rnd() & 1) << 7) | ((1 + rnd() % 14) << 3) | (rnd() & 7));
      d.b.push_back(((rnd() & 1) << 7) | ((1 + rnd() % 14) << 3) | (rnd() & 7));
    }
    d.c = (static_cast<std::uint32_t>(rnd() & 1) << 31) | (static_cast<std::uint32_t>(110 + rnd() % 30) << 23) |
          static_cast<std::uint32_t>(rnd() & 0x7FFFFF);
    d.d = mx::hw_dot(truth, Elem::e4m3, d);
    cs.push_back(d);
  }
  const mx::HwFit fit = mx::fit_hw_model(Elem::e4m3, 16, cs, 2);
  ASSERT_FALSE(fit.exact.empty());
  bool found = false;
  for (const auto& p : fit.exact) found = found || p == truth;
  EXPECT_TRUE(found) << "best " << mx::to_string(fit.best);
}


// The checked-in H100 cases (<form>_cases.csv) are tested by
// test_h100_data.cpp, driven by h100/expected_files.txt.

// ---- mma.sync.m8n8k4.f64 (mx::HwModelF64) ------------------------------------

std::uint64_t db(double x) { return std::bit_cast<std::uint64_t>(x); }

mx::DotCaseF64 f64_case(std::initializer_list<std::pair<double, double>> ps, double c) {
  mx::DotCaseF64 cs;
  std::size_t k = 0;
  for (const auto& p : ps) {
    cs.a[k] = db(p.first);
    cs.b[k] = db(p.second);
    ++k;
  }
  cs.c = db(c);
  return cs;
}

TEST(C9_HwModelF64, CandidatesTellTheFeaturesApart) {
  using K = mx::HwModelF64::Kind;
  const mx::HwModelF64 fma{K::fma_chain, false, 0, false, HwRound::rne}, fma_r{K::fma_chain, true, 0, false, HwRound::rne},
      mul{K::mul_add, false, 0, false, HwRound::rne}, exact{K::fused, false, 0, false, HwRound::rne},
      exact_rz{K::fused, false, 0, false, HwRound::rz}, cut56{K::fused, false, 56, false, HwRound::rne};
  const double e52 = std::ldexp(1.0, -52), t60 = std::ldexp(1.0, -60);
  // Exact product: (1+2^-52)^2 - (1+2^-51) = 2^-104; a rounded product gives 0.
  const auto pe = f64_case({{1 + e52, 1 + e52}}, -(1 + 2 * e52));
  EXPECT_EQ(mx::hw_dot_f64(fma, pe), db(std::ldexp(1.0, -104)));
  EXPECT_EQ(mx::hw_dot_f64(exact, pe), db(std::ldexp(1.0, -104)));
  EXPECT_EQ(mx::hw_dot_f64(mul, pe), db(0.0));
  // Order: 1 - 1 + 2^-60 keeps 2^-60 in k order; reversed, -1 + 2^-60 rounds to -1 first.
  const auto ord = f64_case({{1, 1}, {-1, 1}, {t60, 1}}, 0.0);
  EXPECT_EQ(mx::hw_dot_f64(fma, ord), db(t60));
  EXPECT_EQ(mx::hw_dot_f64(fma_r, ord), db(0.0));
  const auto ord2 = f64_case({{t60, 1}, {1, 1}, {-1, 1}}, 0.0);
  EXPECT_EQ(mx::hw_dot_f64(fma, ord2), db(0.0));
  EXPECT_EQ(mx::hw_dot_f64(exact, ord2), db(t60));
  // Double rounding: 1 + 2^-53 + 2^-53 (two ties) vs exact 1 + 2^-52.
  const auto dr = f64_case({{std::ldexp(1.0, -53), 1}, {std::ldexp(1.0, -53), 1}}, 1.0);
  EXPECT_EQ(mx::hw_dot_f64(fma, dr), db(1.0));
  EXPECT_EQ(mx::hw_dot_f64(exact, dr), db(1 + e52));
  // Sticky bit far below: 1 + 2^-53 + 2^-80 rounds up exactly, not once cut to 56 bits.
  const auto st = f64_case({{std::ldexp(1.0, -53), 1}, {std::ldexp(1.0, -80), 1}}, 1.0);
  EXPECT_EQ(mx::hw_dot_f64(exact, st), db(1 + e52));
  EXPECT_EQ(mx::hw_dot_f64(cut56, st), db(1.0));
  EXPECT_EQ(mx::hw_dot_f64(exact_rz, f64_case({{-t60, 1}}, 1.0)), db(std::nextafter(1.0, 0.0)));
  // Gradual underflow: 2^-1075 + 2^-1075 = 2^-1074 exactly; each alone rounds to 0 (tie to even).
  const double h = std::ldexp(1.0, -538), g = std::ldexp(1.0, -537);
  const auto uf = f64_case({{h, g}, {h, g}}, 0.0);
  EXPECT_EQ(mx::hw_dot_f64(exact, uf), 1u);
  EXPECT_EQ(mx::hw_dot_f64(fma, uf), 0u);
  // Specials and overflow.
  const double inf = std::numeric_limits<double>::infinity(), mx_ = std::numeric_limits<double>::max();
  EXPECT_TRUE(mx::same_result_f64(mx::hw_dot_f64(exact, f64_case({{inf, 0.0}}, 0.0)), 0x7FF8000000000000ull));
  EXPECT_EQ(mx::hw_dot_f64(exact, f64_case({{inf, 1.0}}, 1.0)), db(inf));
  EXPECT_EQ(mx::hw_dot_f64(exact, f64_case({{std::ldexp(1.0, 485), std::ldexp(1.0, 485)}}, mx_)), db(inf));
  EXPECT_EQ(mx::hw_dot_f64(exact_rz, f64_case({{std::ldexp(1.0, 485), std::ldexp(1.0, 485)}}, mx_)), db(mx_));
  EXPECT_EQ(mx::hw_dot_f64(exact, f64_case({{-0.0, 1.0}, {-0.0, 1.0}, {-0.0, 1.0}, {-0.0, 1.0}}, -0.0)), db(-0.0));
  EXPECT_EQ(mx::hw_dot_f64(exact, f64_case({{1.0, 1.0}}, -1.0)), db(0.0));
}

TEST(C9_HwModelF64, ExactModelAgreesWithFmaWhenOneTermIsNonzero) {
  // With a single nonzero product and c, every candidate is one correctly
  // rounded operation: fused exact, fma chains and fused groups agree.
  std::uint64_t s = 7;
  auto rnd = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s;
  };
  for (int i = 0; i < 20000; ++i) {
    mx::DotCaseF64 cs;
    const int k = static_cast<int>(rnd() % 4);
    auto val = [&](int span) {
      const std::uint64_t e = static_cast<std::uint64_t>(1023 + static_cast<int>(rnd() % (2 * span + 1)) - span);
      return (rnd() & (std::uint64_t{1} << 63)) | (e << 52) | (rnd() & ((std::uint64_t{1} << 52) - 1));
    };
    cs.a[k] = val(500);
    cs.b[k] = val(500);
    cs.c = val(1000);
    const std::uint64_t want = db(std::fma(std::bit_cast<double>(cs.a[k]), std::bit_cast<double>(cs.b[k]),
                                           std::bit_cast<double>(cs.c)));
    for (const auto& p : mx::hw_f64_candidates()) {
      if (p.kind == mx::HwModelF64::Kind::mul_add || p.frac_bits != 0 || p.out_round != HwRound::rne || p.c_end)
        continue;
      ASSERT_TRUE(mx::same_result_f64(mx::hw_dot_f64(p, cs), want)) << mx::to_string(p) << " case " << i;
    }
  }
}

}  // namespace
