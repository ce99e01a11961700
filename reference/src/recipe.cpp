// recipe.cpp - recipe names and their parsing (SPEC C4, C5).
#include "mx/recipe.hpp"

#include "mx/error.hpp"

namespace mx {
namespace {

struct Base {
  std::string_view name;
  Fmt elem;
  int block;
  Nvfp4Order nvfp4;
};
constexpr Base kBases[] = {
    {"mxfp8_e4m3", Fmt::e4m3, 32, Nvfp4Order::none},
    {"mxfp8_e5m2", Fmt::e5m2, 32, Nvfp4Order::none},
    {"mxfp6_e3m2", Fmt::e3m2, 32, Nvfp4Order::none},
    {"mxfp6_e2m3", Fmt::e2m3, 32, Nvfp4Order::none},
    {"mxfp4", Fmt::e2m1, 32, Nvfp4Order::none},
    {"mxint8", Fmt::int8, 32, Nvfp4Order::none},
    {"nvfp4", Fmt::e2m1, 16, Nvfp4Order::transformer_engine},
};

std::string known_bases() {
  std::string s;
  for (const auto& b : kBases) {
    if (!s.empty()) s += ", ";
    s += b.name;
  }
  return s;
}

}  // namespace

std::string_view rounding_name(Rounding r) {
  switch (r) {
    case Rounding::rne: return "rne";
    case Rounding::rtz: return "rtz";
    case Rounding::rna: return "rna";
    case Rounding::sr: return "sr";
    case Rounding::ru: return "ru";
  }
  return "?";
}
std::string_view overflow_name(Overflow o) {
  return o == Overflow::saturate ? "saturate" : "propagate";
}
std::string_view nan_policy_name(NanPolicy n) {
  switch (n) {
    case NanPolicy::nan_default: return "nan_default";
    case NanPolicy::nan_canonical: return "nan_canonical";
    case NanPolicy::nan_keep_sign: return "nan_keep_sign";
    case NanPolicy::nan_to_max: return "nan_to_max";
    case NanPolicy::nan_to_zero: return "nan_to_zero";
  }
  return "?";
}

Rounding parse_rounding(std::string_view s) {
  if (s == "rne") return Rounding::rne;
  if (s == "rtz") return Rounding::rtz;
  if (s == "rna") return Rounding::rna;
  if (s == "sr") return Rounding::sr;
  if (s == "ru") return Rounding::ru;
  throw UnknownName("unknown rounding '" + std::string(s) + "' (expected rne, rtz, rna, sr or ru)");
}
Overflow parse_overflow(std::string_view s) {
  if (s == "saturate") return Overflow::saturate;
  if (s == "propagate") return Overflow::propagate;
  throw UnknownName("unknown overflow policy '" + std::string(s) +
                    "' (expected saturate or propagate)");
}
NanPolicy parse_nan_policy(std::string_view s) {
  if (s == "nan_default") return NanPolicy::nan_default;
  if (s == "nan_canonical") return NanPolicy::nan_canonical;
  if (s == "nan_keep_sign") return NanPolicy::nan_keep_sign;
  if (s == "nan_to_max") return NanPolicy::nan_to_max;
  if (s == "nan_to_zero") return NanPolicy::nan_to_zero;
  throw UnknownName("unknown NaN policy '" + std::string(s) +
                    "' (expected nan_canonical, nan_keep_sign, nan_to_max or nan_to_zero)");
}
Fmt parse_format(std::string_view s) {
  for (std::size_t i = 0; i < kFormatTable.size(); ++i) {
    if (kFormatTable[i].name == s) return static_cast<Fmt>(i);
  }
  throw UnknownName("unknown format '" + std::string(s) +
                    "' (expected e4m3, e5m2, e3m2, e2m3, e2m1, int8, ue8m0, ue4m3, fp32, bf16 or fp16)");
}

Recipe parse_recipe(std::string_view name) {
  if (name.empty()) throw UnknownName("empty recipe name (expected one of " + known_bases() + ")");
  const std::size_t colon = name.find(':');
  const std::string_view base = name.substr(0, colon);
  Recipe r;
  bool found = false;
  for (const auto& b : kBases) {
    if (b.name == base) {
      r.base = std::string(b.name);
      r.elem = b.elem;
      r.block = b.block;
      r.nvfp4 = b.nvfp4;
      found = true;
    }
  }
  if (!found) {
    throw UnknownName("unknown recipe '" + std::string(name) + "' (expected one of " +
                      known_bases() + ", optionally followed by :modifiers)");
  }
  std::string_view rest = colon == std::string_view::npos ? std::string_view{} : name.substr(colon + 1);
  while (colon != std::string_view::npos) {
    const std::size_t c = rest.find(':');
    const std::string_view m = rest.substr(0, c);
    const auto bad = [&](const std::string& why) {
      throw UnknownName("recipe '" + std::string(name) + "': modifier '" + std::string(m) + "' " + why);
    };
    if (m.empty()) bad("is empty");
    if (m == "floor" || m == "ceil" || m == "even" || m == "rceil") {
      if (r.is_nvfp4()) bad("does not apply to nvfp4 (its scales are ue4m3, SPEC C5)");
      r.rule = parse_scale_rule(m);
    } else if (m == "torchao") {
      if (!r.is_nvfp4()) bad("applies only to nvfp4");
      r.nvfp4 = Nvfp4Order::torchao;
    } else if (m == "rne" || m == "rtz" || m == "rna" || m == "sr") {
      r.conv.rounding = parse_rounding(m);
    } else if (m == "saturate" || m == "propagate") {
      r.conv.overflow = parse_overflow(m);
    } else if (m.substr(0, 4) == "nan_") {
      r.conv.nan = parse_nan_policy(m);
    } else if (m == "int8_full") {
      r.conv.int8 = Int8Range::int8_full;
    } else if (m == "int8_symmetric") {
      r.conv.int8 = Int8Range::int8_symmetric;
    } else if (m == "nonfinite_block_nan") {
      r.nfb = NonFiniteBlock::nonfinite_block_nan;
    } else if (m == "nonfinite_block_ignore") {
      r.nfb = NonFiniteBlock::nonfinite_block_ignore;
    } else if (m == "flush_input_subnormals") {
      r.conv.flush_input_subnormals = true;
    } else {
      bad("is not known (scale rule floor|ceil|even|rceil, rounding rne|rtz|rna|sr, "
          "saturate|propagate, nan_*, int8_full|int8_symmetric, nonfinite_block_nan|"
          "nonfinite_block_ignore, flush_input_subnormals, torchao)");
    }
    if (c == std::string_view::npos) break;
    rest = rest.substr(c + 1);
  }
  try {
    validate_policy(r.elem, r.conv);
  } catch (const InvalidArgument& e) {
    throw UnknownName("recipe '" + std::string(name) + "': " + e.what());
  }
  if (r.is_nvfp4() && (r.conv.rounding != Rounding::rne || r.conv.overflow != Overflow::saturate)) {
    throw UnknownName("recipe '" + std::string(name) +
                      "': nvfp4 fixes rne rounding and saturation (SPEC C5)");
  }
  return r;
}

std::string Recipe::name() const {
  std::string s = base;
  if (nvfp4 == Nvfp4Order::torchao) s += ":torchao";
  if (!is_nvfp4() && rule != ScaleRule::floor) s += ":" + std::string(scale_rule_name(rule));
  if (conv.rounding != Rounding::rne) s += ":" + std::string(rounding_name(conv.rounding));
  if (conv.overflow != Overflow::saturate) s += ":propagate";
  if (conv.nan != NanPolicy::nan_default) s += ":" + std::string(nan_policy_name(conv.nan));
  if (conv.int8 == Int8Range::int8_symmetric) s += ":int8_symmetric";
  if (nfb == NonFiniteBlock::nonfinite_block_ignore) s += ":nonfinite_block_ignore";
  if (conv.flush_input_subnormals) s += ":flush_input_subnormals";
  return s;
}

std::vector<std::string> recipe_base_names() {
  std::vector<std::string> v;
  for (const auto& b : kBases) v.emplace_back(b.name);
  return v;
}

std::vector<std::string> recipe_names() {
  std::vector<std::string> v;
  for (const auto& b : kBases) {
    if (b.nvfp4 != Nvfp4Order::none) continue;
    v.emplace_back(b.name);
    for (const char* rule : {":ceil", ":even", ":rceil"}) v.push_back(std::string(b.name) + rule);
  }
  v.emplace_back("nvfp4");
  v.emplace_back("nvfp4:torchao");
  return v;
}

}  // namespace mx
