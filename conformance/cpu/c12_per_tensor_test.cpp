// c12_per_tensor_test.cpp - reference/SPEC.md C12 (per-tensor FP8, current
// scaling) in libmxref (mx/per_tensor.hpp): the clause's worked examples as
// hand rows, a few more rows checked by hand, the fast path against the slow
// exact oracle (reference/oracle/oracle_per_tensor.*) on random and special
// tensors of every input type for e4m3 and e5m2 (amax, scale, scale_inv,
// codes, dequantization to fp32/bf16/fp16), and bad input.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <limits>

#include "common.hpp"
#include "mx/error.hpp"
#include "mx/per_tensor.hpp"
#include "oracle_per_tensor.hpp"

using namespace cpu;
using mx::Fmt;

namespace {

struct Row {
  Fmt f;
  std::vector<std::uint32_t> x;  // fp32 bits
  std::uint32_t amax, scale, scale_inv;
  std::vector<std::uint8_t> q;
  std::vector<std::uint32_t> y;  // fp32 bits of the dequantized values (empty: not checked)
  const char* source;
};

constexpr std::uint32_t kNaN = 0x7FC00000u, kInf = 0x7F800000u;

// Hand rows: SPEC C12's worked examples, plus rows whose values follow from
// the clause by hand (448 / 3 and its inverse from numpy float32 division).
const Row kRows[] = {
    {Fmt::e4m3, {0x3F800000u, 0xC0600000u, kNaN, 0u}, 0x40600000u, 0x43000000u, 0x3C000000u,
     {0x70, 0xFE, 0x7F, 0x00}, {0x3F800000u, 0xC0600000u, kNaN, 0u}, "C12 example [1, -3.5, NaN, 0] e4m3"},
    {Fmt::e5m2, {0x3F800000u, 0xC0600000u, kNaN, 0u}, 0x40600000u, 0x46800000u, 0x38800000u,
     {0x74, 0xFB, 0x7F, 0x00}, {0x3F800000u, 0xC0600000u, kNaN, 0u}, "C12 example [1, -3.5, NaN, 0] e5m2"},
    {Fmt::e4m3, {}, 0u, 0x57CBBA10u, 0x2720D7C5u, {}, {}, "C12 example: empty tensor e4m3"},
    {Fmt::e4m3, {kInf, 0x40000000u}, kInf, 0u, kInf, {0x7F, 0x00}, {kNaN, kNaN},
     "C12 example [+Inf, 2]: scale +0, Inf * 0 is NaN, 0 * Inf is NaN"},
    // all NaN: amax +0 (NaN passed over), e5m2 scale 57344 / 1e-12f
    {Fmt::e5m2, {kNaN, 0xFFC00001u}, 0u, 0x5B4BBA10u, 0x23A0D7C5u, {0x7F, 0x7F}, {kNaN, kNaN},
     "all NaN -> amax +0"},
    // only -0: amax is +0 (|x|), codes keep the sign
    {Fmt::e4m3, {0x80000000u, 0u}, 0u, 0x57CBBA10u, 0x2720D7C5u, {0x80, 0x00}, {0x80000000u, 0u}, "-0 and +0"},
    // -Inf also counts as amax Inf
    {Fmt::e5m2, {0xFF800000u, 0x3F800000u}, kInf, 0u, kInf, {0x7F, 0x00}, {kNaN, kNaN}, "-Inf"},
    // 448 / 3 = 149.333 (0x43155555): 3 * scale rounds to 448 (0x7e); 1 * scale = 149.33 -> 144 (0x71)
    {Fmt::e4m3, {0x40400000u, 0x3F800000u, 0xBF800000u}, 0x40400000u, 0x43155555u, 0x3BDB6DB7u, {0x7E, 0x71, 0xF1}, {},
     "amax 3: inexact scale"},
    // amax 2^-43 below 1e-12: scale = 448 / 1e-12f; 2^-43 * scale = 50.93 lies between the
    // e4m3 values 48 and 52 (step 4 in [32, 64)) and rounds to 52 = 1.625 * 2^5 (0x65)
    {Fmt::e4m3, {0x2A000000u}, 0x2A000000u, 0x57CBBA10u, 0x2720D7C5u, {0x65}, {}, "amax below 1e-12"},
};

std::vector<std::uint32_t> dequant_f32(const mx::PerTensorQuantized& q) {
  const auto b = mx::dequantize_per_tensor(q, Fmt::fp32);
  std::vector<std::uint32_t> y(b.size() / 4);
  std::memcpy(y.data(), b.data(), b.size());
  return y;
}

TEST(C12PerTensor, HandRows) {
  for (const Row& r : kRows) {
    const mx::TensorView t{r.x.data(), mx::InType::f32, 1, 1, static_cast<std::int64_t>(r.x.size())};
    const mx::PerTensorQuantized q = mx::quantize_per_tensor(r.f, t);
    EXPECT_EQ(hex(q.amax_bits, 8), hex(r.amax, 8)) << r.source << ": amax";
    EXPECT_EQ(hex(q.scale_bits, 8), hex(r.scale, 8)) << r.source << ": scale";
    EXPECT_EQ(hex(q.scale_inv_bits, 8), hex(r.scale_inv, 8)) << r.source << ": scale_inv";
    ASSERT_EQ(q.data.size(), r.q.size()) << r.source;
    for (std::size_t i = 0; i < r.q.size(); ++i) EXPECT_EQ(hex(q.data[i]), hex(r.q[i])) << r.source << ": q[" << i << "]";
    if (!r.y.empty()) {
      const auto y = dequant_f32(q);
      for (std::size_t i = 0; i < r.y.size(); ++i) EXPECT_EQ(hex(y[i], 8), hex(r.y[i], 8)) << r.source << ": y[" << i << "]";
    }
    // the oracle agrees with every hand row
    const mxo::PerTensor o = mxo::per_tensor(to_o(r.f), r.x);
    EXPECT_EQ(hex(o.amax, 8), hex(r.amax, 8)) << r.source << ": oracle amax";
    EXPECT_EQ(hex(o.scale, 8), hex(r.scale, 8)) << r.source << ": oracle scale";
    EXPECT_EQ(hex(o.scale_inv, 8), hex(r.scale_inv, 8)) << r.source << ": oracle scale_inv";
    EXPECT_EQ(o.codes, r.q) << r.source << ": oracle codes";
    for (std::size_t i = 0; i < r.y.size(); ++i) {
      EXPECT_EQ(hex(mxo::per_tensor_dequant(to_o(r.f), r.q[i], r.scale_inv, mxo::Fmt::fp32), 8), hex(r.y[i], 8))
          << r.source << ": oracle y[" << i << "]";
    }
  }
}

// bf16 / fp16 outputs of the first example: 1.0, -3.5, NaN, 0.
TEST(C12PerTensor, HandRowsNarrowOutputs) {
  const std::vector<std::uint32_t> x = {0x3F800000u, 0xC0600000u, kNaN, 0u};
  const mx::PerTensorQuantized q = mx::quantize_per_tensor(Fmt::e4m3, {x.data(), mx::InType::f32, 1, 2, 2});
  const auto bf = mx::dequantize_per_tensor(q, Fmt::bf16);
  const auto hf = mx::dequantize_per_tensor(q, Fmt::fp16);
  const std::uint16_t want_bf[] = {0x3F80, 0xC060, 0x7FC0, 0x0000}, want_hf[] = {0x3C00, 0xC300, 0x7E00, 0x0000};
  for (int i = 0; i < 4; ++i) {
    std::uint16_t b, h;
    std::memcpy(&b, bf.data() + 2 * i, 2);
    std::memcpy(&h, hf.data() + 2 * i, 2);
    EXPECT_EQ(hex(b, 4), hex(want_bf[i], 4)) << "bf16 y[" << i << "]";
    EXPECT_EQ(hex(h, 4), hex(want_hf[i], 4)) << "fp16 y[" << i << "]";
  }
}

// Values spread over many binades, with specials mixed in, so that amax,
// the rounding of x * scale, saturation and subnormal codes all occur.
std::vector<std::uint32_t> gen_values(std::size_t n) {
  std::vector<std::uint32_t> x(n);
  const int base = *rc::gen::inRange(-140, 125);
  for (auto& v : x) {
    v = *rc::gen::weightedOneOf<std::uint32_t>(
        {{12, rc::gen::apply([base](bool neg, int off, std::uint32_t fr) { return make_f32(neg, base - off, fr); },
                             rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 24), gen_frac(3))},
         {1, rc::gen::element<std::uint32_t>(0u, 0x80000000u, kNaN, 0xFFC00000u, kInf, 0xFF800000u, 0x7F7FFFFFu)},
         {2, rc::gen::arbitrary<std::uint32_t>()}});
  }
  return x;
}

