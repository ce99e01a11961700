// c9_dot_test.cpp - SPEC C9: the exact block-scaled dot product. Small
// hand-computed cases (cancellation, a sum needing more than fp32
// precision, a tie decided by a tiny term, NaN/Inf propagation) and the fast
// path vs the oracle's 2048-bit fixed-point sum for random operands.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "common.hpp"
#include "mx/gemm.hpp"

using namespace cpu;
using mx::Fmt;

namespace {
struct Dot {
  Fmt elem = Fmt::e4m3;
  std::vector<std::uint8_t> a, b, sa, sb;
  int block = 32;
  float c = 0.0f;
};
std::uint32_t fast_dot(const Dot& d) {
  const auto k = static_cast<std::int64_t>(d.a.size());
  const mx::ScaledOperand A{d.elem, Fmt::ue8m0, d.block, 1, k, d.a.data(), d.sa.data(), 1.0f};
  const mx::ScaledOperand B{d.elem, Fmt::ue8m0, d.block, 1, k, d.b.data(), d.sb.data(), 1.0f};
  return bits(mx::exact_dot(A, 0, B, 0, d.c));
}
std::uint32_t oracle_dot(const Dot& d) {
  const mxo::Row A{to_o(d.elem), mxo::Fmt::ue8m0, d.a.data(), d.sa.data(), 0x3F800000u};
  const mxo::Row B{to_o(d.elem), mxo::Fmt::ue8m0, d.b.data(), d.sb.data(), 0x3F800000u};
  return mxo::exact_dot(A, B, static_cast<std::int64_t>(d.a.size()), d.block, bits(d.c));
}
std::string codes_hex(const std::vector<std::uint8_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + hex(v[i]);
  return s;
}
bool same_result(std::uint32_t x, std::uint32_t y) {
  if (std::isnan(f32(x)) && std::isnan(f32(y))) return true;
  return x == y;
}
}  // namespace

