// apfloat_test.cpp - label `cpu` (issue 2 item 4): the reference encoder
// against LLVM APFloat (llvm-19-dev) for every format APFloat 19 has (e4m3,
// e5m2, e3m2, e2m3, e2m1; ue4m3 through e4m3 for non-negative inputs; int8
// through x * 64 and roundToIntegral) and every rounding mode both have (rne,
// rtz, rna, ru), both overflow policies and both NaN policies, from fp32
// (structured + random sample), bf16 and fp16 (sampled here; all 2^16 in the
// `exhaustive` label). SPEC C2. Policy mapping and documented
// differences: xcheck/apfloat_ref.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "xcheck/apfloat_ref.hpp"
#include "xcheck/inputs.hpp"
#include "xcheck/sweep.hpp"

namespace {

struct Case {
  mx::Fmt fmt;
  mx::ConvPolicy pol;
};

void PrintTo(const Case& c, std::ostream* os) { *os << xcheck::policy_name(c.fmt, c.pol); }

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (mx::Fmt f : {mx::Fmt::e4m3, mx::Fmt::e5m2, mx::Fmt::e3m2, mx::Fmt::e2m3, mx::Fmt::e2m1,
                    mx::Fmt::int8, mx::Fmt::ue4m3}) {
    for (const auto& p : xcheck::policies_for(f, true, false)) v.push_back(Case{f, p});
  }
  return v;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string s = xcheck::policy_name(info.param.fmt, info.param.pol);
  for (auto& ch : s) {
    if (ch == ' ') ch = '_';
  }
  return s;
}

class ApFloat : public ::testing::TestWithParam<Case> {};

// Structured fp32 inputs (every exponent x significand patterns, ~0.76M) plus
// uniform random bits: about a million per policy.
TEST_P(ApFloat, SampledFp32_C2) {
  const Case c = GetParam();
  static const xcheck::SampledF32 base{};
  const std::uint64_t n_random = std::uint64_t{1} << 18;
  const std::uint64_t n = base.structured.size() + n_random;
  const auto rep = xcheck::sweep("fp32 sampled -> " + xcheck::policy_name(c.fmt, c.pol) + " vs APFloat",
                                 "C2", 32, n, xcheck::apfloat_reasons(), [&](std::uint64_t i) {
                                   const std::uint32_t x =
                                       i < base.structured.size() ? base.structured[i] : xcheck::random_f32(i);
                                   return xcheck::apfloat_case(c.fmt, c.pol, xcheck::Src::f32, x);
                                 });
  xcheck::finish(rep);
}

// bf16 and fp16: every 4th pattern plus all NaN/Inf/zero/subnormal patterns
// (the rest are in the exhaustive label).
TEST_P(ApFloat, Sampled16_C2) {
  const Case c = GetParam();
  for (xcheck::Src src : {xcheck::Src::bf16, xcheck::Src::f16}) {
    const std::uint32_t emask = src == xcheck::Src::bf16 ? 0x7F80u : 0x7C00u;
    std::vector<std::uint32_t> ins;
    for (std::uint32_t h = 0; h < 0x10000u; ++h) {
      const std::uint32_t e = h & emask;
      if ((h & 3u) == 0 || e == 0 || e == emask) ins.push_back(h);
    }
    const auto rep = xcheck::sweep(std::string(src == xcheck::Src::bf16 ? "bf16" : "fp16") + " sampled -> " +
                                       xcheck::policy_name(c.fmt, c.pol) + " vs APFloat",
                                   "C2", 16, ins.size(), xcheck::apfloat_reasons(), [&](std::uint64_t i) {
                                     return xcheck::apfloat_case(c.fmt, c.pol, src, ins[i]);
                                   });
    xcheck::finish(rep);
  }
}

