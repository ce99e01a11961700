// kinds_fields.hpp - what the vector kinds share (kinds.cpp: convert, scale,
// quantize; kinds_codes.cpp: pack, layout, dequant, dequant_nvfp4, dot): the
// parsers of one CSV field that name the column in their error, the
// parameter lookup and the format / input-type names. Internal to mxvectors.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/recipe.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace mxv::fields {

using In = std::vector<std::string_view>;

inline std::uint64_t hexf(const In& in, int col, int digits) {
  std::uint64_t v = 0;
  if (!parse_hex(in[col], digits, &v)) {
    throw FieldError{col, "expected " + std::to_string(digits) + " lowercase hex digits, got '" +
                              std::string(in[col].substr(0, 40)) + "'"};
  }
  return v;
}

inline std::int64_t decf(const In& in, int col, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (!parse_dec(in[col], &v) || v < lo || v > hi) {
    throw FieldError{col, "expected a decimal integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                              "], got '" + std::string(in[col].substr(0, 40)) + "'"};
  }
  return v;
}

// A field of `count` codes of `digits` hex digits each.
inline std::vector<std::uint64_t> hexlist(const In& in, int col, std::int64_t count, int digits) {
  const std::string_view s = in[col];
  if (static_cast<std::int64_t>(s.size()) != count * digits) {
    throw FieldError{col, "expected " + std::to_string(count) + " codes of " + std::to_string(digits) +
                              " hex digits (" + std::to_string(count * digits) + " characters), got " +
                              std::to_string(s.size())};
  }
  std::vector<std::uint64_t> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    if (!parse_hex(s.substr(static_cast<std::size_t>(i * digits), static_cast<std::size_t>(digits)), digits,
                   &v[static_cast<std::size_t>(i)])) {
      throw FieldError{col, "code " + std::to_string(i) + " is not " + std::to_string(digits) +
                                " lowercase hex digits"};
    }
  }
  return v;
}

template <class F>
inline auto name_or_field(const In& in, int col, F parse) {
  try {
    return parse(in[col]);
  } catch (const mx::Error& e) {
    throw FieldError{col, e.what()};
  }
}

inline std::string get(const Params& p, const std::string& k) {
  for (const auto& [key, v] : p) {
    if (key == k) return v;
  }
  throw mx::InvalidArgument("missing parameter '" + k + "'");
}

inline mx::Fmt element_format(const std::string& s) {
  const mx::Fmt f = mx::parse_format(s);
  for (mx::Fmt e : mx::kElementFormats) {
    if (e == f) return f;
  }
  throw mx::UnknownName("'" + s + "' is not an element format (expected e4m3, e5m2, e3m2, e2m3, e2m1 or int8)");
}

inline std::string fmt_name(mx::Fmt f) { return std::string(mx::desc(f).name); }

inline int in_digits(mx::InType t) { return t == mx::InType::f32 ? 8 : 4; }
inline std::uint32_t widen(mx::InType t, std::uint64_t v) {
  if (t == mx::InType::f32) return static_cast<std::uint32_t>(v);
  if (t == mx::InType::bf16) return mx::bf16_to_f32_bits(static_cast<std::uint16_t>(v));
  return mx::f16_to_f32_bits(static_cast<std::uint16_t>(v));
}
inline mx::InType parse_input(const std::string& s) {
  if (s != "fp32" && s != "bf16" && s != "fp16") {
    throw mx::UnknownName("unknown input type '" + s + "' (expected fp32, bf16 or fp16)");
  }
  return mx::parse_in_type(s);
}

inline std::string_view base_recipe_of(mx::Fmt f) {
  switch (f) {
    case mx::Fmt::e4m3: return "mxfp8_e4m3";
    case mx::Fmt::e5m2: return "mxfp8_e5m2";
    case mx::Fmt::e3m2: return "mxfp6_e3m2";
    case mx::Fmt::e2m3: return "mxfp6_e2m3";
    case mx::Fmt::e2m1: return "mxfp4";
    default: return "mxint8";
  }
}

inline std::uint64_t code_limit(mx::Fmt f) { return std::uint64_t{1} << mx::desc(f).bits; }

// The kinds of kinds_codes.cpp (pack, layout, dequant, dequant_nvfp4, dot) by
// name; nullptr for any other name.
std::unique_ptr<Kind> make_code_kind(std::string_view n);

}  // namespace mxv::fields
