// c2_encode_props_test.cpp - SPEC C2 properties (RapidCheck): the fast
// encoder equals the oracle for every format, rounding, overflow and NaN
// policy and fp32/bf16/fp16 inputs; decode(encode(x)) is the nearest value
// (brute force over all codes); encode is monotone; sign symmetry.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "common.hpp"

using namespace cpu;
using mx::Fmt;

namespace {
// Draw a format, one of its valid policies (sr included) and an input.
struct Case {
  Fmt f;
  mx::ConvPolicy p;
};
rc::Gen<Case> gen_case() {
  return rc::gen::mapcat(rc::gen::elementOf(elem_formats()), [](Fmt f) {
    return rc::gen::map(rc::gen::elementOf(policies(f, true)), [f](mx::ConvPolicy p) {
      return Case{f, p};
    });
  });
}
void check_same(Fmt f, const mx::ConvPolicy& p, std::uint32_t x, std::uint32_t rb, int scale_exp = 0) {
  const std::uint32_t got = mx::encode_scaled(f, x, scale_exp, p, rb);
  const std::uint32_t want = mxo::encode_scaled(to_o(f), x, scale_exp, to_o(p), rb);
  RC_ASSERT_MSG(got == want, ("C2: fast path != oracle: encode " + pname(f, p) + " input " + in32(x) +
                              " * 2^" + std::to_string(-scale_exp) + " rbits " + hex(rb, 8) + " => observed " +
                              hex(got) + ", expected " + hex(want))
                                 .c_str());
}
}  // namespace

RC_GTEST_PROP(C2Props, FastEqualsOracleStructured, ()) {
  const Case c = *gen_case();
  const auto xs = *rc::gen::container<std::vector<std::uint32_t>>(64, gen_f32_for(c.f));
  const auto rb = *rc::gen::container<std::vector<std::uint32_t>>(64, rc::gen::arbitrary<std::uint32_t>());
  for (std::size_t i = 0; i < xs.size(); ++i) check_same(c.f, c.p, xs[i], rb[i]);
}

RC_GTEST_PROP(C2Props, FastEqualsOracleUniformBits, ()) {
  const Case c = *gen_case();
  const auto xs = *rc::gen::container<std::vector<std::uint32_t>>(64, rc::gen::arbitrary<std::uint32_t>());
  for (std::size_t i = 0; i < xs.size(); ++i) check_same(c.f, c.p, xs[i], xs[(i * 7 + 3) % xs.size()]);
}

// Scaled encoding (C3 "scaling is exact"): one rounding of x * 2^-e for
// every scale exponent e in [-127, 127].
RC_GTEST_PROP(C2Props, ScaledFastEqualsOracle, ()) {
  const Case c = *gen_case();
  const int e = *rc::gen::inRange(-127, 128);
  const auto xs = *rc::gen::container<std::vector<std::uint32_t>>(32, gen_f32_for(c.f, e));
  for (std::uint32_t x : xs) check_same(c.f, c.p, x, x * 2654435761u, e);
}

// bf16 and fp16 inputs: every code value reachable, uniform.
RC_GTEST_PROP(C2Props, HalfInputsFastEqualsOracle, ()) {
  const Case c = *gen_case();
  const auto hs = *rc::gen::container<std::vector<std::uint16_t>>(64, rc::gen::arbitrary<std::uint16_t>());
  for (std::uint16_t h : hs) {
    for (bool bf : {true, false}) {
      const std::uint32_t x = bf ? mx::bf16_to_f32_bits(h) : mx::f16_to_f32_bits(h);
      const mxo::Value v = bf ? mxo::from_bf16(h) : mxo::from_f16(h);
      const std::uint32_t got = mx::encode_f32_bits(c.f, x, c.p, h * 40503u);
      mxo::Policy op = to_o(c.p);
      std::uint32_t want;
      if (c.p.flush_input_subnormals) want = mxo::encode_f32(to_o(c.f), x, op, h * 40503u);
      else want = mxo::encode(to_o(c.f), v, op, h * 40503u);
      RC_ASSERT_MSG(got == want, ("C2: " + std::string(bf ? "bf16" : "fp16") + " input " + hex(h, 4) + " encode " +
                                  pname(c.f, c.p) + " => observed " + hex(got) + ", expected " + hex(want))
                                     .c_str());
    }
  }
}

