// c2_encode_table_test.cpp - SPEC C2 tables: hand-computed rows with their
// reason, and every midpoint of every element format with its two fp32
// neighbours under every rounding and policy, expected codes derived from the
// pair of neighbouring codes (and checked against the oracle too).
#include <gtest/gtest.h>

#include <cmath>

#include "common.hpp"

using namespace cpu;
using mx::Fmt;
using mx::Rounding;
using mx::Overflow;
using mx::NanPolicy;

namespace {
struct EncRow {
  Fmt f;
  std::uint32_t x;  // fp32 bits
  mx::ConvPolicy p;
  std::uint32_t rbits;
  std::uint32_t want;
  const char* why;
};
mx::ConvPolicy P(Rounding r = Rounding::rne, Overflow o = Overflow::saturate,
                 NanPolicy n = NanPolicy::nan_default, mx::Int8Range i = mx::Int8Range::int8_full,
                 bool flush = false) {
  mx::ConvPolicy p;
  p.rounding = r;
  p.overflow = o;
  p.nan = n;
  p.int8 = i;
  p.flush_input_subnormals = flush;
  return p;
}
std::uint32_t B(double v) { return bits(static_cast<float>(v)); }
const Rounding rne = Rounding::rne, rtz = Rounding::rtz, rna = Rounding::rna, sr = Rounding::sr;
const Overflow sat = Overflow::saturate, prop = Overflow::propagate;

void check_row(const EncRow& r) {
  const std::uint32_t got = mx::encode_f32_bits(r.f, r.x, r.p, r.rbits);
  EXPECT_EQ(got, r.want) << r.why << "\n  encode " << pname(r.f, r.p) << " input " << in32(r.x)
                         << " rbits " << hex(r.rbits, 8) << " => observed " << hex(got) << ", expected "
                         << hex(r.want);
  const std::uint32_t o = mxo::encode_f32(to_o(r.f), r.x, to_o(r.p), r.rbits);
  EXPECT_EQ(o, r.want) << r.why << " (ORACLE disagrees with the hand value)\n  encode " << pname(r.f, r.p)
                       << " input " << in32(r.x) << " => oracle " << hex(o) << ", expected " << hex(r.want);
}
}  // namespace

