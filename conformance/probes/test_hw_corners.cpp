// test_hw_corners.cpp - reference/SPEC.md C9 "hardware models": the corners
// measured on the H100 below 2^-126 (issue 13), as hand-written cases.
//
// Rows A-D are single bf16 wgmma k-steps (m64n8k16, A in shared memory or in
// registers; a and b as 16 bf16 codes, k = 0 first; c as fp32 bits). The
// expected d is the value the H100 returned for that k-step (traced on the
// hardware by a second, independent implementation; issue 13's table). Each
// row is worked out by hand below, so the expected bits do not come from the
// model under test.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <vector>

#include "mx/hw_model.hpp"

namespace {

using mx::DotCase;
using mx::Elem;
using mx::HwModelParams;
using mx::HwRound;
using mx::MmaForm;

DotCase k16(std::vector<std::uint64_t> a, std::vector<std::uint64_t> b, std::uint32_t c) {
  DotCase d;
  d.a = std::move(a);
  d.b = std::move(b);
  d.c = c;
  return d;
}

const std::vector<std::uint64_t> kRowAB_a = {0x8000, 0x0000, 0x8000, 0x8080, 0x0000, 0x8000, 0x8000, 0x8000,
                                             0x0003, 0x8000, 0x0000, 0x0000, 0x0000, 0x0000, 0x8000, 0x0000};

void expect_both_bf16_wgmma(const DotCase& cs, std::uint32_t h100, const char* row) {
  for (MmaForm f : {MmaForm::wgmma_bf16_m64n8k16_ss, MmaForm::wgmma_bf16_m64n8k16_rs}) {
    const HwModelParams p = mx::h100_fitted_model(f);
    EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), h100) << row << " " << mx::form_info(f).name << " " << mx::to_string(p);
  }
}

// A: the only nonzero product is k = 3: 0x8080 (-2^-126) * 0x0c80 (2^-102) =
// -2^-228 (k = 0, 13, 14: zero products). The exact sum -2^-228 is far below
// 2^-149 and is cut to zero; the H100 returns +0 (00000000), not -0.
TEST(C9_HwCorners, A_NonzeroSumCutToZeroIsPlusZero) {
  const DotCase cs = k16(kRowAB_a,
                         {0x0c80, 0x0000, 0x0000, 0x0c80, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
                          0x0000, 0x0000, 0x0c00, 0x0c00, 0x0000},
                         0x00000000u);
  expect_both_bf16_wgmma(cs, 0x00000000u, "row A");
  // The exact C9 result is -0 (a negative value rounds to -0): the corner is
  // the hardware's, not IEEE's.
  EXPECT_EQ(mx::exact_dot_rne(Elem::bf16, cs), 0x80000000u);
}

// B: c = 0x00000400 = 2^-139 (subnormal); the only nonzero product is k = 3:
// 0x8080 (-2^-126) * 0x2c80 (2^-38) = -2^-164. Aligned on C's exponent field
// (2^-126) with 25 bits kept, the unit is 2^-151 and -2^-164 is cut away:
// d = 2^-139 = 00000400 (H100). Aligned on C's leading bit (2^-139) the
// product would survive and give 2^-139 - 2^-164, cut to 000003ff.
TEST(C9_HwCorners, B_SubnormalCAlignedOnItsExponentField) {
  const DotCase cs = k16(kRowAB_a,
                         {0x2d00, 0x0000, 0x2d00, 0x2c80, 0x2d00, 0x0000, 0x0000, 0x2c80, 0x0000, 0x2c80, 0x0000,
                          0x2c80, 0x0000, 0x0000, 0x2d00, 0x2c80},
                         0x00000400u);
  expect_both_bf16_wgmma(cs, 0x00000400u, "row B");
  // 2^-139 - 2^-164 is 1023.99997 units of 2^-149: cut toward zero it is
  // 3ff, which is what a model that keeps the product gives.
  HwModelParams wide = mx::h100_fitted_model(MmaForm::wgmma_bf16_m64n8k16_ss);
  wide.frac_bits = 40;
  EXPECT_EQ(mx::hw_dot(wide, Elem::bf16, cs), 0x000003ffu);
}