TEST(C9, HandComputed) {
  // e4m3 codes: 1 = 0x38, 2 = 0x40, 3 = 0x44, 4 = 0x48, 448 = 0x7E, 2^-9 = 0x01, NaN 0x7F.
  struct Row { Dot d; std::uint32_t want; const char* why; };
  const Row rows[] = {
      {{Fmt::e4m3, {0x38, 0x40}, {0x44, 0x48}, {127}, {127}, 32, 0.0f}, bits(11.0f), "C9: 1*3 + 2*4 = 11"},
      {{Fmt::e4m3, {0x38, 0x40}, {0x44, 0x48}, {128}, {126}, 32, 1.0f}, bits(12.0f), "C9: scales 2 * 2^-1, plus C = 1"},
      {{Fmt::e4m3, {0x7E, 0xFE, 0x38}, {0x7E, 0x7E, 0x01}, {127}, {127}, 32, 0.0f}, 0x3B000000u,
       "C9: 448*448 - 448*448 + 1*2^-9 cancels exactly to 2^-9"},
      {{Fmt::e4m3, {0x38, 0x38}, {0x38, 0x38}, {127}, {127}, 32, 16777216.0f}, 0x4B800001u,
       "C9: 2^24 + 1 + 1 = 2^24 + 2 exactly (sequential fp32 would give 2^24)"},
      {{Fmt::e4m3, {0x38}, {0x38}, {127}, {127}, 32, 16777216.0f}, 0x4B800000u,
       "C9: 2^24 + 1 is a tie, RNE to even 2^24"},
      {{Fmt::e4m3, {0x38, 0x38}, {0x38, 0x01}, {127}, {127}, 32, 16777216.0f}, 0x4B800001u,
       "C9: 2^24 + 1 + 2^-9: the tiny term breaks the tie upwards"},
      {{Fmt::e4m3, {0x38, 0x38}, {0x38, 0x38}, {127, 0xFF}, {127, 127}, 1, 0.0f}, 0x7FC00000u,
       "C9: a NaN scale (0xFF) makes the result NaN"},
      {{Fmt::e4m3, {0x00, 0x00}, {0x00, 0x00}, {127, 0xFF}, {127, 127}, 1, 0.0f}, 0x7FC00000u,
       "C9: a NaN scale poisons even a zero block"},
      {{Fmt::e4m3, {0x7F, 0x38}, {0x38, 0x38}, {127}, {127}, 32, 0.0f}, 0x7FC00000u, "C9: NaN element -> NaN"},
      {{Fmt::e5m2, {0x7C, 0x3C}, {0x3C, 0x3C}, {127}, {127}, 32, 0.0f}, 0x7F800000u, "C9: e5m2 Inf * 1 -> +Inf"},
      {{Fmt::e5m2, {0x7C, 0x3C}, {0x00, 0x3C}, {127}, {127}, 32, 0.0f}, 0x7FC00000u, "C9: Inf * 0 -> NaN"},
      {{Fmt::e5m2, {0x7C, 0xFC}, {0x3C, 0x3C}, {127}, {127}, 32, 0.0f}, 0x7FC00000u, "C9: +Inf + -Inf -> NaN"},
      {{Fmt::e5m2, {0x7C}, {0xBC}, {127}, {127}, 32, 0.0f}, 0xFF800000u, "C9: Inf * -1 -> -Inf"},
      {{Fmt::e4m3, {0x38}, {0x38}, {127}, {127}, 32, -INFINITY}, 0xFF800000u, "C9: C = -Inf -> -Inf"},
      {{Fmt::e4m3, {0x38}, {0x38}, {127}, {127}, 32, NAN}, 0x7FC00000u, "C9: C = NaN -> NaN"},
      {{Fmt::e4m3, {0x7E}, {0x7E}, {0xFE}, {0xFE}, 32, 0.0f}, 0x7F800000u,
       "C9: 448^2 * 2^254 overflows fp32 once rounded -> +Inf"},
      {{Fmt::e4m3, {0x01}, {0x01}, {0x00}, {0x7F}, 32, 0.0f}, 0x00000010u,
       "C9: 2^-9 * 2^-9 * 2^-127 * 2^0 = 2^-145, an exact fp32 subnormal"},
      {{Fmt::e4m3, {0x01}, {0x01}, {0x00}, {0x00}, 32, 0.0f}, 0x00000000u,
       "C9: 2^-272 rounds to +0"},
      {{Fmt::e4m3, {0x01}, {0x81}, {0x00}, {0x00}, 32, -0.0f}, 0x80000000u,
       "C9: -2^-272 - 0 rounds to -0"},
      {{Fmt::e4m3, {0x38, 0x38}, {0x38, 0xB8}, {127}, {127}, 32, -0.0f}, 0x00000000u,
       "C9: -0 + 1 - 1: an exact zero sum of nonzero terms is +0 under RNE (IEEE 754 6.3)"},
      {{Fmt::e4m3, {0x00}, {0x38}, {127}, {127}, 32, -0.0f}, 0x00000000u,
       "C9: -0 + (+0 * 1) = +0 (IEEE 754 6.3)"},
      {{Fmt::e4m3, {0x80}, {0x38}, {127}, {127}, 32, -0.0f}, 0x80000000u,
       "C9: -0 + (-0 * 1) = -0: every term is -0"},
  };
  for (const auto& r : rows) {
    const std::uint32_t got = fast_dot(r.d);
    EXPECT_TRUE(same_result(got, r.want) && (std::isnan(f32(r.want)) || got == r.want))
        << r.why << "\n  dot A {" << codes_hex(r.d.a) << "} scales {" << codes_hex(r.d.sa) << "} . B {"
        << codes_hex(r.d.b) << "} scales {" << codes_hex(r.d.sb) << "} + C " << in32(bits(r.d.c)) << " => observed "
        << in32(got) << ", expected " << in32(r.want);
    const std::uint32_t o = oracle_dot(r.d);
    EXPECT_TRUE(same_result(o, r.want) && (std::isnan(f32(r.want)) || o == r.want))
        << r.why << " (ORACLE) => " << in32(o) << ", expected " << in32(r.want);
  }
}