TEST(C2, HandRows) {
  const float inf = INFINITY;
  const std::uint32_t qnan = 0x7FC00000u, nqnan = 0xFFC00000u;
  const EncRow rows[] = {
      {Fmt::e4m3, B(464), P(), 0, 0x7E, "C2: e4m3 464 ties to even 448"},
      {Fmt::e4m3, B(464), P(rne, prop), 0, 0x7E, "C2: e4m3 464 ties to even 448, no overflow under propagate"},
      {Fmt::e4m3, B(-464), P(rne, prop), 0, 0xFE, "C2: e4m3 -464 ties to even -448"},
      {Fmt::e4m3, B(465), P(), 0, 0x7E, "C2: e4m3 465 overflows, saturate gives 448"},
      {Fmt::e4m3, B(465), P(rne, prop), 0, 0x7F, "C2: e4m3 465 overflows, propagate gives NaN 0x7F"},
      {Fmt::e4m3, B(-465), P(rne, prop), 0, 0xFF, "C2: e4m3 -465 overflows, propagate gives NaN 0xFF (sign kept)"},
      {Fmt::e4m3, B(500), P(rtz, prop), 0, 0x7E, "C2: rtz overflow always gives max finite (e4m3 500 -> 448)"},
      {Fmt::e4m3, B(1e30), P(rtz, prop), 0, 0x7E, "C2: rtz overflow always gives max finite"},
      {Fmt::e4m3, B(-1e30), P(rna, sat), 0, 0xFE, "C2: saturate clamps to -max finite"},
      {Fmt::e4m3, B(inf), P(), 0, 0x7E, "C2: Inf saturate gives max finite"},
      {Fmt::e4m3, B(-inf), P(rne, prop), 0, 0xFF, "C2: -Inf propagate gives NaN (e4m3, sign kept)"},
      {Fmt::e4m3, qnan, P(), 0, 0x7F, "C2: NaN -> 0x7F (nan_canonical)"},
      {Fmt::e4m3, nqnan, P(rne, sat, NanPolicy::nan_canonical), 0, 0x7F, "C2: -NaN -> 0x7F (nan_canonical)"},
      {Fmt::e4m3, nqnan, P(rne, sat, NanPolicy::nan_keep_sign), 0, 0xFF, "C2: -NaN -> 0xFF (nan_keep_sign)"},
      {Fmt::e4m3, B(-0.0), P(), 0, 0x80, "C2: -0 encodes to the negative zero code"},
      {Fmt::e4m3, B(0.0), P(), 0, 0x00, "C2: +0"},
      {Fmt::e4m3, B(std::ldexp(1.0, -10)), P(), 0, 0x00, "C2: 2^-10 ties (0, 2^-9) to even 0"},
      {Fmt::e4m3, B(-std::ldexp(1.0, -10)), P(), 0, 0x80, "C2: -2^-10 rounds to -0 (sign kept)"},
      {Fmt::e4m3, B(std::ldexp(1.0, -10)), P(rna), 0, 0x01, "C2: rna 2^-10 ties away to 2^-9"},
      {Fmt::e4m3, B(std::ldexp(3.0, -11)), P(), 0, 0x01, "C2: 3*2^-11 above the tie rounds to 2^-9"},
      {Fmt::e4m3, B(-std::ldexp(1.0, -20)), P(rtz), 0, 0x80, "C2: rtz underflow keeps the sign"},
      {Fmt::e4m3, B(1.0625), P(), 0, 0x38, "C2: 1.0625 ties (1, 1.125) to even 1 (0x38)"},
      {Fmt::e4m3, B(1.0625), P(rna), 0, 0x39, "C2: rna 1.0625 ties away to 1.125"},
      {Fmt::e4m3, B(1.1875), P(), 0, 0x3A, "C2: 1.1875 ties (1.125, 1.25) to even 1.25"},
      {Fmt::e4m3, B(1.0625), P(sr), 0x7FFFFFFFu, 0x38, "C2: sr half + 0x7FFFFFFF < 2^32 truncates"},
      {Fmt::e4m3, B(1.0625), P(sr), 0x80000000u, 0x39, "C2: sr half + 0x80000000 = 2^32 rounds up"},
      {Fmt::e4m3, B(1.0), P(sr), 0xFFFFFFFFu, 0x38, "C2: sr exact value never moves"},
      {Fmt::e4m3, B(1.09375), P(sr), 0x3FFFFFFFu, 0x38, "C2: sr 3/4 ulp (0xC0000000) + 0x3FFFFFFF < 2^32 truncates"},
      {Fmt::e4m3, B(1.09375), P(sr), 0x40000000u, 0x39, "C2: sr 3/4 ulp (0xC0000000) + 2^30 = 2^32 rounds up"},
      {Fmt::e4m3, B(450), P(sr, prop), 0xFFFFFFFFu, 0x7F, "C2: sr rounding up past 448 overflows (NaN)"},
      {Fmt::e4m3, B(450), P(sr, prop), 0, 0x7E, "C2: sr truncation to 448 does not overflow"},
      {Fmt::e4m3, 0x00000001u, P(), 0, 0x00, "C2: fp32 subnormal 2^-149 rounds to +0"},
      {Fmt::e5m2, B(61440), P(), 0, 0x7B, "C2: e5m2 61440 ties to 65536: overflow, saturate 57344"},
      {Fmt::e5m2, B(61440), P(rne, prop), 0, 0x7C, "C2: e5m2 61440 ties to 65536: overflow, propagate Inf"},
      {Fmt::e5m2, B(-61440), P(rne, prop), 0, 0xFC, "C2: e5m2 -61440 overflows to -Inf"},
      {Fmt::e5m2, 0x476FFFFFu, P(rne, prop), 0, 0x7B, "C2: e5m2 below 61440 rounds to 57344"},
      {Fmt::e5m2, B(61440), P(rtz, prop), 0, 0x7B, "C2: e5m2 rtz never overflows"},
      {Fmt::e5m2, B(inf), P(rne, prop), 0, 0x7C, "C2: e5m2 Inf propagates"},
      {Fmt::e5m2, B(-inf), P(), 0, 0xFB, "C2: e5m2 -Inf saturates to -57344"},
      {Fmt::e5m2, nqnan, P(rne, sat, NanPolicy::nan_keep_sign), 0, 0xFE, "C2: e5m2 -NaN keep_sign 0xFE"},
      {Fmt::e5m2, qnan, P(rne, sat, NanPolicy::nan_keep_sign), 0, 0x7E, "C2: e5m2 NaN keep_sign 0x7E"},
      {Fmt::e5m2, nqnan, P(), 0, 0x7F, "C2: e5m2 NaN canonical 0x7F"},
      {Fmt::e3m2, B(30), P(), 0, 0x1F, "C2: e3m2 30 ties (28, 32) to even 32: overflow -> 28"},
      {Fmt::e3m2, B(30), P(rne, prop), 0, 0x1F, "C2: e3m2 has no NaN/Inf: propagate gives max"},
      {Fmt::e3m2, B(-1e9), P(rne, prop), 0, 0x3F, "C2: e3m2 -overflow gives -max"},
      {Fmt::e3m2, B(inf), P(rne, prop), 0, 0x1F, "C2: e3m2 Inf -> max"},
      {Fmt::e3m2, nqnan, P(rne, sat, NanPolicy::nan_to_zero), 0, 0x20, "C2: e3m2 -NaN nan_to_zero -> -0"},
      {Fmt::e3m2, nqnan, P(), 0, 0x1F, "C2: e3m2 NaN nan_to_max -> +28"},
      {Fmt::e2m3, B(7.75), P(), 0, 0x1F, "C2: e2m3 7.75 ties (7.5, 8) to 8: overflow -> 7.5"},
      {Fmt::e2m3, B(7.7), P(rtz), 0, 0x1F, "C2: e2m3 rtz 7.7 -> 7.5"},
      {Fmt::e2m3, B(0.0625), P(), 0, 0x00, "C2: e2m3 0.0625 ties (0, 0.125) to 0"},
      {Fmt::e2m3, B(0.1875), P(), 0, 0x02, "C2: e2m3 0.1875 ties (0.125, 0.25) to 0.25"},
      {Fmt::e2m1, B(7), P(), 0, 0x7, "C2: e2m1 7 ties (6, 8) to 8: overflow -> 6"},
      {Fmt::e2m1, B(-7), P(rne, prop), 0, 0xF, "C2: e2m1 -7 overflows -> -6"},
      {Fmt::e2m1, B(5), P(), 0, 0x6, "C2: e2m1 5 ties (4, 6) to even 4"},
      {Fmt::e2m1, B(5), P(rna), 0, 0x7, "C2: e2m1 rna 5 -> 6"},
      {Fmt::e2m1, B(0.25), P(), 0, 0x0, "C2: e2m1 0.25 ties (0, 0.5) to 0"},
      {Fmt::e2m1, B(-0.25), P(), 0, 0x8, "C2: e2m1 -0.25 -> -0"},
      {Fmt::e2m1, B(0.75), P(), 0, 0x2, "C2: e2m1 0.75 ties (0.5, 1) to 1"},
      {Fmt::e2m1, B(2.5), P(), 0, 0x4, "C2: e2m1 2.5 ties (2, 3) to 2"},
      {Fmt::e2m1, B(3.5), P(), 0, 0x6, "C2: e2m1 3.5 ties (3, 4) to 4"},
      {Fmt::e2m1, nqnan, P(rne, sat, NanPolicy::nan_to_zero), 0, 0x8, "C2: e2m1 -NaN nan_to_zero -> -0"},
      {Fmt::e2m1, nqnan, P(), 0, 0x7, "C2: e2m1 NaN nan_to_max -> +6"},
      {Fmt::int8, B(-127.5 / 64), P(), 0, 0x80, "C2: int8 -127.5/64 ties to even -128 (int8_full)"},
      {Fmt::int8, B(-127.5 / 64), P(rne, sat, NanPolicy::nan_default, mx::Int8Range::int8_symmetric), 0, 0x81,
       "C2: int8 -127.5/64 -> -128 clamps to -127 (int8_symmetric)"},
      {Fmt::int8, B(127.5 / 64), P(), 0, 0x7F, "C2: int8 127.5/64 -> 128 clamps to 127"},
      {Fmt::int8, B(-2.0), P(), 0, 0x80, "C2: int8 -2 is representable (full)"},
      {Fmt::int8, B(-2.0), P(rne, sat, NanPolicy::nan_default, mx::Int8Range::int8_symmetric), 0, 0x81,
       "C2: int8 -2 clamps to -127/64 (symmetric)"},
      {Fmt::int8, B(0.5 / 64), P(), 0, 0x00, "C2: int8 0.5/64 ties to 0"},
      {Fmt::int8, B(1.5 / 64), P(), 0, 0x02, "C2: int8 1.5/64 ties to 2"},
      {Fmt::int8, B(2.5 / 64), P(), 0, 0x02, "C2: int8 2.5/64 ties to 2"},
      {Fmt::int8, B(2.5 / 64), P(rna), 0, 0x03, "C2: int8 rna 2.5/64 -> 3"},
      {Fmt::int8, B(-2.5 / 64), P(rna), 0, 0xFD, "C2: int8 rna -2.5/64 -> -3"},
      {Fmt::int8, B(-0.5 / 64), P(), 0, 0x00, "C2: int8 has one zero"},
      {Fmt::int8, B(-1.99 / 64), P(rtz), 0, 0xFF, "C2: int8 rtz -1.99/64 -> -1"},
      {Fmt::int8, qnan, P(), 0, 0x7F, "C2: int8 NaN nan_to_max -> 127"},
      {Fmt::int8, nqnan, P(rne, sat, NanPolicy::nan_to_zero), 0, 0x00, "C2: int8 NaN nan_to_zero -> 0"},
      {Fmt::int8, B(-inf), P(), 0, 0x80, "C2: int8 -Inf -> -128 (full)"},
      {Fmt::int8, B(-inf), P(rne, prop, NanPolicy::nan_default, mx::Int8Range::int8_symmetric), 0, 0x81,
       "C2: int8 -Inf -> -127 (symmetric)"},
  };
  for (const auto& r : rows) check_row(r);
}

