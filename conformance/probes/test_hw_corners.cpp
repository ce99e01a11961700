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
// rounding mode (the shift of 128 bits and more in the model's rounding). The
// H100 model cuts it away before any rounding (its alignment exponent is at
// least 2^-133, the cut at 2^-158: corner E below), so the rounding is tested
// on the model family without that floor.
TEST(C9_HwCorners, TinySumsRoundUnderEveryMode) {
  DotCase cs = k16(std::vector<std::uint64_t>(16, 0), std::vector<std::uint64_t>(16, 0), 0);
  cs.a[0] = 0x8001;  // -2^-133
  cs.b[0] = 0x0040;  // 2^-127: product -2^-260
  HwModelParams p = mx::h100_fitted_model(MmaForm::wgmma_bf16_m64n8k16_ss);
  p.out_round = HwRound::rd;
  EXPECT_EQ(mx::hw_dot(p, Elem::bf16, cs), 0u);  // cut to zero at 2^-158: +0 (corner 1), never rounded
  cs.a[0] = 0x0001;  // 2^-260
  p = mx::h100_fitted_model(MmaForm::wgmma_bf16_m64n8k16_ss);
  p.min_align_exp = HwModelParams::kNoAlignFloor;
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

// ---- E: every product below 2^-133, C = +-0 (issue 13, class below126_czero)
// The five cases of the H100 corner validation sample (conformance/probes/h100/
// <form>_validation.bin, tile and (row, column) named) that the model missed
// while it aligned such a group on its own E. The measured rule: the alignment
// exponent E (the largest exponent-field sum) is raised to 2^-133, so with 25
// bits kept the products are cut toward zero at 2^-158 (one 512th of the fp32
// subnormal step 2^-149); the cut sum is then cut toward zero to fp32 (a
// subnormal) and a sum cut to zero is +0 (corner 1). Aligned on its own E
// (-151 .. -143 here, the cut at 2^-176 .. 2^-168, below every product's last
// bit) the group is exact and the result is the exact sum cut toward zero.
// Worked out per case below: each product cut at 2^-158, in units of 2^-158,
// k = 0 first (0: a zero product), their sum S, and S / 512 cut toward zero.

void expect_h100(MmaForm f, Elem e, const DotCase& cs, std::uint32_t h100, std::uint32_t unfloored, const char* row) {
  HwModelParams p = mx::h100_fitted_model(f);
  EXPECT_EQ(mx::hw_dot(p, e, cs), h100) << row << " " << mx::form_info(f).name << " " << mx::to_string(p);
  p.min_align_exp = HwModelParams::kNoAlignFloor;  // aligned on its own E: what the H100 did not return
  EXPECT_EQ(mx::hw_dot(p, e, cs), unfloored) << row << " without the floor";
}

// E1: mma.m16n8k16 bf16, tile 477 (0,2), c = +0. E = -151 (fields 70+33-254).
// Cut products: 120 172 100 68 0 189 0 112 89 165 0 -53 -158 -186 -107 0,
// S = 511 < 512: +0 (H100 00000000). Exact sum 257/256 * 2^-149: 00000001.
TEST(C9_HwCorners, E1_Bf16MmaTinySumCutBelowTheSubnormalStep) {
  const DotCase cs = k16({0x236e, 0xa2b6, 0x22e0, 0x22d7, 0x236e, 0xa302, 0x22c6, 0x233f, 0xa303, 0xa348, 0x22c2,
                          0xa2a9, 0xa37d, 0xa365, 0x2280, 0x8000},
                         {0x1002, 0x90f2, 0x1066, 0x1023, 0x8000, 0x90bb, 0x8000, 0x1017, 0x902e, 0x9054, 0x8000,
                          0x1021, 0x1020, 0x1051, 0x90d6, 0x10d0},
                         0x00000000u);
  expect_h100(MmaForm::mma_bf16_m16n8k16, Elem::bf16, cs, 0x00000000u, 0x00000001u, "E1");
}

// E2: mma.m16n8k16 bf16, tile 764 (8,1), c = -0; every a a bf16 subnormal
// (field 0, counted as 1), E = -148. Cut products: -91 -94 -69 42 -39 -42
// -156 47 -23 -24 -124 -85 62 62 48 -24, S = -510: cut to zero, +0 (corner 1;
// H100 00000000). Exact sum -2053/2048 * 2^-149: 80000001.
TEST(C9_HwCorners, E2_Bf16MmaSubnormalOperandsNegativeSumCutToPlusZero) {
  const DotCase cs = k16({0x8006, 0x000e, 0x000d, 0x0006, 0x0005, 0x8006, 0x000c, 0x0004, 0x8004, 0x8004, 0x0009,
                          0x8006, 0x800a, 0x0004, 0x8009, 0x8004},
                         {0x34f5, 0xb458, 0xb42b, 0x3464, 0xb47c, 0x3462, 0xb4d0, 0x34bd, 0x343a, 0x3447, 0xb4de,
                          0x34e5, 0xb447, 0x34fa, 0xb42d, 0x3441},
                         0x80000000u);
  expect_h100(MmaForm::mma_bf16_m16n8k16, Elem::bf16, cs, 0x00000000u, 0x80000001u, "E2");
}

// E3: mma.m16n8k8 tf32, tile 189 (15,4), c = -0, E = -149. Cut products:
// 1440 819 -1765 1005 637 -1129 1652 924, S = 3583 = 6.998 * 512: 6 * 2^-149
// (H100 00000006). Exact sum 7.0011 * 2^-149: 00000007.
TEST(C9_HwCorners, E3_Tf32MmaTinySumLosesOneSubnormalStep) {
  DotCase cs;
  cs.a = {0x05534000, 0x84d94000, 0x04e2c000, 0x04a04000, 0x04b1c000, 0x051ac000, 0x85744000, 0x84c82000};
  cs.b = {0x2fda4000, 0xaff16000, 0xb0792000, 0x3048c000, 0x2fe56000, 0xafe98000, 0xafd88000, 0xb013c000};
  cs.c = 0x80000000u;
  expect_h100(MmaForm::mma_tf32_m16n8k8, Elem::tf32, cs, 0x00000006u, 0x00000007u, "E3");
}

// E4: wgmma.m64n8k16 bf16, A in registers, tile 110 (63,0), c = -0, E = -143.
// Cut products: -15873 16516 -27120 -40950 -23547 -29241 0 38208 25200 0
// -87478 -48923 -31020 -32361 15949 0, S = -240640 = -470 * 512 exactly:
// -470 * 2^-149 (H100 800001d6). The cut positive products lose more than the
// negative ones, so the cut sum lies below the exact -469.998 * 2^-149, which
// cut toward zero gives 800001d5.
TEST(C9_HwCorners, E4_Bf16WgmmaCutSumBelowTheExactSum) {
  const DotCase cs = k16({0x12de, 0x928f, 0x92e2, 0x1352, 0x92a7, 0x132b, 0x0000, 0x92c0, 0x128c, 0x12d9, 0x1365,
                          0x92cb, 0x1304, 0x9321, 0x92d9, 0x9300},
                         {0xa40f, 0xa467, 0x2470, 0xa443, 0x248d, 0xa42b, 0x24f5, 0xa4c7, 0x24b4, 0x8000, 0xa4bf,
                          0x24f1, 0xa46b, 0x2449, 0xa413, 0x0000},
                         0x80000000u);
  expect_h100(MmaForm::wgmma_bf16_m64n8k16_rs, Elem::bf16, cs, 0x800001d6u, 0x800001d5u, "E4");
}

// E5: wgmma.m64n8k16 bf16, A in registers, tile 209 (25,4), c = -0, E = -143.
// Cut products: -24675 0 11520 47670 -16308 43164 0 -87474 20672 -108066
// -22258 47499 -88200 -34475 -79296 -30284, S = -320511 = -625.998 * 512:
// -625 * 2^-149 (H100 80000271). The exact sum is -626 * 2^-149: 80000272.
TEST(C9_HwCorners, E5_Bf16WgmmaCutSumAboveTheExactSum) {
  const DotCase cs = k16({0x8feb, 0x0000, 0x8f80, 0x1052, 0x0fa9, 0x1046, 0x907e, 0x106f, 0x9018, 0x1079, 0x0fd5,
                          0x8fd5, 0x9034, 0x8fc5, 0x9028, 0x8fe2},
                         {0x2752, 0x27fa, 0xa734, 0x2763, 0xa741, 0x275a, 0x0000, 0xa7b7, 0xa708, 0xa7d9, 0xa751,
                          0xa7df, 0x27f5, 0x27af, 0x27ec, 0x2786},
                         0x80000000u);
  expect_h100(MmaForm::wgmma_bf16_m64n8k16_rs, Elem::bf16, cs, 0x80000271u, 0x80000272u, "E5");
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
