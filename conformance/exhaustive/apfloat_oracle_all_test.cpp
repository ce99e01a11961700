// apfloat_oracle_all_test.cpp - label `exhaustive` (issue 2 item 5):
// - all 2^16 bf16 and all 2^16 fp16 inputs through every element/scale format
//   and every policy (rounding x overflow x NaN policy x int8 range), compared
//   with LLVM APFloat (where APFloat 19 has the format and the rounding mode)
//   and with the exact oracle (mxo, every format including ue8m0 and every
//   rounding including sr);
// - 10^7 structured + random fp32 inputs per format and policy (rounding x
//   overflow x int8 range under the default NaN policy; the other NaN policy
//   on the structured set plus 2^20 random inputs, see cases_for) compared
//   with APFloat and with the oracle.
// SPEC C2 (and C1 for ue8m0/ue4m3). APFloat mapping and documented
// differences: ../crosscheck/xcheck/apfloat_ref.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "xcheck/apfloat_ref.hpp"
#include "xcheck/inputs.hpp"
#include "xcheck/oracle_ref.hpp"
#include "xcheck/sweep.hpp"

namespace {

using xcheck::Src;

constexpr std::uint64_t kFp32PerPolicy = 10'000'000;

// A format as a test parameter (named in test names and in GoogleTest's
// parameter comment).
struct FmtParam {
  mx::Fmt f;
};
void PrintTo(const FmtParam& p, std::ostream* os) { *os << mx::desc(p.f).name; }

std::string fmt_param_name(const ::testing::TestParamInfo<FmtParam>& info) {
  return std::string(mx::desc(info.param.f).name);
}

const char* src_name(Src s) { return s == Src::bf16 ? "bf16" : (s == Src::f16 ? "fp16" : "fp32"); }

const xcheck::SampledF32& fp32_set() {
  static const xcheck::SampledF32 set = [] {
    xcheck::SampledF32 s;
    s.n_random = kFp32PerPolicy - s.structured.size();
    return s;
  }();
  return set;
}

// 10^7 inputs under the default NaN policy (nan_canonical / nan_to_max);
// the other NaN policy (nan_keep_sign / nan_to_zero) only changes NaN
// inputs, so it runs on the structured inputs (every fp32 exponent, NaN and
// Inf patterns included) plus 2^20 random ones. Both NaN policies also run
// on every bf16 and fp16 input above.
std::uint64_t cases_for(const mx::ConvPolicy& p, const xcheck::SampledF32& set) {
  const bool other_nan = p.nan == mx::NanPolicy::nan_keep_sign || p.nan == mx::NanPolicy::nan_to_zero;
  return other_nan ? set.structured.size() + (std::uint64_t{1} << 20) : set.size();
}
std::string fp32_label(const mx::ConvPolicy& p, std::uint64_t n) {
  (void)p;
  return n == kFp32PerPolicy ? "fp32 1e7 -> " : "fp32 " + xcheck::human(static_cast<double>(n)) + " -> ";
}

// ---- APFloat ------------------------------------------------------------------

class ApFloatAll : public ::testing::TestWithParam<FmtParam> {};

TEST_P(ApFloatAll, EveryBf16AndFp16_C2) {
  const mx::Fmt f = GetParam().f;
  xcheck::Totals tot;
  for (Src src : {Src::bf16, Src::f16}) {
    for (const auto& p : xcheck::policies_for(f, true, false)) {
      const auto rep = xcheck::sweep(std::string(src_name(src)) + " all -> " + xcheck::policy_name(f, p) +
                                         " vs APFloat",
                                     "C2", 16, std::uint64_t{1} << 16, xcheck::apfloat_reasons(),
                                     [&](std::uint64_t i) {
                                       return xcheck::apfloat_case(f, p, src, static_cast<std::uint32_t>(i));
                                     });
      xcheck::finish(rep, false);
      tot.add(rep);
    }
  }
  tot.record("bf16+fp16 all vs APFloat");
}

TEST_P(ApFloatAll, Fp32TenMillionPerPolicy_C2) {
  const mx::Fmt f = GetParam().f;
  const auto& set = fp32_set();
  xcheck::Totals tot;
  for (const auto& p : xcheck::policies_for(f, true, false)) {
    const std::uint64_t n = cases_for(p, set);
    const auto rep = xcheck::sweep(fp32_label(p, n) + xcheck::policy_name(f, p) + " vs APFloat", "C2", 32, n,
                                   xcheck::apfloat_reasons(), [&](std::uint64_t i) {
                                     return xcheck::apfloat_case(f, p, Src::f32, set(i));
                                   });
    xcheck::finish(rep, false);
    tot.add(rep);
  }
  tot.record("fp32 1e7 per policy vs APFloat");
}

INSTANTIATE_TEST_SUITE_P(C2, ApFloatAll,
                         ::testing::Values(FmtParam{mx::Fmt::e4m3}, FmtParam{mx::Fmt::e5m2},
                                           FmtParam{mx::Fmt::e3m2}, FmtParam{mx::Fmt::e2m3},
                                           FmtParam{mx::Fmt::e2m1}, FmtParam{mx::Fmt::int8},
                                           FmtParam{mx::Fmt::ue4m3}),
                         fmt_param_name);

// ---- exact oracle ---------------------------------------------------------------

class OracleAll : public ::testing::TestWithParam<FmtParam> {};

TEST_P(OracleAll, EveryBf16AndFp16_C2) {
  ASSERT_TRUE(xcheck::oracle_enums_match()) << "mxo and mx enums no longer list members in the same order";
  const mx::Fmt f = GetParam().f;
  xcheck::Totals tot;
  for (Src src : {Src::bf16, Src::f16}) {
    for (const auto& p : xcheck::policies_for(f, true, true)) {
      const auto rep = xcheck::sweep(std::string(src_name(src)) + " all -> " + xcheck::policy_name(f, p) +
                                         " vs oracle",
                                     "C2", 16, std::uint64_t{1} << 16, {}, [&](std::uint64_t i) {
                                       return xcheck::oracle_case(f, p, src, static_cast<std::uint32_t>(i));
                                     });
      xcheck::finish(rep, false);
      tot.add(rep);
    }
  }
  tot.record("bf16+fp16 all vs oracle");
}

TEST_P(OracleAll, Fp32TenMillionPerPolicy_C2) {
  ASSERT_TRUE(xcheck::oracle_enums_match()) << "mxo and mx enums no longer list members in the same order";
  const mx::Fmt f = GetParam().f;
  const auto& set = fp32_set();
  xcheck::Totals tot;
  for (const auto& p : xcheck::policies_for(f, true, true)) {
    const std::uint64_t n = cases_for(p, set);
    const auto rep = xcheck::sweep(fp32_label(p, n) + xcheck::policy_name(f, p) + " vs oracle", "C2", 32, n, {},
                                   [&](std::uint64_t i) {
                                     return xcheck::oracle_case(f, p, Src::f32, set(i));
                                   });
    xcheck::finish(rep, false);
    tot.add(rep);
  }
  tot.record("fp32 1e7 per policy vs oracle");
}

INSTANTIATE_TEST_SUITE_P(C2, OracleAll,
                         ::testing::Values(FmtParam{mx::Fmt::e4m3}, FmtParam{mx::Fmt::e5m2},
                                           FmtParam{mx::Fmt::e3m2}, FmtParam{mx::Fmt::e2m3},
                                           FmtParam{mx::Fmt::e2m1}, FmtParam{mx::Fmt::int8},
                                           FmtParam{mx::Fmt::ue8m0}, FmtParam{mx::Fmt::ue4m3}),
                         fmt_param_name);

}  // namespace