RC_GTEST_PROP(C9Props, ExactDotFastEqualsOracle, ()) {
  Dot d;
  d.elem = *rc::gen::elementOf(elem_formats());
  d.block = *rc::gen::element(1, 2, 4, 16, 32);
  const int k = *rc::gen::inRange(1, 100);
  const int bitsz = mx::desc(d.elem).bits;
  const auto code = rc::gen::map(rc::gen::arbitrary<std::uint8_t>(), [bitsz](std::uint8_t c) {
    return static_cast<std::uint8_t>(bitsz == 8 ? c : c & ((1u << bitsz) - 1u));
  });
  d.a = *rc::gen::container<std::vector<std::uint8_t>>(static_cast<std::size_t>(k), code);
  d.b = *rc::gen::container<std::vector<std::uint8_t>>(static_cast<std::size_t>(k), code);
  const std::size_t nb = static_cast<std::size_t>((k + d.block - 1) / d.block);
  const int base = *rc::gen::inRange(1, 254);
  const auto scale = rc::gen::weightedOneOf<std::uint8_t>(
      {{20, rc::gen::map(rc::gen::inRange(-3, 4), [base](int o) { return static_cast<std::uint8_t>(std::clamp(base + o, 0, 254)); })},
       {2, rc::gen::arbitrary<std::uint8_t>()}});
  d.sa = *rc::gen::container<std::vector<std::uint8_t>>(nb, scale);
  d.sb = *rc::gen::container<std::vector<std::uint8_t>>(nb, scale);
  d.c = f32(*rc::gen::oneOf(rc::gen::element<std::uint32_t>(0u, 0x80000000u, 0x3F800000u),
                            rc::gen::arbitrary<std::uint32_t>()));
  // Keep specials rare: drop NaN/Inf codes most of the time.
  const bool allow_special = *rc::gen::inRange(0, 10) == 0;
  if (!allow_special) {
    for (auto* v : {&d.a, &d.b})
      for (auto& c : *v)
        if (!std::isfinite(mx::decode(d.elem, c))) c = 0;
    for (auto* v : {&d.sa, &d.sb})
      for (auto& s : *v)
        if (s == 0xFF) s = 0xFE;
    if (!std::isfinite(d.c)) d.c = 0.0f;
  }
  const std::uint32_t got = fast_dot(d), want = oracle_dot(d);
  RC_ASSERT_MSG(same_result(got, want),
                ("C9: exact dot " + std::string(mx::desc(d.elem).name) + " V=" + std::to_string(d.block) + " A {" +
                 codes_hex(d.a) + "} sA {" + codes_hex(d.sa) + "} B {" + codes_hex(d.b) + "} sB {" + codes_hex(d.sb) +
                 "} C " + in32(bits(d.c)) + " => observed " + in32(got) + ", expected " + in32(want))
                    .c_str());
}

