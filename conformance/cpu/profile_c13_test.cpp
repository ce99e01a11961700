// profile_c13_test.cpp - C13 named policies, by hand (expected codes worked
// out from each library's documented or published conversion rules) and the
// applicability rules of validate_policy. Defaults unchanged is proven by the
// golden vectors (conformance/vectors); here: every non-default C13 value.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/profile.hpp"

namespace {

using mx::Fmt;

struct Row {
  const char* profile;  // library profile, or a policy string for "ocp"
  const char* src;      // fp32, bf16, fp16
  Fmt fmt;
  std::uint32_t in;     // input bits of the source type
  std::uint32_t want;
  const char* why;
};

std::uint32_t widen(const char* src, std::uint32_t bits) {
  const std::string s = src;
  if (s == "bf16") return mx::bf16_to_f32_bits(static_cast<std::uint16_t>(bits));
  if (s == "fp16") return mx::f16_to_f32_bits(static_cast<std::uint16_t>(bits));
  return bits;
}

mx::ConvPolicy policy_of(const Row& r) {
  const std::string p = r.profile;
  if (p.rfind("ocp:", 0) == 0) {
    const mx::ConvPolicy pol = mx::parse_policy(p.substr(4));
    mx::validate_policy(r.fmt, pol);
    return pol;
  }
  return mx::resolve_policy(p, mx::parse_in_type(r.src), r.fmt);
}

// clang-format off
const std::vector<Row> kRows = {
  // torch e5m2 (c10 fp8e5m2_from_fp32_value): NaN -> 0x7F | sign.
  {"torch-cpu", "fp32", Fmt::e5m2, 0xFFC00000, 0xFF, "torch e5m2: -NaN keeps its sign on the all-ones code"},
  {"torch-cpu", "fp32", Fmt::e5m2, 0x7FC00000, 0x7F, "torch e5m2: +NaN 0x7F"},
  {"torch-cpu", "fp32", Fmt::e5m2, 0xFF800000, 0xFC, "torch e5m2: -Inf -> -Inf"},
  {"torch-cpu", "fp32", Fmt::e5m2, 0x47700000, 0x7C, "torch e5m2: 61440 ties to even = Inf"},
  {"torch-cpu", "fp32", Fmt::e5m2, 0x476FFFFF, 0x7B, "torch e5m2: just below the tie -> 57344"},
  {"torch-cpu", "bf16", Fmt::e5m2, 0xFFC1, 0xFF, "torch e5m2 from bf16: -NaN"},
  // torch e4m3: >= 480 and NaN -> 0x7F | sign; 464 ties to 448.
  {"torch-cpu", "fp32", Fmt::e4m3, 0xC3F00000, 0xFF, "torch e4m3: -480 -> NaN with sign"},
  {"torch-cpu", "fp32", Fmt::e4m3, 0x43E80000, 0x7E, "torch e4m3: 464 ties to 448"},
  {"torch-cpu", "fp32", Fmt::e4m3, 0x43E80001, 0x7F, "torch e4m3: above 464 rounds to the NaN code"},
  {"torch-cpu", "fp32", Fmt::e4m3, 0xFFC00000, 0xFF, "torch e4m3: -NaN 0xFF"},
  // torch e8m0: |x|, exponent + guard-bit round up, subnormals on a 2^-126 grid.
  {"torch-cpu", "fp32", Fmt::ue8m0, 0xBF800000, 0x7F, "torch e8m0: -1 converts as 1"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x80000000, 0x00, "torch e8m0: -0 -> 0x00"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x00000000, 0x00, "torch e8m0: 0 -> 0x00"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x00400000, 0x00, "torch e8m0: 2^-127 exactly -> 0x00"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x00500000, 0x01, "torch e8m0: 1.25*2^-127 -> 2^-126 (OCP rne: 0x00)"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x00400001, 0x01, "torch e8m0: just above 2^-127 -> 0x01"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x003FFFFF, 0x00, "torch e8m0: below 2^-127 -> 0x00"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x3FC00000, 0x80, "torch e8m0: 1.5 ties up to 2"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x3FBFFFFF, 0x7F, "torch e8m0: below 1.5 -> 1"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x7F400000, 0xFF, "torch e8m0: 1.5*2^127 rounds past the top: NaN"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0x7F3FFFFF, 0xFE, "torch e8m0: below it -> 2^127"},
  {"torch-cpu", "fp32", Fmt::ue8m0, 0xFF800000, 0xFF, "torch e8m0: -Inf -> 0xFF"},
  // ml_dtypes fp6/fp4: quiet_NaN() is the -0 code; -quiet_NaN() is +0.
  {"ml_dtypes", "fp32", Fmt::e3m2, 0x7FC00000, 0x20, "ml_dtypes e3m2: +NaN -> -0"},
  {"ml_dtypes", "fp32", Fmt::e3m2, 0xFFC00000, 0x00, "ml_dtypes e3m2: -NaN -> +0"},
  {"ml_dtypes", "fp32", Fmt::e2m3, 0x7F800001, 0x20, "ml_dtypes e2m3: +sNaN -> -0"},
  {"ml_dtypes", "bf16", Fmt::e2m1, 0x7FC0, 0x8, "ml_dtypes e2m1: +NaN -> -0"},
  {"ml_dtypes", "fp16", Fmt::e2m1, 0xFE00, 0x0, "ml_dtypes e2m1: -NaN -> +0"},
  {"ml_dtypes", "fp32", Fmt::e3m2, 0xFF800000, 0x3F, "ml_dtypes e3m2: -Inf -> -max"},
  {"ml_dtypes", "fp32", Fmt::e3m2, 0x42C80000, 0x1F, "ml_dtypes e3m2: 100 -> max"},
  // ml_dtypes e5m2: NaN -> +-0x7E. ml_dtypes' main branch has a half -> e5m2
  // path that keeps payload bits; 0.6.0, as measured on the survey's recorded
  // outputs (conformance/survey/h100), drops them for fp16 too.
  {"ml_dtypes", "fp32", Fmt::e5m2, 0x7FA00000, 0x7E, "ml_dtypes e5m2 from fp32: payload dropped"},
  {"ml_dtypes", "fp32", Fmt::e5m2, 0xFFA00000, 0xFE, "ml_dtypes e5m2 from fp32: sign kept"},
  {"ml_dtypes", "fp16", Fmt::e5m2, 0x7C01, 0x7E, "ml_dtypes 0.6.0 e5m2 from fp16: sNaN -> 0x7E (measured)"},
  {"ml_dtypes", "fp16", Fmt::e5m2, 0x7D00, 0x7E, "ml_dtypes 0.6.0 e5m2 from fp16: payload dropped (measured)"},
  {"ml_dtypes", "fp16", Fmt::e5m2, 0xFD00, 0xFE, "ml_dtypes 0.6.0 e5m2 from fp16: -NaN keeps its sign (measured)"},
  {"ml_dtypes", "fp16", Fmt::e5m2, 0xFE00, 0xFE, "ml_dtypes e5m2 from fp16: -qNaN"},
  {"ml_dtypes", "fp16", Fmt::e5m2, 0x7BFF, 0x7C, "ml_dtypes e5m2 from fp16: max half rounds to Inf"},
  // torch on the GPU: a half NaN loses its sign (measured; the CPU keeps it).
  {"torch-cuda", "fp16", Fmt::e4m3, 0xFE00, 0x7F, "torch-cuda e4m3 from fp16: -NaN -> 0x7F (measured)"},
  {"torch-cpu", "fp16", Fmt::e4m3, 0xFE00, 0xFF, "torch-cpu e4m3 from fp16: -NaN -> 0xFF"},
  {"torch-cuda", "fp32", Fmt::e5m2, 0xFFC00000, 0xFF, "torch-cuda e5m2 from fp32: -NaN keeps its sign"},
  // JAX (measured, CPU and GPU alike): fp4 NaN -> -0 whatever its sign;
  // fp6 NaN -> zero with the NaN's sign, overflow and Inf take the NaN rule.
  {"jax-gpu", "fp32", Fmt::e2m1, 0x7FC00000, 0x8, "jax e2m1: +NaN -> -0 (nan_sign_negative)"},
  {"jax-cpu", "fp32", Fmt::e2m1, 0xFFC00000, 0x8, "jax e2m1: -NaN -> -0"},
  {"jax-gpu", "fp32", Fmt::e2m1, 0xC2C80000, 0xF, "jax e2m1: -100 saturates to -6"},
  {"jax-cpu", "fp32", Fmt::e3m2, 0x7FC00000, 0x00, "jax e3m2: +NaN -> +0"},
  {"jax-gpu", "fp32", Fmt::e3m2, 0xC2C80000, 0x20, "jax e3m2: -100 overflows to -0 (overflow_as_nan)"},
  {"jax-cpu", "fp32", Fmt::e3m2, 0x7F800000, 0x00, "jax e3m2: +Inf -> +0"},
  {"jax-gpu", "fp32", Fmt::e4m3, 0xFF800001, 0x7F, "jax-gpu e4m3: -NaN -> 0x7F"},
  {"jax-cpu", "fp32", Fmt::e4m3, 0xFF800001, 0xFF, "jax-cpu e4m3: -NaN -> 0xFF"},
  {"jax-gpu", "fp32", Fmt::e4m3, 0x43E80001, 0x7F, "jax-gpu e4m3: above 464 -> NaN (propagate)"},
  // ml_dtypes e8m0: zero and negatives are NaN; bottom binade on a 2^-126 grid.
  {"ml_dtypes", "fp32", Fmt::ue8m0, 0x00000000, 0xFF, "ml_dtypes e8m0: 0 -> NaN"},
  {"ml_dtypes", "fp32", Fmt::ue8m0, 0x80000000, 0xFF, "ml_dtypes e8m0: -0 -> NaN"},
  {"ml_dtypes", "fp32", Fmt::ue8m0, 0xBF800000, 0xFF, "ml_dtypes e8m0: -1 -> NaN"},
  {"ml_dtypes", "fp32", Fmt::ue8m0, 0x00500000, 0x01, "ml_dtypes e8m0: 1.25*2^-127 -> 0x01"},
  {"ml_dtypes", "bf16", Fmt::ue8m0, 0x0040, 0x00, "ml_dtypes e8m0 from bf16: 2^-127 -> 0x00"},
  {"ml_dtypes", "bf16", Fmt::ue8m0, 0x0041, 0x01, "ml_dtypes e8m0 from bf16: above 2^-127 -> 0x01"},
  {"ml_dtypes", "fp32", Fmt::ue8m0, 0x7F400000, 0xFF, "ml_dtypes e8m0: overflow -> NaN"},
  // CUDA e8m0 (cuda_fp8.hpp): |x|; satfinite + rp is the class constructor.
  {"cuda", "fp32", Fmt::ue8m0, 0xBF800000, 0x7F, "cuda e8m0: -1 converts as 1"},
  {"cuda", "fp32", Fmt::ue8m0, 0x3F800001, 0x80, "cuda e8m0 rp: just above 1 -> 2"},
  {"cuda", "fp32", Fmt::ue8m0, 0x00400001, 0x01, "cuda e8m0 rp: just above 2^-127 -> 2^-126"},
  {"cuda", "fp32", Fmt::ue8m0, 0x7F400000, 0xFE, "cuda e8m0 satfinite: clips to 2^127"},
  {"cuda", "fp32", Fmt::ue8m0, 0xFF800000, 0xFE, "cuda e8m0 satfinite: -Inf as +Inf -> 2^127"},
  // Generic C13 values under the OCP profile.
  {"ocp:rne:saturate:zero_underflow_positive", "fp32", Fmt::e2m1, 0xBDCCCCCD, 0x0, "-0.1 underflows to +0"},
  {"ocp:rne:saturate:zero_underflow_positive", "fp32", Fmt::e2m1, 0x80000000, 0x8, "-0 input stays -0"},
  {"ocp:rne:saturate:zero_positive", "fp32", Fmt::e2m1, 0x80000000, 0x0, "-0 -> +0"},
  {"ocp:rne:saturate", "fp32", Fmt::e2m1, 0xBDCCCCCD, 0x8, "C2: -0.1 underflows to -0"},
  {"ocp:rne:saturate:nan_to_zero:overflow_as_nan", "fp32", Fmt::e2m1, 0x42C80000, 0x0, "overflow -> NaN rule (+0)"},
  {"ocp:rne:saturate:nan_to_zero:overflow_as_nan", "fp32", Fmt::e2m1, 0xC2C80000, 0x8, "overflow -> NaN rule (-0)"},
  {"ocp:rne:saturate:nan_to_zero:overflow_as_nan", "fp32", Fmt::e2m1, 0x7F800000, 0x0, "+Inf -> NaN rule"},
  {"ocp:rtz:saturate:nan_to_zero:overflow_as_nan", "fp32", Fmt::e2m1, 0x42C80000, 0x7, "rtz overflow stays max"},
  {"ocp:rne:saturate:nan_to_max:nan_sign_input", "fp32", Fmt::e3m2, 0xFFC00000, 0x3F, "-NaN -> -max"},
  {"ocp:rne:saturate:nan_to_zero:nan_sign_negative", "fp32", Fmt::e2m1, 0x7FC00000, 0x8, "+NaN -> -0"},
  {"ocp:rne:saturate:nan_to_max:nan_sign_negative", "fp32", Fmt::e2m3, 0x7FC00000, 0x3F, "+NaN -> -max"},
  {"ocp:rne:saturate:nan_canonical:nan_sign_negative", "fp32", Fmt::e4m3, 0x7FC00000, 0xFF, "+NaN -> 0xFF"},
  {"ocp:rne:saturate:nan_keep_sign:nan_keep_payload", "fp32", Fmt::e5m2, 0x7FA00000, 0x7F, "APFloat-style payload"},
  {"ocp:rne:saturate:nan_keep_payload", "fp32", Fmt::e5m2, 0xFF800001, 0x7E, "canonical sign, payload 0 + quiet"},
  {"ocp:rne:saturate:neg_magnitude", "fp32", Fmt::ue4m3, 0xC3E00000, 0x7E, "ue4m3 -448 as 448"},
  {"ocp:ru:saturate:lowest_as_zero", "fp32", Fmt::ue8m0, 0x00000001, 0x01, "ru on the 2^-126 grid"},
  {"ocp:ru:saturate", "fp32", Fmt::ue8m0, 0x00000001, 0x00, "C2 ru: 2^-149 -> 2^-127"},
  {"ocp:rne:saturate:zero_to_nan", "fp32", Fmt::ue8m0, 0x00000000, 0xFF, "zero -> NaN"},
};
// clang-format on

TEST(C13, HandTable) {
  for (const auto& r : kRows) {
    const mx::ConvPolicy p = policy_of(r);
    const std::uint32_t got = mx::encode_f32_bits(r.fmt, widen(r.src, r.in), p);
    EXPECT_EQ(got, r.want) << r.profile << " " << r.src << " -> " << mx::desc(r.fmt).name << " input 0x"
                           << std::hex << r.in << ": " << r.why << " (policy " << mx::policy_string(p) << ")";
  }
  RecordProperty("rows", static_cast<int>(kRows.size()));
}

TEST(C13, DefaultsAreC2) {
  const mx::ConvPolicy p;
  EXPECT_TRUE(mx::c13_modifiers(p).empty());
  EXPECT_EQ(mx::policy_string(p), "rne:saturate");
  EXPECT_EQ(mx::parse_policy("rne:saturate"), p);
}

TEST(C13, ValidateRefusesWhereAValueCannotApply) {
  struct Bad {
    Fmt f;
    const char* policy;
  };
  const Bad bad[] = {{Fmt::e4m3, "zero_to_nan"},       {Fmt::e4m3, "lowest_as_zero"},
                     {Fmt::ue8m0, "nan_sign_input"},   {Fmt::int8, "nan_sign_negative"},   {Fmt::e4m3, "nan_keep_payload"},
                     {Fmt::e2m1, "nan_keep_payload"},  {Fmt::int8, "overflow_as_nan"},
                     {Fmt::e4m3, "overflow_as_nan"},   {Fmt::e4m3, "neg_magnitude"},
                     {Fmt::int8, "zero_positive"},     {Fmt::ue8m0, "zero_underflow_positive"}};
  for (const auto& b : bad) {
    const mx::ConvPolicy p = mx::parse_policy(b.policy);
    EXPECT_THROW(mx::validate_policy(b.f, p), mx::InvalidArgument) << b.policy << " on " << mx::desc(b.f).name;
  }
  const Bad good[] = {{Fmt::ue8m0, "zero_to_nan:lowest_as_zero:neg_magnitude"},
                      {Fmt::ue4m3, "neg_magnitude"},
                      {Fmt::e5m2, "nan_keep_payload:nan_sign_input:zero_positive"},
                      {Fmt::e3m2, "overflow_as_nan:nan_to_zero:nan_sign_inverted"}};
  for (const auto& g : good) {
    EXPECT_NO_THROW(mx::validate_policy(g.f, mx::parse_policy(g.policy))) << g.policy;
  }
}

TEST(C13, PolicyStringsRoundTrip) {
  for (const auto& name : mx::c13_value_names()) {
    const mx::ConvPolicy p = mx::parse_policy("rtz:propagate:" + name);
    EXPECT_EQ(mx::parse_policy(mx::policy_string(p)), p) << name;
  }
  EXPECT_THROW(mx::parse_policy("rne:nan_sideways"), mx::UnknownName);
  EXPECT_THROW(mx::parse_policy("rne::saturate"), mx::UnknownName);
  try {
    mx::parse_policy("rne:bogus");
    FAIL() << "no throw";
  } catch (const mx::UnknownName& e) {
    EXPECT_NE(std::string(e.what()).find("'bogus'"), std::string::npos) << e.what();
  }
}

// neg_magnitude is defined as "-x converts as x": for every bf16 pattern.
TEST(C13, NegMagnitudeIsEncodeOfAbs) {
  for (Fmt f : {Fmt::ue8m0, Fmt::ue4m3}) {
    for (mx::Rounding r : {mx::Rounding::rne, mx::Rounding::rtz, mx::Rounding::ru}) {
      mx::ConvPolicy p;
      p.rounding = r;
      p.negative_unsigned = mx::NegativeUnsigned::neg_magnitude;
      for (std::uint32_t h = 0x8000; h <= 0xFFFF; ++h) {
        const std::uint32_t x = mx::bf16_to_f32_bits(static_cast<std::uint16_t>(h));
        const std::uint32_t a = mx::encode_f32_bits(f, x, p);
        const std::uint32_t b = mx::encode_f32_bits(f, x & 0x7FFFFFFFu, p);
        ASSERT_EQ(a, b) << mx::desc(f).name << " bf16 0x" << std::hex << h;
      }
    }
  }
}

}  // namespace
