// numerics_cases_f64.cpp - inputs of the numerics probes of
// mma.sync.m8n8k4.f64 (see probe_lib.hpp): random tiles in six kinds and the
// feature cases for the C9 f64 hardware model of reference/SPEC.md. Moved
// from probe_lib.cpp, which runs them (run_cases_f64). Plain C++.
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "numerics_cases.hpp"
#include "probe_lib.hpp"

namespace mxk::probes {

using mx::MmaForm;

namespace {
constexpr std::uint64_t kM52 = (std::uint64_t{1} << 52) - 1;
std::uint64_t f64b(bool neg, int ef, std::uint64_t m) {
  return (static_cast<std::uint64_t>(neg) << 63) | (static_cast<std::uint64_t>(ef) << 52) | (m & kM52);
}
std::uint64_t dbits(double x) { return std::bit_cast<std::uint64_t>(x); }

// Specials and signed zeros in a small share; otherwise `ef` with a random fraction.
std::uint64_t f64_or_special(Rng& r, int ef) {
  const bool s = r.next() & 1;
  const std::uint64_t u = r.next() % 1000;
  if (u < 30) return s ? (std::uint64_t{1} << 63) : 0;
  if (u < 34) return f64b(s, 0x7FF, 0);
  if (u < 38) return f64b(s, 0x7FF, 1 + r.next() % kM52);
  return f64b(s, ef, r.next());
}

int ef_of(Rng& r, int mode, bool is_b) {
  switch (mode) {
    case 0: return 1023 + r.range(-600, 600);
    case 4: {  // a tiny (15% subnormal), b near 1
      if (is_b) return 1023 + r.range(-8, 2);
      return r.next() % 100 < 15 ? 0 : r.range(1, 60);
    }
    case 5: return 1023 + r.range(500, 512);
    default: return 1023 + r.range(-3, 3);
  }
}

std::uint64_t rand_c64(Rng& r, int mode, const mx::DotCaseF64& cs) {
  const bool s = r.next() & 1;
  const std::uint64_t u = r.next() % 1000;
  if (u < 4) return f64b(s, 0x7FF, 0);
  if (u < 8) return f64b(s, 0x7FF, 1 + r.next() % kM52);
  if (u < 100) return s ? (std::uint64_t{1} << 63) : 0;
  switch (mode) {
    case 0: return f64b(s, 1023 + r.range(-1000, 1000), r.next());
    case 2: {  // -(a.b) with its low bits perturbed: cancellation against c
      double acc = 0;
      for (int k = 0; k < 4; ++k) acc = std::fma(std::bit_cast<double>(cs.a[k]), std::bit_cast<double>(cs.b[k]), acc);
      if (!std::isfinite(acc) || acc == 0) return f64b(s, 1023 + r.range(-3, 3), r.next());
      std::uint64_t c = dbits(-acc);
      const int how = static_cast<int>(r.next() % 4);
      if (how == 0) return c;
      if (how == 1) return c ^ (r.next() & 0xFF);
      if (how == 2) return c + 1;
      return c ^ (r.next() & 0xFFFFFFFFull);
    }
    case 3: return f64b(s, 1023 + r.range(-60, 0), r.next());
    case 4: return f64b(s, r.range(0, 60), r.next());
    case 5: return f64b(s, 1023 + r.range(1000, 1023), r.next());
    default: return f64b(s, 1023 + r.range(-8, 3), r.next());
  }
}
}  // namespace

std::vector<mx::DotCaseF64> random_tile_cases_f64(std::uint64_t seed, int tile) {
  const MmaForm f = MmaForm::mma_f64_m8n8k4;
  Rng r{seed * 0x100000001B3ull + static_cast<std::uint64_t>(tile) * 0x9E3779B97F4A7C15ull +
        static_cast<std::uint64_t>(f) * 0x632BE59BD9B4E019ull};
  const int mode = tile % 6;
  // Mode 3: the cancelling pairs are (0,1),(2,3) or (0,2),(1,3) or (0,3),(1,2).
  const int pat = static_cast<int>(r.next() % 3);
  const int pa[3][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}};
  std::uint64_t A[8][4], B[8][4];
  for (int which = 0; which < 2; ++which)
    for (int i = 0; i < 8; ++i) {
      std::uint64_t* v = which == 0 ? A[i] : B[i];
      for (int k = 0; k < 4; ++k) v[k] = f64_or_special(r, ef_of(r, mode, which == 1));
      if (mode == 3) {
        for (int q = 0; q < 2; ++q) {
          const int k0 = pa[pat][2 * q], k1 = pa[pat][2 * q + 1];
          // a: negated copy; b: copy with low bits changed (both with tweaks).
          v[k1] = which == 0 ? (v[k0] ^ (std::uint64_t{1} << 63) ^ (r.next() % 4 == 0 ? (r.next() & 0xFFFF) : 0))
                             : (v[k0] ^ (r.next() & 0xFFFFFull));
        }
      }
    }
  std::vector<mx::DotCaseF64> out;
  out.reserve(64);
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n) {
      mx::DotCaseF64 c;
      for (int k = 0; k < 4; ++k) {
        c.a[k] = A[m][k];
        c.b[k] = B[n][k];
      }
      c.c = rand_c64(r, mode, c);
      out.push_back(c);
    }
  return out;
}

