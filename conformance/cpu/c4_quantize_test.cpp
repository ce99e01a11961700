// c4_quantize_test.cpp - SPEC C4 (with C3, C6, C7): whole-tensor
// quantization bytes equal the bytes the oracle builds block by block
// (oracle packing and oracle layout offsets), for random ragged and batched
// shapes, rowwise / colwise (source and transposed data), every layout and
// packing; colwise(X) equals rowwise(X^T); dequant(quant(x)) error bound.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "common.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"

using namespace cpu;
using mx::Fmt;

namespace {
struct Shape {
  std::int64_t batch, rows, cols;
};
rc::Gen<Shape> gen_shape() {
  return rc::gen::apply([](int b, int r, int c) { return Shape{b, r, c}; }, rc::gen::inRange(1, 3),
                        rc::gen::inRange(1, 70), rc::gen::inRange(1, 70));
}
std::vector<std::uint32_t> gen_tensor(Fmt f, std::size_t n) {
  const mx::FormatDesc& d = mx::desc(f);
  const int base = *rc::gen::inRange(-130, 120);
  std::vector<std::uint32_t> x(n);
  for (auto& v : x) {
    v = *rc::gen::weightedOneOf<std::uint32_t>(
        {{8, rc::gen::apply([base](bool neg, int off, std::uint32_t fr) { return make_f32(neg, base - off, fr); },
                            rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 16), gen_frac(d.is_int ? 6 : d.mbits))},
         {1, rc::gen::element<std::uint32_t>(0u, 0x80000000u, 0x7FC00000u, 0xFF800000u)},
         {1, rc::gen::arbitrary<std::uint32_t>()}});
  }
  return x;
}

// Expected bytes of quantize() built from the oracle: blocks by
// mxo::quantize_block, rows packed by mxo::pack_row, scales placed by
// mxo::layout_offset, padding 0x00.
struct Expected {
  std::vector<std::uint8_t> data, scales;
};
// For NVFP4 recipes `nv` holds the oracle's tensor factors (C5).
Expected oracle_quantize(const mx::Recipe& r, const Shape& s, const std::vector<std::uint32_t>& x,
                         const mx::QuantizeOptions& o, const std::vector<std::uint32_t>* rb,
                         const mxo::Nvfp4Tensor* nv = nullptr) {
  const bool col = o.axis == mx::Axis::colwise;
  const bool tr = col && o.data_order == mx::DataOrder::transposed;
  const std::int64_t M = s.rows, K = s.cols, V = r.block;
  const std::int64_t drows = tr ? K : M, dcols = tr ? M : K;
  const std::int64_t srows = col ? K : M, sblocks = col ? (M + V - 1) / V : (K + V - 1) / V;
  const auto lay = static_cast<mxo::Layout>(o.scale_layout);
  Expected e;
  e.scales.assign(static_cast<std::size_t>(mxo::layout_matrix_bytes(lay, srows, sblocks) * s.batch), 0);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(drows * dcols));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::uint32_t* xb = x.data() + b * M * K;
    for (std::int64_t ro = 0; ro < srows; ++ro) {
      for (std::int64_t kb = 0; kb < sblocks; ++kb) {
        const std::int64_t i0 = kb * V, n = std::min(V, (col ? M : K) - i0);
        std::vector<std::uint32_t> blk, rbits;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t m = col ? i0 + j : ro, k = col ? ro : i0 + j;
          blk.push_back(xb[m * K + k]);
          rbits.push_back(rb ? (*rb)[static_cast<std::size_t>(b * M * K + m * K + k)] : 0u);
        }
        mxo::Block ob;
        if (nv) {
          ob.codes.resize(static_cast<std::size_t>(n));
          ob.scale = mxo::nvfp4_block(r.nvfp4 == mx::Nvfp4Order::transformer_engine, *nv, blk.data(), n, 1, ob.codes.data());
        } else {
          ob = mxo::quantize_block(blk.data(), n, 1, to_o(r.elem), to_o(r.rule), to_o(r.conv), to_o(r.nfb), rbits.data());
        }
        e.scales[static_cast<std::size_t>(mxo::layout_offset(lay, srows, sblocks, b, ro, kb))] = ob.scale;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t m = col ? i0 + j : ro, k = col ? ro : i0 + j;
          codes[static_cast<std::size_t>(tr ? k * M + m : m * K + k)] = ob.codes[static_cast<std::size_t>(j)];
        }
      }
    }
    for (std::int64_t row = 0; row < drows; ++row) {
      std::vector<std::uint8_t> rc_(codes.begin() + row * dcols, codes.begin() + (row + 1) * dcols);
      const auto packed = mxo::pack_row(to_o(r.elem), rc_, o.packing == mx::Packing::container8);
      e.data.insert(e.data.end(), packed.begin(), packed.end());
    }
  }
  return e;
}

