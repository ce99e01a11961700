// test_probes_emulated.cpp - the probe logic of kernels/probes (decoding of
// one-hot experiments, packing of random cases, fitting) on the CPU
// emulation of the GPU (documented maps + a C9 model), so CI exercises the
// code the gpu tests run on hardware. An emulated map equal to the
// documented one must decode to zero differences; the fit must recover the
// emulated model from probe-packed cases.
#include <gtest/gtest.h>

#include <sstream>

#include "mx/hw_model.hpp"
#include "mxk/api.hpp"
#include "probe_lib.hpp"

namespace {

using mx::MmaForm;
namespace pr = mxk::probes;

struct Emulate {
  explicit Emulate(const mx::HwModelParams& p) : params(p) { pr::set_emulation(&params); }
  ~Emulate() { pr::set_emulation(nullptr); }
  mx::HwModelParams params;
};

TEST(C10_ProbeEmulated, ScaleLaneProbeAgreesWithTheDocumentedLanes) {
  // With the emulated block-scaled MMA reading scales where C10 says, every
  // selector of every block-scaled form must come out "matches C10".
  Emulate emu(mx::HwModelParams{});
  for (const char* name : {"mma.m16n8k32.mxf8f6f4", "mma.m16n8k64.mxf4", "mma.m16n8k64.mxf4nvf4"}) {
    EXPECT_EQ(mxk::probe_main({name}), 0) << name;
  }
}

TEST(C10_ProbeEmulated, FragmentDecodingRecoversTheMaps) {
  Emulate emu(mx::HwModelParams{});
  for (int i = 0; i < mx::kNumMmaForms; ++i) {
    const auto f = static_cast<MmaForm>(i);
    if (mx::form_info(f).sm >= 120) continue;
    const pr::FragmentProbe p = pr::probe_fragments(f);
    EXPECT_EQ(p.total_differences(), 0u) << mx::form_info(f).name;
    std::size_t entries = 0;
    for (const auto& op : p.operands) {
      entries += op.measured.size();
      EXPECT_TRUE(mx::map_is_bijection(f, op.op, op.measured)) << mx::form_info(f).name << " " << mx::operand_name(op.op);
    }
    EXPECT_GT(entries, 0u);
  }
}

TEST(C9_ProbeEmulated, CasesRoundTripThroughTheTiles) {
  mx::HwModelParams truth;
  truth.group = 4;
  truth.frac_bits = 25;
  Emulate emu(truth);
  for (MmaForm f : {MmaForm::mma_e4m3_m16n8k32, MmaForm::mma_bf16_m16n8k16, MmaForm::wgmma_e4m3_m64n8k32_ss,
                    MmaForm::wgmma_bf16_m64n8k16_rs}) {
    std::vector<mx::DotCase> cs = pr::random_tile_cases(f, 5, 0);
    const auto more = pr::random_tile_cases(f, 5, 1);
    cs.insert(cs.end(), more.begin(), more.end());
    pr::run_cases(f, cs);
    EXPECT_TRUE(mx::hw_mismatches(truth, pr::numerics_elem(f), cs).empty()) << mx::form_info(f).name;
    std::vector<pr::Feature> ft = pr::feature_cases(f);
    ASSERT_GT(ft.size(), 10u);
    std::vector<mx::DotCase> fc;
    for (const auto& x : ft) fc.push_back(x.cs);
    pr::run_cases(f, fc, false);
    EXPECT_TRUE(mx::hw_mismatches(truth, pr::numerics_elem(f), fc).empty()) << mx::form_info(f).name;
  }
  // s8: the emulation is the exact int32 dot product.
  std::vector<mx::DotCase> cs = pr::random_tile_cases(MmaForm::mma_s8_m16n8k32, 5, 0);
  pr::run_cases(MmaForm::mma_s8_m16n8k32, cs);
  for (const auto& c : cs) ASSERT_EQ(c.d, pr::exact_int_dot(c));
}

// Issue 13's corner pipeline (mxprobe --corners) on the emulation: the
// sample it writes reads back, and the fitted model's report counts zero
// mismatches when the emulated hardware is that model, some when it is not.
TEST(C9_ProbeEmulated, CornerSampleRoundTripsAndReportsMismatches) {
  for (MmaForm f : {MmaForm::wgmma_bf16_m64n8k16_ss, MmaForm::mma_e5m2_m16n8k32, MmaForm::wgmma_e5m2_m64n8k32_rs}) {
    const mx::HwModelParams fitted = mx::h100_fitted_model(f);
    {
      Emulate emu(fitted);
      const pr::ValidationFile vf = pr::run_corner_cases(f, 4096, 3, "emulation");
      const pr::ValidationFile back = pr::parse_validation(pr::validation_bytes(vf), "mem");
      EXPECT_GE(back.cases(), 4096u);
      std::ostringstream os;
      EXPECT_EQ(pr::report_corners(f, back, os), 0u) << os.str();
      EXPECT_NE(os.str().find("cut_zero_neg"), std::string::npos) << os.str();
    }
    mx::HwModelParams other = fitted;
    other.frac_bits = 40;  // keeps what the fitted model cuts: the cut_zero classes differ
    other.out_round = mx::HwRound::rne;
    Emulate emu(other);
    const pr::ValidationFile vf = pr::run_corner_cases(f, 4096, 3, "emulation");
    std::ostringstream os;
    EXPECT_GT(pr::report_corners(f, vf, os), 0u) << mx::form_info(f).name;
  }
}

}  // namespace