std::vector<FeatureF64> feature_cases_f64() {
  std::vector<FeatureF64> out;
  auto P = [](int x) { return std::ldexp(1.0, x); };
  // Case from c and up to four (a, b) pairs given as doubles.
  auto mk = [&](const std::string& name, double c, std::vector<std::pair<double, double>> ps) {
    mx::DotCaseF64 cs;
    cs.c = dbits(c);
    for (std::size_t k = 0; k < ps.size() && k < 4; ++k) {
      cs.a[k] = dbits(ps[k].first);
      cs.b[k] = dbits(ps[k].second);
    }
    out.push_back({name, cs});
  };
  const double one = 1.0, e52 = P(-52);
  // Products: exact (fma) or rounded (fmul) before the add.
  mk("product_exact: p0=(1+2^-52)^2, c=-(1+2^-51)", -(1 + P(-51)), {{1 + e52, 1 + e52}});
  mk("product_exact: p0=(1+2^-52)(1-2^-53), c=-1", -1.0, {{1 + e52, 1 - P(-53)}});
  // Order and intermediate rounding: p=2^-60 survives only if added after the cancellation.
  mk("order: p0=1 p1=-1 p2=2^-60", 0.0, {{one, one}, {-one, one}, {P(-60), one}});
  mk("order: p0=2^-60 p1=1 p2=-1", 0.0, {{P(-60), one}, {one, one}, {-one, one}});
  mk("order: p1=1 p2=2^-60 p3=-1", 0.0, {{0, 0}, {one, one}, {P(-60), one}, {-one, one}});
  mk("order: p0=1 p3=-1 p1=2^-60", 0.0, {{one, one}, {P(-60), one}, {0, 0}, {-one, one}});
  mk("order: p2=1 p3=-1 p0=2^-60", 0.0, {{P(-60), one}, {0, 0}, {one, one}, {-one, one}});
  mk("order: p0=1 p1=2^-60 p2=-1", 0.0, {{one, one}, {P(-60), one}, {-one, one}});
  // Where C enters.
  mk("cpos: c=1 p0=-1 p1=2^-60", 1.0, {{-one, one}, {P(-60), one}});
  mk("cpos: c=2^-60 p0=1 p1=-1", P(-60), {{one, one}, {-one, one}});
  mk("cpos: c=1 p3=-1 p0=2^-60", 1.0, {{P(-60), one}, {0, 0}, {0, 0}, {-one, one}});
  mk("cpos: c=1 p0=2^-60 p1=-1", 1.0, {{P(-60), one}, {-one, one}});
  // Double rounding: two half-ulps.
  mk("double_round: c=1 p0=2^-53 p1=2^-53", 1.0, {{P(-53), one}, {P(-53), one}});
  mk("double_round: c=1 p2=2^-53 p3=2^-53", 1.0, {{0, 0}, {0, 0}, {P(-53), one}, {P(-53), one}});
  mk("double_round: p0=1 p1=2^-53 p2=2^-53", 0.0, {{one, one}, {P(-53), one}, {P(-53), one}});
  // Alignment width: a tie broken by a bit j below 2^0.
  for (int j : {56, 60, 64, 70, 80, 100, 105, 106, 110, 120, 200})
    mk("align_sticky: c=1 p0=2^-53 p1=2^-" + std::to_string(j), 1.0, {{P(-53), one}, {P(-j), one}});
  for (int j : {53, 54, 55, 56, 60, 64, 80, 106, 110})
    mk("align_neg: c=1 p0=-2^-" + std::to_string(j), 1.0, {{-P(-j), one}});
  mk("round_tie: c=1 p0=2^-53", 1.0, {{P(-53), one}});
  mk("round_tie: c=1+2^-52 p0=2^-53", 1 + e52, {{P(-53), one}});
  // Group: a tiny term next to a cancelling pair, in every position.
  for (int g = 0; g < 4; ++g) {
    std::vector<std::pair<double, double>> ps(4, {0.0, 0.0});
    int idx[3], n = 0;
    for (int k = 0; k < 4; ++k)
      if (k != g) idx[n++] = k;
    const int i0 = idx[0], i1 = idx[1];
    ps[static_cast<std::size_t>(i0)] = {P(60), one};
    ps[static_cast<std::size_t>(i1)] = {-P(60), one};
    ps[static_cast<std::size_t>(g)] = {P(-60), one};
    mk("group: p" + std::to_string(i0) + "=2^60 p" + std::to_string(i1) + "=-2^60 p" + std::to_string(g) + "=2^-60", 0.0, ps);
  }
  // Subnormals.
  {
    mx::DotCaseF64 cs;
    cs.a[0] = 1;
    cs.b[0] = dbits(1.0);
    out.push_back({"subnormal_operand: min_sub * 1", cs});
    cs.b[0] = dbits(P(52));
    out.push_back({"subnormal_operand: min_sub * 2^52", cs});
  }
  mk("subnormal_result: c=1.5*2^-1022 p0=-2^-1022", 1.5 * P(-1022), {{-P(-511), P(-511)}});
  mk("subnormal_result: p0=2^-1074 (2^-537 * 2^-537)", 0.0, {{P(-537), P(-537)}});
  mk("underflow: p0=2^-1076 (2^-538 * 2^-538)", 0.0, {{P(-538), P(-538)}});
  mk("underflow: p0=1.5*2^-1075, c=0", 0.0, {{1.5 * P(-538), P(-537)}});
  mk("underflow_sum: p0=2^-1075 p1=2^-1075", 0.0, {{P(-538), P(-537)}, {P(-538), P(-537)}});
  mk("subnormal_c: c=2^-1074 p=0", P(-1074), {});
  mk("subnormal_c: c=2^-1074 p0=1 p1=-1", P(-1074), {{one, one}, {-one, one}});
  // Signed zeros.
  mk("zero_sign: c=-0 products +0", -0.0, {});
  mk("zero_sign: c=-0 p0=-0*1", -0.0, {{-0.0, one}});
  mk("zero_sign: c=+0 p0=-0*1", 0.0, {{-0.0, one}});
  mk("zero_sign: c=-1 p0=1", -1.0, {{one, one}});
  mk("zero_sign: c=-0 p0=-0 p1=-0 p2=-0 p3=-0", -0.0, {{-0.0, one}, {-0.0, one}, {-0.0, one}, {-0.0, one}});
  // Specials and overflow.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN(),
               mx = std::numeric_limits<double>::max();
  mk("nan_c: c=NaN", nan, {});
  mk("inf_c: c=+Inf", inf, {});
  mk("inf_c_plus_product: c=+Inf p0=-1", inf, {{-one, one}});
  mk("inf_c_minus_inf: c=+Inf p0=-Inf*1", inf, {{-inf, one}});
  mk("nan_operand: NaN * 1", 0.0, {{nan, one}});
  mk("inf_operand: Inf * 1", 0.0, {{inf, one}});
  mk("inf_times_zero: Inf * 0", 0.0, {{inf, 0.0}});
  mk("inf_minus_inf: Inf*1 + Inf*-1", 0.0, {{inf, one}, {inf, -one}});
  mk("overflow: c=max p0=2^970 (tie)", mx, {{P(485), P(485)}});
  mk("overflow: c=max p0=2^969", mx, {{P(485), P(484)}});
  mk("overflow: p0=2^1000*2^100", 0.0, {{P(1000), P(100)}});
  mk("overflow_intermediate: p0=2^1023*2 p1=-2^1023*2", 0.0, {{P(1023), 2.0}, {P(1023), -2.0}});
  mk("overflow_intermediate: c=max p0=max p1=-max", mx, {{mx, one}, {-mx, one}});
  return out;
}

}  // namespace mxk::probes
