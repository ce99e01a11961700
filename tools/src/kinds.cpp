// kinds.cpp - the kinds of golden vector files and the reference's answer for
// one row of each (schema in vectors/README.md):
//   convert        one value -> element code            (SPEC C2)
//   scale          block amax -> ue8m0 scale code        (C3)
//   quantize       small tensor -> scales + element codes (C4, C3, C2; C5 nvfp4)
//   pack           element codes -> packed bytes         (C6)
//   layout         scale coordinates -> buffer offset    (C7)
//   dequant        (scale, element) -> fp32/bf16/fp16    (C8)
//   dequant_nvfp4  (global amax, ue4m3, e2m1) -> fp32    (C5)
//   dot            exact block-scaled dot product        (C9)
// Every answer comes from libmxref; the generator and the checker share this
// code, so the checker recomputes every expected value instead of trusting it.
#include <cmath>
#include <cstring>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/gemm.hpp"
#include "mx/layout.hpp"
#include "mx/pack.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"
#include "mx/scale.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace mxv {
namespace {

using In = std::vector<std::string_view>;

std::uint64_t hexf(const In& in, int col, int digits) {
  std::uint64_t v = 0;
  if (!parse_hex(in[col], digits, &v)) {
    throw FieldError{col, "expected " + std::to_string(digits) + " lowercase hex digits, got '" +
                              std::string(in[col].substr(0, 40)) + "'"};
  }
  return v;
}

std::int64_t decf(const In& in, int col, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  if (!parse_dec(in[col], &v) || v < lo || v > hi) {
    throw FieldError{col, "expected a decimal integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                              "], got '" + std::string(in[col].substr(0, 40)) + "'"};
  }
  return v;
}

// A field of `count` codes of `digits` hex digits each.
std::vector<std::uint64_t> hexlist(const In& in, int col, std::int64_t count, int digits) {
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
auto name_or_field(const In& in, int col, F parse) {
  try {
    return parse(in[col]);
  } catch (const mx::Error& e) {
    throw FieldError{col, e.what()};
  }
}

std::string get(const Params& p, const std::string& k) {
  for (const auto& [key, v] : p) {
    if (key == k) return v;
  }
  throw mx::InvalidArgument("missing parameter '" + k + "'");
}

mx::Fmt element_format(const std::string& s) {
  const mx::Fmt f = mx::parse_format(s);
  for (mx::Fmt e : mx::kElementFormats) {
    if (e == f) return f;
  }
  throw mx::UnknownName("'" + s + "' is not an element format (expected e4m3, e5m2, e3m2, e2m3, e2m1 or int8)");
}

std::string fmt_name(mx::Fmt f) { return std::string(mx::desc(f).name); }

int in_digits(mx::InType t) { return t == mx::InType::f32 ? 8 : 4; }
std::uint32_t widen(mx::InType t, std::uint64_t v) {
  if (t == mx::InType::f32) return static_cast<std::uint32_t>(v);
  if (t == mx::InType::bf16) return mx::bf16_to_f32_bits(static_cast<std::uint16_t>(v));
  return mx::f16_to_f32_bits(static_cast<std::uint16_t>(v));
}
mx::InType parse_input(const std::string& s) {
  if (s != "fp32" && s != "bf16" && s != "fp16") {
    throw mx::UnknownName("unknown input type '" + s + "' (expected fp32, bf16 or fp16)");
  }
  return mx::parse_in_type(s);
}

std::string_view base_recipe_of(mx::Fmt f) {
  switch (f) {
    case mx::Fmt::e4m3: return "mxfp8_e4m3";
    case mx::Fmt::e5m2: return "mxfp8_e5m2";
    case mx::Fmt::e3m2: return "mxfp6_e3m2";
    case mx::Fmt::e2m3: return "mxfp6_e2m3";
    case mx::Fmt::e2m1: return "mxfp4";
    default: return "mxint8";
  }
}

std::uint64_t code_limit(mx::Fmt f) { return std::uint64_t{1} << mx::desc(f).bits; }

// ---- convert (C2) -------------------------------------------------------------
class ConvertKind final : public Kind {
 public:
  std::string_view name() const override { return "convert"; }
  std::vector<std::string> param_keys() const override { return {"format", "input"}; }
  void set_params(const Params& p) override {
    fmt_ = element_format(get(p, "format"));
    in_ = parse_input(get(p, "input"));
  }
  Params notes() const override {
    return {{"clause", "C2 encode(format, value, rounding, overflow, nan_policy)"},
            {"policies", "per row: rounding, overflow, nan, int8_range (int8 only, else -), flush "
                         "(flush_input_subnormals 0/1), rbits (sr only, else 00000000)"},
            {"codes", "in: " + std::string(mx::in_type_name(in_)) + " bits; expected: " + fmt_name(fmt_) +
                          " code, 2 hex digits"}};
  }
  std::vector<std::string> in_cols() const override {
    return {"in", "rounding", "overflow", "nan", "int8_range", "flush", "rbits"};
  }
  std::vector<std::string> out_cols() const override { return {""}; }

  struct Row {
    std::uint32_t x;
    mx::ConvPolicy p;
    std::uint32_t rbits;
  };
  Row parse(const In& in) const {
    Row r{};
    r.x = widen(in_, hexf(in, 0, in_digits(in_)));
    r.p.rounding = name_or_field(in, 1, [](std::string_view s) {
      if (s == "ru") throw mx::UnknownName("rounding 'ru' is not a C2 element rounding");
      return mx::parse_rounding(s);
    });
    r.p.overflow = name_or_field(in, 2, mx::parse_overflow);
    r.p.nan = name_or_field(in, 3, mx::parse_nan_policy);
    if (r.p.nan == mx::NanPolicy::nan_default || !mx::nan_policy_valid(fmt_, r.p.nan)) {
      throw FieldError{3, "NaN policy '" + std::string(in[3]) + "' does not apply to " + fmt_name(fmt_) +
                              " (name the concrete policy)"};
    }
    if (fmt_ == mx::Fmt::int8) {
      if (in[4] == "int8_full") {
        r.p.int8 = mx::Int8Range::int8_full;
      } else if (in[4] == "int8_symmetric") {
        r.p.int8 = mx::Int8Range::int8_symmetric;
      } else {
        throw FieldError{4, "expected int8_full or int8_symmetric"};
      }
    } else if (in[4] != "-") {
      throw FieldError{4, "int8_range must be '-' for " + fmt_name(fmt_)};
    }
    if (in[5] != "0" && in[5] != "1") throw FieldError{5, "flush must be 0 or 1"};
    r.p.flush_input_subnormals = in[5] == "1";
    r.rbits = static_cast<std::uint32_t>(hexf(in, 6, 8));
    if (r.p.rounding != mx::Rounding::sr && r.rbits != 0) {
      throw FieldError{6, "rbits must be 00000000 unless rounding is sr"};
    }
    return r;
  }
  void compute(const In& in, std::vector<std::string>& out) const override {
    const Row r = parse(in);
    out[0] = hex(mx::encode_f32_bits(fmt_, r.x, r.p, r.rbits), 2);
  }
  std::string tag(const In& in) const override {
    std::string t = "C2 " + std::string(in[1]) + " ";
    Row r;
    try {
      r = parse(in);
    } catch (const FieldError&) {
      return t + "bad row";
    }
    const mx::Unpacked u = mx::unpack_f32(r.x);
    if (u.cls == mx::Class::nan) return t + "nan input " + std::string(in[3]);
    if (u.cls == mx::Class::inf) return t + "inf input " + std::string(in[2]);
    if (u.v.sig == 0) return t + "signed zero";
    if (r.p.flush_input_subnormals && ((r.x >> 23) & 0xFF) == 0) return t + "flushed subnormal input";
    const double v = std::fabs(static_cast<double>(mx::bits_f32(r.x)));
    const mx::FormatDesc& d = mx::desc(fmt_);
    mx::ConvPolicy z = r.p;
    z.rounding = mx::Rounding::rtz;
    // A tie: exactly halfway between two neighbouring magnitudes (above max
    // finite, the neighbour is max + one ulp, as if one more binade existed).
    bool tie = false;
    if (d.is_int) {
      const double s = v * 64;
      tie = s - std::floor(s) == 0.5;
    } else {
      const std::uint32_t maxc = mx::max_finite_code(d);
      const double ulp_max = mx::max_finite(d) - static_cast<double>(mx::decode(fmt_, maxc - 1));
      for (std::uint32_t c = 0; c <= maxc; ++c) {
        const double lo = mx::decode(fmt_, c);
        const double hi = c == maxc ? lo + ulp_max : static_cast<double>(mx::decode(fmt_, c + 1));
        if (lo <= v && v < hi) tie = v == (lo + hi) / 2;
      }
    }
    std::string c;
    if (v > mx::max_finite(d)) {
      c = tie ? "overflow-boundary tie" : "overflow";
    } else if (tie) {
      c = "tie";
    } else if (std::fabs(static_cast<double>(mx::decode(fmt_, mx::encode_f32_bits(fmt_, r.x, z)))) == v) {
      c = "exact";
    } else {
      c = "inexact";
    }
    if (v < mx::min_normal(d) && !d.is_int) c += " subnormal";
    if (r.p.rounding == mx::Rounding::sr) c += " rbits " + std::string(in[6]);
    return t + c;
  }

 private:
  mx::Fmt fmt_ = mx::Fmt::e4m3;
  mx::InType in_ = mx::InType::f32;
};

// ---- scale (C3) ---------------------------------------------------------------
class ScaleKind final : public Kind {
 public:
  std::string_view name() const override { return "scale"; }
  std::vector<std::string> param_keys() const override { return {"format"}; }
  void set_params(const Params& p) override { fmt_ = element_format(get(p, "format")); }
  Params notes() const override {
    return {{"clause", "C3 ue8m0 block scale from the block amax, nonfinite_block_nan"},
            {"codes", "amax: fp32 bits (a NaN or Inf amax stands for a block holding one); rule: floor, "
                      "ceil, even or rceil; expected: ue8m0 code"}};
  }
  std::vector<std::string> in_cols() const override { return {"amax", "rule"}; }
  std::vector<std::string> out_cols() const override { return {""}; }
  void compute(const In& in, std::vector<std::string>& out) const override {
    const auto amax = static_cast<std::uint32_t>(hexf(in, 0, 8));
    if (amax >> 31) throw FieldError{0, "amax must be non-negative (sign bit 0)"};
    const mx::ScaleRule rule = name_or_field(in, 1, mx::parse_scale_rule);
    const mx::BlockScale bs =
        mx::block_scale(&amax, 1, 1, fmt_, rule, mx::NonFiniteBlock::nonfinite_block_nan);
    out[0] = hex(bs.code, 2);
  }
  std::string tag(const In& in) const override {
    std::string t = "C3 " + std::string(in[1]) + " ";
    std::uint64_t a = 0;
    if (!parse_hex(in[0], 8, &a)) return t + "bad row";
    const auto e = (a >> 23) & 0xFF;
    if (e == 0xFF) return t + "non-finite block";
    if ((a & 0x7FFFFFFF) == 0) return t + "amax 0";
    if (e == 0) return t + "subnormal amax";
    try {
      const int se = mx::scale_exponent_unclamped(static_cast<std::uint32_t>(a), fmt_,
                                                  mx::parse_scale_rule(in[1]));
      if (se < -127 || se > 127) return t + "clamped exponent";
    } catch (const mx::Error&) {
      return t + "bad row";
    }
    return t + "normal amax";
  }

 private:
  mx::Fmt fmt_ = mx::Fmt::e4m3;
};

// ---- quantize (C4, C5) ----------------------------------------------------------
class QuantizeKind final : public Kind {
 public:
  std::string_view name() const override { return "quantize"; }
  std::vector<std::string> param_keys() const override { return {"recipe", "axis", "input"}; }
  void set_params(const Params& p) override {
    recipe_ = mx::parse_recipe(get(p, "recipe"));
    if (recipe_.conv.rounding == mx::Rounding::sr) {
      throw mx::InvalidArgument("quantize vectors do not cover stochastic rounding (use convert vectors)");
    }
    if (recipe_.name() != get(p, "recipe")) {
      throw mx::InvalidArgument("recipe must be written canonically as '" + recipe_.name() + "'");
    }
    axis_ = mx::parse_axis(get(p, "axis"));
    in_ = parse_input(get(p, "input"));
  }
  Params notes() const override {
    const auto& c = recipe_.conv;
    std::string pol = "element " + fmt_name(recipe_.elem) + ", block " + std::to_string(recipe_.block);
    if (recipe_.is_nvfp4()) {
      pol += recipe_.nvfp4 == mx::Nvfp4Order::torchao ? ", nvfp4 torchao order" : ", nvfp4 TransformerEngine order";
      pol += ", ue4m3 block scales times an fp32 tensor scale from the global amax";
    } else {
      pol += ", scale " + std::string(mx::scale_rule_name(recipe_.rule)) + ", rounding " +
             std::string(mx::rounding_name(c.rounding)) + ", overflow " + std::string(mx::overflow_name(c.overflow)) +
             ", " + std::string(mx::nan_policy_name(c.nan)) +
             (recipe_.elem == mx::Fmt::int8
                  ? (c.int8 == mx::Int8Range::int8_full ? ", int8_full" : ", int8_symmetric")
                  : "") +
             (recipe_.nfb == mx::NonFiniteBlock::nonfinite_block_nan ? ", nonfinite_block_nan"
                                                                     : ", nonfinite_block_ignore") +
             (c.flush_input_subnormals ? ", flush_input_subnormals" : "");
    }
    const bool col = axis_ == mx::Axis::colwise;
    return {{"clause", recipe_.is_nvfp4() ? "C5 NVFP4 (C2 element encoding)" : "C4 recipe, C3 scales, C2 elements"},
            {"policies", pol},
            {"codes", std::string("shape: MxK decimal; x: ") + std::string(mx::in_type_name(in_)) +
                          " bits, row-major [M][K]; expected_scales: " + fmt_name(recipe_.scale_fmt()) +
                          (col ? " codes, one per (column, row block), order [K][ceil(M/V)]"
                               : " codes, one per (row, block), order [M][ceil(K/V)]") +
                          "; expected_elems: one " + fmt_name(recipe_.elem) +
                          " code per element (unpacked), order [M][K]"}};
  }
  std::vector<std::string> in_cols() const override { return {"shape", "x"}; }
  std::vector<std::string> out_cols() const override { return {"scales", "elems"}; }
  int code_digits(int) const override { return 2; }

  void shape(const In& in, std::int64_t* m, std::int64_t* k) const {
    const std::string_view s = in[0];
    const std::size_t x = s.find('x');
    std::int64_t a = 0, b = 0;
    if (x == std::string_view::npos || !parse_dec(s.substr(0, x), &a) || !parse_dec(s.substr(x + 1), &b) ||
        a < 1 || b < 1 || a * b > 65536) {
      throw FieldError{0, "shape must be MxK with M, K >= 1 and M*K <= 65536, got '" +
                              std::string(s.substr(0, 40)) + "'"};
    }
    *m = a;
    *k = b;
  }
  void compute(const In& in, std::vector<std::string>& out) const override {
    std::int64_t M = 0, K = 0;
    shape(in, &M, &K);
    const auto xs = hexlist(in, 1, M * K, in_digits(in_));
    std::vector<std::uint32_t> f32(xs.size());
    std::vector<std::uint16_t> h16(xs.size());
    for (std::size_t i = 0; i < xs.size(); ++i) {
      f32[i] = static_cast<std::uint32_t>(xs[i]);
      h16[i] = static_cast<std::uint16_t>(xs[i]);
    }
    mx::TensorView t;
    t.type = in_;
    t.rows = M;
    t.cols = K;
    t.data = in_ == mx::InType::f32 ? static_cast<const void*>(f32.data()) : static_cast<const void*>(h16.data());
    mx::QuantizeOptions o;
    o.axis = axis_;
    const mx::Quantized q = mx::quantize(recipe_, t, o);
    out[0].clear();
    for (std::uint8_t s : q.scales) append_hex(out[0], s, 2);
    out[1].clear();
    for (std::int64_t m = 0; m < M; ++m) {
      for (std::int64_t k = 0; k < K; ++k) append_hex(out[1], mx::element_code_at(q, 0, m, k), 2);
    }
  }
  std::string tag(const In&) const override {
    return std::string(recipe_.is_nvfp4() ? "C5 " : "C4 ") + recipe_.name() + " " +
           std::string(mx::axis_name(axis_));
  }
  std::string detail(const In& in, int oc, std::int64_t idx) const override {
    std::int64_t M = 0, K = 0;
    try {
      shape(in, &M, &K);
    } catch (const FieldError&) {
      return "";
    }
    const bool col = axis_ == mx::Axis::colwise;
    const std::int64_t V = recipe_.block;
    const int dg = in_digits(in_);
    const auto xval = [&](std::int64_t m, std::int64_t k) {
      const auto p = static_cast<std::size_t>((m * K + k) * dg);
      return p + static_cast<std::size_t>(dg) <= in[1].size() ? std::string(in[1].substr(p, static_cast<std::size_t>(dg)))
                                                             : std::string("?");
    };
    if (oc == 0) {
      const std::int64_t nb = ceil_div_(col ? M : K, V);
      const std::int64_t r = idx / nb, b = idx % nb;
      std::string s = col ? "scale[col " + std::to_string(r) + ", row block " + std::to_string(b) + "], block x[" +
                                std::to_string(b * V) + ".." + std::to_string(std::min(M, (b + 1) * V) - 1) +
                                "][" + std::to_string(r) + "] ="
                          : "scale[row " + std::to_string(r) + ", block " + std::to_string(b) + "], block x[" +
                                std::to_string(r) + "][" + std::to_string(b * V) + ".." +
                                std::to_string(std::min(K, (b + 1) * V) - 1) + "] =";
      const std::int64_t inner = col ? M : K;
      for (std::int64_t j = b * V; j < std::min(inner, (b + 1) * V) && j < b * V + 8; ++j) {
        s += " " + (col ? xval(j, r) : xval(r, j));
      }
      if (std::min(inner, (b + 1) * V) - b * V > 8) s += " ...";
      return s;
    }
    const std::int64_t m = idx / K, k = idx % K;
    return "elem[" + std::to_string(m) + "][" + std::to_string(k) + "], x = " + xval(m, k) + ", block " +
           std::to_string((col ? m : k) / V) + (col ? " of column " + std::to_string(k) : " of row " + std::to_string(m));
  }

 private:
  static std::int64_t ceil_div_(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
  mx::Recipe recipe_;
  mx::Axis axis_ = mx::Axis::rowwise;
  mx::InType in_ = mx::InType::f32;
};

// ---- pack (C6) ------------------------------------------------------------------
class PackKind final : public Kind {
 public:
  std::string_view name() const override { return "pack"; }
  std::vector<std::string> param_keys() const override { return {"format", "packing"}; }
  void set_params(const Params& p) override {
    fmt_ = element_format(get(p, "format"));
    packing_ = mx::parse_packing(get(p, "packing"));
  }
  Params notes() const override {
    return {{"clause", "C6 packing of one row of element codes"},
            {"codes", "n: decimal count; codes: n codes of 2 hex digits; expected: the packed row's bytes, 2 hex "
                      "digits each"}};
  }
  std::vector<std::string> in_cols() const override { return {"n", "codes"}; }
  std::vector<std::string> out_cols() const override { return {""}; }
  int code_digits(int) const override { return 2; }
  void compute(const In& in, std::vector<std::string>& out) const override {
    const std::int64_t n = decf(in, 0, 1, 4096);
    const auto c = hexlist(in, 1, n, 2);
    std::vector<std::uint8_t> codes(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c[i] >= code_limit(fmt_)) {
        throw FieldError{1, "code " + std::to_string(i) + " = 0x" + hex(c[i], 2) + " does not fit " + fmt_name(fmt_)};
      }
      codes[i] = static_cast<std::uint8_t>(c[i]);
    }
    std::vector<std::uint8_t> b(static_cast<std::size_t>(mx::packed_row_bytes(fmt_, n, packing_)));
    mx::pack_row(fmt_, codes.data(), n, packing_, b.data());
    out[0].clear();
    for (std::uint8_t v : b) append_hex(out[0], v, 2);
  }
  std::string tag(const In&) const override {
    return "C6 " + fmt_name(fmt_) + " " + std::string(mx::packing_name(packing_));
  }
  std::string detail(const In&, int, std::int64_t idx) const override { return "byte " + std::to_string(idx); }

 private:
  mx::Fmt fmt_ = mx::Fmt::e2m1;
  mx::Packing packing_ = mx::Packing::packed;
};

// ---- layout (C7) ----------------------------------------------------------------
class LayoutKind final : public Kind {
 public:
  std::string_view name() const override { return "layout"; }
  std::vector<std::string> param_keys() const override { return {"layout"}; }
  void set_params(const Params& p) override { layout_ = mx::parse_scale_layout(get(p, "layout")); }
  Params notes() const override {
    return {{"clause", "C7 scale-factor layout: byte offset of S[b][r][kb] and the buffer size (padding "
                       "included), decimal"},
            {"codes", "rows, blocks, batch: the scale matrix shape (rowwise: rows = M, blocks = ceil(K/V); "
                      "colwise: rows = K, blocks = ceil(M/V)); b, r, kb: the coordinates"}};
  }
  std::vector<std::string> in_cols() const override { return {"rows", "blocks", "batch", "b", "r", "kb"}; }
  std::vector<std::string> out_cols() const override { return {"bytes", "offset"}; }
  void compute(const In& in, std::vector<std::string>& out) const override {
    mx::ScaleShape s;
    s.rows = decf(in, 0, 1, 1 << 20);
    s.blocks = decf(in, 1, 1, 1 << 20);
    s.batch = decf(in, 2, 1, 64);
    const std::int64_t b = decf(in, 3, 0, s.batch - 1);
    const std::int64_t r = decf(in, 4, 0, s.rows - 1);
    const std::int64_t kb = decf(in, 5, 0, s.blocks - 1);
    out[0] = std::to_string(mx::scale_buffer_bytes(layout_, s));
    out[1] = std::to_string(mx::scale_offset(layout_, s, b, r, kb));
  }
  std::string tag(const In&) const override { return "C7 " + std::string(mx::scale_layout_name(layout_)); }

 private:
  mx::ScaleLayout layout_ = mx::ScaleLayout::tcgen05;
};

// ---- dequant (C8) ----------------------------------------------------------------
class DequantKind final : public Kind {
 public:
  std::string_view name() const override { return "dequant"; }
  std::vector<std::string> param_keys() const override { return {"format"}; }
  void set_params(const Params& p) override {
    fmt_ = element_format(get(p, "format"));
    recipe_ = mx::parse_recipe(base_recipe_of(fmt_));
  }
  Params notes() const override {
    return {{"clause", "C8 x = decode(elem) * 2^(scale - 127), rounded once (RNE) to fp32, bf16 and fp16; "
                       "scale 0xff gives NaN"},
            {"codes", "scale: ue8m0 code; elem: " + fmt_name(fmt_) +
                          " code; expected_fp32/bf16/fp16: IEEE bits (8, 4, 4 hex digits)"}};
  }
  std::vector<std::string> in_cols() const override { return {"scale", "elem"}; }
  std::vector<std::string> out_cols() const override { return {"fp32", "bf16", "fp16"}; }
  void compute(const In& in, std::vector<std::string>& out) const override {
    const auto s = hexf(in, 0, 2);
    const auto e = hexf(in, 1, 2);
    if (e >= code_limit(fmt_)) throw FieldError{1, "code 0x" + hex(e, 2) + " does not fit " + fmt_name(fmt_)};
    mx::Quantized q;
    q.recipe = recipe_;
    q.rows = q.cols = q.batch = 1;
    q.data_rows = q.data_row_elems = 1;
    q.row_bytes = mx::packed_row_bytes(fmt_, 1, mx::Packing::packed);
    q.data.assign(static_cast<std::size_t>(q.row_bytes), 0);
    const auto code = static_cast<std::uint8_t>(e);
    mx::pack_row(fmt_, &code, 1, mx::Packing::packed, q.data.data());
    q.scale_shape = mx::ScaleShape{1, 1, 1};
    q.scales.assign(1, static_cast<std::uint8_t>(s));
    const mx::Fmt outs[3] = {mx::Fmt::fp32, mx::Fmt::bf16, mx::Fmt::fp16};
    for (int i = 0; i < 3; ++i) {
      const auto bytes = mx::dequantize(q, outs[i]);
      std::uint32_t v = 0;
      std::memcpy(&v, bytes.data(), bytes.size());
      out[static_cast<std::size_t>(i)] = hex(v, static_cast<int>(bytes.size()) * 2);
    }
  }
  std::string tag(const In& in) const override {
    return "C8 " + fmt_name(fmt_) + (in[0] == "ff" ? " NaN scale" : "");
  }

 private:
  mx::Fmt fmt_ = mx::Fmt::e4m3;
  mx::Recipe recipe_;
};

// ---- dequant_nvfp4 (C5) -------------------------------------------------------
class DequantNvfp4Kind final : public Kind {
 public:
  std::string_view name() const override { return "dequant_nvfp4"; }
  std::vector<std::string> param_keys() const override { return {"recipe"}; }
  void set_params(const Params& p) override {
    recipe_ = mx::parse_recipe(get(p, "recipe"));
    if (!recipe_.is_nvfp4() || recipe_.name() != get(p, "recipe")) {
      throw mx::InvalidArgument("recipe must be nvfp4 or nvfp4:torchao");
    }
  }
  Params notes() const override {
    return {{"clause", recipe_.nvfp4 == mx::Nvfp4Order::torchao
                           ? "C5 torchao order: x = e2m1 * (per_tensor_scale * s), per_tensor_scale = "
                             "global_amax / 2688, fp32"
                           : "C5 TransformerEngine order: x = (e2m1 * s) * S_dec, S_dec = 1 / (2688 / "
                             "global_amax), fp32"},
            {"codes", "global_amax: fp32 bits; scale: ue4m3 code; elem: e2m1 code; expected: fp32 bits"}};
  }
  std::vector<std::string> in_cols() const override { return {"global_amax", "scale", "elem"}; }
  std::vector<std::string> out_cols() const override { return {""}; }
  void compute(const In& in, std::vector<std::string>& out) const override {
    const auto g = static_cast<std::uint32_t>(hexf(in, 0, 8));
    if (g >> 31) throw FieldError{0, "global_amax must be non-negative (sign bit 0)"};
    const auto s = hexf(in, 1, 2);
    if (s > 0x7F) throw FieldError{1, "ue4m3 code must be at most 7f (no sign bit)"};
    const auto e = hexf(in, 2, 2);
    if (e > 0xF) throw FieldError{2, "e2m1 code must be at most 0f"};
    const mx::Nvfp4Factors f = mx::nvfp4_factors(recipe_.nvfp4, g);
    const float v = mx::nvfp4_dequant(recipe_.nvfp4, f, static_cast<std::uint8_t>(e), static_cast<std::uint8_t>(s));
    out[0] = hex(mx::f32_bits(v), 8);
  }
  std::string tag(const In&) const override { return "C5 " + recipe_.name() + " dequant"; }

 private:
  mx::Recipe recipe_;
};

// ---- dot (C9) -------------------------------------------------------------------
class DotKind final : public Kind {
 public:
  std::string_view name() const override { return "dot"; }
  std::vector<std::string> param_keys() const override { return {"a_format", "b_format", "scale_format", "block"}; }
  void set_params(const Params& p) override {
    a_ = element_format(get(p, "a_format"));
    b_ = element_format(get(p, "b_format"));
    sf_ = mx::parse_format(get(p, "scale_format"));
    if (sf_ != mx::Fmt::ue8m0 && sf_ != mx::Fmt::ue4m3) throw mx::InvalidArgument("scale_format must be ue8m0 or ue4m3");
    const std::string bs = get(p, "block");
    if (bs != "16" && bs != "32") throw mx::InvalidArgument("block must be 16 or 32");
    block_ = bs == "16" ? 16 : 32;
  }
  Params notes() const override {
    return {{"clause", "C9 exact: d = c + sum_b a_global*sa_b * b_global*sb_b * sum_i a_i*b_i, rounded once to fp32 (RNE)"},
            {"codes", "k: decimal; *_scales: ceil(k/block) scale codes; *_elems: k element codes, 2 hex digits "
                      "each; *_global, c, expected: fp32 bits (global is 3f800000 for MX)"}};
  }
  std::vector<std::string> in_cols() const override {
    return {"k", "a_scales", "a_elems", "a_global", "b_scales", "b_elems", "b_global", "c"};
  }
  std::vector<std::string> out_cols() const override { return {""}; }
  void compute(const In& in, std::vector<std::string>& out) const override {
    const std::int64_t k = decf(in, 0, 1, 4096);
    const std::int64_t nb = (k + block_ - 1) / block_;
    std::vector<std::uint8_t> as, ae, bsc, be;
    const auto load = [&](int col, std::int64_t n, mx::Fmt f, std::vector<std::uint8_t>& v) {
      const auto c = hexlist(in, col, n, 2);
      v.resize(c.size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        if (c[i] >= code_limit(f)) throw FieldError{col, "code " + std::to_string(i) + " does not fit " + fmt_name(f)};
        v[i] = static_cast<std::uint8_t>(c[i]);
      }
    };
    load(1, nb, sf_, as);
    load(2, k, a_, ae);
    load(4, nb, sf_, bsc);
    load(5, k, b_, be);
    const auto ag = static_cast<std::uint32_t>(hexf(in, 3, 8));
    const auto bg = static_cast<std::uint32_t>(hexf(in, 6, 8));
    if (sf_ == mx::Fmt::ue8m0 && ag != 0x3f800000u) throw FieldError{3, "a_global must be 3f800000 for ue8m0 scales"};
    if (sf_ == mx::Fmt::ue8m0 && bg != 0x3f800000u) throw FieldError{6, "b_global must be 3f800000 for ue8m0 scales"};
    const auto c = static_cast<std::uint32_t>(hexf(in, 7, 8));
    mx::ScaledOperand A{a_, sf_, block_, 1, k, ae.data(), as.data(), mx::bits_f32(ag)};
    mx::ScaledOperand B{b_, sf_, block_, 1, k, be.data(), bsc.data(), mx::bits_f32(bg)};
    out[0] = hex(mx::f32_bits(mx::exact_dot(A, 0, B, 0, mx::bits_f32(c))), 8);
  }
  std::string tag(const In&) const override {
    return "C9 exact " + fmt_name(a_) + " x " + fmt_name(b_) + " " + fmt_name(sf_);
  }

 private:
  mx::Fmt a_ = mx::Fmt::e4m3, b_ = mx::Fmt::e4m3, sf_ = mx::Fmt::ue8m0;
  int block_ = 32;
};

}  // namespace

std::vector<std::string> kind_names() {
  return {"convert", "scale", "quantize", "pack", "layout", "dequant", "dequant_nvfp4", "dot"};
}

std::unique_ptr<Kind> make_kind(std::string_view n) {
  if (n == "convert") return std::make_unique<ConvertKind>();
  if (n == "scale") return std::make_unique<ScaleKind>();
  if (n == "quantize") return std::make_unique<QuantizeKind>();
  if (n == "pack") return std::make_unique<PackKind>();
  if (n == "layout") return std::make_unique<LayoutKind>();
  if (n == "dequant") return std::make_unique<DequantKind>();
  if (n == "dequant_nvfp4") return std::make_unique<DequantNvfp4Kind>();
  if (n == "dot") return std::make_unique<DotKind>();
  throw mx::UnknownName("unknown vector kind '" + std::string(n) +
                        "' (expected convert, scale, quantize, pack, layout, dequant, dequant_nvfp4 or dot)");
}

}  // namespace mxv
