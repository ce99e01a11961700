// c3_scale_test.cpp - SPEC C3: the four scale rules (hand rows including
// the worked e4m3 cases, every power-of-two boundary and its fp32
// neighbours, clamping, amax = 0, subnormal amax), non-finite blocks, and
// fast path vs oracle for every rule and element format.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "common.hpp"

using namespace cpu;
using mx::Fmt;
using mx::ScaleRule;

namespace {
const ScaleRule kRules[] = {ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil};
const char* rule_name(ScaleRule r) { return mx::scale_rule_name(r).data(); }

void expect_scale(Fmt f, std::uint32_t amax, ScaleRule r, std::uint32_t want, const std::string& why) {
  const std::uint32_t got = mx::scale_code_finite(amax, f, r);
  EXPECT_EQ(got, want) << why << "\n  scale " << mx::desc(f).name << " " << rule_name(r) << " amax " << in32(amax)
                       << " => observed " << hex(got) << ", expected " << hex(want);
  const std::uint32_t o = mxo::scale_code(amax, to_o(f), to_o(r));
  EXPECT_EQ(o, want) << why << " (ORACLE)\n  scale " << mx::desc(f).name << " " << rule_name(r) << " amax "
                     << in32(amax) << " => oracle " << hex(o) << ", expected " << hex(want);
}
}  // namespace

// The worked e4m3 cases of C3, by hand.
TEST(C3, WorkedE4m3Cases) {
  struct Row { double amax; std::uint32_t fl, ce, ev, rc; };
  const Row rows[] = {{255, 126, 127, 127, 127}, {448, 127, 128, 127, 127},
                      {449, 127, 128, 127, 128}, {500, 127, 128, 128, 128}};
  for (const auto& r : rows) {
    const std::uint32_t a = bits(static_cast<float>(r.amax));
    const std::string why = "C3 worked case e4m3 amax " + std::to_string(r.amax);
    expect_scale(Fmt::e4m3, a, ScaleRule::floor, r.fl, why);
    expect_scale(Fmt::e4m3, a, ScaleRule::ceil, r.ce, why);
    expect_scale(Fmt::e4m3, a, ScaleRule::even, r.ev, why);
    expect_scale(Fmt::e4m3, a, ScaleRule::rceil, r.rc, why);
  }
}

