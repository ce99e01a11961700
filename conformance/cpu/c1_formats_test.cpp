// c1_formats_test.cpp - SPEC C1: every code of every format decodes to the
// value the C1 table defines (fast path vs the oracle vs hand-written rows),
// and the mx:: / mxo:: enums line up by name.
#include <gtest/gtest.h>

#include <cmath>

#include "common.hpp"

using namespace cpu;

TEST(C1, EnumsMatchOracleByName) {
  for (int i = 0; i <= static_cast<int>(mx::Fmt::fp16); ++i) {
    const auto f = static_cast<mx::Fmt>(i);
    EXPECT_EQ(std::string(mx::desc(f).name), std::string(mxo::fmt_name(to_o(f))))
        << "C1: mx::Fmt and mxo::Fmt must list the formats in the same order (index " << i << ")";
  }
  EXPECT_EQ(std::string(rname(mx::Rounding::sr)), "sr");
  EXPECT_EQ(std::string(rname(mx::Rounding::ru)), "ru");
}

// Every code: the fast decode equals the oracle's exact value (C1).
TEST(C1, DecodeEveryCodeMatchesOracle) {
  for (mx::Fmt f : {mx::Fmt::e4m3, mx::Fmt::e5m2, mx::Fmt::e3m2, mx::Fmt::e2m3, mx::Fmt::e2m1,
                    mx::Fmt::int8, mx::Fmt::ue8m0, mx::Fmt::ue4m3}) {
    const std::uint32_t n = f == mx::Fmt::ue4m3 ? 0x80u : mxo::code_count(to_o(f));
    for (std::uint32_t c = 0; c < n; ++c) {
      const float got = mx::decode(f, c);
      const mxo::Value v = mxo::decode(to_o(f), c);
      const std::uint32_t want = mxo::round_ieee(mxo::Fmt::fp32, v);
      if (v.kind == mxo::Value::nan) {
        EXPECT_TRUE(std::isnan(got)) << "C1: " << mx::desc(f).name << " code " << hex(c)
                                     << " is NaN; observed " << in32(bits(got));
      } else {
        EXPECT_EQ(bits(got), want) << "C1: decode " << mx::desc(f).name << " code " << hex(c)
                                   << " expected " << in32(want) << " observed " << in32(bits(got));
      }
    }
  }
}

struct DecodeRow {
  mx::Fmt f;
  std::uint32_t code;
  double value;  // NAN for NaN codes
  const char* why;
};

TEST(C1, TableRows) {
  const double inf = INFINITY, nan = NAN;
  const DecodeRow rows[] = {
      {mx::Fmt::e4m3, 0x7E, 448.0, "C1: e4m3 max finite 448 (0x7E)"},
      {mx::Fmt::e4m3, 0x08, 0.015625, "C1: e4m3 min normal 2^-6 (0x08)"},
      {mx::Fmt::e4m3, 0x01, 0.001953125, "C1: e4m3 min subnormal 2^-9 (0x01)"},
      {mx::Fmt::e4m3, 0x7F, nan, "C1: e4m3 S.1111.111 is NaN"},
      {mx::Fmt::e4m3, 0xFF, nan, "C1: e4m3 S.1111.111 is NaN (negative)"},
      {mx::Fmt::e4m3, 0x80, -0.0, "C1: e4m3 -0"},
      {mx::Fmt::e4m3, 0x78, 256.0, "C1: e4m3 0.1111.000 = 256 (not Inf)"},
      {mx::Fmt::e5m2, 0x7B, 57344.0, "C1: e5m2 max finite 57344 (0x7B)"},
      {mx::Fmt::e5m2, 0x04, 6.103515625e-05, "C1: e5m2 min normal 2^-14"},
      {mx::Fmt::e5m2, 0x01, 1.52587890625e-05, "C1: e5m2 min subnormal 2^-16"},
      {mx::Fmt::e5m2, 0x7C, inf, "C1: e5m2 S.11111.00 is +Inf"},
      {mx::Fmt::e5m2, 0xFC, -inf, "C1: e5m2 S.11111.00 is -Inf"},
      {mx::Fmt::e5m2, 0x7D, nan, "C1: e5m2 S.11111.01 is NaN"},
      {mx::Fmt::e5m2, 0xFE, nan, "C1: e5m2 S.11111.10 is NaN"},
      {mx::Fmt::e3m2, 0x1F, 28.0, "C1: e3m2 max finite 28"},
      {mx::Fmt::e3m2, 0x04, 0.25, "C1: e3m2 min normal 0.25"},
      {mx::Fmt::e3m2, 0x01, 0.0625, "C1: e3m2 min subnormal 0.0625"},
      {mx::Fmt::e3m2, 0x3F, -28.0, "C1: e3m2 has no NaN: 0x3F is -28"},
      {mx::Fmt::e2m3, 0x1F, 7.5, "C1: e2m3 max finite 7.5"},
      {mx::Fmt::e2m3, 0x08, 1.0, "C1: e2m3 min normal 1.0"},
      {mx::Fmt::e2m3, 0x01, 0.125, "C1: e2m3 min subnormal 0.125"},
      {mx::Fmt::e2m3, 0x20, -0.0, "C1: e2m3 -0"},
      {mx::Fmt::e2m1, 0x7, 6.0, "C1: e2m1 max finite 6"},
      {mx::Fmt::e2m1, 0x2, 1.0, "C1: e2m1 min normal 1"},
      {mx::Fmt::e2m1, 0x1, 0.5, "C1: e2m1 min subnormal 0.5"},
      {mx::Fmt::e2m1, 0xF, -6.0, "C1: e2m1 -6"},
      {mx::Fmt::e2m1, 0x5, 3.0, "C1: e2m1 0.10.1 = 3"},
      {mx::Fmt::int8, 0x7F, 127.0 / 64, "C1: int8 max 127/64"},
      {mx::Fmt::int8, 0x80, -2.0, "C1: int8 min -2 (0x80)"},
      {mx::Fmt::int8, 0x01, 1.0 / 64, "C1: int8 1/64"},
      {mx::Fmt::int8, 0xFF, -1.0 / 64, "C1: int8 two's complement -1/64"},
      {mx::Fmt::ue8m0, 0xFE, std::ldexp(1.0, 127), "C1: ue8m0 max 2^127"},
      {mx::Fmt::ue8m0, 0x00, std::ldexp(1.0, -127), "C1: ue8m0 0x00 = 2^-127 (no zero)"},
      {mx::Fmt::ue8m0, 0x7F, 1.0, "C1: ue8m0 0x7F = 1"},
      {mx::Fmt::ue8m0, 0xFF, nan, "C1: ue8m0 0xFF is NaN"},
      {mx::Fmt::ue4m3, 0x7E, 448.0, "C1: ue4m3 max 448"},
      {mx::Fmt::ue4m3, 0x7F, nan, "C1: ue4m3 0x7F is NaN"},
      {mx::Fmt::ue4m3, 0x01, 0.001953125, "C1: ue4m3 min subnormal 2^-9"},
  };
  for (const auto& r : rows) {
    const float got = mx::decode(r.f, r.code);
    const mxo::Value ov = mxo::decode(to_o(r.f), r.code);
    const float oracle = f32(mxo::round_ieee(mxo::Fmt::fp32, ov));
    if (std::isnan(r.value)) {
      EXPECT_TRUE(std::isnan(got)) << r.why << ": code " << hex(r.code) << " observed " << in32(bits(got));
      EXPECT_TRUE(std::isnan(oracle)) << r.why << " (oracle): observed " << in32(bits(oracle));
    } else {
      const std::uint32_t want = bits(static_cast<float>(r.value));
      EXPECT_EQ(bits(got), want) << r.why << ": code " << hex(r.code) << " expected " << in32(want)
                                 << " observed " << in32(bits(got));
      EXPECT_EQ(bits(oracle), want) << r.why << " (oracle): code " << hex(r.code) << " expected "
                                    << in32(want) << " observed " << in32(bits(oracle));
    }
  }
}

