// cuda_host_test.cpp - label `cpu` (issue 2 item 4): the reference encoder and
// decoder against the CUDA 13 toolkit's host conversions (cuda_fp8.h,
// cuda_fp6.h, cuda_fp4.h, e8m0 included), sampled for fp32 (structured plus
// random, a few million per conversion) and complete for bf16 and fp16
// inputs (all 2^16 each), plus every code of every decode direction.
// SPEC C2 (element conversion), C1/C3 (ue8m0). The policy each CUDA
// function matches and the documented differences: xcheck/cuda_host.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "xcheck/cuda_host.hpp"
#include "xcheck/inputs.hpp"
#include "xcheck/sweep.hpp"

namespace {

using xcheck::CudaCheck;
using xcheck::In;

std::string param_name(const ::testing::TestParamInfo<CudaCheck>& info) {
  std::string s = info.param.name;
  for (auto& ch : s) {
    if (ch == ' ') ch = '_';
  }
  return s;
}

class CudaHost : public ::testing::TestWithParam<CudaCheck> {};

TEST_P(CudaHost, SampledFp32_C2) {
  const CudaCheck c = GetParam();
  xcheck::SampledF32 in;
  in.n_random = std::uint64_t{3} << 20;
  const auto rep = xcheck::sweep(std::string("fp32 sampled -> ") + c.name + " vs " + c.cuda, "C2", 32,
                                 in.size(), xcheck::cuda_reasons(), [&](std::uint64_t i) {
                                   return xcheck::cuda_case(c, In::f32, in(i));
                                 });
  xcheck::finish(rep);
}

TEST_P(CudaHost, AllBf16_C2) {
  const CudaCheck c = GetParam();
  const auto rep = xcheck::sweep(std::string("bf16 all -> ") + c.name + " vs " + c.cuda, "C2", 16,
                                 std::uint64_t{1} << 16, xcheck::cuda_reasons(), [&](std::uint64_t i) {
                                   return xcheck::cuda_case(c, In::bf16, static_cast<std::uint32_t>(i));
                                 });
  xcheck::finish(rep);
}

// CUDA 13 has no fp16 -> e8m0 host conversion: the e8m0 checks are not
// instantiated for fp16 inputs.
class CudaHostFp16 : public ::testing::TestWithParam<CudaCheck> {};

TEST_P(CudaHostFp16, AllFp16_C2) {
  const CudaCheck c = GetParam();
  const auto rep = xcheck::sweep(std::string("fp16 all -> ") + c.name + " vs " + c.cuda, "C2", 16,
                                 std::uint64_t{1} << 16, xcheck::cuda_reasons(), [&](std::uint64_t i) {
                                   return xcheck::cuda_case(c, In::f16, static_cast<std::uint32_t>(i));
                                 });
  xcheck::finish(rep);
}

INSTANTIATE_TEST_SUITE_P(C2, CudaHost, ::testing::ValuesIn(xcheck::cuda_checks()), param_name);

std::vector<CudaCheck> fp16_checks() {
  std::vector<CudaCheck> v;
  for (const auto& c : xcheck::cuda_checks()) {
    if (!xcheck::is_e8m0(c.op)) v.push_back(c);
  }
  return v;
}
INSTANTIATE_TEST_SUITE_P(C2, CudaHostFp16, ::testing::ValuesIn(fp16_checks()), param_name);

// ---- decode directions: every code -> half (fp8/fp6/fp4) or bf16 (e8m0) ----
// Every element value is exact in fp16 and every ue8m0 value exact in bf16,
// so the reference's exact decode (C2 "decode is exact") rounded with RNE
// (C8) must give the same bits; NaN codes must give a NaN.

struct DecodeCase {
  const char* name;
  mx::Fmt fmt;
  std::uint32_t ncodes;
};

std::uint32_t cuda_decode(mx::Fmt f, std::uint32_t code) {
  switch (f) {
    case mx::Fmt::e4m3:
      return static_cast<__half_raw>(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(code), __NV_E4M3)).x;
    case mx::Fmt::e5m2:
      return static_cast<__half_raw>(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(code), __NV_E5M2)).x;
    case mx::Fmt::e3m2:
      return static_cast<__half_raw>(__nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(code), __NV_E3M2)).x;
    case mx::Fmt::e2m3:
      return static_cast<__half_raw>(__nv_cvt_fp6_to_halfraw(static_cast<__nv_fp6_storage_t>(code), __NV_E2M3)).x;
    case mx::Fmt::e2m1:
      return static_cast<__half_raw>(__nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(code), __NV_E2M1)).x;
    case mx::Fmt::ue8m0:
      return __nv_cvt_e8m0_to_bf16raw(static_cast<__nv_fp8_storage_t>(code)).x;
    default:
      return 0;
  }
}

TEST(CudaHostDecode, EveryCode_C2_C8) {
  const DecodeCase cases[] = {{"e4m3 -> fp16", mx::Fmt::e4m3, 256}, {"e5m2 -> fp16", mx::Fmt::e5m2, 256},
                              {"e3m2 -> fp16", mx::Fmt::e3m2, 64},  {"e2m3 -> fp16", mx::Fmt::e2m3, 64},
                              {"e2m1 -> fp16", mx::Fmt::e2m1, 16},  {"ue8m0 -> bf16", mx::Fmt::ue8m0, 256}};
  std::uint64_t compared = 0, nan_codes = 0;
  for (const auto& dc : cases) {
    for (std::uint32_t code = 0; code < dc.ncodes; ++code) {
      const std::uint32_t cu = cuda_decode(dc.fmt, code);
      const float v = mx::decode(dc.fmt, code);
      const bool bf = dc.fmt == mx::Fmt::ue8m0;
      const std::uint32_t ref = bf ? mx::f32_to_bf16_rne(v) : mx::f32_to_f16_rne(v);
      ++compared;
      if (v != v) {
        ++nan_codes;
        const bool cu_nan = bf ? ((cu & 0x7F80u) == 0x7F80u && (cu & 0x7Fu) != 0)
                               : ((cu & 0x7C00u) == 0x7C00u && (cu & 0x3FFu) != 0);
        EXPECT_TRUE(cu_nan) << "[C2] " << dc.name << ": code " << xcheck::hex(code, 2)
                            << " is NaN in the reference, CUDA gives " << xcheck::hex(cu, 4);
        continue;
      }
      EXPECT_EQ(cu, ref) << "[C2/C8] " << dc.name << ": code " << xcheck::hex(code, 2) << " => observed "
                         << xcheck::hex(ref, 4) << " (reference), expected: " << xcheck::hex(cu, 4)
                         << " (CUDA)";
    }
  }
  std::printf("[xcheck] decode vs CUDA host: compared %llu codes (%llu NaN codes compared as NaN-ness)\n",
              static_cast<unsigned long long>(compared), static_cast<unsigned long long>(nan_codes));
  RecordProperty("compared", std::to_string(compared));
  EXPECT_EQ(compared, 256u + 256u + 64u + 64u + 16u + 256u);
}

}  // namespace