// NVFP4 operands: ue4m3 scales and fp32 global scales (C5/C9).
// The block form D = C + sum_b (XA XB gA gB) * (sum_i PA PB) with IEEE
// specials (C9): a zero block times an Inf global scale is NaN, a nonzero
// block times Inf is Inf; a zero ue4m3 scale gives a zero block.
TEST(C9, BlockFormSpecials) {
  struct Row { std::vector<std::uint8_t> a, b, sa, sb; float ga, gb; std::uint32_t want; const char* why; };
  const float inf = INFINITY;
  // e2m1: 1.0 = 0x2, 0 = 0x0; ue4m3 1.0 = 0x38
  const Row rows[] = {
      {{0x2, 0x0}, {0x2, 0x2}, {0x38}, {0x38}, inf, 1.0f, 0x7F800000u, "C9: (1*1 + 0*1) * Inf = +Inf (block form)"},
      {{0x0, 0x0}, {0x2, 0x2}, {0x38}, {0x38}, inf, 1.0f, 0x7FC00000u, "C9: a zero block times Inf is NaN"},
      {{0x2, 0xA}, {0x2, 0x2}, {0x38}, {0x38}, inf, 1.0f, 0x7FC00000u, "C9: (1 - 1) * Inf = 0 * Inf = NaN"},
      {{0x2, 0x2}, {0x2, 0x2}, {0x38}, {0x38}, -inf, 1.0f, 0xFF800000u, "C9: 2 * -Inf = -Inf"},
      {{0x2, 0x2}, {0x2, 0x2}, {0x00}, {0x38}, 1.0f, 1.0f, 0x00000000u, "C9: ue4m3 scale 0 gives +0"},
      {{0xA, 0x2}, {0x2, 0x2}, {0x00}, {0x38}, -1.0f, 1.0f, 0x00000000u, "C9: (-1 + 1) * 0 * -1: +0 * -0 ... sum +0"},
      {{0x2}, {0x2}, {0x38}, {0x38}, NAN, 1.0f, 0x7FC00000u, "C9: NaN global scale -> NaN"},
      {{0x2}, {0x2}, {0x7F}, {0x38}, 1.0f, 1.0f, 0x7FC00000u, "C9: ue4m3 NaN scale 0x7F -> NaN"},
  };
  for (const auto& r : rows) {
    const auto k = static_cast<std::int64_t>(r.a.size());
    const mx::ScaledOperand A{Fmt::e2m1, Fmt::ue4m3, 16, 1, k, r.a.data(), r.sa.data(), r.ga};
    const mx::ScaledOperand B{Fmt::e2m1, Fmt::ue4m3, 16, 1, k, r.b.data(), r.sb.data(), r.gb};
    const std::uint32_t got = bits(mx::exact_dot(A, 0, B, 0, 0.0f));
    EXPECT_TRUE(same_result(got, r.want)) << r.why << "\n  A {" << codes_hex(r.a) << "} sA {" << codes_hex(r.sa) << "} gA "
                                          << in32(bits(r.ga)) << " . B {" << codes_hex(r.b) << "} gB " << in32(bits(r.gb))
                                          << " => observed " << in32(got) << ", expected " << in32(r.want);
    const std::uint32_t o = mxo::exact_dot({mxo::Fmt::e2m1, mxo::Fmt::ue4m3, r.a.data(), r.sa.data(), bits(r.ga)},
                                           {mxo::Fmt::e2m1, mxo::Fmt::ue4m3, r.b.data(), r.sb.data(), bits(r.gb)}, k, 16, 0u);
    EXPECT_TRUE(same_result(o, r.want)) << r.why << " (ORACLE) => " << in32(o);
  }
}

RC_GTEST_PROP(C9Props, Nvfp4DotFastEqualsOracle, ()) {
  const int k = *rc::gen::inRange(1, 80);
  const auto code = rc::gen::map(rc::gen::arbitrary<std::uint8_t>(), [](std::uint8_t c) { return static_cast<std::uint8_t>(c & 0xF); });
  const auto a = *rc::gen::container<std::vector<std::uint8_t>>(static_cast<std::size_t>(k), code);
  const auto b = *rc::gen::container<std::vector<std::uint8_t>>(static_cast<std::size_t>(k), code);
  const std::size_t nb = static_cast<std::size_t>((k + 15) / 16);
  const auto sc = rc::gen::map(rc::gen::inRange(0, 0x80), [](int s) { return static_cast<std::uint8_t>(s); });  // 0x7F is NaN
  const auto sa = *rc::gen::container<std::vector<std::uint8_t>>(nb, sc);
  const auto sb = *rc::gen::container<std::vector<std::uint8_t>>(nb, sc);
  // global scales: mostly positive normal, sometimes 0, negative, Inf or NaN
  const auto gsc = rc::gen::weightedOneOf<std::uint32_t>(
      {{12, rc::gen::apply([](int e, std::uint32_t fr) { return make_f32(false, e, fr); }, rc::gen::inRange(-60, 60),
                           rc::gen::arbitrary<std::uint32_t>())},
       {1, rc::gen::element<std::uint32_t>(0u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xBF800000u)}});
  const std::uint32_t ga = *gsc, gb = *gsc;
  const mx::ScaledOperand A{Fmt::e2m1, Fmt::ue4m3, 16, 1, k, a.data(), sa.data(), f32(ga)};
  const mx::ScaledOperand B{Fmt::e2m1, Fmt::ue4m3, 16, 1, k, b.data(), sb.data(), f32(gb)};
  const std::uint32_t got = bits(mx::exact_dot(A, 0, B, 0, 0.0f));
  const std::uint32_t want = mxo::exact_dot({mxo::Fmt::e2m1, mxo::Fmt::ue4m3, a.data(), sa.data(), ga},
                                            {mxo::Fmt::e2m1, mxo::Fmt::ue4m3, b.data(), sb.data(), gb}, k, 16, 0u);
  RC_ASSERT_MSG(same_result(got, want), ("C9: NVFP4 exact dot A {" + codes_hex(a) + "} sA {" + codes_hex(sa) + "} gA " +
                                         in32(ga) + " B {" + codes_hex(b) + "} sB {" + codes_hex(sb) + "} gB " + in32(gb) +
                                         " => observed " + in32(got) + ", expected " + in32(want))
                                            .c_str());
}