// decode(encode(x)) is a nearest representable value (brute force over all
// codes), and a tie goes to the even code (rne) / away (rna); rtz never
// increases the magnitude. In-range finite inputs.
RC_GTEST_PROP(C2Props, DecodeEncodeIsCorrectlyRounded, ()) {
  const Fmt f = *rc::gen::elementOf(elem_formats());
  const mx::Rounding r = *rc::gen::element(mx::Rounding::rne, mx::Rounding::rna, mx::Rounding::rtz);
  const mx::FormatDesc& d = mx::desc(f);
  const std::uint32_t x = *gen_f32_for(f);
  const float xf = f32(x);
  RC_PRE(std::isfinite(xf) && std::fabs(static_cast<double>(xf)) <= mx::max_finite(d));
  mx::ConvPolicy p;
  p.rounding = r;
  const std::uint32_t c = mx::encode_f32_bits(f, x, p);
  const double got = mx::decode(f, c);
  const double xd = xf;
  double best = INFINITY;
  for (std::uint32_t k = 0; k < (1u << d.bits); ++k) {
    const double v = mx::decode(f, k);
    if (!std::isfinite(v)) continue;
    if (r == mx::Rounding::rtz && std::fabs(v) > std::fabs(xd)) continue;
    if (r == mx::Rounding::rtz && v * xd < 0) continue;
    best = std::min(best, std::fabs(v - xd));
  }
  const std::string ctx = "C2: decode(encode(x)) " + pname(f, p) + " input " + in32(x) + " => code " + hex(c) +
                          " value " + std::to_string(got);
  RC_ASSERT_MSG(std::fabs(got - xd) == best, (ctx + ": a closer representable value exists").c_str());
  if (r == mx::Rounding::rtz) RC_ASSERT_MSG(std::fabs(got) <= std::fabs(xd), (ctx + ": rtz grew").c_str());
  // sign of the result (zero keeps the sign, int8 has one zero)
  if (got != 0) RC_ASSERT_MSG((got < 0) == std::signbit(xf), (ctx + ": wrong sign").c_str());
  else if (f != Fmt::int8) RC_ASSERT_MSG(((c & mx::sign_mask(d)) != 0) == std::signbit(xf), (ctx + ": zero sign").c_str());
}

// encode is monotone (saturate, rne/rtz/rna): x <= y => decode(encode(x)) <= decode(encode(y)).
RC_GTEST_PROP(C2Props, Monotone, ()) {
  const Fmt f = *rc::gen::elementOf(elem_formats());
  mx::ConvPolicy p;
  p.rounding = *rc::gen::element(mx::Rounding::rne, mx::Rounding::rna, mx::Rounding::rtz);
  std::uint32_t a = *gen_f32_for(f), b = *gen_f32_for(f);
  RC_PRE(!std::isnan(f32(a)) && !std::isnan(f32(b)));
  if (f32(a) > f32(b)) std::swap(a, b);
  const double da = mx::decode(f, mx::encode_f32_bits(f, a, p));
  const double db = mx::decode(f, mx::encode_f32_bits(f, b, p));
  RC_ASSERT_MSG(da <= db, ("C2: monotone: " + pname(f, p) + " " + in32(a) + " <= " + in32(b) + " but decoded " +
                           std::to_string(da) + " > " + std::to_string(db))
                              .c_str());
}

// Sign symmetry: encode(-x) is encode(x) with the sign bit flipped (floats),
// the negated integer (int8_symmetric) - rne/rtz/rna, every overflow policy.
RC_GTEST_PROP(C2Props, SignSymmetry, ()) {
  const Fmt f = *rc::gen::elementOf(elem_formats());
  const mx::FormatDesc& d = mx::desc(f);
  mx::ConvPolicy p;
  p.rounding = *rc::gen::element(mx::Rounding::rne, mx::Rounding::rna, mx::Rounding::rtz);
  p.overflow = *rc::gen::element(mx::Overflow::saturate, mx::Overflow::propagate);
  if (f == Fmt::int8) p.int8 = mx::Int8Range::int8_symmetric;
  const std::uint32_t x = *gen_f32_for(f);
  RC_PRE(!std::isnan(f32(x)));
  const std::uint32_t cp = mx::encode_f32_bits(f, x & 0x7FFFFFFFu, p);
  const std::uint32_t cn = mx::encode_f32_bits(f, x | 0x80000000u, p);
  const std::uint32_t want = f == Fmt::int8 ? ((256u - cp) & 0xFFu) : (cp | mx::sign_mask(d));
  RC_ASSERT_MSG(cn == want, ("C2: sign symmetry " + pname(f, p) + " input " + in32(x & 0x7FFFFFFFu) + " => " +
                             hex(cp) + "; negated input => observed " + hex(cn) + ", expected " + hex(want))
                                .c_str());
}

// ue8m0 conversions (the CUDA e8m0 rtz and round-up modes) vs the oracle.
RC_GTEST_PROP(C2Props, Ue8m0FastEqualsOracle, ()) {
  mx::ConvPolicy p;
  p.rounding = *rc::gen::element(mx::Rounding::rtz, mx::Rounding::ru, mx::Rounding::rne);
  p.overflow = *rc::gen::element(mx::Overflow::saturate, mx::Overflow::propagate);
  p.nan = mx::NanPolicy::nan_canonical;
  const std::uint32_t x = *rc::gen::oneOf(
      rc::gen::arbitrary<std::uint32_t>(),
      rc::gen::apply([](int e, std::uint32_t fr) { return make_f32(false, e, fr); }, rc::gen::inRange(-150, 129),
                     gen_frac(0)));
  const std::uint32_t got = mx::encode_f32_bits(Fmt::ue8m0, x, p);
  const std::uint32_t want = mxo::encode_f32(mxo::Fmt::ue8m0, x, to_o(p));
  RC_ASSERT_MSG(got == want, ("C1/C2: ue8m0 " + std::string(rname(p.rounding)) + " input " + in32(x) +
                              " => observed " + hex(got) + ", expected " + hex(want))
                                 .c_str());
}