std::string first_diff(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
  if (got.size() != want.size())
    return "size observed " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i])
      return "byte " + std::to_string(i) + " => observed " + hex(got[i]) + ", expected " + hex(want[i]);
  return "";
}
}  // namespace

RC_GTEST_PROP(C4Props, QuantizeBytesEqualOracle, ()) {
  const std::vector<std::string> bases = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"};
  const std::vector<std::string> mods = {"", ":rceil", ":ceil", ":even", ":rtz", ":rna", ":sr", ":propagate",
                                         ":nonfinite_block_ignore", ":even:rna", ":flush_input_subnormals",
                                         ":rceil:sr:propagate"};
  const std::string name = *rc::gen::elementOf(bases) + *rc::gen::elementOf(mods);
  const mx::Recipe r = mx::parse_recipe(name);
  const Shape s = *gen_shape();
  mx::QuantizeOptions o;
  o.axis = *rc::gen::element(mx::Axis::rowwise, mx::Axis::colwise);
  if (o.axis == mx::Axis::colwise) {
    o.data_order = *rc::gen::element(mx::DataOrder::source, mx::DataOrder::transposed);
    o.scale_layout = *rc::gen::element(mx::ScaleLayout::dense, mx::ScaleLayout::dense_colwise, mx::ScaleLayout::tcgen05);
  } else {
    o.scale_layout = *rc::gen::element(mx::ScaleLayout::dense, mx::ScaleLayout::tcgen05);
  }
  o.packing = *rc::gen::element(mx::Packing::packed, mx::Packing::container8);
  const std::size_t n = static_cast<std::size_t>(s.batch * s.rows * s.cols);
  const auto x = gen_tensor(r.elem, n);
  std::vector<std::uint32_t> rb(n);
  for (std::size_t i = 0; i < n; ++i) rb[i] = static_cast<std::uint32_t>(i * 2654435761u) ^ 0x5bd1e995u;
  o.rbits = r.conv.rounding == mx::Rounding::sr ? rb.data() : nullptr;
  const mx::TensorView t{x.data(), mx::InType::f32, s.batch, s.rows, s.cols};
  const mx::Quantized q = mx::quantize(r, t, o);
  const Expected e = oracle_quantize(r, s, x, o, o.rbits ? &rb : nullptr);
  const std::string ctx = "C4: quantize " + name + " [" + std::to_string(s.batch) + "," + std::to_string(s.rows) + "," +
                          std::to_string(s.cols) + "] " + std::string(mx::axis_name(o.axis)) + " " +
                          std::string(mx::data_order_name(o.data_order)) + " " +
                          std::string(mx::scale_layout_name(o.scale_layout)) + " " +
                          std::string(mx::packing_name(o.packing));
  const std::string dd = first_diff(q.data, e.data);
  RC_ASSERT_MSG(dd.empty(), (ctx + ": data " + dd).c_str());
  const std::string sd = first_diff(q.scales, e.scales);
  RC_ASSERT_MSG(sd.empty(), (ctx + ": scales (C7 layout, padding 0x00) " + sd).c_str());
}

