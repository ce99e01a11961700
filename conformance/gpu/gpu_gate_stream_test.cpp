// gpu_gate_stream_test.cpp - the `gpu` gate for the colwise/fused stream
// kernel (kernels/common/col_stream.cuh, issue 9): 16-bit MX inputs made of
// full 128 x 64 tiles take it (every other shape, fp32 and NVFP4 stay on the
// general tile kernel, which the other gate files cover). Every recipe,
// every colwise configuration (source/transposed order, dense /
// dense_colwise / tcgen05 scales), fused rowwise+colwise with both orders,
// bf16 and f16, special/midpoint/wide inputs, one tile per CTA and several
// (the next tile loaded while one converts), the software conversions and
// nonfinite_block_ignore; outputs poisoned twice (the gate environment).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "gpu_gate.hpp"
#include "gpu_gate_cases.hpp"
#include "mx/quantize.hpp"
#include "mxk/api.hpp"

namespace {

using gate::Cfg;
using gate::Dist;
using gate::kCfgs;
using gate::opts_of;

using gate::Shape;
using gate::shape_str;

struct Knobs {  // restores the launcher knobs whatever happens
  Knobs(int split, bool sw) {
    mxk::set_work_split(split);
    mxk::set_force_software(sw);
  }
  ~Knobs() {
    mxk::set_work_split(0);
    mxk::set_force_software(false);
  }
};

// The reference bytes of one input for every colwise configuration and
// three fused pairs (computed once, compared under every launcher knob).
constexpr std::pair<int, int> kFusedPairs[] = {{1, 7}, {0, 3}, {1, 4}};
struct Wants {
  std::vector<mx::Quantized> col;                               // kCfgs[2..7]
  std::vector<std::pair<mx::Quantized, mx::Quantized>> fused;  // kFusedPairs
};
Wants wants_of(const mx::Recipe& r, const gate::Input& in) {
  Wants w;
  for (int ci = 2; ci < 8; ++ci) w.col.push_back(mx::quantize(r, in.view(), opts_of(kCfgs[ci])));
  for (const auto& [ri, ci] : kFusedPairs) {
    w.fused.emplace_back(mx::quantize(r, in.view(), opts_of(kCfgs[ri])), mx::quantize(r, in.view(), opts_of(kCfgs[ci])));
  }
  return w;
}
void check_all(const mx::Recipe& r, const std::string& name, const gate::Input& in, const Wants& want,
               const std::string& ctx) {
  for (int ci = 2; ci < 8; ++ci) {
    const Cfg& c = kCfgs[ci];
    ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), opts_of(c)), want.col[ci - 2]), "")
        << name << " " << ctx << " " << c.name;
  }
  for (std::size_t i = 0; i < std::size(kFusedPairs); ++i) {
    const auto& [ri, ci] = kFusedPairs[i];
    const mxk::FusedQuantized f = mxk::quantize_device_fused(r, in.view(), opts_of(kCfgs[ri]), opts_of(kCfgs[ci]));
    ASSERT_EQ(gate::diff_quantized(f.rowwise, want.fused[i].first), "")
        << name << " " << ctx << " fused " << kCfgs[ri].name << " + " << kCfgs[ci].name;
    ASSERT_EQ(gate::diff_quantized(f.colwise, want.fused[i].second), "")
        << name << " " << ctx << " fused " << kCfgs[ri].name << " + " << kCfgs[ci].name;
  }
}

class StreamRecipes : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamRecipes, FullTilesBytesEqualReference) {
  REQUIRE_GPU();
  std::uint64_t seed = 4100;
  // one tile; a batch of 2 x 3 tiles each; 3 x 8 tiles; 9 row tiles over a
  // batch of 3
  for (const Shape& s : {Shape{1, 128, 64}, Shape{2, 256, 192}, Shape{1, 384, 512}, Shape{3, 384, 128}}) {
    for (mx::InType t : {mx::InType::bf16, mx::InType::f16}) {
      for (Dist d : {Dist::special, Dist::midpoints, Dist::wide}) {
        const mx::Recipe r0 = mx::parse_recipe(GetParam());
        const gate::Input in = gate::make_input(d, t, s.b, s.m, s.k, r0.elem, seed++);
        const Wants want = wants_of(r0, in);
        // splits: automatic (one tile per CTA), 3 (the next tile loaded while
        // one converts, across tiles and batch entries), 2 with the software
        // conversions
        for (const auto& [split, sw] : {std::pair{0, false}, std::pair{3, false}, std::pair{2, true}}) {
          const Knobs k(split, sw);
          const std::string ctx = std::string(mx::in_type_name(t)) + " " + shape_str(s) + " " + gate::dist_name(d) +
                                  " split " + std::to_string(split) + (sw ? " software" : "");
          check_all(r0, GetParam(), in, want, ctx);
          if (HasFatalFailure()) return;
        }
        if (d == Dist::special) {  // nonfinite_block_ignore: NaN/Inf blocks keep their finite scale
          const std::string nb = GetParam() + ":nonfinite_block_ignore";
          const mx::Recipe rn = mx::parse_recipe(nb);
          const Knobs k(3, false);
          check_all(rn, nb, in, wants_of(rn, in), std::string(mx::in_type_name(t)) + " " + shape_str(s) + " split 3");
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}
INSTANTIATE_TEST_SUITE_P(GpuGate, StreamRecipes, ::testing::ValuesIn(gate::main_recipes()), gate::param_name);

// The stream kernel under compute-sanitizer (memcheck, racecheck: the
// double-buffered tile, the source-order code tile and their barriers):
// several tiles per CTA, both orders, fused; one poison.
struct OnePoison {
  OnePoison() { mxk::set_poison_check(false); }
  ~OnePoison() { mxk::set_poison_check(true); }
};
TEST(GpuGateSanitizer, StreamTiles) {
  REQUIRE_GPU();
  const OnePoison one;
  std::uint64_t seed = 4900;
  for (const char* name : {"mxfp8_e4m3", "mxfp4:rceil", "mxfp6_e2m3"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (const mx::InType t : {mx::InType::bf16, mx::InType::f16}) {
      const gate::Input in = gate::make_input(Dist::special, t, 2, 256, 192, r.elem, seed++);
      const Wants want = wants_of(r, in);
      for (const int split : {0, 3}) {
        const Knobs k(split, false);
        check_all(r, name, in, want, std::string(mx::in_type_name(t)) + " split " + std::to_string(split));
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
