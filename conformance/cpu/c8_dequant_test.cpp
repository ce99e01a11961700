// c8_dequant_test.cpp - SPEC C8: dequantization is the exact product
// decode(element) * 2^(scale - 127) rounded once (RNE) to fp32 / bf16 / fp16;
// a 0xFF scale gives NaN. Hand rows and every (element code, scale code)
// pair of every format vs the oracle.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "common.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"

using namespace cpu;
using mx::Fmt;

namespace {
// Dequantize one element through the public API: a 1 x 1 tensor whose
// element and scale bytes are overwritten.
std::uint32_t api_dequant(Fmt elem, std::uint8_t code, std::uint8_t scale, Fmt out) {
  static const char* names[] = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"};
  const float zero = 0.0f;
  mx::QuantizeOptions o;
  o.packing = mx::Packing::container8;  // one code per byte (e2m1 in bits 5..2)
  mx::Quantized q = mx::quantize(mx::parse_recipe(names[static_cast<int>(elem)]), {&zero, mx::InType::f32, 1, 1, 1}, o);
  q.data[0] = static_cast<std::uint8_t>(elem == Fmt::e2m1 ? code << 2 : code);
  q.scales[0] = scale;
  const auto b = mx::dequantize(q, out);
  std::uint32_t r = 0;
  std::memcpy(&r, b.data(), b.size());
  return r;
}
}  // namespace

TEST(C8, HandRows) {
  struct Row { Fmt elem; std::uint8_t code, scale; Fmt out; std::uint32_t want; const char* why; };
  const Row rows[] = {
      {Fmt::e4m3, 0x7E, 127, Fmt::fp32, 0x43E00000u, "C8: 448 * 2^0 = 448"},
      {Fmt::e4m3, 0x7E, 0xFF, Fmt::fp32, 0x7FC00000u, "C8: scale 0xFF -> NaN"},
      {Fmt::e4m3, 0x00, 0xFF, Fmt::bf16, 0x7FC0u, "C8: scale 0xFF -> NaN even for a zero element"},
      {Fmt::e4m3, 0x80, 200, Fmt::fp32, 0x80000000u, "C8: -0 stays -0"},
      {Fmt::e4m3, 0x01, 0x00, Fmt::fp32, 0x00002000u, "C8: 2^-9 * 2^-127 = 2^-136 exact fp32 subnormal"},
      {Fmt::e4m3, 0x0F, 0x00, Fmt::bf16, 0x0002u, "C8: 1.875 * 2^-133 rounds (RNE) to bf16 2 * 2^-133"},
      {Fmt::e4m3, 0x3F, 127 - 22, Fmt::fp16, 0x0008u, "C8: 1.875 * 2^-22 = 7.5 * 2^-24 ties to even fp16 8"},
      {Fmt::e4m3, 0x3D, 127 - 22, Fmt::fp16, 0x0006u, "C8: 1.625 * 2^-22 = 6.5 * 2^-24 ties to even fp16 6"},
      {Fmt::e4m3, 0x7E, 127 + 8, Fmt::fp16, 0x7C00u, "C8: 448 * 2^8 overflows fp16 -> Inf"},
      {Fmt::e5m2, 0x7B, 0xFE, Fmt::bf16, 0x7F80u, "C8: 57344 * 2^127 overflows bf16 -> Inf"},
      {Fmt::e5m2, 0xFC, 127, Fmt::fp32, 0xFF800000u, "C8: e5m2 -Inf element -> -Inf"},
      {Fmt::e5m2, 0x7D, 127, Fmt::fp16, 0x7E00u, "C8: e5m2 NaN element -> NaN"},
      {Fmt::int8, 0x80, 128, Fmt::fp32, 0xC0800000u, "C8: int8 -2 * 2 = -4"},
      {Fmt::e2m1, 0xF, 126, Fmt::bf16, 0xC040u, "C8: e2m1 -6 * 2^-1 = -3"},
      {Fmt::e3m2, 0x1F, 0xFE, Fmt::fp32, 0x7F800000u, "C8: 28 * 2^127 overflows fp32 -> Inf"},
  };
  for (const auto& r : rows) {
    const std::uint32_t got = api_dequant(r.elem, r.code, r.scale, r.out);
    EXPECT_EQ(got, r.want) << r.why << "\n  dequant " << mx::desc(r.elem).name << " code " << hex(r.code) << " scale "
                           << hex(r.scale) << " -> " << mx::desc(r.out).name << " => observed " << hex(got, 8)
                           << ", expected " << hex(r.want, 8);
    const std::uint32_t o = mxo::dequant(to_o(r.elem), r.code, r.scale, to_o(r.out));
    EXPECT_EQ(o, r.want) << r.why << " (ORACLE) => " << hex(o, 8);
  }
}