// The input as the given type (bf16/fp16 rounded from the fp32 bits) and its
// exact fp32 widening, for the oracle.
void to_type(const std::vector<std::uint32_t>& x, mx::InType t, std::vector<std::uint8_t>& bytes,
             std::vector<std::uint32_t>& widened) {
  bytes.assign(x.size() * mx::in_type_bytes(t), 0);
  widened.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (t == mx::InType::f32) {
      std::memcpy(bytes.data() + 4 * i, &x[i], 4);
      widened[i] = x[i];
      continue;
    }
    std::uint16_t h = t == mx::InType::bf16 ? mx::f32_to_bf16_rne(f32(x[i])) : mx::f32_to_f16_rne(f32(x[i]));
    std::memcpy(bytes.data() + 2 * i, &h, 2);
    // exact widening by the oracle (independent of the fast path's loaders)
    widened[i] = mxo::round_ieee(mxo::Fmt::fp32, t == mx::InType::bf16 ? mxo::from_bf16(h) : mxo::from_f16(h));
    if (mxo::from_f32(widened[i]).kind == mxo::Value::nan) {
      widened[i] = (h & 0x8000u ? 0x80000000u : 0u) | 0x7FC00000u;  // NaN: only NaN-ness matters in C12
    }
  }
}

RC_GTEST_PROP(C12PerTensor, FastPathEqualsOracle, ()) {
  const Fmt f = *rc::gen::element(Fmt::e4m3, Fmt::e5m2);
  const mx::InType t = *rc::gen::element(mx::InType::f32, mx::InType::bf16, mx::InType::f16);
  const int rows = *rc::gen::inRange(1, 9), cols = *rc::gen::inRange(0, 40);
  const std::vector<std::uint32_t> x = gen_values(static_cast<std::size_t>(rows * cols));
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint32_t> wide;
  to_type(x, t, bytes, wide);
  const mx::PerTensorQuantized q = mx::quantize_per_tensor(f, {bytes.data(), t, 1, rows, cols});
  const mxo::PerTensor o = mxo::per_tensor(to_o(f), wide);
  const std::string ctx = std::string("C12 ") + std::string(mx::desc(f).name) + " " + std::string(mx::in_type_name(t)) + " " +
                          std::to_string(rows) + "x" + std::to_string(cols);
  RC_ASSERT_MSG(q.amax_bits == o.amax, (ctx + ": amax observed " + in32(q.amax_bits) + ", expected " + in32(o.amax)).c_str());
  RC_ASSERT_MSG(q.scale_bits == o.scale, (ctx + ": scale observed " + in32(q.scale_bits) + ", expected " + in32(o.scale)).c_str());
  RC_ASSERT_MSG(q.scale_inv_bits == o.scale_inv,
                (ctx + ": scale_inv observed " + in32(q.scale_inv_bits) + ", expected " + in32(o.scale_inv)).c_str());
  for (std::size_t i = 0; i < x.size(); ++i) {
    RC_ASSERT_MSG(q.data[i] == o.codes[i], (ctx + ": q[" + std::to_string(i) + "] of " + in32(wide[i]) + " observed " +
                                            hex(q.data[i]) + ", expected " + hex(o.codes[i]))
                                               .c_str());
  }
  for (Fmt out : {Fmt::fp32, Fmt::bf16, Fmt::fp16}) {
    const auto y = mx::dequantize_per_tensor(q, out);
    const std::size_t ob = out == Fmt::fp32 ? 4 : 2;
    for (std::size_t i = 0; i < x.size(); ++i) {
      std::uint32_t got = 0;
      std::memcpy(&got, y.data() + i * ob, ob);
      const std::uint32_t want = mxo::per_tensor_dequant(to_o(f), q.data[i], o.scale_inv, to_o(out));
      RC_ASSERT_MSG(got == want, (ctx + ": y[" + std::to_string(i) + "] (" + std::string(mx::desc(out).name) + ") of code " +
                                  hex(q.data[i]) + " observed " + hex(got, 8) + ", expected " + hex(want, 8))
                                     .c_str());
    }
  }
}