// NaN / Inf code counts per format, straight from the C1 table.
TEST(C1, SpecialCodeCounts) {
  struct Row { mx::Fmt f; int nans, infs; const char* why; };
  const Row rows[] = {{mx::Fmt::e4m3, 2, 0, "C1: e4m3 NaN only S.1111.111"},
                      {mx::Fmt::e5m2, 6, 2, "C1: e5m2 Inf S.11111.00, NaN S.11111.{01,10,11}"},
                      {mx::Fmt::e3m2, 0, 0, "C1: e3m2 no NaN/Inf"},
                      {mx::Fmt::e2m3, 0, 0, "C1: e2m3 no NaN/Inf"},
                      {mx::Fmt::e2m1, 0, 0, "C1: e2m1 no NaN/Inf"},
                      {mx::Fmt::int8, 0, 0, "C1: int8 no NaN/Inf"},
                      {mx::Fmt::ue8m0, 1, 0, "C1: ue8m0 0xFF only"}};
  for (const auto& r : rows) {
    int nans = 0, infs = 0;
    for (std::uint32_t c = 0; c < mxo::code_count(to_o(r.f)); ++c) {
      const float v = mx::decode(r.f, c);
      nans += std::isnan(v);
      infs += std::isinf(v);
    }
    EXPECT_EQ(nans, r.nans) << r.why;
    EXPECT_EQ(infs, r.infs) << r.why;
  }
}

// bf16 and fp16 widen to fp32 exactly (C2 first sentence): every code.
TEST(C1, HalfWideningIsExact) {
  for (std::uint32_t h = 0; h < 0x10000u; ++h) {
    const mxo::Value vf = mxo::from_f16(static_cast<std::uint16_t>(h));
    const std::uint32_t got = mx::f16_to_f32_bits(static_cast<std::uint16_t>(h));
    if (vf.kind == mxo::Value::nan) {
      EXPECT_TRUE(std::isnan(f32(got))) << "C2: fp16 " << hex(h, 4) << " is NaN";
      continue;
    }
    const std::uint32_t want = mxo::round_ieee(mxo::Fmt::fp32, vf);
    ASSERT_EQ(got, want) << "C2: fp16 " << hex(h, 4) << " widens exactly: expected " << in32(want)
                         << " observed " << in32(got);
    const mxo::Value vb = mxo::from_bf16(static_cast<std::uint16_t>(h));
    if (vb.kind != mxo::Value::nan) {
      ASSERT_EQ(mx::bf16_to_f32_bits(static_cast<std::uint16_t>(h)), mxo::round_ieee(mxo::Fmt::fp32, vb))
          << "C2: bf16 " << hex(h, 4) << " widens exactly";
    }
  }
}
