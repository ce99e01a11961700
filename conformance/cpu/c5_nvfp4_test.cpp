// c5_nvfp4_test.cpp - SPEC C5: NVFP4 in both operation orders. Small
// hand-computed cases, and the fast path vs the oracle, whose every fp32
// operation is an exact product/quotient rounded once (RNE).
//
// Operation orders modelled by the oracle:
//  - TransformerEngine: as written in SPEC C5.
//  - torchao: torchao/prototype/mx_formats/nvfp4_tensor.py, nvfp4_quantize:
//    block_scale = max_abs / 6; s = e4m3(clamp(block_scale / pts, E4M3_EPS,
//    448)); total_scale = pts * s; data = clamp(x / total_scale, -6, 6).
//    (The contract's "multiplier = (1 / pts) / s" is not what that file
//    computes; the contract says to reproduce the library's own order.)
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "common.hpp"
#include "mx/quantize.hpp"

using namespace cpu;

TEST(C5, HandComputedBlocks) {
  // One block of 16: {6, 3, -1.5, 0, 0.5, -6, 2, 1, ...}; global amax 6.
  // TE: S_enc = 2688 / 6 = 448, s = ue4m3(6 * (448 * fp32(1/6))) = 448
  // (0x7E: 448.00003 rounds to 448); the multiplier is 1/(448 * fp32(1/448))
  // = 1 within an ulp, so the elements are their own e2m1 codes.
  // torchao: pts = 6 / 2688, s = ue4m3(1 / pts) = 448 (0x7E), same elements.
  const float xs[16] = {6, 3, -1.5f, 0, 0.5f, -6, 2, 1, -0.0f, 4, -4, 1.5f, -0.5f, -3, -2, -1};
  const std::uint8_t want[16] = {0x7, 0x5, 0xB, 0x0, 0x1, 0xF, 0x4, 0x2, 0x8, 0x6, 0xE, 0x3, 0x9, 0xD, 0xC, 0xA};
  std::uint32_t xb[16];
  for (int i = 0; i < 16; ++i) xb[i] = bits(xs[i]);
  for (auto order : {mx::Nvfp4Order::transformer_engine, mx::Nvfp4Order::torchao}) {
    const char* on = order == mx::Nvfp4Order::torchao ? "nvfp4:torchao" : "nvfp4";
    const mx::Nvfp4Factors f = mx::nvfp4_factors(order, bits(6.0f));
    std::uint8_t codes[16];
    const std::uint8_t s = mx::nvfp4_block(order, f, xb, 16, 1, codes);
    EXPECT_EQ(s, 0x7E) << "C5: " << on << " block amax 6, global amax 6 => scale observed " << hex(s)
                       << ", expected 0x7e (448)";
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(codes[i], want[i]) << "C5: " << on << " element " << i << " input " << in32(xb[i])
                                   << " => observed " << hex(codes[i]) << ", expected " << hex(want[i]);
  }
  // TE: a block of small values {0.75, 0.25} with global amax 6:
  // s = ue4m3(0.75 * 74.666..) = ue4m3(56.0000..) = 56 = 1.75 * 2^5 (0x66), multiplier =
  // 1 / (56 / 448) = 8 (within an ulp): 0.75 * 8 = 6 -> 0x7, 0.25 * 8 = 2 -> 0x4.
  const std::uint32_t y[3] = {bits(0.75f), bits(0.25f), bits(-0.375f)};
  const mx::Nvfp4Factors f = mx::nvfp4_factors(mx::Nvfp4Order::transformer_engine, bits(6.0f));
  std::uint8_t c[3];
  const std::uint8_t s = mx::nvfp4_block(mx::Nvfp4Order::transformer_engine, f, y, 3, 1, c);
  EXPECT_EQ(s, 0x66) << "C5: TE block amax 0.75, global 6 => scale observed " << hex(s) << ", expected 0x66 (56)";
  EXPECT_EQ(c[0], 0x7) << "C5: TE 0.75 * 8 = 6 -> 0x7, observed " << hex(c[0]);
  EXPECT_EQ(c[1], 0x4) << "C5: TE 0.25 * 8 = 2 -> 0x4, observed " << hex(c[1]);
  EXPECT_EQ(c[2], 0xD) << "C5: TE -0.375 * 8 = -3 -> 0xd, observed " << hex(c[2]);
  // Global amax 0: S_enc = 1, S_dec = 1 (TE).
  const mx::Nvfp4Factors z = mx::nvfp4_factors(mx::Nvfp4Order::transformer_engine, 0);
  EXPECT_EQ(bits(z.s_enc), 0x3F800000u) << "C5: global amax 0 -> S_enc = 1";
  EXPECT_EQ(bits(z.s_dec), 0x3F800000u) << "C5: global amax 0 -> S_dec = 1";
  const mx::Nvfp4Factors in = mx::nvfp4_factors(mx::Nvfp4Order::transformer_engine, 0x7F800000u);
  EXPECT_EQ(bits(in.s_enc), 0x3F800000u) << "C5: global amax Inf -> S_enc = 1";
}