// colwise(X), transposed data, dense scales == rowwise(X^T) (C4).
RC_GTEST_PROP(C4Props, ColwiseEqualsRowwiseOfTranspose, ()) {
  const std::string name = *rc::gen::element<std::string>("mxfp8_e4m3", "mxfp4:rceil", "mxfp6_e2m3:even", "mxint8:ceil",
                                                          "mxfp6_e3m2", "mxfp8_e5m2:rna");
  const mx::Recipe r = mx::parse_recipe(name);
  const Shape s = *gen_shape();
  const std::size_t n = static_cast<std::size_t>(s.batch * s.rows * s.cols);
  const auto x = gen_tensor(r.elem, n);
  std::vector<std::uint32_t> xt(n);
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t m = 0; m < s.rows; ++m)
      for (std::int64_t k = 0; k < s.cols; ++k)
        xt[static_cast<std::size_t>(b * s.rows * s.cols + k * s.rows + m)] =
            x[static_cast<std::size_t>(b * s.rows * s.cols + m * s.cols + k)];
  mx::QuantizeOptions oc;
  oc.axis = mx::Axis::colwise;
  oc.data_order = mx::DataOrder::transposed;
  const mx::Quantized qc = mx::quantize(r, {x.data(), mx::InType::f32, s.batch, s.rows, s.cols}, oc);
  const mx::Quantized qr = mx::quantize(r, {xt.data(), mx::InType::f32, s.batch, s.cols, s.rows}, {});
  const std::string ctx = "C4: colwise(X) vs rowwise(X^T) " + name + " [" + std::to_string(s.batch) + "," +
                          std::to_string(s.rows) + "," + std::to_string(s.cols) + "]";
  const std::string dd = first_diff(qc.data, qr.data);
  RC_ASSERT_MSG(dd.empty(), (ctx + ": data " + dd).c_str());
  const std::string sd = first_diff(qc.scales, qr.scales);
  RC_ASSERT_MSG(sd.empty(), (ctx + ": scales " + sd).c_str());
}

// dequant(quant(x)) is within half an element ulp times the scale for
// in-range values (rne, finite inputs, |x| * 2^-e <= max finite) (C4/C8).
RC_GTEST_PROP(C4Props, DequantErrorWithinHalfUlp, ()) {
  const std::string name = *rc::gen::element<std::string>("mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3",
                                                          "mxfp4", "mxint8", "mxfp8_e4m3:rceil", "mxfp4:ceil");
  const mx::Recipe r = mx::parse_recipe(name);
  const mx::FormatDesc& d = mx::desc(r.elem);
  const int n = *rc::gen::inRange(1, 65);
  std::vector<std::uint32_t> x = gen_tensor(r.elem, static_cast<std::size_t>(n));
  for (auto& v : x)
    if (!std::isfinite(f32(v))) v = 0;
  const mx::Quantized q = mx::quantize(r, {x.data(), mx::InType::f32, 1, 1, n}, {});
  const auto out = mx::dequantize(q, Fmt::fp32);
  for (int i = 0; i < n; ++i) {
    const std::uint8_t sc = mx::scale_code_at(q, 0, 0, i);
    const int e = static_cast<int>(sc) - 127;
    const double xv = f32(x[static_cast<std::size_t>(i)]);
    const double scaled = std::ldexp(std::fabs(xv), -e);
    if (scaled > mx::max_finite(d)) continue;  // clamped by the overflow policy (C3 floor)
    // the element ulp at |x| * 2^-e: 2^(max(floor(log2), emin) - mbits), int8 2^-6
    const int fl = scaled > 0 ? std::ilogb(scaled) : mx::emin(d);
    const double ulp = d.is_int ? 1.0 / 64 : std::ldexp(1.0, std::max(fl, mx::emin(d)) - d.mbits);
    float y;
    std::memcpy(&y, out.data() + 4 * i, 4);
    const std::uint8_t ec = mx::element_code_at(q, 0, 0, i);
    const double exact = std::ldexp(static_cast<double>(mx::decode(r.elem, ec)), e);
    if (std::fabs(exact) > 0x1.fffffep127) {
      // C8: the exact product rounds (RNE) past FLT_MAX: the fp32 output is Inf
      // (e.g. mxfp4:ceil of -2.977e38: -3.5 * 2^126 ties to -4 * 2^126 = -2^128).
      RC_ASSERT_MSG(std::isinf(y) && std::signbit(y) == (exact < 0),
                    ("C8: dequant of " + name + " element " + hex(ec) + " scale " + hex(sc) + " overflows fp32: expected Inf, observed " +
                     in32(bits(y)))
                        .c_str());
      continue;
    }
    const double err = std::fabs(static_cast<double>(y) - xv);
    const double bound = std::ldexp(ulp / 2, e);
    // the fp32 output adds at most half an fp32 ulp of y when y is subnormal
    const double slack = std::ldexp(1.0, -150);
    RC_ASSERT_MSG(err <= bound + slack, ("C4/C8: |dequant(quant(x)) - x| " + std::to_string(err) + " > half ulp * scale " +
                                         std::to_string(bound) + " for " + name + " input " + in32(x[i]) +
                                         " scale " + hex(sc) + " element " + hex(mx::element_code_at(q, 0, 0, i)))
                                            .c_str());
  }
}