// exact_gemm: every output is the oracle's exact dot plus C (C9).
RC_GTEST_PROP(C9Props, ExactGemmEqualsOracle, ()) {
  const Fmt f = *rc::gen::elementOf(elem_formats());
  const int M = *rc::gen::inRange(1, 6), N = *rc::gen::inRange(1, 6), K = *rc::gen::inRange(1, 70);
  const int V = 32;
  const int nkb = (K + V - 1) / V;
  const int bitsz = mx::desc(f).bits;
  auto codes = [&](int rows) {
    std::vector<std::uint8_t> v(static_cast<std::size_t>(rows * K));
    for (auto& c : v) {
      c = *rc::gen::arbitrary<std::uint8_t>();
      if (bitsz < 8) c = static_cast<std::uint8_t>(c & ((1u << bitsz) - 1u));
      if (!std::isfinite(mx::decode(f, c))) c = 0;
    }
    return v;
  };
  const auto a = codes(M), b = codes(N);
  std::vector<std::uint8_t> sa(static_cast<std::size_t>(M * nkb)), sb(static_cast<std::size_t>(N * nkb));
  for (auto& s : sa) s = static_cast<std::uint8_t>(*rc::gen::inRange(100, 150));
  for (auto& s : sb) s = static_cast<std::uint8_t>(*rc::gen::inRange(100, 150));
  std::vector<float> c(static_cast<std::size_t>(M * N));
  for (auto& v : c) v = static_cast<float>(*rc::gen::inRange(-1000, 1000)) / 8.0f;
  const mx::ScaledOperand A{f, Fmt::ue8m0, V, M, K, a.data(), sa.data(), 1.0f};
  const mx::ScaledOperand B{f, Fmt::ue8m0, V, N, K, b.data(), sb.data(), 1.0f};
  const auto d = mx::exact_gemm(A, B, c.data());
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const std::uint32_t want =
          mxo::exact_dot({to_o(f), mxo::Fmt::ue8m0, a.data() + m * K, sa.data() + m * nkb, 0x3F800000u},
                         {to_o(f), mxo::Fmt::ue8m0, b.data() + n * K, sb.data() + n * nkb, 0x3F800000u}, K, V,
                         bits(c[static_cast<std::size_t>(m * N + n)]));
      const std::uint32_t got = bits(d[static_cast<std::size_t>(m * N + n)]);
      RC_ASSERT_MSG(same_result(got, want), ("C9: exact_gemm " + std::string(mx::desc(f).name) + " D[" + std::to_string(m) +
                                             "][" + std::to_string(n) + "] => observed " + in32(got) + ", expected " +
                                             in32(want))
                                                .c_str());
    }
}
