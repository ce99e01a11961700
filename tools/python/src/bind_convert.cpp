// bind_convert.cpp - element conversion (C2, C13 profiles) and block scales
// (C3) for Python: encode/decode whole arrays in place of the caller's
// buffer, the profile registry, the policy of a profile, scale codes per block.
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "common.hpp"
#include "mx/profile.hpp"
#include "mx/recipe.hpp"
#include "mx/scale.hpp"

namespace mxpy {
namespace {

std::vector<std::string> split_colon(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t c = s.find(':', start);
    out.push_back(s.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  return out;
}

// The policy for (profile, source, fmt) with the caller's overrides, as the
// CLI's `mxconform encode` chooses it (tools/src/cmd_profile.cpp): a profile is
// NAME or NAME:MODE; "ocp" (None) is the C2 default plus the overrides.
mx::ConvPolicy choose_policy(const std::optional<std::string>& profile, mx::InType src, mx::Fmt fmt,
                             const std::optional<std::string>& rounding, const std::optional<std::string>& overflow,
                             const std::optional<std::string>& nan, const std::optional<std::string>& policy) {
  mx::PolicyOverrides o;
  if (rounding) o.rounding = mx::parse_rounding(*rounding);
  if (overflow) o.overflow = mx::parse_overflow(*overflow);
  if (nan) o.nan = mx::parse_nan_policy(*nan);
  if (policy && !policy->empty()) o.modifiers = split_colon(*policy);
  const std::string spec = profile.value_or("ocp");
  const std::size_t c = spec.find(':');
  if (c == std::string::npos) return mx::resolve_policy(spec, src, fmt, o);
  const std::string name = spec.substr(0, c), mode = spec.substr(c + 1);
  if (name == "ocp") throw mx::InvalidArgument("profile ocp has no modes; pass policy values with policy=");
  if (o.rounding || o.overflow || o.nan || !o.modifiers.empty()) {
    throw mx::InvalidArgument("profile '" + spec + "' names its mode; do not also pass rounding/overflow/nan/policy");
  }
  (void)mx::find_profile_entry(name, src, fmt);  // unknown profile / no such cast: its message
  std::string modes;
  for (const auto& e : mx::profile_entries()) {
    if (e.profile != name || e.source != src || e.fmt != fmt) continue;
    if (e.mode == mode) return e.policy;
    modes += (modes.empty() ? "" : ", ") + std::string(e.mode.empty() ? "(none: fixed)" : e.mode);
  }
  throw mx::InvalidArgument("profile " + name + " has no mode '" + mode + "' here (modes: " + modes + ")");
}

py::array_t<std::uint8_t> encode(const py::array& x, const std::string& fmt_name, const std::string& source,
                                 const std::optional<std::string>& profile, const std::optional<std::string>& rounding,
                                 const std::optional<std::string>& overflow, const std::optional<std::string>& nan,
                                 const std::optional<std::string>& policy, const std::optional<py::array>& rbits) {
  const mx::Fmt fmt = element_format(fmt_name);
  const mx::InType src = source_type(x, source);
  const mx::ConvPolicy p = choose_policy(profile, src, fmt, rounding, overflow, nan, policy);
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  const std::uint32_t* rb = nullptr;
  if (rbits) {
    if (rbits->dtype().kind() != 'u' || rbits->itemsize() != 4) throw mx::InvalidArgument("rbits: expected a uint32 array");
    require_contiguous(*rbits, 4, "rbits");
    if (rbits->size() != x.size()) throw mx::ShapeError("rbits: " + std::to_string(rbits->size()) + " words for " + std::to_string(n) + " elements");
    rb = static_cast<const std::uint32_t*>(rbits->data());
  } else if (p.rounding == mx::Rounding::sr) {
    throw mx::InvalidArgument("sr rounding needs rbits= (one uint32 random word per element)");
  }
  auto out = new_u8(shape_of(x));
  std::uint8_t* o = out.mutable_data();
  const void* base = x.data();
  {
    py::gil_scoped_release nogil;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint32_t bits = mx::load_as_f32_bits(base, src, i);
      o[i] = static_cast<std::uint8_t>(mx::encode_f32_bits(fmt, bits, p, rb ? rb[i] : 0u) & 0xFFu);
    }
  }
  return out;
}

py::array decode(const py::array& codes, const std::string& fmt_name, const std::string& out_type) {
  const mx::Fmt fmt = element_format(fmt_name);
  const std::uint8_t* c = u8_data(codes, "codes");
  const mx::InType t = mx::parse_in_type(out_type);
  const int bits = mx::desc(fmt).bits;
  const auto n = static_cast<std::int64_t>(codes.size());
  for (std::int64_t i = 0; i < n; ++i) {
    if (bits < 8 && (c[i] >> bits) != 0) {
      char h[8];
      std::snprintf(h, sizeof h, "%02x", c[i]);
      throw mx::InvalidArgument("codes: element " + std::to_string(i) + " is 0x" + h + ", not a " + std::to_string(bits) +
                                "-bit " + std::string(mx::desc(fmt).name) + " code");
    }
  }
  std::vector<py::ssize_t> shape;
  for (auto d : shape_of(codes)) shape.push_back(static_cast<py::ssize_t>(d));
  if (t == mx::InType::f32) {
    py::array_t<float> y(shape);
    float* o = y.mutable_data();
    for (std::int64_t i = 0; i < n; ++i) o[i] = mx::decode(fmt, c[i]);
    return y;
  }
  py::array y(t == mx::InType::f16 ? py::dtype("float16") : py::dtype("uint16"), shape);
  auto* o = static_cast<std::uint16_t*>(y.mutable_data());
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = mx::decode(fmt, c[i]);
    o[i] = t == mx::InType::bf16 ? mx::f32_to_bf16_rne(v) : mx::f32_to_f16_rne(v);
  }
  return y;
}

// Block scales (C3) of x along its last axis, blocks of `block` elements.
py::array_t<std::uint8_t> block_scales(const py::array& x, const std::string& elem_name, const std::string& rule_name,
                                       std::int64_t block, const std::string& nonfinite, const std::string& source) {
  const mx::Fmt elem = element_format(elem_name);
  const mx::ScaleRule rule = mx::parse_scale_rule(rule_name);
  mx::NonFiniteBlock nfb;
  if (nonfinite == "nonfinite_block_nan") {
    nfb = mx::NonFiniteBlock::nonfinite_block_nan;
  } else if (nonfinite == "nonfinite_block_ignore") {
    nfb = mx::NonFiniteBlock::nonfinite_block_ignore;
  } else {
    throw mx::UnknownName("unknown non-finite block policy '" + nonfinite +
                          "' (expected nonfinite_block_nan or nonfinite_block_ignore)");
  }
  if (block < 1) throw mx::InvalidArgument("block must be at least 1, got " + std::to_string(block));
  const mx::InType src = source_type(x, source);
  auto shape = shape_of(x);
  if (shape.empty()) throw mx::ShapeError("block_scales: input must have at least one dimension");
  const std::int64_t k = shape.back();
  const std::int64_t rows = k ? static_cast<std::int64_t>(x.size()) / k : 0;
  const std::int64_t nb = (k + block - 1) / block;
  shape.back() = nb;
  auto out = new_u8(shape);
  std::uint8_t* o = out.mutable_data();
  std::vector<std::uint32_t> buf(static_cast<std::size_t>(block));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t b = 0; b < nb; ++b) {
      const std::int64_t i0 = b * block, n = std::min(block, k - i0);
      for (std::int64_t i = 0; i < n; ++i) buf[static_cast<std::size_t>(i)] = mx::load_as_f32_bits(x.data(), src, r * k + i0 + i);
      o[r * nb + b] = mx::block_scale(buf.data(), n, 1, elem, rule, nfb).code;
    }
  }
  return out;
}