// The recipes of C4 parse to the table's element, block and rule.
TEST(C4, RecipeTable) {
  struct Row { const char* name; Fmt elem; int block; mx::ScaleRule rule; const char* why; };
  const Row rows[] = {
      {"mxfp8_e4m3", Fmt::e4m3, 32, mx::ScaleRule::floor, "C4: mxfp8_e4m3 e4m3 32 floor"},
      {"mxfp8_e5m2", Fmt::e5m2, 32, mx::ScaleRule::floor, "C4: mxfp8_e5m2"},
      {"mxfp6_e3m2", Fmt::e3m2, 32, mx::ScaleRule::floor, "C4: mxfp6_e3m2"},
      {"mxfp6_e2m3", Fmt::e2m3, 32, mx::ScaleRule::floor, "C4: mxfp6_e2m3"},
      {"mxfp4", Fmt::e2m1, 32, mx::ScaleRule::floor, "C4: mxfp4"},
      {"mxint8", Fmt::int8, 32, mx::ScaleRule::floor, "C4: mxint8"},
      {"mxfp8_e4m3:rceil", Fmt::e4m3, 32, mx::ScaleRule::rceil, "C4: the NVIDIA recipe"},
      {"mxfp4:even", Fmt::e2m1, 32, mx::ScaleRule::even, "C4: :even"},
      {"nvfp4", Fmt::e2m1, 16, mx::ScaleRule::floor, "C4/C5: nvfp4 e2m1 16"},
  };
  for (const auto& r : rows) {
    const mx::Recipe rec = mx::parse_recipe(r.name);
    EXPECT_EQ(rec.elem, r.elem) << r.why;
    EXPECT_EQ(rec.block, r.block) << r.why;
    if (!rec.is_nvfp4()) {
      EXPECT_EQ(rec.rule, r.rule) << r.why;
    }
  }
  const mx::Recipe n = mx::parse_recipe("nvfp4");
  EXPECT_EQ(n.nvfp4, mx::Nvfp4Order::transformer_engine) << "C5: nvfp4 defaults to the TransformerEngine order";
  EXPECT_EQ(mx::parse_recipe("nvfp4:torchao").nvfp4, mx::Nvfp4Order::torchao) << "C5: nvfp4:torchao";
}

