// apfloat_test.cpp - label `cpu` (issue 2 item 4): the reference encoder
// against LLVM APFloat (llvm-19-dev) for every format APFloat 19 has (e4m3,
// e5m2, e3m2, e2m3, e2m1; ue4m3 through e4m3 for non-negative inputs; int8
// through x * 64 and roundToIntegral) and every rounding mode both have (rne,
// rtz, rna, ru), both overflow policies and both NaN policies, from fp32
// (structured + random sample), bf16 and fp16 (sampled here; all 2^16 in the
// `exhaustive` label). CONTRACT C2. Policy mapping and documented
// differences: xcheck/apfloat_ref.hpp.
#include <gtest/gtest.h>

#include <cstdint>
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