// bf16 and fp16 inputs widen exactly before the single rounding (C2).
TEST(C2, HalfInputs) {
  struct Row { Fmt f; bool bf; std::uint16_t h; std::uint32_t want; const char* why; };
  const Row rows[] = {
      {Fmt::e4m3, true, 0x43E8, 0x7E, "C2: bf16 464 ties to even 448"},
      {Fmt::e4m3, true, 0x43E9, 0x7E, "C2: bf16 466 saturates to 448"},
      {Fmt::e4m3, false, 0x7BFF, 0x7E, "C2: fp16 65504 saturates to 448"},
      {Fmt::e5m2, false, 0x7B80, 0x7B, "C2: fp16 61440 ties to 65536: saturate 57344"},
      {Fmt::e5m2, false, 0x0001, 0x00, "C2: fp16 2^-24 rounds to 0 in e5m2 (min 2^-16)"},
      {Fmt::e2m1, true, 0x40A0, 0x6, "C2: bf16 5 ties to 4"},
      {Fmt::e2m1, false, 0x4700, 0x7, "C2: fp16 7 overflows to 6 (saturate)"},
  };
  for (const auto& r : rows) {
    const std::uint32_t x = r.bf ? mx::bf16_to_f32_bits(r.h) : mx::f16_to_f32_bits(r.h);
    const std::uint32_t got = mx::encode_f32_bits(r.f, x, {});
    EXPECT_EQ(got, r.want) << r.why << ": input " << hex(r.h, 4) << " => observed " << hex(got)
                           << ", expected " << hex(r.want);
    const mxo::Value v = r.bf ? mxo::from_bf16(r.h) : mxo::from_f16(r.h);
    const std::uint32_t o = mxo::encode(to_o(r.f), v, {});
    EXPECT_EQ(o, r.want) << r.why << " (oracle): input " << hex(r.h, 4) << " => " << hex(o);
  }
}

