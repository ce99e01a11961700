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


// ---- Specials in k order (measured through the w4a16 GEMM gate) -------------
// One output of the H100's bf16 wgmma chain (m64nNk16, 5 k-steps, K = 77
// padded with zeros to 80): row 2 of A holds bf16 max (0x7f7f) at k = 34 and
// k = 45 and -Inf at k = 51; B is a column of MXFP4 weights widened to bf16
// (C11). For column 15 the k-step 32..47 sums to 2 * max * ... > FLT_MAX, so
// the accumulator overflows to +Inf, and the next k-step adds -Inf * 0.75:
// the H100 gave NaN (0x7fc00000), where a whole-case IEEE rule gives -Inf.
// For column 1 the overflow and the Inf product have the same sign: +Inf on
// the H100. (conformance/gemm, GemmGateSanitizer.W4a16Small, seed 3, row 2.)
const std::vector<std::uint64_t> kGemmRow2_a = {
    0xbe7f, 0xbed4, 0xbe6d, 0x3e8e, 0x0000, 0xbea7, 0xbfa5, 0x4010,
    0xbf62, 0x3dbc, 0x3fa7, 0xbe8f, 0x3e5c, 0x3f5b, 0xbf2e, 0x3f56,
    0x3faf, 0x3f03, 0xbed7, 0x0000, 0xbd05, 0xbe85, 0x3f13, 0x3eee,
    0xbe28, 0x0000, 0xbf01, 0x3f87, 0x3ecb, 0xbf7e, 0xbe2c, 0xbf97,
    0x3dd0, 0x3db0, 0x7f7f, 0x3f45, 0xbdef, 0x3fa2, 0xbeb0, 0x3ed3,
    0xbe31, 0x0000, 0x3f68, 0xbde9, 0xbe72, 0x7f7f, 0xbfc7, 0x3f78,
    0xbd2e, 0x3f5a, 0x3e9b, 0xff80, 0xbeab, 0xbc81, 0x3f12, 0x3f89,
    0x3f43, 0xbeac, 0x3eb9, 0x3f38, 0x3e3a, 0x3f10, 0x3f94, 0x3fa3,
    0x3df4, 0x3e4f, 0x3def, 0x3c7a, 0xbd2f, 0x3e85, 0xbe1a, 0x0000,
    0x3f02, 0xbe35, 0x3c9b, 0xbd92, 0xbcb7, 0x0000, 0x0000, 0x0000,
};
const std::vector<std::uint64_t> kGemmCol15_b = {
    0x3dc0, 0xbc80, 0x0000, 0x3d00, 0x3d80, 0xbe00, 0xbe40, 0x8000,
    0xbe00, 0x0000, 0x8000, 0x3e40, 0xbd00, 0xbd00, 0xbc80, 0x3c80,
    0x3dc0, 0xbe00, 0xbdc0, 0x3d00, 0x3d80, 0x0000, 0xbe00, 0xbd80,
    0x8000, 0xbdc0, 0x3d00, 0xbe40, 0x3c80, 0x3e00, 0x3d00, 0xbdc0,
    0x0000, 0x0000, 0xbf80, 0xc040, 0x8000, 0x0000, 0x3e80, 0x3f80,
    0x3fc0, 0x3f40, 0x0000, 0xbf00, 0x8000, 0x4040, 0x0000, 0x3f00,
    0xc000, 0x3e80, 0x4040, 0x3f40, 0x3f40, 0xbf80, 0x3f40, 0xbf40,
    0x3fc0, 0xbf00, 0x4000, 0x4000, 0x3f80, 0xbfc0, 0x4040, 0x4000,
    0x4340, 0xc180, 0xc340, 0x4280, 0x0000, 0xc300, 0x4180, 0x42c0,
    0xc340, 0x4280, 0xc200, 0x4280, 0x4300, 0x0000, 0x0000, 0x0000,
};
const std::vector<std::uint64_t> kGemmCol1_b = {
    0xc140, 0xc180, 0x8000, 0x8000, 0x4080, 0xc180, 0xc100, 0x0000,
    0xc0c0, 0xc080, 0x8000, 0x4140, 0xc0c0, 0x0000, 0xc0c0, 0x4100,
    0xc140, 0xc0c0, 0xc180, 0xc000, 0xc0c0, 0xc180, 0xc000, 0xc0c0,
    0x4180, 0x4140, 0x4100, 0xc000, 0xc000, 0x4000, 0x40c0, 0x4100,
    0xc200, 0x0000, 0xc200, 0xc280, 0xc280, 0x42c0, 0xc300, 0xc200,
    0xc2c0, 0x4280, 0x4180, 0xc300, 0x4200, 0x42c0, 0x4340, 0x0000,
    0xc280, 0xc280, 0x8000, 0xc200, 0xc280, 0x8000, 0xc200, 0xc280,
    0x4340, 0x42c0, 0xc180, 0xc280, 0xc300, 0xc200, 0x4280, 0x4240,
    0x3d40, 0x0000, 0xbe40, 0x0000, 0xbd80, 0x3d40, 0xbe00, 0xbe40,
    0xbe40, 0x3dc0, 0xbd80, 0x3c80, 0x3dc0, 0x0000, 0x0000, 0x0000,
};

TEST(C9_H100Corners, SpecialsMetInKOrder) {
  for (MmaForm f : {MmaForm::wgmma_bf16_m64n8k16_ss, MmaForm::wgmma_bf16_m64n8k16_rs}) {
    const HwModelParams p = mx::h100_fitted_model(f);
    const std::uint32_t d15 = mx::hw_dot(p, Elem::bf16, k16(kGemmRow2_a, kGemmCol15_b, 0x46347e72u));
    EXPECT_TRUE((d15 & 0x7F800000u) == 0x7F800000u && (d15 & 0x7FFFFFu) != 0)
        << mx::form_info(f).name << ": column 15, H100 NaN, model 0x" << std::hex << d15;
    EXPECT_EQ(mx::hw_dot(p, Elem::bf16, k16(kGemmRow2_a, kGemmCol1_b, 0xc73359e2u)), 0x7F800000u)
        << mx::form_info(f).name << ": column 1, H100 +Inf";
  }
}

}  // namespace