INSTANTIATE_TEST_SUITE_P(C2, ApFloat, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace

namespace {

// C3 "scaling is exact": encode_scaled(x, e) is one rounding of x * 2^-e,
// compared with APFloat rounding the exact double x * 2^-e. Structured x,
// every e in [-127, 127] cycled through.
TEST(ApFloatScaled, EncodeScaledEveryFormat_C3_C2) {
  static const xcheck::SampledF32 base{};
  xcheck::Totals tot;
  for (mx::Fmt f : {mx::Fmt::e4m3, mx::Fmt::e5m2, mx::Fmt::e3m2, mx::Fmt::e2m3, mx::Fmt::e2m1, mx::Fmt::int8}) {
    for (const auto& p : xcheck::policies_for(f, false, false)) {
      const std::uint64_t n = std::uint64_t{1} << 18;
      const auto rep = xcheck::sweep("fp32 * 2^-e -> " + xcheck::policy_name(f, p) + " vs APFloat", "C3", 32, n,
                                     xcheck::apfloat_reasons(), [&](std::uint64_t i) {
                                       const std::uint64_t k = xcheck::splitmix64(i);
                                       const std::uint32_t x = base.structured[k % base.structured.size()];
                                       const int e = static_cast<int>((k >> 40) % 255) - 127;
                                       xcheck::Outcome o = xcheck::apfloat_scaled_case(f, p, x, e);
                                       return o;
                                     });
      xcheck::finish(rep, false);
      tot.add(rep);
    }
  }
  tot.record("encode_scaled vs APFloat");
}

// C1/C2 decode is exact: every code of every APFloat format, as fp32.
TEST(ApFloatDecode, EveryCode_C1_C2) {
  std::uint64_t compared = 0, nan_codes = 0;
  for (mx::Fmt f : {mx::Fmt::e4m3, mx::Fmt::e5m2, mx::Fmt::e3m2, mx::Fmt::e2m3, mx::Fmt::e2m1}) {
    const std::uint32_t ncodes = 1u << mx::desc(f).bits;
    for (std::uint32_t c = 0; c < ncodes; ++c) {
      const std::uint32_t want = xcheck::apfloat_decode_f32(f, c);
      const std::uint32_t got = mx::f32_bits(mx::decode(f, c));
      ++compared;
      if ((want & 0x7FFFFFFFu) > 0x7F800000u) {
        ++nan_codes;
        EXPECT_GT(got & 0x7FFFFFFFu, 0x7F800000u)
            << "[C1] " << mx::desc(f).name << " code " << xcheck::hex(c, 2) << ": APFloat NaN, reference "
            << xcheck::hex(got, 8);
        continue;
      }
      EXPECT_EQ(got, want) << "[C1] " << mx::desc(f).name << " decode: code " << xcheck::hex(c, 2)
                           << " => observed " << xcheck::hex(got, 8) << ", expected: " << xcheck::hex(want, 8)
                           << " (APFloat)";
    }
  }
  std::printf("[xcheck] decode vs APFloat: compared %llu codes (%llu NaN codes as NaN-ness)\n",
              static_cast<unsigned long long>(compared), static_cast<unsigned long long>(nan_codes));
  RecordProperty("compared", std::to_string(compared));
  EXPECT_EQ(compared, 256u + 256u + 64u + 64u + 16u);
}

// C8 output rounding: fp32 -> bf16 / fp16 RNE (overflow to Inf; NaN as
// NaN-ness, payloads are not specified).
TEST(ApFloatRound16, Fp32ToBf16AndFp16_C8) {
  static const xcheck::SampledF32 base{};
  xcheck::Totals tot;
  for (mx::Fmt out : {mx::Fmt::bf16, mx::Fmt::fp16}) {
    const auto rep = xcheck::sweep(std::string("fp32 -> ") + (out == mx::Fmt::bf16 ? "bf16" : "fp16") +
                                       " rne vs APFloat",
                                   "C8", 32, base.structured.size() + (std::uint64_t{1} << 20), {},
                                   [&](std::uint64_t i) {
                                     const std::uint32_t x = i < base.structured.size() ? base.structured[i]
                                                                                         : xcheck::random_f32(i);
                                     const float xf = mx::bits_f32(x);
                                     const std::uint32_t got =
                                         out == mx::Fmt::bf16 ? mx::f32_to_bf16_rne(xf) : mx::f32_to_f16_rne(xf);
                                     std::uint32_t want = xcheck::apfloat_round_f32(out, x);
                                     if (xf != xf) {
                                       const std::uint32_t e = out == mx::Fmt::bf16 ? 0x7F80u : 0x7C00u;
                                       const bool got_nan = (got & e) == e && (got & ~e & 0x7FFFu) != 0;
                                       want = got_nan ? got : want;  // both NaN: equal
                                     }
                                     return xcheck::plain(x, want, got);
                                   });
    xcheck::finish(rep, false);
    tot.add(rep);
  }
  tot.record("fp32 -> bf16/fp16 vs APFloat");
}

// The harness can fail: a deliberately wrong rounding rule (reference rtz
// against APFloat rne) must produce mismatches with hex inputs and codes.
TEST(Harness, DetectsABrokenRoundingRule) {
  static const xcheck::SampledF32 base{};
  const mx::ConvPolicy rne{};
  const mx::ConvPolicy rtz{mx::Rounding::rtz};
  const auto rep = xcheck::sweep("broken: e4m3 reference rtz vs APFloat rne", "C2", 32, base.structured.size(), {},
                                 [&](std::uint64_t i) {
                                   xcheck::Outcome o = xcheck::apfloat_case(mx::Fmt::e4m3, rne, xcheck::Src::f32,
                                                                            base.structured[i]);
                                   o.observed = mx::encode_f32_bits(mx::Fmt::e4m3, base.structured[i], rtz);
                                   o.doc = -1;
                                   return o;
                                 });
  EXPECT_GT(rep.mismatches, 0u);
  EXPECT_TRUE(rep.stopped_early);
  ASSERT_FALSE(rep.first.empty());
  EXPECT_NE(rep.first[0].expected, rep.first[0].observed);
  std::printf("[xcheck] broken rule detected: %llu mismatches before stopping, e.g. input %s => observed %s, "
              "expected %s\n",
              static_cast<unsigned long long>(rep.mismatches), xcheck::hex(rep.first[0].input, 8).c_str(),
              xcheck::hex(rep.first[0].observed, 2).c_str(), xcheck::hex(rep.first[0].expected, 2).c_str());
}

}  // namespace
