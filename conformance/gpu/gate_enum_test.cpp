// gate_enum_test.cpp (label cpu) - the `gpu` gate enumerates exactly what the
// device launchers accept (issue 11 item 1). The launchers' accepted set is
// found by brute force: every base recipe with every combination of every
// modifier the recipe parser knows (names taken from libmxref's own name
// functions), kept when kernels/common/supported.cpp accepts it; likewise
// every axis x data order x scale layout x packing, every input type, every
// per-tensor format and dequantize output. Each set must equal the gate's
// enumeration (gpu_gate_cases.hpp), so a policy the kernels take but the gate
// never runs (as nonfinite_block_ignore once was) fails here, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "common/supported.hpp"
#include "gpu_gate_cases.hpp"
#include "mx/error.hpp"
#include "mx/recipe.hpp"

namespace {

// Names of an enum's members from libmxref's name function (members are
// numbered 0.. in order; the name functions answer "?" past the last).
template <class E, class F>
std::vector<std::string> names_of(F name) {
  std::vector<std::string> v;
  for (int i = 0; i < 16; ++i) {
    const std::string n(name(static_cast<E>(i)));
    if (n == "?" || n.empty()) break;
    v.push_back(n);
  }
  return v;
}

std::set<std::string> launcher_recipes() {
  // every modifier group: "" = not given
  std::vector<std::vector<std::string>> groups;
  auto with_none = [](std::vector<std::string> v) {
    v.insert(v.begin(), "");
    return v;
  };
  groups.push_back(with_none(names_of<mx::ScaleRule>(mx::scale_rule_name)));
  groups.push_back(with_none(names_of<mx::Rounding>(mx::rounding_name)));
  groups.push_back(with_none({std::string(mx::overflow_name(mx::Overflow::saturate)),
                              std::string(mx::overflow_name(mx::Overflow::propagate))}));
  groups.push_back(with_none(names_of<mx::NanPolicy>(mx::nan_policy_name)));
  groups.push_back({"", "int8_full", "int8_symmetric"});
  groups.push_back({"", "nonfinite_block_nan", "nonfinite_block_ignore"});
  groups.push_back({"", "flush_input_subnormals"});
  groups.push_back({"", "torchao"});
  std::set<std::string> accepted;
  for (const std::string& base : mx::recipe_base_names()) {
    std::vector<std::size_t> idx(groups.size(), 0);
    for (;;) {
      std::string name = base;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        if (!groups[g][idx[g]].empty()) name += ":" + groups[g][idx[g]];
      }
      try {
        const mx::Recipe r = mx::parse_recipe(name);
        mxk::check_device_recipe(r);
        accepted.insert(r.name());
      } catch (const mx::Error&) {
        // not a recipe, or not one the kernels implement
      }
      std::size_t g = 0;
      while (g < groups.size() && ++idx[g] == groups[g].size()) idx[g++] = 0;
      if (g == groups.size()) break;
    }
  }
  return accepted;
}

std::set<std::string> canonical(const std::vector<std::string>& names) {
  std::set<std::string> s;
  for (const std::string& n : names) s.insert(mx::parse_recipe(n).name());
  return s;
}

std::string diff(const std::set<std::string>& launcher, const std::set<std::string>& gate) {
  std::string s;
  for (const std::string& n : launcher) {
    if (!gate.count(n)) s += " accepted by the launcher, not run by the gate: " + n + ";";
  }
  for (const std::string& n : gate) {
    if (!launcher.count(n)) s += " run by the gate, rejected by the launcher: " + n + ";";
  }
  return s;
}

TEST(GateEnumeration, RecipesEqualLauncherAcceptedSet) {
  const std::set<std::string> launcher = launcher_recipes();
  std::vector<std::string> all = gate::main_recipes();
  const std::vector<std::string> opt = gate::option_recipes();
  all.insert(all.end(), opt.begin(), opt.end());
  const std::set<std::string> g = canonical(all);
  EXPECT_EQ(g.size(), all.size()) << "the gate runs a recipe twice";
  EXPECT_EQ(diff(launcher, g), "");
  EXPECT_GT(launcher.count("mxfp8_e4m3:nonfinite_block_ignore"), 0u);  // the case the issue names
  EXPECT_EQ(launcher.size(), 26u * 4u);  // 26 named recipes x {default, explicit NaN name} x {nfb nan, ignore}
}

TEST(GateEnumeration, OptionsEqualLauncherAcceptedSet) {
  std::set<std::string> launcher, g;
  auto key = [](mx::Axis a, mx::DataOrder d, mx::ScaleLayout l, mx::Packing p) {
    return std::string(mx::axis_name(a)) + "/" + std::string(mx::data_order_name(d)) + "/" +
           std::string(mx::scale_layout_name(l)) + "/" + std::string(mx::packing_name(p));
  };
  for (mx::Axis a : {mx::Axis::rowwise, mx::Axis::colwise}) {
    for (mx::DataOrder d : {mx::DataOrder::source, mx::DataOrder::transposed}) {
      for (const std::string& ln : names_of<mx::ScaleLayout>(mx::scale_layout_name)) {
        for (const std::string& pn : {std::string(mx::packing_name(mx::Packing::packed)),
                                      std::string(mx::packing_name(mx::Packing::container8))}) {
          mx::QuantizeOptions o;
          o.axis = a;
          o.data_order = d;
          o.scale_layout = mx::parse_scale_layout(ln);
          o.packing = mx::parse_packing(pn);
          try {
            mxk::check_device_options(o);
            launcher.insert(key(a, d, o.scale_layout, o.packing));
          } catch (const mx::InvalidArgument&) {
          }
        }
      }
    }
  }
  for (const gate::Cfg& c : gate::kCfgs) {
    for (mx::Packing p : gate::kPackings) g.insert(key(c.axis, c.order, c.layout, p));
  }
  EXPECT_EQ(diff(launcher, g), "");
  EXPECT_EQ(launcher.size(), 16u);
}

TEST(GateEnumeration, TypesFormatsOutputsEqualLauncherAcceptedSet) {
  std::set<int> types, gtypes, fmts, gfmts, outs, gouts;
  // the device launchers take every input type (one kernel instantiation each)
  for (const std::string& n : names_of<mx::InType>(mx::in_type_name)) types.insert(static_cast<int>(mx::parse_in_type(n)));
  EXPECT_EQ(types.size(), 3u);
  for (mx::InType t : gate::kTypes) gtypes.insert(static_cast<int>(t));
  for (int f = 0; f <= static_cast<int>(mx::Fmt::fp16); ++f) {
    try {
      mxk::check_device_per_tensor_format(static_cast<mx::Fmt>(f));
      fmts.insert(f);
    } catch (const mx::InvalidArgument&) {
    }
    try {
      mxk::check_device_dequant_output(static_cast<mx::Fmt>(f));
      outs.insert(f);
    } catch (const mx::InvalidArgument&) {
    }
  }
  for (mx::Fmt f : gate::kPerTensorFormats) gfmts.insert(static_cast<int>(f));
  for (mx::Fmt f : gate::kDequantOuts) gouts.insert(static_cast<int>(f));
  EXPECT_EQ(types, gtypes);
  EXPECT_EQ(fmts, gfmts);
  EXPECT_EQ(outs, gouts);
}

}  // namespace
