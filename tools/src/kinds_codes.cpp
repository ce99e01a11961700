// kinds_codes.cpp - the vector kinds on codes and bytes (schema in
// vectors/README.md): pack (C6), layout (C7), dequant (C8), dequant_nvfp4
// (C5) and dot (C9); kinds.cpp has convert, scale and quantize and the list
// of kinds. Every answer comes from libmxref (see kinds.cpp).
#include <cmath>
#include <cstring>

#include "kinds_fields.hpp"
#include "mx/gemm.hpp"
#include "mx/layout.hpp"
#include "mx/pack.hpp"
#include "mx/quantize.hpp"
#include "mx/scale.hpp"

namespace mxv::fields {
namespace {

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

std::unique_ptr<Kind> make_code_kind(std::string_view n) {
  if (n == "pack") return std::make_unique<PackKind>();
  if (n == "layout") return std::make_unique<LayoutKind>();
  if (n == "dequant") return std::make_unique<DequantKind>();
  if (n == "dequant_nvfp4") return std::make_unique<DequantNvfp4Kind>();
  if (n == "dot") return std::make_unique<DotKind>();
  return nullptr;
}

}  // namespace mxv::fields