TEST(C3, HandRows) {
  struct Row { Fmt f; std::uint32_t amax; ScaleRule r; std::uint32_t want; const char* why; };
  const Row rows[] = {
      {Fmt::e4m3, 0x00000000u, ScaleRule::floor, 0x00, "C3: amax 0 -> 0x00"},
      {Fmt::e4m3, 0x80000000u, ScaleRule::rceil, 0x00, "C3: amax -0 -> 0x00"},
      {Fmt::int8, 0x00000000u, ScaleRule::ceil, 0x00, "C3: amax 0 -> 0x00"},
      {Fmt::e4m3, 0x00000001u, ScaleRule::floor, 0x00, "C3: subnormal amax 2^-149: -157 clamps to -127"},
      {Fmt::e4m3, 0x00000001u, ScaleRule::rceil, 0x00, "C3: subnormal amax: fp32 product underflows, clamps"},
      {Fmt::int8, 0x00400000u, ScaleRule::ceil, 0x00, "C3: int8 ceil amax 2^-127 -> -127"},
      {Fmt::int8, 0x00400001u, ScaleRule::ceil, 0x01, "C3: int8 ceil amax just above 2^-127 -> -126"},
      {Fmt::int8, 0x007FFFFFu, ScaleRule::even, 0x01, "C3: int8 even: subnormal amax rounds up to 2^-126"},
      {Fmt::e4m3, bits(1.0f), ScaleRule::floor, 119, "C3: floor(log2 1) - 8 = -8"},
      {Fmt::e4m3, bits(1.0f), ScaleRule::ceil, 119, "C3: ceil(log2 1) - 8 = -8 (power of two)"},
      {Fmt::e4m3, 0x3F800001u, ScaleRule::ceil, 120, "C3: ceil just above a power of two"},
      {Fmt::e4m3, 0x3F7FFFFFu, ScaleRule::floor, 118, "C3: floor just below a power of two"},
      {Fmt::e4m3, bits(1.9375f), ScaleRule::even, 120, "C3: even e4m3 1.9375 rounds (ties away) to 2"},
      {Fmt::e4m3, 0x3FF7FFFFu, ScaleRule::even, 119, "C3: even e4m3 just below 1.9375 stays in [1,2)"},
      {Fmt::e2m1, bits(1.75f), ScaleRule::even, 0x7F - 2 + 1, "C3: even e2m1 1.75 rounds to 2: e = 1 - 2"},
      {Fmt::e2m1, 0x3FDFFFFFu, ScaleRule::even, 0x7F - 2, "C3: even e2m1 below 1.75: e = 0 - 2"},
      {Fmt::e4m3, 0x7F7FFFFFu, ScaleRule::floor, 127 + 127 - 8, "C3: FLT_MAX floor e4m3 -> 119 + 127"},
      {Fmt::int8, 0x7F7FFFFFu, ScaleRule::ceil, 0xFE, "C3: int8 ceil FLT_MAX: 128 clamps to 127 (0xFE)"},
      {Fmt::int8, 0x7F7FFFFFu, ScaleRule::floor, 0xFE, "C3: int8 floor FLT_MAX = 127 (0xFE)"},
      {Fmt::e5m2, bits(57344.0f), ScaleRule::rceil, 127, "C3: rceil e5m2 amax = max -> 1.0 -> 127"},
      {Fmt::e5m2, bits(57344.0f), ScaleRule::floor, 127, "C3: floor e5m2 57344: 15 - 15 = 0"},
      {Fmt::e2m1, bits(6.0f), ScaleRule::rceil, 127, "C3: rceil e2m1 amax 6 -> q = 1 -> 127"},
      {Fmt::e2m1, bits(6.0f), ScaleRule::floor, 127, "C3: floor e2m1 6: 2 - 2 = 0"},
      {Fmt::e2m1, bits(6.0f), ScaleRule::ceil, 128, "C3: ceil e2m1 6: 3 - 2 = 1"},
      {Fmt::e2m1, 0x40C00001u, ScaleRule::rceil, 128, "C3: rceil e2m1 just above 6 -> 128"},
      {Fmt::e4m3, bits(std::ldexp(1.0f, -140)), ScaleRule::floor, 0x00, "C3: clamp at -127"},
  };
  for (const auto& r : rows) expect_scale(r.f, r.amax, r.r, r.want, r.why);
}

// Every power of two 2^k (k = -149..127) and its fp32 neighbours, every rule
// and element format: the fast path equals the oracle, and floor/ceil equal
// the hand formula.
TEST(C3, EveryPowerOfTwoBoundary) {
  std::int64_t cases = 0;
  for (Fmt f : elem_formats()) {
    const int emax_elem = mx::emax_elem(mx::desc(f));
    for (int k = -149; k <= 127; ++k) {
      const float p2 = std::ldexp(1.0f, k);
      for (float a : {std::nextafter(p2, 0.0f), p2, std::nextafter(p2, INFINITY)}) {
        if (a == 0 || std::isinf(a)) continue;
        const std::uint32_t ab = bits(a);
        const int fl = a < p2 ? k - 1 : k;
        const int ce = a > p2 ? k + 1 : k;
        auto clampc = [](int e) { return static_cast<std::uint32_t>(std::min(127, std::max(-127, e)) + 127); };
        expect_scale(f, ab, ScaleRule::floor, clampc(fl - emax_elem), "C3: floor at a power-of-two boundary");
        expect_scale(f, ab, ScaleRule::ceil, clampc(ce - emax_elem), "C3: ceil at a power-of-two boundary");
        for (ScaleRule r : {ScaleRule::even, ScaleRule::rceil}) {
          const std::uint32_t got = mx::scale_code_finite(ab, f, r);
          const std::uint32_t o = mxo::scale_code(ab, to_o(f), to_o(r));
          ASSERT_EQ(got, o) << "C3: fast != oracle: scale " << mx::desc(f).name << " " << rule_name(r) << " amax "
                            << in32(ab) << " => observed " << hex(got) << ", expected " << hex(o);
        }
        cases += 4;
      }
    }
  }
  std::printf("[ cases    ] C3 boundary table compared %lld scale codes\n", static_cast<long long>(cases));
}