// Every amax that matters for step 2: scale and scale_inv against the oracle
// for amax over all binades (and both formats), including subnormal amax.
RC_GTEST_PROP(C12PerTensor, ScaleEqualsOracle, ()) {
  const Fmt f = *rc::gen::element(Fmt::e4m3, Fmt::e5m2);
  const std::uint32_t a = *rc::gen::inRange<std::uint32_t>(0u, 0x7F800001u);
  const mx::PerTensorScale s = mx::per_tensor_scale(f, a);
  std::uint32_t os = 0, osi = 0;
  mxo::per_tensor_scale(to_o(f), a, &os, &osi);
  RC_ASSERT_MSG(s.scale_bits == os && s.scale_inv_bits == osi,
                ("C12 scale of amax " + in32(a) + ": observed " + in32(s.scale_bits) + " / " + in32(s.scale_inv_bits) +
                 ", expected " + in32(os) + " / " + in32(osi))
                    .c_str());
}

// C12: amax skips every NaN, a signaling one too, and keeps an Inf seen
// before it (by hand: max(|-Inf|, |1|) = +Inf; the NaNs are not values).
// Found by FastPathEqualsOracle under the asan preset: the fast path used
// std::fmax, which returns a NaN for a signaling NaN (IEEE 754-2008 maxNum),
// so the running maximum restarted after it.
TEST(C12PerTensor, AmaxSkipsSignalingAndQuietNaN) {
  const std::uint32_t x[5] = {0xFF800000u, 0x7F800001u, 0x3F800000u, 0xFFC00000u, 0x00000220u};
  const mx::PerTensorQuantized q = mx::quantize_per_tensor(Fmt::e4m3, {x, mx::InType::f32, 1, 1, 5});
  EXPECT_EQ(q.amax_bits, 0x7F800000u) << "C12 amax of {-Inf, sNaN, 1, -qNaN, 2^-140*...}";
  const std::uint32_t y[3] = {0x7F800001u, 0x40000000u, 0x3F800000u};
  EXPECT_EQ(mx::quantize_per_tensor(Fmt::e5m2, {y, mx::InType::f32, 1, 1, 3}).amax_bits, 0x40000000u)
      << "C12 amax of {sNaN, 2, 1}";
  const std::uint32_t z[2] = {0x7F800001u, 0xFFC00000u};
  EXPECT_EQ(mx::quantize_per_tensor(Fmt::e4m3, {z, mx::InType::f32, 1, 1, 2}).amax_bits, 0x00000000u)
      << "C12 amax of an all-NaN tensor is +0";
}