// Subnormal inputs are honoured unless flush_input_subnormals (C2).
TEST(C2, SubnormalInputs) {
  // 2^-130 scaled by 2^127 (scale code 0) is 2^-3 = e4m3 0x20.
  const std::uint32_t x = 0x00080000u;  // 2^19 * 2^-149 = 2^-130
  mx::ConvPolicy p;
  EXPECT_EQ(mx::encode_scaled(Fmt::e4m3, x, -127, p), 0x20u)
      << "C2/C3: subnormal input 2^-130 * 2^127 = 2^-3 -> 0x20 (honoured, not flushed)";
  p.flush_input_subnormals = true;
  EXPECT_EQ(mx::encode_scaled(Fmt::e4m3, x, -127, p), 0x00u)
      << "C2: flush_input_subnormals: 2^-130 flushes to +0";
  EXPECT_EQ(mx::encode_scaled(Fmt::e4m3, x | 0x80000000u, -127, p), 0x80u)
      << "C2: flush_input_subnormals: -2^-130 flushes to -0";
  EXPECT_EQ(mxo::encode_scaled(mxo::Fmt::e4m3, x, -127, to_o(p)), 0x00u) << "oracle flush";
}

// Every midpoint between neighbouring values (0 .. max, and max .. the first
// value of the next binade) of every element format, and its two fp32
// neighbours, under every rounding and policy. The expected code is derived
// here from the two neighbouring codes; the oracle must agree too.
TEST(C2, EveryMidpointAndNeighbours) {
  std::int64_t cases = 0;
  for (Fmt f : elem_formats()) {
    const mx::FormatDesc& d = mx::desc(f);
    const std::uint32_t maxc = mx::max_finite_code(d);
    const double over = f == Fmt::int8 ? 2.0 : (mx::max_finite(d) + std::ldexp(1.0, mx::emax(d) - d.mbits));
    for (std::uint32_t c = 0; c <= maxc; ++c) {  // lo = code c (positive), hi = c + 1 or "over"
      const double lo = mx::decode(f, c);
      const bool top = c == maxc;
      const double hi = top ? over : static_cast<double>(mx::decode(f, c + 1));
      const float mid = static_cast<float>((lo + hi) / 2);  // exact: few bits
      ASSERT_EQ(static_cast<double>(mid), (lo + hi) / 2);
      const float below = std::nextafter(mid, 0.0f), above = std::nextafter(mid, INFINITY);
      const bool lo_even = (c & 1u) == 0;  // code lsb = significand lsb (C1)
      for (int sgn = 0; sgn < 2; ++sgn) {
        for (const mx::ConvPolicy& p : policies(f)) {
          const bool neg = sgn == 1;
          auto code_of = [&](std::uint32_t pc) -> std::uint32_t {
            if (f == Fmt::int8) return neg ? ((256u - pc) & 0xFFu) : pc;
            return pc | (neg ? mx::sign_mask(d) : 0u);
          };
          auto overflow_code = [&]() -> std::uint32_t {
            if (f == Fmt::int8) {
              return neg ? (p.int8 == mx::Int8Range::int8_full ? 0x80u : 0x81u) : 0x7Fu;
            }
            if (p.rounding == Rounding::rtz || p.overflow == Overflow::saturate) return code_of(maxc);
            if (f == Fmt::e4m3) return code_of(0x7F);
            if (f == Fmt::e5m2) return code_of(0x7C);
            return code_of(maxc);
          };
          // int8 negative with the full range: -128 is representable, so the
          // top interval is (127, 128) with "over" 129.
          const bool int8_neg_full = f == Fmt::int8 && neg && p.int8 == mx::Int8Range::int8_full;
          auto expect_up = [&](int where /*-1 below, 0 at, +1 above*/) {
            switch (p.rounding) {
              case Rounding::rtz: return false;
              case Rounding::rna: return where >= 0;
              default: return where > 0 || (where == 0 && !lo_even);
            }
          };
          const float xs[3] = {below, mid, above};
          for (int w = 0; w < 3; ++w) {
            const float x = neg ? -xs[w] : xs[w];
            const bool up = expect_up(w - 1);
            std::uint32_t want;
            if (!up) want = code_of(c);
            else if (!top) want = code_of(c + 1);
            else if (int8_neg_full) want = 0x80u;
            else want = overflow_code();
            const std::uint32_t got = mx::encode_f32_bits(f, bits(x), p);
            const std::uint32_t o = mxo::encode_f32(to_o(f), bits(x), to_o(p));
            ++cases;
            ASSERT_EQ(got, want) << "C2: midpoint table: encode " << pname(f, p) << " input " << in32(bits(x))
                                 << " (between codes " << hex(code_of(c)) << " and the next) => observed "
                                 << hex(got) << ", expected " << hex(want);
            ASSERT_EQ(o, want) << "C2 (ORACLE): encode " << pname(f, p) << " input " << in32(bits(x))
                               << " => oracle " << hex(o) << ", expected " << hex(want);
          }
        }
      }
    }
  }
  RecordProperty("cases", static_cast<int>(cases));
  std::printf("[ cases    ] C2 midpoint table compared %lld inputs\n", static_cast<long long>(cases));
}