// Tensor factors, blocks and dequantization: fast path vs oracle.
RC_GTEST_PROP(C5Props, Nvfp4FastEqualsOracle, ()) {
  const bool te = *rc::gen::arbitrary<bool>();
  const auto order = te ? mx::Nvfp4Order::transformer_engine : mx::Nvfp4Order::torchao;
  const int gexp = *rc::gen::inRange(-100, 100);
  const int n = *rc::gen::inRange(1, 17);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
  for (auto& v : x) {
    v = *rc::gen::weightedOneOf<std::uint32_t>(
        {{6, rc::gen::apply([gexp](bool neg, int off, std::uint32_t fr) { return make_f32(neg, gexp - off, fr); },
                            rc::gen::arbitrary<bool>(), rc::gen::inRange(0, 24), gen_frac(1))},
         {1, rc::gen::element<std::uint32_t>(0u, 0x80000000u)},
         {*rc::gen::inRange(0, 2), rc::gen::element<std::uint32_t>(0x7FC00000u, 0x7F800000u, 0xFF800000u, 0x7F7FFFFFu)}});
  }
  // the global amax is at least the block amax (it spans the whole tensor)
  std::uint32_t gamax = make_f32(false, gexp + *rc::gen::inRange(0, 20), *gen_frac(1));
  for (auto v : x)
    if ((v & 0x7FFFFFFFu) > gamax && (v & 0x7FFFFFFFu) <= 0x7F800000u) gamax = v & 0x7FFFFFFFu;  // NaN dropped
  gamax = *rc::gen::weightedOneOf<std::uint32_t>({{20, rc::gen::just(gamax)},
                                                  {1, rc::gen::element<std::uint32_t>(0u, 0x7F800000u, 0x00000001u)}});
  const mx::Nvfp4Factors f = mx::nvfp4_factors(order, gamax);
  const mxo::Nvfp4Tensor ot = mxo::nvfp4_tensor(te, gamax);
  const std::string ctx = std::string("C5: ") + (te ? "nvfp4 (TE)" : "nvfp4:torchao") + " global amax " + in32(gamax);
  if (te) {
    RC_ASSERT_MSG(bits(f.s_enc) == ot.s_enc && bits(f.s_dec) == ot.s_dec,
                  (ctx + ": S_enc/S_dec observed " + hex(bits(f.s_enc), 8) + "/" + hex(bits(f.s_dec), 8) +
                   ", expected " + hex(ot.s_enc, 8) + "/" + hex(ot.s_dec, 8))
                      .c_str());
  } else {
    RC_ASSERT_MSG(bits(f.per_tensor_scale) == ot.per_tensor_scale,
                  (ctx + ": per_tensor_scale observed " + hex(bits(f.per_tensor_scale), 8) + ", expected " +
                   hex(ot.per_tensor_scale, 8))
                      .c_str());
  }
  std::vector<std::uint8_t> c(static_cast<std::size_t>(n)), oc(static_cast<std::size_t>(n));
  const std::uint8_t s = mx::nvfp4_block(order, f, x.data(), n, 1, c.data());
  const std::uint8_t os = mxo::nvfp4_block(te, ot, x.data(), n, 1, oc.data());
  RC_ASSERT_MSG(s == os, (ctx + ": block scale observed " + hex(s) + ", expected " + hex(os)).c_str());
  for (int i = 0; i < n; ++i) {
    RC_ASSERT_MSG(c[i] == oc[i], (ctx + ": element " + std::to_string(i) + " input " + in32(x[i]) + " scale " +
                                  hex(s) + " => observed " + hex(c[i]) + ", expected " + hex(oc[i]))
                                     .c_str());
    const std::uint32_t dq = bits(mx::nvfp4_dequant(order, f, c[i], s));
    const std::uint32_t odq = mxo::nvfp4_dequant(te, ot, c[i], s);
    RC_ASSERT_MSG(dq == odq || (std::isnan(f32(dq)) && std::isnan(f32(odq))),
                  (ctx + ": dequant element " + hex(c[i]) + " scale " + hex(s) + " => observed " + in32(dq) +
                   ", expected " + in32(odq))
                      .c_str());
  }
}