// A short last block: amax over the real elements only (C4).
TEST(C4, ShortLastBlock) {
  // K = 33: the second block holds one element, 1.0 -> floor e4m3 scale 119.
  std::vector<float> x(33, 300.0f);
  x[32] = 1.0f;
  const mx::Quantized q = mx::quantize(mx::parse_recipe("mxfp8_e4m3"), {x.data(), mx::InType::f32, 1, 1, 33}, {});
  ASSERT_EQ(q.scales.size(), 2u) << "C4/C7: ceil(33/32) = 2 scales";
  EXPECT_EQ(q.scales[0], 127 + 8 - 8) << "C3: amax 300 floor e4m3 -> 8 - 8 = 0 -> 0x7F";
  EXPECT_EQ(q.scales[1], 119) << "C4: short block amax over its one element 1.0 -> 0 - 8 = -8 -> 119";
  EXPECT_EQ(q.data[32], 0x78) << "C4: 1.0 * 2^8 = 256 -> e4m3 0x78, observed " << hex(q.data[32]);
}

// bf16 and fp16 tensors widen exactly, then quantize like fp32 (C2, C4).
RC_GTEST_PROP(C4Props, HalfInputTensorsEqualOracle, ()) {
  const std::string name = *rc::gen::element<std::string>("mxfp8_e4m3", "mxfp8_e5m2:rceil", "mxfp6_e3m2:even",
                                                          "mxfp6_e2m3:rna", "mxfp4:ceil", "mxint8");
  const mx::Recipe r = mx::parse_recipe(name);
  const bool bf = *rc::gen::arbitrary<bool>();
  const Shape s = *gen_shape();
  const std::size_t n = static_cast<std::size_t>(s.batch * s.rows * s.cols);
  const auto h = *rc::gen::container<std::vector<std::uint16_t>>(n, rc::gen::arbitrary<std::uint16_t>());
  std::vector<std::uint32_t> wide(n);
  for (std::size_t i = 0; i < n; ++i)
    wide[i] = mxo::round_ieee(mxo::Fmt::fp32, bf ? mxo::from_bf16(h[i]) : mxo::from_f16(h[i]));  // exact widening
  for (std::size_t i = 0; i < n; ++i)
    if (std::isnan(f32(wide[i]))) wide[i] = (bf ? (std::uint32_t{h[i]} << 16) : mx::f16_to_f32_bits(h[i]));  // keep NaN bits
  mx::QuantizeOptions o;
  o.axis = *rc::gen::element(mx::Axis::rowwise, mx::Axis::colwise);
  const mx::Quantized q = mx::quantize(r, {h.data(), bf ? mx::InType::bf16 : mx::InType::f16, s.batch, s.rows, s.cols}, o);
  const Expected e = oracle_quantize(r, s, wide, o, nullptr);
  const std::string ctx = "C2/C4: quantize " + name + " from " + (bf ? "bf16" : "fp16") + " [" + std::to_string(s.batch) +
                          "," + std::to_string(s.rows) + "," + std::to_string(s.cols) + "] " + std::string(mx::axis_name(o.axis));
  const std::string dd = first_diff(q.data, e.data);
  RC_ASSERT_MSG(dd.empty(), (ctx + ": data " + dd).c_str());
  const std::string sd = first_diff(q.scales, e.scales);
  RC_ASSERT_MSG(sd.empty(), (ctx + ": scales " + sd).c_str());
}

