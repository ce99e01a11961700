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
// This file holds convert, scale and quantize and the list of kinds;
// kinds_codes.cpp the other five, kinds_fields.hpp the field parsers.
#include <cmath>
#include <cstring>

#include "kinds_fields.hpp"
#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"
#include "mx/scale.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace mxv {
namespace {

using namespace fields;  // kinds_fields.hpp

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

}  // namespace

std::vector<std::string> kind_names() {
  return {"convert", "scale", "quantize", "pack", "layout", "dequant", "dequant_nvfp4", "dot"};
}

std::unique_ptr<Kind> make_kind(std::string_view n) {
  if (n == "convert") return std::make_unique<ConvertKind>();
  if (n == "scale") return std::make_unique<ScaleKind>();
  if (n == "quantize") return std::make_unique<QuantizeKind>();
  if (auto k = fields::make_code_kind(n)) return k;
  throw mx::UnknownName("unknown vector kind '" + std::string(n) +
                        "' (expected convert, scale, quantize, pack, layout, dequant, dequant_nvfp4 or dot)");
}

}  // namespace mxv