// The rceil boundary of every format: the smallest amax whose product with
// fp32(1/max) exceeds a power of two, found by the oracle, and its neighbours.
RC_GTEST_PROP(C3Props, ScaleFastEqualsOracle, ()) {
  const Fmt f = *rc::gen::elementOf(elem_formats());
  const ScaleRule r = *rc::gen::elementOf(std::vector<ScaleRule>(std::begin(kRules), std::end(kRules)));
  const mx::FormatDesc& d = mx::desc(f);
  const auto as = *rc::gen::container<std::vector<std::uint32_t>>(
      64, rc::gen::oneOf(rc::gen::map(rc::gen::arbitrary<std::uint32_t>(), [](std::uint32_t u) { return u & 0x7F7FFFFFu; }),
                         rc::gen::apply([](int e, std::uint32_t fr) { return make_f32(false, e, fr); },
                                        rc::gen::inRange(-150, 128), gen_frac(d.is_int ? 6 : d.mbits))));
  for (std::uint32_t a : as) {
    if (((a >> 23) & 0xFF) == 0xFF) continue;
    const std::uint32_t got = mx::scale_code_finite(a, f, r);
    const std::uint32_t want = mxo::scale_code(a, to_o(f), to_o(r));
    RC_ASSERT_MSG(got == want, ("C3: scale " + std::string(d.name) + " " + rule_name(r) + " amax " + in32(a) +
                                " => observed " + hex(got) + ", expected " + hex(want))
                                   .c_str());
  }
}

// Non-finite blocks: 0xFF, elements still defined from the finite amax;
// nonfinite_block_ignore writes the finite scale (C3).
TEST(C3, NonFiniteBlocks) {
  const std::uint32_t x[4] = {bits(1.0f), 0x7FC00000u, bits(2.0f), bits(-0.0f)};
  for (auto nfb : {mx::NonFiniteBlock::nonfinite_block_nan, mx::NonFiniteBlock::nonfinite_block_ignore}) {
    const mx::BlockScale bs = mx::block_scale(x, 4, 1, Fmt::e4m3, ScaleRule::floor, nfb);
    const std::uint32_t want = nfb == mx::NonFiniteBlock::nonfinite_block_nan ? 0xFF : 120;
    EXPECT_EQ(bs.code, want) << "C3: block {1, NaN, 2, -0} floor e4m3 => observed " << hex(bs.code) << ", expected "
                             << hex(want) << (want == 0xFF ? " (non-finite block)" : " (ignore: amax 2 -> 1 - 8)");
    EXPECT_EQ(bs.exp, -7) << "C3: elements of a non-finite block use e from the finite amax (2 -> -7)";
    const std::uint8_t codes_want[4] = {0x70, 0x7F, 0x78, 0x80};  // 128, NaN, 256, -0
    for (int i = 0; i < 4; ++i) {
      const std::uint32_t c = mx::encode_scaled(Fmt::e4m3, x[i], bs.exp, {});
      EXPECT_EQ(c, codes_want[i]) << "C3: element " << i << " input " << in32(x[i]) << " * 2^7 => observed "
                                  << hex(c) << ", expected " << hex(codes_want[i]);
    }
    const mxo::Block ob = mxo::quantize_block(x, 4, 1, mxo::Fmt::e4m3, mxo::ScaleRule::floor, {}, to_o(nfb));
    EXPECT_EQ(ob.scale, want) << "C3 (oracle) non-finite block scale";
  }
  // Inf elements too, and a block whose finite part is all zero.
  const std::uint32_t y[3] = {0xFF800000u, 0x00000000u, 0x80000000u};
  const mx::BlockScale bs = mx::block_scale(y, 3, 1, Fmt::e5m2, ScaleRule::rceil, mx::NonFiniteBlock::nonfinite_block_nan);
  EXPECT_EQ(bs.code, 0xFF) << "C3: block {-Inf, 0, -0} => 0xFF";
  EXPECT_EQ(bs.exp, -127) << "C3: finite amax 0 -> e = -127";
  const mx::BlockScale bi = mx::block_scale(y, 3, 1, Fmt::e5m2, ScaleRule::rceil, mx::NonFiniteBlock::nonfinite_block_ignore);
  EXPECT_EQ(bi.code, 0x00) << "C3: nonfinite_block_ignore {-Inf, 0, -0} => amax 0 -> 0x00";
}

