// mx/recipe.hpp - named quantization recipes (SPEC C4, C5).
//
// A recipe name is a base name followed by optional ':'-separated modifiers:
//   mxfp8_e4m3, mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4, mxint8, nvfp4
//   scale rule:   :floor (default) :ceil :even :rceil
//   rounding:     :rne (default) :rtz :rna :sr
//   overflow:     :saturate (default) :propagate
//   NaN:          :nan_canonical :nan_keep_sign :nan_to_max :nan_to_zero
//   int8:         :int8_full (default) :int8_symmetric
//   blocks:       :nonfinite_block_nan (default) :nonfinite_block_ignore
//   inputs:       :flush_input_subnormals
//   nvfp4 order:  nvfp4 (TransformerEngine, default) or nvfp4:torchao
// e.g. "mxfp8_e4m3:rceil" is the NVIDIA recipe. parse_recipe throws
// UnknownName naming the bad part.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mx/convert.hpp"
#include "mx/format.hpp"
#include "mx/scale.hpp"

namespace mx {

enum class Nvfp4Order : std::uint8_t { none, transformer_engine, torchao };

struct Recipe {
  std::string base;  // e.g. "mxfp8_e4m3"
  Fmt elem = Fmt::e4m3;
  int block = 32;  // V
  ScaleRule rule = ScaleRule::floor;
  ConvPolicy conv{};
  NonFiniteBlock nfb = NonFiniteBlock::nonfinite_block_nan;
  Nvfp4Order nvfp4 = Nvfp4Order::none;  // != none: C5 recipe (ue4m3 scales, block 16)

  bool is_nvfp4() const { return nvfp4 != Nvfp4Order::none; }
  Fmt scale_fmt() const { return is_nvfp4() ? Fmt::ue4m3 : Fmt::ue8m0; }
  // Canonical name: base plus every modifier that differs from the default.
  std::string name() const;
};

Recipe parse_recipe(std::string_view name);
// The base names of C4/C5 (without modifiers).
std::vector<std::string> recipe_base_names();
// Every named recipe of C4/C5: each base with each scale rule, and nvfp4:torchao.
std::vector<std::string> recipe_names();

std::string_view rounding_name(Rounding r);
std::string_view overflow_name(Overflow o);
std::string_view nan_policy_name(NanPolicy n);
Rounding parse_rounding(std::string_view s);
Overflow parse_overflow(std::string_view s);
NanPolicy parse_nan_policy(std::string_view s);
Fmt parse_format(std::string_view s);  // "e4m3", ..., "ue4m3", throws UnknownName

}  // namespace mx