// NVFP4 whole tensors (C5 through C4's quantize): global amax over the
// tensor, one oracle block per 16 elements, tcgen05 or dense scales.
RC_GTEST_PROP(C4Props, Nvfp4TensorEqualsOracle, ()) {
  const bool te = *rc::gen::arbitrary<bool>();
  const mx::Recipe r = mx::parse_recipe(te ? "nvfp4" : "nvfp4:torchao");
  const Shape s = *gen_shape();
  const std::size_t n = static_cast<std::size_t>(s.batch * s.rows * s.cols);
  std::vector<std::uint32_t> x = gen_tensor(Fmt::e2m1, n);
  for (auto& v : x)
    if (!std::isfinite(f32(v))) v = 0;
  mx::QuantizeOptions o;
  o.axis = *rc::gen::element(mx::Axis::rowwise, mx::Axis::colwise);
  if (o.axis == mx::Axis::colwise) o.data_order = *rc::gen::element(mx::DataOrder::source, mx::DataOrder::transposed);
  o.scale_layout = *rc::gen::element(mx::ScaleLayout::dense, mx::ScaleLayout::tcgen05);
  o.packing = *rc::gen::element(mx::Packing::packed, mx::Packing::container8);
  const mx::Quantized q = mx::quantize(r, {x.data(), mx::InType::f32, s.batch, s.rows, s.cols}, o);
  // global amax (exact max of |x|)
  std::uint32_t g = 0;
  for (auto v : x)
    if (mxo::compare(mxo::from_f32(v & 0x7FFFFFFFu), mxo::from_f32(g)) > 0) g = v & 0x7FFFFFFFu;
  const std::string ctx = std::string("C5: quantize ") + (te ? "nvfp4" : "nvfp4:torchao") + " [" + std::to_string(s.batch) +
                          "," + std::to_string(s.rows) + "," + std::to_string(s.cols) + "] global amax " + in32(g);
  RC_ASSERT_MSG(q.global_amax_bits == g, (ctx + ": global amax observed " + in32(q.global_amax_bits)).c_str());
  if (g == 0) return;  // torchao divides by a zero per-tensor scale: not modelled
  const mxo::Nvfp4Tensor t = mxo::nvfp4_tensor(te, g);
  const Expected e = oracle_quantize(r, s, x, o, nullptr, &t);
  const std::string dd = first_diff(q.data, e.data);
  RC_ASSERT_MSG(dd.empty(), (ctx + " " + std::string(mx::axis_name(o.axis)) + ": data " + dd).c_str());
  const std::string sd = first_diff(q.scales, e.scales);
  RC_ASSERT_MSG(sd.empty(), (ctx + " " + std::string(mx::axis_name(o.axis)) + ": scales " + sd).c_str());
  // C5 dequantization of the whole tensor, element by element.
  const auto deq = mx::dequantize(q, Fmt::fp32);
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t m = 0; m < s.rows; ++m)
      for (std::int64_t k = 0; k < s.cols; ++k) {
        const std::int64_t idx = (b * s.rows + m) * s.cols + k;
        const std::uint8_t ec = mx::element_code_at(q, b, m, k), sc = mx::scale_code_at(q, b, m, k);
        const std::uint32_t want = mxo::nvfp4_dequant(te, t, ec, sc);
        std::uint32_t got;
        std::memcpy(&got, deq.data() + 4 * idx, 4);
        RC_ASSERT_MSG(got == want || (std::isnan(f32(got)) && std::isnan(f32(want))),
                      (ctx + ": dequant (" + std::to_string(b) + "," + std::to_string(m) + "," + std::to_string(k) +
                       ") element " + hex(ec) + " scale " + hex(sc) + " => observed " + in32(got) + ", expected " + in32(want))
                          .c_str());
      }
}

// Every named recipe of C4/C5 parses, and its canonical name parses back to
// the same recipe.
TEST(C4, EveryRecipeNameRoundTrips) {
  const auto names = mx::recipe_names();
  EXPECT_GE(names.size(), 6u * 4u + 2u) << "C4: six bases x four rules, plus nvfp4 and nvfp4:torchao";
  for (const std::string& n : names) {
    const mx::Recipe r = mx::parse_recipe(n);
    const mx::Recipe back = mx::parse_recipe(r.name());
    EXPECT_EQ(back.name(), r.name()) << "C4: recipe '" << n << "' canonical name '" << r.name() << "' does not round-trip";
    EXPECT_EQ(back.elem, r.elem) << n;
    EXPECT_EQ(back.block, r.block) << n;
    EXPECT_EQ(back.rule, r.rule) << n;
    EXPECT_EQ(back.nvfp4, r.nvfp4) << n;
  }
}