TEST(C12PerTensor, BadInput) {
  const float x[4] = {1, 2, 3, 4};
  EXPECT_THROW(mx::quantize_per_tensor(Fmt::e2m1, {x, mx::InType::f32, 1, 2, 2}), mx::InvalidArgument);
  EXPECT_THROW(mx::quantize_per_tensor(Fmt::int8, {x, mx::InType::f32, 1, 2, 2}), mx::InvalidArgument);
  EXPECT_THROW(mx::quantize_per_tensor(Fmt::e4m3, {nullptr, mx::InType::f32, 1, 2, 2}), mx::InvalidArgument);
  EXPECT_THROW(mx::quantize_per_tensor(Fmt::e4m3, {x, mx::InType::f32, 0, 2, 2}), mx::ShapeError);
  EXPECT_THROW(mx::quantize_per_tensor(Fmt::e4m3, {x, mx::InType::f32, 1, -1, 2}), mx::ShapeError);
  EXPECT_THROW(mx::quantize_per_tensor(Fmt::e4m3, {x, mx::InType::f32, 1, std::int64_t{1} << 40, std::int64_t{1} << 40}),
               mx::ShapeError);
  mx::PerTensorQuantized q = mx::quantize_per_tensor(Fmt::e5m2, {x, mx::InType::f32, 1, 2, 2});
  EXPECT_THROW(mx::dequantize_per_tensor(q, Fmt::e4m3), mx::InvalidArgument);
  q.data.pop_back();
  EXPECT_THROW(mx::dequantize_per_tensor(q, Fmt::fp32), mx::ShapeError);
  try {
    mx::quantize_per_tensor(Fmt::e2m1, {x, mx::InType::f32, 1, 2, 2});
  } catch (const mx::Error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  // an empty tensor with a null pointer is fine (nothing is read)
  EXPECT_NO_THROW(mx::quantize_per_tensor(Fmt::e4m3, {nullptr, mx::InType::bf16, 1, 0, 5}));
}

}  // namespace