py::dict entry_dict(const mx::ProfileEntry& e) {
  py::dict d;
  d["profile"] = std::string(e.profile);
  d["source"] = std::string(mx::in_type_name(e.source));
  d["format"] = std::string(mx::desc(e.fmt).name);
  d["mode"] = std::string(e.mode);
  d["is_default"] = e.is_default;
  d["offered"] = e.offered;
  d["policy"] = mx::policy_string(e.policy);
  d["basis"] = std::string(mx::profile_basis_name(e.basis));
  d["api"] = std::string(e.api);
  d["version"] = std::string(e.version);
  d["note"] = std::string(e.note);
  return d;
}

}  // namespace

void bind_convert(py::module_& m) {
  m.def("encode", &encode, py::arg("x"), py::arg("fmt"), py::arg("source") = "", py::arg("profile") = py::none(),
        py::arg("rounding") = py::none(), py::arg("overflow") = py::none(), py::arg("nan") = py::none(),
        py::arg("policy") = py::none(), py::arg("rbits") = py::none(),
        "C2/C13 encode of a contiguous float32/float16/bf16-bits array; uint8 codes of the same shape");
  m.def("decode", &decode, py::arg("codes"), py::arg("fmt"), py::arg("out") = "fp32",
        "C2 decode of uint8 codes: float32, float16, or uint16 bf16 bits (out='bf16')");
  m.def(
      "resolve_policy",
      [](const std::string& fmt, const std::string& source, const std::optional<std::string>& profile,
         const std::optional<std::string>& rounding, const std::optional<std::string>& overflow,
         const std::optional<std::string>& nan, const std::optional<std::string>& policy) {
        return mx::policy_string(choose_policy(profile, mx::parse_in_type(source), element_format(fmt), rounding,
                                               overflow, nan, policy));
      },
      py::arg("fmt"), py::arg("source") = "fp32", py::arg("profile") = py::none(), py::arg("rounding") = py::none(),
      py::arg("overflow") = py::none(), py::arg("nan") = py::none(), py::arg("policy") = py::none(),
      "the policy (':'-joined value names) encode() would use");
  m.def("profiles", [] {
    py::list l;
    for (const auto& p : mx::profile_infos()) {
      py::dict d;
      d["name"] = std::string(p.name);
      d["library"] = std::string(p.library);
      d["description"] = std::string(p.description);
      l.append(d);
    }
    return l;
  });
  m.def("profile_entries", [] {
    py::list l;
    for (const auto& e : mx::profile_entries()) l.append(entry_dict(e));
    return l;
  });
  m.def("block_scales", &block_scales, py::arg("x"), py::arg("elem"), py::arg("rule") = "floor",
        py::arg("block") = 32, py::arg("nonfinite") = "nonfinite_block_nan", py::arg("source") = "",
        "C3 ue8m0 scale code of each block of `block` elements along the last axis");
  m.def(
      "scale_code",
      [](std::uint32_t amax_bits, const std::string& elem, const std::string& rule) {
        return mx::scale_code_finite(amax_bits, element_format(elem), mx::parse_scale_rule(rule));
      },
      py::arg("amax_bits"), py::arg("elem"), py::arg("rule") = "floor", "C3 scale code of a finite amax (fp32 bits)");
  m.def("format_info", [](const std::string& name) {
    const auto& d = mx::desc(element_format(name));
    py::dict r;
    r["name"] = std::string(d.name);
    r["bits"] = d.bits;
    r["ebits"] = d.ebits;
    r["mbits"] = d.mbits;
    r["bias"] = d.bias;
    r["max_finite"] = mx::max_finite(d);
    r["max_finite_code"] = mx::max_finite_code(d);
    return r;
  });
  m.def("recipe_names", &mx::recipe_names);
  m.def("canonical_recipe", [](const std::string& r) { return mx::parse_recipe(r).name(); });
}

}  // namespace mxpy