// C: c = -0, every a = 0x8000 (-0) and every b positive: 16 products -0.
// The H100 returns +0.
TEST(C9_HwCorners, C_MinusZeroCWithAllProductsMinusZeroIsPlusZero) {
  const DotCase cs = k16(std::vector<std::uint64_t>(16, 0x8000),
                         {0x0180, 0x0000, 0x01c0, 0x0200, 0x0080, 0x0180, 0x0000, 0x0200, 0x0140, 0x01c0, 0x01c0,
                          0x0000, 0x01c0, 0x0140, 0x0240, 0x01c0},
                         0x80000000u);
  expect_both_bf16_wgmma(cs, 0x00000000u, "row C");
  EXPECT_EQ(mx::exact_dot_rne(Elem::bf16, cs), 0x80000000u);  // IEEE: -0 + (-0) = -0
}

// D: every exponent field <= 1. Nonzero products: k = 1: 0x8001 (-2^-133) *
// 0x0040 (2^-127) = -2^-260; k = 13: 0x0001 (2^-133) * 0x0080 (2^-126) =
// 2^-259. Sum 2^-260 > 0, far below 2^-149: cut to +0 (H100: 00000000). The
// model used to shift a 128-bit integer by 128 here (undefined behaviour)
// and return 00020000.
TEST(C9_HwCorners, D_AllExponentFieldsAtMostOne) {
  const DotCase cs = k16({0x8080, 0x8001, 0x8001, 0x8000, 0x0000, 0x0000, 0x0000, 0x8001, 0x0000, 0x0080, 0x0000,
                          0x8000, 0x0000, 0x0001, 0x0000, 0x0080},
                         {0x0000, 0x0040, 0x0000, 0x0080, 0x0000, 0x0040, 0x0080, 0x0000, 0x0040, 0x0000, 0x0000,
                          0x0040, 0x0080, 0x0080, 0x0080, 0x0000},
                         0x00000000u);
  expect_both_bf16_wgmma(cs, 0x00000000u, "row D");
  EXPECT_EQ(mx::exact_dot_rne(Elem::bf16, cs), 0x00000000u);
}

// Rounding far below the last place: a group sum of 2^-260 under each
// rounding mode (the shift of 128 bits and more in the model's rounding).
TEST(C9_HwCorners, TinySumsRoundUnderEveryMode) {
  DotCase cs = k16(std::vector<std::uint64_t>(16, 0), std::vector<std::uint64_t>(16, 0), 0);
  cs.a[0] = 0x0001;  // 2^-133
  cs.b[0] = 0x0040;  // 2^-127: product 2^-260
  HwModelParams p = mx::h100_fitted_model(MmaForm::wgmma_bf16_m64n8k16_ss);
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), 0u);
  p.out_round = HwRound::rne;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), 0u);
  p.out_round = HwRound::rd;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), 0u);
  cs.a[0] = 0x8001;  // -2^-260 rounds down to -2^-149 under rd, to +0 under rz and rne
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), 0x80000001u);
  p.out_round = HwRound::rz;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), 0u);
}

// C added after the group (a grid candidate): acc = 2^100 and a group of
// 2^-144 are 244 bits apart (the old code shifted an __int128 by 245 bits).
TEST(C9_HwCorners, AccumulatorAfterGroupFarAboveTheGroup) {
  HwModelParams p;
  p.group = 16;
  p.c_in_group = false;
  p.out_round = HwRound::rne;
  DotCase cs = k16(std::vector<std::uint64_t>(16, 0), std::vector<std::uint64_t>(16, 0),
                   std::bit_cast<std::uint32_t>(std::ldexp(1.0f, 100)));
  cs.a[0] = 0x1b80;  // 2^-72
  cs.b[0] = 0x1b80;  // product 2^-144, 244 bits below C
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), std::bit_cast<std::uint32_t>(std::ldexp(1.0f, 100)));
  p.out_round = HwRound::rd;
  cs.a[0] = 0x9b80;  // -2^-144: rd takes 2^100 one place down
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), std::bit_cast<std::uint32_t>(std::ldexp(1.0f, 100)) - 1);
}

}  // namespace