// Block quantization (C3/C4): fast path vs oracle for every rule, element
// format and policy, with blocks drawn around one base exponent.
RC_GTEST_PROP(C3Props, BlockFastEqualsOracle, ()) {
  const Fmt f = *rc::gen::elementOf(elem_formats());
  const auto ps = policies(f, true);
  const mx::ConvPolicy p = *rc::gen::elementOf(ps);
  const ScaleRule r = *rc::gen::elementOf(std::vector<ScaleRule>(std::begin(kRules), std::end(kRules)));
  const auto nfb = *rc::gen::element(mx::NonFiniteBlock::nonfinite_block_nan, mx::NonFiniteBlock::nonfinite_block_ignore);
  const int base = *rc::gen::inRange(-150, 128);
  const int n = *rc::gen::inRange(1, 33);
  const mx::FormatDesc& d = mx::desc(f);
  const int span = d.is_int ? 12 : (mx::emax(d) - mx::emin(d) + d.mbits + 4);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(n)), rb(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    x[i] = *rc::gen::oneOf(
        rc::gen::apply([base](bool neg, int off, std::uint32_t fr) { return make_f32(neg, base - off, fr); },
                       rc::gen::arbitrary<bool>(), rc::gen::inRange(0, span), gen_frac(d.is_int ? 6 : d.mbits)),
        rc::gen::element<std::uint32_t>(0u, 0x80000000u, 0x7FC00000u, 0x7F800000u, 0xFF800000u),
        rc::gen::arbitrary<std::uint32_t>());
    rb[i] = *rc::gen::arbitrary<std::uint32_t>();
  }
  const mx::BlockScale bs = mx::block_scale(x.data(), n, 1, f, r, nfb);
  const mxo::Block ob = mxo::quantize_block(x.data(), n, 1, to_o(f), to_o(r), to_o(p), to_o(nfb), rb.data());
  RC_ASSERT_MSG(bs.code == ob.scale, ("C3: block scale " + std::string(d.name) + " " + rule_name(r) + " amax " +
                                      in32(bs.amax_bits) + " => observed " + hex(bs.code) + ", expected " + hex(ob.scale))
                                         .c_str());
  for (int i = 0; i < n; ++i) {
    const std::uint32_t c = mx::encode_scaled(f, x[i], bs.exp, p, rb[i]);
    RC_ASSERT_MSG(c == ob.codes[i], ("C3: block element " + std::to_string(i) + " " + pname(f, p) + " input " +
                                     in32(x[i]) + " scale " + hex(bs.code) + " => observed " + hex(c) +
                                     ", expected " + hex(ob.codes[i]))
                                        .c_str());
  }
}

// Scaling a block by 2^j shifts the scale code by j and leaves the element
// codes unchanged, while everything stays in range (C3).
RC_GTEST_PROP(C3Props, ScalingByPowerOfTwoShiftsScale, ()) {
  const Fmt f = *rc::gen::elementOf(elem_formats());
  const ScaleRule r = *rc::gen::elementOf(std::vector<ScaleRule>(std::begin(kRules), std::end(kRules)));
  const int j = *rc::gen::inRange(-20, 21);
  const int n = *rc::gen::inRange(1, 33);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    // normal values with exponents in [-40, 40] so x * 2^j stays normal
    x[i] = make_f32(*rc::gen::arbitrary<bool>(), *rc::gen::inRange(-40, 41), *gen_frac(mx::desc(f).mbits));
    y[i] = x[i] + (static_cast<std::uint32_t>(j) << 23);  // exact multiply by 2^j
  }
  const mx::BlockScale a = mx::block_scale(x.data(), n, 1, f, r, mx::NonFiniteBlock::nonfinite_block_nan);
  const mx::BlockScale b = mx::block_scale(y.data(), n, 1, f, r, mx::NonFiniteBlock::nonfinite_block_nan);
  RC_ASSERT_MSG(static_cast<int>(b.code) == static_cast<int>(a.code) + j,
                ("C3: scaling by 2^" + std::to_string(j) + " " + rule_name(r) + " " + std::string(mx::desc(f).name) + " amax " +
                 in32(a.amax_bits) + ": code " + hex(a.code) + " => observed " + hex(b.code) + ", expected code + j")
                    .c_str());
  for (int i = 0; i < n; ++i) {
    const std::uint32_t ca = mx::encode_scaled(f, x[i], a.exp, {});
    const std::uint32_t cb = mx::encode_scaled(f, y[i], b.exp, {});
    RC_ASSERT_MSG(ca == cb, ("C3: element codes must not change under scaling by 2^j: input " + in32(x[i]) +
                             " => " + hex(ca) + ", scaled input " + in32(y[i]) + " => observed " + hex(cb))
                                .c_str());
  }
}

