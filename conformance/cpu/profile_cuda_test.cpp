// profile_cuda_test.cpp - the `cuda` profile (C13) against the CUDA 13
// toolkit's own conversions (cuda_fp8.h, cuda_fp6.h, cuda_fp4.h compiled as
// host C++, as conformance/crosscheck does): every API mode of every format,
// every bf16 and fp16 pattern and 2^20 fp32 patterns, byte for byte, with no
// documented difference left (the e8m0 sign is now the neg_magnitude policy).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "mx/profile.hpp"
#include "xcheck/cuda_host.hpp"

namespace {

using mx::Fmt;
using xcheck::CudaOp;

// The CUDA call behind a profile mode.
bool op_of(const mx::ProfileEntry& e, CudaOp* op) {
  const std::string m(e.mode);
  switch (e.fmt) {
    case Fmt::e4m3: *op = m == "satfinite" ? CudaOp::fp8_e4m3_sat : CudaOp::fp8_e4m3_nosat; return true;
    case Fmt::e5m2: *op = m == "satfinite" ? CudaOp::fp8_e5m2_sat : CudaOp::fp8_e5m2_nosat; return true;
    case Fmt::e3m2: *op = m == "rn" ? CudaOp::fp6_e3m2_rn : CudaOp::fp6_e3m2_rz; return true;
    case Fmt::e2m3: *op = m == "rn" ? CudaOp::fp6_e2m3_rn : CudaOp::fp6_e2m3_rz; return true;
    case Fmt::e2m1: *op = m == "rn" ? CudaOp::fp4_e2m1_rn : CudaOp::fp4_e2m1_rz; return true;
    case Fmt::ue8m0:
      if (m == "satfinite-rz") *op = CudaOp::e8m0_rz_sat;
      else if (m == "satfinite-rp") *op = CudaOp::e8m0_rp_sat;
      else if (m == "nosat-rz") *op = CudaOp::e8m0_rz_nosat;
      else if (m == "nosat-rp") *op = CudaOp::e8m0_rp_nosat;
      else return false;
      return true;
    default: return false;
  }
}

TEST(ProfileCuda, EveryModeMatchesTheToolkit) {
  std::uint64_t total = 0;
  int modes = 0;
  for (const auto& e : mx::profile_entries()) {
    if (e.profile != "cuda" || !e.offered) continue;
    CudaOp op;
    ASSERT_TRUE(op_of(e, &op)) << "no CUDA call for mode " << e.mode;
    ++modes;
    const xcheck::In in = e.source == mx::InType::f32 ? xcheck::In::f32
                        : e.source == mx::InType::bf16 ? xcheck::In::bf16 : xcheck::In::f16;
    const std::uint64_t n = e.source == mx::InType::f32 ? (std::uint64_t{1} << 20) : 65536;
    std::uint64_t differ = 0, first = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      // fp32: a stride through all 2^32 patterns that visits every exponent.
      const std::uint32_t bits = e.source == mx::InType::f32 ? static_cast<std::uint32_t>(i * 4093u + (i >> 7))
                                                             : static_cast<std::uint32_t>(i);
      const std::uint32_t x = xcheck::widen(in, bits);
      const std::uint32_t ref = mx::encode_f32_bits(e.fmt, x, e.policy);
      const std::uint32_t cu = xcheck::cuda_convert(op, in, bits);
      if (ref != cu && differ++ == 0) first = bits;
    }
    total += n;
    EXPECT_EQ(differ, 0u) << "cuda " << mx::in_type_name(e.source) << " -> " << mx::desc(e.fmt).name << " mode "
                          << e.mode << ": " << differ << " of " << n << " differ, first input 0x" << std::hex
                          << first << " (" << e.api << ")";
  }
  EXPECT_EQ(modes, 38);  // fp8 2 fmts x 2 modes x 3 sources, fp6/fp4 3 x 2 x 3, e8m0 4 x 2
  std::printf("[profile-cuda] %d modes, compared %llu cases\n", modes, static_cast<unsigned long long>(total));
}

}  // namespace
