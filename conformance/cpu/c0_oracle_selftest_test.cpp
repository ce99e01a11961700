// c0_oracle_selftest_test.cpp - an oracle for the oracle (STYLE 6): the
// oracle's IEEE rounding (used by C5, C8 and C9) checked against the host's
// own conversions, which nobody here wrote: double -> float (IEEE RNE in
// hardware) and double -> _Float16 (GCC/libgcc), for structured doubles
// including subnormal results, ties and overflow.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>

#include "common.hpp"

using namespace cpu;

namespace {
mxo::Value value_of(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, 8);
  mxo::Value v;
  v.neg = (u >> 63) != 0;
  const int e = static_cast<int>((u >> 52) & 0x7FF);
  const std::uint64_t m = u & ((std::uint64_t{1} << 52) - 1);
  v.sig = e ? (m | (std::uint64_t{1} << 52)) : m;
  v.exp = (e ? e : 1) - 1075;
  return v;
}
// doubles around the binades of a target with mbits fraction bits and
// exponents lo..hi: random, exact ties at the target's rounding bit, +- 1 ulp.
rc::Gen<double> gen_double(int mbits, int lo, int hi) {
  return rc::gen::apply(
      [mbits](bool neg, int e, std::uint64_t r, int pat) {
        std::uint64_t m = r & ((std::uint64_t{1} << 52) - 1);
        const std::uint64_t tie = std::uint64_t{1} << (51 - mbits);
        if (pat == 1) m = (m & ~(2 * tie - 1)) | tie;          // exact tie
        if (pat == 2) m = ((m & ~(2 * tie - 1)) | tie) + 1;    // just above
        if (pat == 3) m = ((m & ~(2 * tie - 1)) | tie) - 1;    // just below
        const double d = std::ldexp(1.0 + static_cast<double>(m) * std::ldexp(1.0, -52), e);
        return neg ? -d : d;
      },
      rc::gen::arbitrary<bool>(), rc::gen::inRange(lo, hi + 1), rc::gen::arbitrary<std::uint64_t>(),
      rc::gen::inRange(0, 4));
}
}  // namespace

RC_GTEST_PROP(OracleSelfTest, RoundToFp32MatchesHardware, ()) {
  const double d = *gen_double(23, -152, 129);
  const float want = static_cast<float>(d);  // hardware IEEE RNE
  const std::uint32_t got = mxo::round_ieee(mxo::Fmt::fp32, value_of(d));
  RC_ASSERT_MSG(got == bits(want), ("oracle round_ieee(fp32) of double " + std::to_string(d) + " => " + hex(got, 8) +
                                    ", hardware " + hex(bits(want), 8))
                                       .c_str());
}

#ifdef __FLT16_MAX__
RC_GTEST_PROP(OracleSelfTest, RoundToFp16MatchesLibgcc, ()) {
  const double d = *gen_double(10, -27, 17);
  __extension__ const _Float16 h = static_cast<_Float16>(d);
  std::uint16_t hb;
  std::memcpy(&hb, &h, 2);
  const std::uint32_t got = mxo::round_ieee(mxo::Fmt::fp16, value_of(d));
  RC_ASSERT_MSG(got == hb, ("oracle round_ieee(fp16) of double " + std::to_string(d) + " => " + hex(got, 4) +
                            ", _Float16 " + hex(hb, 4))
                               .c_str());
}
#endif

TEST(OracleSelfTest, HandRows) {
  struct Row { mxo::Fmt out; double v; std::uint32_t want; const char* why; };
  const Row rows[] = {
      {mxo::Fmt::fp32, std::ldexp(1.0, -150), 0x00000000u, "2^-150 ties (0, 2^-149) to even 0"},
      {mxo::Fmt::fp32, std::ldexp(3.0, -151), 0x00000001u, "0.75 * 2^-149 rounds to 2^-149"},
      {mxo::Fmt::fp32, std::ldexp(3.0, -150), 0x00000002u, "1.5 * 2^-149 ties to even 2 * 2^-149"},
      {mxo::Fmt::fp32, 16777217.0, 0x4B800000u, "2^24 + 1 ties to even 2^24"},
      {mxo::Fmt::fp32, 3.4028235677973366e38, 0x7F800000u, "FLT_MAX + half ulp ties to Inf"},
      {mxo::Fmt::bf16, 1.00390625, 0x3F80u, "bf16: 1 + 2^-8 ties to even 1"},
      {mxo::Fmt::bf16, 1.01171875, 0x3F82u, "bf16: 1 + 3 * 2^-8 ties to even 1 + 2^-6"},
      {mxo::Fmt::fp16, 65520.0, 0x7C00u, "fp16: 65520 ties to Inf"},
      {mxo::Fmt::fp16, 65519.0, 0x7BFFu, "fp16: 65519 rounds to 65504"},
      {mxo::Fmt::fp16, std::ldexp(1.0, -25), 0x0000u, "fp16: 2^-25 ties to 0"},
  };
  for (const auto& r : rows) {
    const std::uint32_t got = mxo::round_ieee(r.out, value_of(r.v));
    EXPECT_EQ(got, r.want) << "oracle round_ieee: " << r.why << " => observed " << hex(got, 8) << ", expected "
                           << hex(r.want, 8);
  }
}