// The `even` rule's boundaries: amax >= 2^k * (2 - 2^-(mb+1)) rounds up to
// 2^(k+1) (ties away), for every binade k of normal fp32 and every element
// format; the boundary and its fp32 neighbours, expected codes by hand.
TEST(C3, EvenRuleThresholds) {
  std::int64_t cases = 0;
  for (Fmt f : elem_formats()) {
    const mx::FormatDesc& d = mx::desc(f);
    const int mb = d.is_int ? 6 : d.mbits;
    const int emax_elem = mx::emax_elem(d);
    for (int k = -126; k <= 126; ++k) {
      const float t = std::ldexp(2.0f - std::ldexp(1.0f, -(mb + 1)), k);  // exact in fp32
      for (float a : {std::nextafter(t, 0.0f), t, std::nextafter(t, INFINITY)}) {
        const int e = (a >= t ? k + 1 : k) - emax_elem;
        const auto want = static_cast<std::uint32_t>(std::min(127, std::max(-127, e)) + 127);
        expect_scale(f, bits(a), ScaleRule::even,  want,
                     "C3: even rounds amax to mbits+1 significant bits, ties away (threshold 2^k(2-2^-(mb+1)))");
        ++cases;
      }
    }
  }
  std::printf("[ cases    ] C3 even thresholds compared %lld scale codes\n", static_cast<long long>(cases));
}

// The `rceil` boundaries: for every format and every scale exponent j, the
// smallest fp32 amax whose code exceeds j + 127 (found by bisection over fp32
// bit patterns with the oracle), and its two neighbours, through the fast path.
TEST(C3, RceilBoundaries) {
  std::int64_t cases = 0;
  for (Fmt f : elem_formats()) {
    for (int j = -125; j <= 126; ++j) {
      const std::uint32_t target = static_cast<std::uint32_t>(j + 127);
      // invariant: code(lo) <= target < code(hi)
      std::uint32_t lo = 1, hi = 0x7F7FFFFFu;
      if (mxo::scale_code(lo, to_o(f), mxo::ScaleRule::rceil) > target) continue;
      if (mxo::scale_code(hi, to_o(f), mxo::ScaleRule::rceil) <= target) continue;
      while (hi - lo > 1) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (mxo::scale_code(mid, to_o(f), mxo::ScaleRule::rceil) <= target) lo = mid;
        else hi = mid;
      }
      for (std::uint32_t a : {lo, hi, hi + 1}) {
        const std::uint32_t got = mx::scale_code_finite(a, f, ScaleRule::rceil);
        const std::uint32_t want = mxo::scale_code(a, to_o(f), mxo::ScaleRule::rceil);
        ASSERT_EQ(got, want) << "C3: rceil boundary " << mx::desc(f).name << " j=" << j << " amax " << in32(a)
                             << " => observed " << hex(got) << ", expected " << hex(want);
        ++cases;
      }
      // q = amax * fp32(1/max) <= 2^j at lo, > 2^j at hi (SPEC C3 rceil).
      EXPECT_EQ(mxo::scale_code(lo, to_o(f), mxo::ScaleRule::rceil), target);
    }
  }
  // By hand: e4m3 448 -> 127 and 449 -> 128 (worked case), so the e4m3
  // boundary for j = 0 lies in (448, 449].
  EXPECT_EQ(mx::scale_code_finite(bits(448.0f), Fmt::e4m3, ScaleRule::rceil), 127u) << "C3 worked: 448 rceil 127";
  EXPECT_EQ(mx::scale_code_finite(bits(449.0f), Fmt::e4m3, ScaleRule::rceil), 128u) << "C3 worked: 449 rceil 128";
  std::printf("[ cases    ] C3 rceil boundaries compared %lld scale codes\n", static_cast<long long>(cases));
}
