// cuda_fp32_all_test.cpp - label `exhaustive` (issue 2 item 5): all 2^32 fp32
// inputs through every conversion the CUDA 13 host functions define
// (e4m3/e5m2 rne with saturate and propagate; e3m2/e2m3/e2m1 rne and rtz with
// saturate; ue8m0 rtz and round-up with saturate), each compared with the
// reference encoder under the policy it matches (SPEC C2; C1/C3 for
// ue8m0). Policy mapping and documented differences: xcheck/cuda_host.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "xcheck/cuda_host.hpp"
#include "xcheck/sweep.hpp"

namespace {

class CudaFp32All : public ::testing::TestWithParam<xcheck::CudaOp> {};

TEST_P(CudaFp32All, EveryFp32Input_C2) {
  const xcheck::CudaCheck* check = nullptr;
  for (const auto& c : xcheck::cuda_checks()) {
    if (c.op == GetParam()) check = &c;
  }
  ASSERT_NE(check, nullptr);
  const std::string name = std::string("fp32 -> ") + check->name + " vs " + check->cuda;
  const auto rep = xcheck::sweep(name, "C2", 32, std::uint64_t{1} << 32, xcheck::cuda_reasons(),
                                 [c = *check](std::uint64_t i) {
                                   return xcheck::cuda_case(c, xcheck::In::f32,
                                                            static_cast<std::uint32_t>(i));
                                 });
  xcheck::finish(rep);
  // Negative inputs to ue8m0 are the only documented difference for fp32:
  // 2^31 - (2^23 - 1) negative non-NaN patterns minus -0.
  if (xcheck::is_e8m0(check->op)) {
    EXPECT_EQ(rep.docs[xcheck::kE8m0SignReason].count, (std::uint64_t{1} << 31) - 0x7FFFFFu - 1u)
        << "C1 ue8m0: every negative non-zero, non-NaN fp32 should be a documented sign difference";
  } else {
    EXPECT_EQ(rep.docs[xcheck::kE8m0SignReason].count, 0u);
  }
}

std::string op_name(const ::testing::TestParamInfo<xcheck::CudaOp>& info) {
  for (const auto& c : xcheck::cuda_checks()) {
    if (c.op == info.param) {
      std::string s = c.name;
      for (auto& ch : s) {
        if (ch == ' ') ch = '_';
      }
      return s;
    }
  }
  return "unknown";
}

INSTANTIATE_TEST_SUITE_P(C2, CudaFp32All,
                         ::testing::Values(xcheck::CudaOp::fp8_e4m3_sat, xcheck::CudaOp::fp8_e4m3_nosat,
                                           xcheck::CudaOp::fp8_e5m2_sat, xcheck::CudaOp::fp8_e5m2_nosat,
                                           xcheck::CudaOp::fp6_e3m2_rn, xcheck::CudaOp::fp6_e3m2_rz,
                                           xcheck::CudaOp::fp6_e2m3_rn, xcheck::CudaOp::fp6_e2m3_rz,
                                           xcheck::CudaOp::fp4_e2m1_rn, xcheck::CudaOp::fp4_e2m1_rz,
                                           xcheck::CudaOp::e8m0_rz_sat, xcheck::CudaOp::e8m0_rp_sat),
                         op_name);

}  // namespace