// Every element code x a spread of scale codes x every output type.
TEST(C8, EveryCodeFastEqualsOracle) {
  std::int64_t cases = 0;
  for (Fmt f : elem_formats()) {
    for (int sc : {0, 1, 2, 20, 100, 117, 126, 127, 128, 140, 150, 200, 253, 254, 255}) {
      for (Fmt out : {Fmt::fp32, Fmt::bf16, Fmt::fp16}) {
        // one tensor per (scale, out): all codes of the format in one row
        static const char* names[] = {"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8"};
        const int nc = 1 << mx::desc(f).bits;
        std::vector<float> z(static_cast<std::size_t>(nc), 0.0f);
        mx::QuantizeOptions o;
        o.packing = mx::Packing::container8;
        mx::Recipe rec = mx::parse_recipe(names[static_cast<int>(f)]);
        rec.block = nc;
        mx::Quantized q = mx::quantize(rec, {z.data(), mx::InType::f32, 1, 1, nc}, o);
        for (int c = 0; c < nc; ++c) q.data[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(f == Fmt::e2m1 ? c << 2 : c);
        q.scales[0] = static_cast<std::uint8_t>(sc);
        const auto b = mx::dequantize(q, out);
        const int ob = mx::desc(out).bits / 8;
        for (int c = 0; c < nc; ++c) {
          std::uint32_t got = 0;
          std::memcpy(&got, b.data() + c * ob, static_cast<std::size_t>(ob));
          const std::uint32_t want = mxo::dequant(to_o(f), static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(sc), to_o(out));
          const mxo::Value wv = mxo::decode(to_o(out), want);
          const mxo::Value gv = mxo::decode(to_o(out), got);
          const bool both_nan = wv.kind == mxo::Value::nan && gv.kind == mxo::Value::nan;
          ++cases;
          ASSERT_TRUE(got == want || both_nan)
              << "C8: dequant " << mx::desc(f).name << " code " << hex(static_cast<std::uint32_t>(c)) << " scale "
              << hex(static_cast<std::uint32_t>(sc)) << " -> " << mx::desc(out).name << " => observed " << hex(got, 8)
              << ", expected " << hex(want, 8);
        }
      }
    }
  }
  std::printf("[ cases    ] C8 compared %lld dequantized elements\n", static_cast<long long>(cases));
}

// The fp32 -> bf16 / fp16 RNE roundings used by dequantization (C8) vs the
// oracle, for every fp32 exponent and structured significands.
RC_GTEST_PROP(C8Props, F32ToHalfRneEqualsOracle, ()) {
  const std::uint32_t x = *rc::gen::oneOf(
      rc::gen::arbitrary<std::uint32_t>(),
      rc::gen::apply([](bool neg, int e, std::uint32_t fr) { return make_f32(neg, e, fr); }, rc::gen::arbitrary<bool>(),
                     rc::gen::inRange(-150, 129), rc::gen::oneOf(gen_frac(7), gen_frac(10))));
  const mxo::Value v = mxo::from_f32(x);
  const std::uint32_t wb = mxo::round_ieee(mxo::Fmt::bf16, v), wh = mxo::round_ieee(mxo::Fmt::fp16, v);
  const std::uint32_t gb = mx::f32_to_bf16_rne(f32(x)), gh = mx::f32_to_f16_rne(f32(x));
  if (v.kind == mxo::Value::nan) {
    RC_ASSERT(std::isnan(mx::decode(Fmt::bf16, gb)) && std::isnan(mx::decode(Fmt::fp16, gh)));
    return;
  }
  RC_ASSERT_MSG(gb == wb, ("C8: fp32 " + in32(x) + " -> bf16 RNE => observed " + hex(gb, 4) + ", expected " + hex(wb, 4)).c_str());
  RC_ASSERT_MSG(gh == wh, ("C8: fp32 " + in32(x) + " -> fp16 RNE => observed " + hex(gh, 4) + ", expected " + hex(wh, 4)).c_str());
}
