// c2_stochastic_test.cpp - SPEC C2 stochastic rounding (`sr`) from the text
// of the PTX ISA (section 9.7.9.21 "cvt", rounding modifier .rs): the value
// rounds away from zero iff the integer addition of the random bits to the
// discarded mantissa bits carries out of the discarded field; the 32 random
// bits of this library's API are added with their most significant bit on the
// most significant discarded bit (SPEC C2 says why). Every expected code below
// was worked out by hand from that text (the working is in each row's note);
// the fast path (mx::encode_f32_bits) and the oracle (mxo::encode_f32) must
// both give it. The rows pick random words on both sides of each carry, and
// words for which the other conceivable alignment (random bits added at the
// bottom of the discarded field) gives the other code.
#include <gtest/gtest.h>

#include "common.hpp"

using namespace cpu;
using mx::Fmt;

namespace {
struct SrRow {
  Fmt f;
  std::uint32_t x;      // fp32 bits
  std::uint32_t rbits;  // the random word
  std::uint32_t want;
  const char* why;
};

void check(const SrRow& r) {
  mx::ConvPolicy p;
  p.rounding = mx::Rounding::sr;
  const std::uint32_t got = mx::encode_f32_bits(r.f, r.x, p, r.rbits);
  EXPECT_EQ(got, r.want) << r.why << "\n  fast path: input " << in32(r.x) << " rbits " << hex(r.rbits, 8)
                         << " => " << hex(got) << ", expected " << hex(r.want);
  const std::uint32_t o = mxo::encode_f32(to_o(r.f), r.x, to_o(p), r.rbits);
  EXPECT_EQ(o, r.want) << r.why << "\n  oracle: input " << in32(r.x) << " rbits " << hex(r.rbits, 8) << " => "
                       << hex(o) << ", expected " << hex(r.want);
}
}  // namespace

TEST(C2Stochastic, HandRowsFromPtxText) {
  const SrRow rows[] = {
      // e4m3, 1 + 2^-23 (0x3f800001): ulp 2^-3, the input's last bit 2^-23, so
      // w = 20 bits are discarded, T = 1. Field of W = 32 bits: S = 1 * 2^12 + r.
      {Fmt::e4m3, 0x3f800001u, 0xFFFFF000u, 0x39, "S = 2^12 + 0xFFFFF000 = 2^32 carries: 1.125"},
      {Fmt::e4m3, 0x3f800001u, 0xFFFFEFFFu, 0x38, "S = 2^32 - 1 does not carry: 1.0"},
      {Fmt::e4m3, 0x3f800001u, 0x000FFFFFu, 0x38,
       "S = 2^12 + 2^20 - 1 does not carry (added at the bottom, 1 + 0xFFFFF would carry out of 20 bits)"},
      {Fmt::e4m3, 0xbf800001u, 0xFFFFF000u, 0xB9, "the magnitude is rounded: -1.125"},
      // e4m3, 2^-18 * (1 + 2^-23) (0x36800001): subnormal ulp 2^-9, last bit
      // 2^-41, w = 32 = W, T = 2^23 + 1: S = T + r.
      {Fmt::e4m3, 0x36800001u, 0xFF7FFFFFu, 0x01, "S = 2^23 + 1 + 0xFF7FFFFF = 2^32 carries: 2^-9"},
      {Fmt::e4m3, 0x36800001u, 0xFF7FFFFEu, 0x00, "S = 2^32 - 1 does not carry: +0"},
      // e4m3, 2^-20 * (1 + 2^-23) (0x35800001): w = 34 > 32, T = 2^23 + 1,
      // W = 34, S = T + 4r: the two lowest discarded bits lie below the random field.
      {Fmt::e4m3, 0x35800001u, 0xFFE00000u, 0x01, "S = 2^23 + 1 + 2^34 - 2^23 >= 2^34 carries"},
      {Fmt::e4m3, 0x35800001u, 0xFFDFFFFFu, 0x00, "S = 2^34 - 3: the discarded bits below the random field never carry"},
      // e2m1, 1.25 (0x3fa00000): ulp 0.5, w = 22, T = 2^21 (a half ulp):
      // S = 2^21 * 2^10 + r = 2^31 + r.
      {Fmt::e2m1, 0x3fa00000u, 0x80000000u, 0x3, "S = 2^32 carries: 1.5"},
      {Fmt::e2m1, 0x3fa00000u, 0x7FFFFFFFu, 0x2, "S = 2^32 - 1: 1.0"},
      {Fmt::e2m1, 0xbfa00000u, 0x80000000u, 0xB, "-1.25 carries: -1.5"},
      // e5m2, 1 + 3 * 2^-23 (0x3f800003): ulp 2^-2, w = 21, T = 3: S = 3 * 2^11 + r.
      {Fmt::e5m2, 0x3f800003u, 0xFFFFE800u, 0x3D, "S = 0x1800 + 0xFFFFE800 = 2^32 carries: 1.25"},
      {Fmt::e5m2, 0x3f800003u, 0xFFFFE7FFu, 0x3C, "S = 2^32 - 1: 1.0"},
      // int8 (fixed point, ulp 2^-6), 1 + 2^-8 (0x3f808000): w = 17,
      // T = 2^15 (a quarter ulp): S = 2^15 * 2^15 + r = 2^30 + r.
      {Fmt::int8, 0x3f808000u, 0xC0000000u, 0x41, "S = 2^32 carries: 65/64"},
      {Fmt::int8, 0x3f808000u, 0xBFFFFFFFu, 0x40, "S = 2^32 - 1: 64/64"},
      // e3m2, 28 + 2^-19 (0x41e00001): max finite 28, ulp 4 there, w = 21,
      // T = 1: a carry rounds up to 32, above the largest finite value:
      // saturate (the default overflow policy) gives 28 again.
      {Fmt::e3m2, 0x41e00001u, 0xFFFFF800u, 0x1F, "carry past 28 overflows, saturates to 28"},
      {Fmt::e3m2, 0x41e00001u, 0xFFFFF7FFu, 0x1F, "no carry: 28"},
      // Nothing discarded: whatever the random word, no carry.
      {Fmt::e4m3, 0x3f900000u, 0xFFFFFFFFu, 0x39, "1.125 is exact: w = 0"},
  };
  for (const SrRow& r : rows) check(r);
}
