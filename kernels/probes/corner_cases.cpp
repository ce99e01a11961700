// corner_cases.cpp - the corner classes of the C9 hardware models below 2^-126
// (reference/SPEC.md C9 "hardware models", issue 13): generators of named
// features and of random tiles per class, and the definition of each class as
// a predicate on a case (see numerics_cases.hpp). Plain C++.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>

#include "mx/error.hpp"
#include "numerics_cases.hpp"

namespace mxk::probes {

using mx::DotCase;
using mx::Elem;
using mx::MmaForm;

namespace {

// Bit layout of a float element (tf32: 19 bits stored in the top of 32).
struct EF {
  int eb = 0, mb = 0, bias = 0;
  bool fn = false, tf32 = false;
  int xmin_norm() const { return 1 - bias; }
  int xmax() const { return ((1 << eb) - (fn ? 1 : 2)) - bias; }
  int xsub() const { return 1 - bias - mb; }  // exponent of the smallest subnormal
  int pbot() const { return 2 * xsub(); }
  std::uint64_t mmask() const { return (std::uint64_t{1} << mb) - 1; }
};

EF ef_of(Elem e) {
  switch (e) {
    case Elem::e4m3: return {4, 3, 7, true, false};
    case Elem::e5m2: return {5, 2, 15, false, false};
    case Elem::f16: return {5, 10, 15, false, false};
    case Elem::bf16: return {8, 7, 127, false, false};
    case Elem::tf32: return {8, 10, 127, false, true};
    default: throw mx::InvalidArgument("corner cases: not a floating-point element kind");
  }
}

std::uint64_t make(const EF& f, bool neg, int field, std::uint64_t mant) {
  if (f.fn && field == (1 << f.eb) - 1 && mant == f.mmask()) --mant;  // e4m3 NaN
  const std::uint64_t c = (std::uint64_t{neg} << (f.eb + f.mb)) | (static_cast<std::uint64_t>(field) << f.mb) | mant;
  return f.tf32 ? c << 13 : c;
}
std::uint64_t zero(const EF& f, bool neg) { return make(f, neg, 0, 0); }

// A value whose magnitude lies in [2^x, 2^(x+1)) (x clamped to the format).
std::uint64_t val_exp(Rng& r, const EF& f, bool neg, int x) {
  x = std::clamp(x, f.xsub(), f.xmax());
  if (x >= f.xmin_norm()) return make(f, neg, x + f.bias, r.next() & f.mmask());
  const int pos = x - f.xsub();
  const std::uint64_t m = (std::uint64_t{1} << pos) | (r.next() & ((std::uint64_t{1} << pos) - 1));
  return make(f, neg, 0, m);
}

// Exactly 2^x, if the format has it.
std::optional<std::uint64_t> pow2(const EF& f, bool neg, int x) {
  if (x > f.xmax() || x < f.xsub()) return std::nullopt;
  if (x >= f.xmin_norm()) return make(f, neg, x + f.bias, 0);
  return make(f, neg, 0, std::uint64_t{1} << (x - f.xsub()));
}

// fp32 subnormal with its leading bit at 2^L (-149 <= L <= -127).
std::uint32_t sub_f32(Rng& r, bool neg, int L) {
  const int pos = std::clamp(L, -149, -127) + 149;
  const std::uint32_t m = (1u << pos) | static_cast<std::uint32_t>(r.next() & ((std::uint64_t{1} << pos) - 1));
  return (neg ? 0x80000000u : 0u) | m;
}
std::uint32_t norm_f32(Rng& r, bool neg, int x) {
  return (neg ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(std::clamp(x, -126, 127) + 127) << 23) |
         static_cast<std::uint32_t>(r.next() & 0x7FFFFF);
}

bool has_tiny_products(Elem e) { return e == Elem::bf16 || e == Elem::tf32; }

// Split x into two element exponents xa + xb = x, both in the format's range.
bool split_exp(Rng& r, const EF& f, int x, int* xa, int* xb) {
  const int lo = std::max(f.xsub(), x - f.xmax()), hi = std::min(f.xmax(), x - f.xsub());
  if (lo > hi) return false;
  *xa = r.range(lo, hi);
  *xb = x - *xa;
  return true;
}

struct Tile {
  std::vector<std::vector<std::uint64_t>> A, B;  // A[m][k], B[n][k]
  std::vector<std::vector<std::uint32_t>> C;     // C[m][n]
};

// ---- exact sums for the class predicates ----
struct Exact {
  int sign = 0;           // -1, 0, 1
  int lead = INT32_MIN;   // exponent of the leading bit of |sum|
  int max_lead = INT32_MIN;  // largest leading-bit exponent among the terms
};

Exact exact_sum(const std::vector<double>& terms) {
  constexpr int kBase = -1100, kLimbs = 50;  // 2^-1100 .. 2^500 in 32-bit limbs
  std::vector<std::int64_t> L(kLimbs, 0);
  Exact ex;
  for (double v : terms) {
    if (v == 0) continue;
    int e = 0;
    const double m = std::frexp(std::fabs(v), &e);  // v = m * 2^e
    ex.max_lead = std::max(ex.max_lead, e - 1);
    const auto sig = static_cast<std::uint64_t>(std::ldexp(m, 53));
    const int off = e - 53 - kBase;
    const int sh = off % 32;
    const std::uint64_t lo = sig << sh, hi = sh ? sig >> (64 - sh) : 0;  // sig * 2^sh < 2^85
    const std::uint32_t w[3] = {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32),
                                static_cast<std::uint32_t>(hi)};
    for (int i = 0; i < 3; ++i) {
      const auto part = static_cast<std::int64_t>(w[i]);
      L[static_cast<std::size_t>(off / 32 + i)] += v < 0 ? -part : part;
    }
  }
  auto norm = [&] {
    for (int i = 0; i + 1 < kLimbs; ++i) {
      const std::int64_t c = L[static_cast<std::size_t>(i)] >> 32;  // floor division
      L[static_cast<std::size_t>(i)] -= c * (std::int64_t{1} << 32);
      L[static_cast<std::size_t>(i + 1)] += c;
    }
  };
  norm();
  ex.sign = L.back() < 0 ? -1 : 1;
  if (ex.sign < 0) {
    for (auto& x : L) x = -x;
    norm();
  }
  int top = kLimbs - 1;
  while (top >= 0 && L[static_cast<std::size_t>(top)] == 0) --top;
  if (top < 0) {
    ex.sign = 0;
    return ex;
  }
  ex.lead = kBase + 32 * top + static_cast<int>(std::bit_width(static_cast<std::uint64_t>(L[static_cast<std::size_t>(top)]))) - 1;
  return ex;
}

std::vector<double> products(Elem e, const DotCase& cs) {
  std::vector<double> p;
  for (std::size_t k = 0; k < cs.a.size(); ++k) p.push_back(elem_value(e, cs.a[k]) * elem_value(e, cs.b[k]));
  return p;
}

// ---- tile generators per class ----
void gen_tile(MmaForm f, Corner cls, Rng& r, Tile& t) {
  const auto& fi = mx::form_info(f);
  const Elem e = fi.a_elem;
  const EF F = ef_of(e);
  const std::size_t M = static_cast<std::size_t>(fi.m), N = static_cast<std::size_t>(fi.n),
                    K = static_cast<std::size_t>(fi.k);
  auto bit = [&] { return (r.next() & 1) != 0; };
  t.A.assign(M, std::vector<std::uint64_t>(K, 0));
  t.B.assign(N, std::vector<std::uint64_t>(K, 0));
  t.C.assign(M, std::vector<std::uint32_t>(N, 0));
  for (auto& row : t.A)
    for (auto& x : row) x = zero(F, bit());
  for (auto& col : t.B)
    for (auto& x : col) x = zero(F, bit());
  auto each_c = [&](auto fn) {
    for (std::size_t m = 0; m < M; ++m)
      for (std::size_t n = 0; n < N; ++n) t.C[m][n] = fn(m, n);
  };
  auto signed_zero_c = [&] { each_c([&](std::size_t, std::size_t) { return bit() ? 0x80000000u : 0u; }); };
  // Rows and columns drawn around exponents ra, rb: products in [2^(ra+rb), 2^(ra+rb+4)).
  auto fill_around = [&](int ra, int rb, bool a_neg_random, bool b_neg_random, int zero_pct) {
    for (auto& row : t.A)
      for (std::size_t k = 0; k < K; ++k)
        row[k] = (k > 0 && r.range(0, 99) < zero_pct) ? zero(F, bit()) : val_exp(r, F, a_neg_random && bit(), ra + r.range(0, 1));
    for (auto& col : t.B)
      for (std::size_t k = 0; k < K; ++k)
        col[k] = (k > 0 && r.range(0, 99) < zero_pct) ? zero(F, bit()) : val_exp(r, F, b_neg_random && bit(), rb + r.range(0, 1));
  };
  switch (cls) {
    case Corner::cut_zero_pos:
    case Corner::cut_zero_neg: {
      const bool neg = cls == Corner::cut_zero_neg;
      const int hhi = std::min(F.xmax() - 1, 20), hlo = std::max(F.xmin_norm(), (F.pbot() + 32) / 2);
      const int variant = r.range(0, has_tiny_products(e) ? 2 : 1);
      if (variant == 2) {  // every product far below 2^-149: the sum rounds to zero
        const int ra = r.range(F.xsub(), -158 - F.xsub());
        const int rb = std::max(F.xsub(), -158 - ra - r.range(0, 40));
        fill_around(ra, rb, false, false, 25);
        for (auto& row : t.A)
          for (auto& x : row) x = neg ? (x | (std::uint64_t{1} << (F.tf32 ? 31 : F.eb + F.mb))) : (x & ~(std::uint64_t{1} << (F.tf32 ? 31 : F.eb + F.mb)));
        signed_zero_c();
        break;
      }
      int h = r.range(std::min(hlo, hhi), hhi);
      if (variant == 1) h = std::max(h, -50);  // C = -(a0 b0) must be an fp32 value
      const int s = r.range(F.pbot(), std::max(F.pbot(), 2 * h - 31));
      int sa = 0, sb = 0;
      split_exp(r, F, s, &sa, &sb);
      sa = std::min(sa, F.xmax() - 1);
      sb = std::min(sb, F.xmax() - 1);
      const bool two = bit();
      for (auto& row : t.A) {
        row[0] = val_exp(r, F, false, h + r.range(0, 1));
        row[1] = variant == 0 ? (row[0] ^ (std::uint64_t{1} << (F.tf32 ? 31 : F.eb + F.mb))) : zero(F, bit());
        row[4] = val_exp(r, F, neg, sa + r.range(0, 1));
        if (two) row[5] = val_exp(r, F, neg, sa + r.range(0, 1));
      }
      for (auto& col : t.B) {
        col[0] = val_exp(r, F, false, h + r.range(0, 1));
        col[1] = col[0];
        col[4] = val_exp(r, F, false, sb + r.range(0, 1));
        if (two) col[5] = val_exp(r, F, false, sb + r.range(0, 1));
      }
      if (variant == 0) {
        signed_zero_c();
      } else {
        each_c([&](std::size_t m, std::size_t n) {
          const float p = static_cast<float>(elem_value(e, t.A[m][0]) * elem_value(e, t.B[n][0]));
          return std::bit_cast<std::uint32_t>(-p);
        });
      }
      break;
    }
    case Corner::sub_c_below: {
      const int Lc = r.range(-140, -127);
      const int T = r.range(std::max(F.pbot(), Lc - 40), Lc - 4);
      int ra = 0, rb = 0;
      split_exp(r, F, T, &ra, &rb);
      fill_around(std::min(ra, F.xmax() - 1), std::min(rb, F.xmax() - 1), true, true, 10);
      each_c([&](std::size_t, std::size_t) { return sub_f32(r, bit(), r.range(Lc, -127)); });
      break;
    }
    case Corner::sub_c_above: {
      const int Lhi = r.range(-149, -127);
      const int lo = std::max(Lhi + 1, F.pbot());
      const int T = r.range(lo, lo + 30);
      int ra = 0, rb = 0;
      split_exp(r, F, T, &ra, &rb);
      fill_around(std::min(ra, F.xmax() - 1), std::min(rb, F.xmax() - 1), true, true, 10);
      each_c([&](std::size_t, std::size_t) { return sub_f32(r, bit(), r.range(-149, Lhi)); });
      break;
    }
    case Corner::negzero_c_all:
    case Corner::negzero_c_one:
    case Corner::negzero_c_two:
    case Corner::negzero_c_allbut1:
    case Corner::poszero_c_all_neg: {
      const std::size_t cnt = cls == Corner::negzero_c_one ? 1 : cls == Corner::negzero_c_two ? 2
                            : cls == Corner::negzero_c_allbut1 ? K - 1 : K;
      const bool a_side = bit();  // the zeros (with the signs) in A, B nonzero positive; or the other way
      auto& Z = a_side ? t.A : t.B;
      auto& V = a_side ? t.B : t.A;
      for (auto& z : Z) {
        std::vector<std::size_t> idx(K);
        for (std::size_t k = 0; k < K; ++k) idx[k] = k;
        for (std::size_t k = K; k > 1; --k) std::swap(idx[k - 1], idx[static_cast<std::size_t>(r.next() % k)]);
        for (std::size_t k = 0; k < K; ++k) z[k] = zero(F, false);
        for (std::size_t k = 0; k < cnt; ++k) z[idx[k]] = zero(F, true);
      }
      for (auto& v : V)
        for (auto& x : v) x = val_exp(r, F, false, r.range(F.xsub(), std::min(F.xmax(), 10)));
      const std::uint32_t c = cls == Corner::poszero_c_all_neg ? 0u : 0x80000000u;
      each_c([&](std::size_t, std::size_t) { return c; });
      break;
    }
    case Corner::fields_le1: {
      for (auto* mat : {&t.A, &t.B})
        for (auto& v : *mat)
          for (auto& x : v) x = r.range(0, 19) == 0 ? zero(F, bit()) : make(F, bit(), r.range(0, 1), r.next() & F.mmask());
      each_c([&](std::size_t, std::size_t) {
        if (bit()) return bit() ? 0x80000000u : 0u;
        return (bit() ? 0x80000000u : 0u) | (static_cast<std::uint32_t>(r.range(0, 1)) << 23) |
               static_cast<std::uint32_t>(r.next() & 0x7FFFFF);
      });
      break;
    }
    case Corner::below126_cnorm:
    case Corner::below126_csub:
    case Corner::below126_czero: {
      if (has_tiny_products(e)) {
        const int T = r.range(std::max(F.pbot(), -220), -130);
        int ra = 0, rb = 0;
        split_exp(r, F, T, &ra, &rb);
        fill_around(std::min(ra, F.xmax() - 1), std::min(rb, F.xmax() - 1), true, true, 10);
      } else {  // no nonzero product of these elements is below 2^-126: zero products
        for (auto& col : t.B)
          for (auto& x : col) x = val_exp(r, F, bit(), r.range(F.xsub(), F.xmax()));
      }
      each_c([&](std::size_t, std::size_t) -> std::uint32_t {
        const bool neg = bit();
        if (cls == Corner::below126_czero) return neg ? 0x80000000u : 0u;
        if (cls == Corner::below126_csub) return sub_f32(r, neg, r.range(-149, -127));
        const int q = r.range(0, 3);
        return norm_f32(r, neg, q == 0 ? r.range(-20, 20) : q == 1 ? r.range(-126, -120) : r.range(-126, -100));
      });
      break;
    }
  }
}

}  // namespace

std::string corner_name(Corner c) {
  static const char* const names[kNumCorners] = {
      "cut_zero_pos", "cut_zero_neg", "sub_c_below", "sub_c_above", "negzero_c_all", "negzero_c_one",
      "negzero_c_two", "negzero_c_allbut1", "poszero_c_all_neg", "fields_le1", "below126_cnorm",
      "below126_csub", "below126_czero"};
  const int i = static_cast<int>(c);
  if (i < 0 || i >= kNumCorners) throw mx::InvalidArgument("corner_name: no such class");
  return names[i];
}

std::vector<Corner> corner_classes(MmaForm f) {
  if (!has_float_numerics(f)) throw mx::InvalidArgument("corner_classes: form has no floating-point numerics");
  std::vector<Corner> v;
  for (int i = 0; i < kNumCorners; ++i) {
    const auto c = static_cast<Corner>(i);
    if (c == Corner::sub_c_below && !has_tiny_products(mx::form_info(f).a_elem)) continue;
    v.push_back(c);
  }
  return v;
}

std::vector<DotCase> corner_tile_cases(MmaForm f, std::uint64_t seed, int tile, Corner* cls) {
  const auto& fi = mx::form_info(f);
  Rng r{seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(tile) * 0xD1B54A32D192ED03ull +
        static_cast<std::uint64_t>(f) * 0x8CB92BA72F3D8DD7ull + 0x13};
  const std::vector<Corner> classes = corner_classes(f);
  const Corner c = classes[static_cast<std::size_t>(r.next() % classes.size())];
  Tile t;
  gen_tile(f, c, r, t);
  if (cls) *cls = c;
  std::vector<DotCase> out;
  out.reserve(static_cast<std::size_t>(fi.m * fi.n));
  for (std::size_t m = 0; m < t.A.size(); ++m)
    for (std::size_t n = 0; n < t.B.size(); ++n) {
      DotCase cs;
      cs.a = t.A[m];
      cs.b = t.B[n];
      cs.c = t.C[m][n];
      out.push_back(std::move(cs));
    }
  return out;
}

bool in_corner_class(MmaForm f, Corner c, const DotCase& cs, std::string* why) {
  const Elem e = mx::form_info(f).a_elem;
  auto fail = [&](const std::string& w) {
    if (why) *why = corner_name(c) + ": " + w;
    return false;
  };
  const std::vector<double> p = products(e, cs);
  const double cv = static_cast<double>(std::bit_cast<float>(cs.c));
  const bool c_sub = (cs.c & 0x7F800000u) == 0 && (cs.c & 0x7FFFFFu) != 0;
  const bool c_zero = (cs.c & 0x7FFFFFFFu) == 0;
  for (double x : p)
    if (!std::isfinite(x)) return fail("a product is not finite");
  switch (c) {
    case Corner::cut_zero_pos:
    case Corner::cut_zero_neg: {
      std::vector<double> terms = p;
      terms.push_back(cv);
      const Exact ex = exact_sum(terms);
      if (ex.sign != (c == Corner::cut_zero_pos ? 1 : -1)) return fail("exact sum has the wrong sign or is zero");
      if (ex.lead > ex.max_lead - 26 && ex.lead >= -149) return fail("exact sum is not small");
      return true;
    }
    case Corner::sub_c_below:
    case Corner::sub_c_above: {
      if (!c_sub) return fail("C is not subnormal");
      int nz = 0;
      for (double x : p) {
        if (x == 0) continue;
        ++nz;
        if (c == Corner::sub_c_below ? !(std::fabs(x) < std::fabs(cv)) : !(std::fabs(x) > std::fabs(cv)))
          return fail("a product is on the wrong side of |C|");
      }
      return nz > 0 ? true : fail("no nonzero product");
    }
    case Corner::negzero_c_all:
    case Corner::negzero_c_one:
    case Corner::negzero_c_two:
    case Corner::negzero_c_allbut1:
    case Corner::poszero_c_all_neg: {
      if (cs.c != (c == Corner::poszero_c_all_neg ? 0u : 0x80000000u)) return fail("C is not the signed zero of the class");
      std::size_t neg = 0;
      for (double x : p) {
        if (x != 0) return fail("a product is not zero");
        neg += std::signbit(x) ? 1 : 0;
      }
      const std::size_t K = p.size();
      const std::size_t want = c == Corner::negzero_c_one ? 1 : c == Corner::negzero_c_two ? 2
                             : c == Corner::negzero_c_allbut1 ? K - 1 : K;
      return neg == want ? true : fail("wrong number of -0 products");
    }
    case Corner::fields_le1: {
      const EF F = ef_of(e);
      auto field = [&](std::uint64_t code) {
        const std::uint64_t b = F.tf32 ? code >> 13 : code;
        return static_cast<int>((b >> F.mb) & ((1u << F.eb) - 1));
      };
      for (std::size_t k = 0; k < cs.a.size(); ++k)
        if (field(cs.a[k]) > 1 || field(cs.b[k]) > 1) return fail("an operand's exponent field is above 1");
      return ((cs.c >> 23) & 0xFF) <= 1 ? true : fail("C's exponent field is above 1");
    }
    case Corner::below126_cnorm:
    case Corner::below126_csub:
    case Corner::below126_czero: {
      for (double x : p)
        if (!(std::fabs(x) < std::ldexp(1.0, -126))) return fail("a product is not below 2^-126");
      if (c == Corner::below126_czero) return c_zero ? true : fail("C is not zero");
      if (c == Corner::below126_csub) return c_sub ? true : fail("C is not subnormal");
      return (!c_zero && !c_sub) ? true : fail("C is not normal");
    }
  }
  return fail("unknown class");
}

std::vector<CornerFeature> corner_features(MmaForm f) {
  const auto& fi = mx::form_info(f);
  const Elem e = fi.a_elem;
  const EF F = ef_of(e);
  const std::size_t K = static_cast<std::size_t>(fi.k);
  std::vector<CornerFeature> out;
  auto base = [&](std::uint32_t c) {
    DotCase cs;
    cs.a.assign(K, zero(F, false));
    cs.b.assign(K, zero(F, false));
    cs.c = c;
    return cs;
  };
  // Product k = +-2^x from two exact powers of two (false if the format has none).
  auto prod = [&](DotCase& cs, std::size_t k, bool neg, int x) {
    for (int xa = std::clamp(x / 2, F.xsub(), F.xmax()), step = 0; step < 2 * (F.xmax() - F.xsub()) + 2; ++step) {
      const int ya = xa + ((step & 1) ? (step + 1) / 2 : -(step / 2));
      const auto ca = pow2(F, neg, ya), cb = pow2(F, false, x - ya);
      if (ca && cb) {
        cs.a[k] = *ca;
        cs.b[k] = *cb;
        return true;
      }
    }
    return false;
  };
  auto add = [&](const std::string& name, Corner c, const DotCase& cs) {
    std::string why;
    if (in_corner_class(f, c, cs, &why)) out.push_back({name, c, cs});
  };
  auto f32 = [](float x) { return std::bit_cast<std::uint32_t>(x); };
  const std::string X_s = std::to_string(std::min(2 * (F.xmax() - 1), 40));
  const int X = std::min(2 * (F.xmax() - 1), 40), Y = std::max(F.pbot(), X - 30);
  // Sums cut to zero, either sign.
  for (bool neg : {false, true})
    for (std::uint32_t c : {0u, 0x80000000u}) {
      DotCase cs = base(c);
      if (prod(cs, 0, false, X) && prod(cs, 1, true, X) && prod(cs, 4, neg, Y))
        add("cut_zero: p0=2^" + X_s + " p1=-p0 p4=" + (neg ? "-" : "") + "2^" + std::to_string(Y) + (c ? " c=-0" : " c=0"),
            neg ? Corner::cut_zero_neg : Corner::cut_zero_pos, cs);
      DotCase d = base(f32(-std::ldexp(1.0f, X)));
      if (c == 0 && prod(d, 0, false, X) && prod(d, 4, neg, Y))
        add("cut_zero: c=-2^" + X_s + " p0=2^" + X_s + " p4=" + (neg ? "-" : "") + "2^" + std::to_string(Y),
            neg ? Corner::cut_zero_neg : Corner::cut_zero_pos, d);
      DotCase u = base(c);  // bf16/tf32: a single product far below 2^-149
      if (prod(u, 0, neg, -228)) add(std::string("cut_zero: p0=") + (neg ? "-" : "") + "2^-228" + (c ? " c=-0" : " c=0"),
                                     neg ? Corner::cut_zero_neg : Corner::cut_zero_pos, u);
    }
  // Subnormal C with a product below it and above it.
  for (bool neg : {false, true}) {
    DotCase b = base(0x00000400u);  // 2^-139
    if (prod(b, 3, neg, -164)) add(std::string("sub_c: c=2^-139 p3=") + (neg ? "-" : "") + "2^-164", Corner::sub_c_below, b);
    DotCase b2 = base(0x00000001u);
    if (prod(b2, 0, neg, -160)) add(std::string("sub_c: c=2^-149 p0=") + (neg ? "-" : "") + "2^-160", Corner::sub_c_below, b2);
    const int above = std::max(-130, F.pbot());
    DotCase a = base(0x00000400u);
    if (prod(a, 0, neg, above))
      add(std::string("sub_c: c=2^-139 p0=") + (neg ? "-" : "") + "2^" + std::to_string(above), Corner::sub_c_above, a);
    const int above2 = std::max(-120, F.pbot());
    DotCase a2 = base(neg ? 0x807FFFFFu : 0x007FFFFFu);
    if (prod(a2, 0, true, above2))
      add(std::string("sub_c: c=") + (neg ? "-" : "") + "0x007fffff p0=-2^" + std::to_string(above2), Corner::sub_c_above, a2);
    DotCase a3 = base(neg ? 0x80000001u : 0x00000001u);
    if (prod(a3, 0, false, 0)) add(std::string("sub_c: c=") + (neg ? "-" : "") + "2^-149 p0=1", Corner::sub_c_above, a3);
  }
  // C = -0 with all, one, two, all but one -0 products; C = +0 with all -0.
  const auto one = pow2(F, false, 0);
  for (std::size_t n : {K, std::size_t{1}, std::size_t{2}, K - 1}) {
    DotCase z = base(0x80000000u);
    for (std::size_t k = 0; k < K; ++k) {
      z.a[k] = zero(F, k < n);
      z.b[k] = *one;
    }
    const Corner c = n == K ? Corner::negzero_c_all : n == 1 ? Corner::negzero_c_one : n == 2 ? Corner::negzero_c_two
                                                                                               : Corner::negzero_c_allbut1;
    add("negzero: c=-0, " + std::to_string(n) + " of " + std::to_string(K) + " products -0", c, z);
    if (n == K) {
      z.c = 0;
      add("poszero: c=+0, every product -0", Corner::poszero_c_all_neg, z);
    }
  }
  // Every exponent field <= 1.
  {
    DotCase d = base(0);
    for (std::size_t k = 0; k < K; ++k) {
      d.a[k] = make(F, k % 3 == 1, 1, 0);
      d.b[k] = make(F, false, 0, 1);
    }
    add("fields_le1: a=+-2^emin, b=min subnormal, c=0", Corner::fields_le1, d);
    for (std::size_t k = 0; k < K; ++k) d.a[k] = d.b[k] = make(F, k % 2 == 1, 1, F.mmask());
    d.c = 0x00FFFFFFu;
    add("fields_le1: a=b=+-max field 1, c=max field-1 fp32", Corner::fields_le1, d);
  }
  // Every product below 2^-126, C normal, subnormal, zero.
  for (std::uint32_t c : {f32(1.0f), 0x00800000u, 0x00000400u, 0u, 0x80000000u}) {
    const Corner cls = (c & 0x7FFFFFFFu) == 0 ? Corner::below126_czero
                     : (c & 0x7F800000u) == 0 ? Corner::below126_csub : Corner::below126_cnorm;
    char hex[16];
    std::snprintf(hex, sizeof hex, "%08x", c);
    DotCase d = base(c);
    if (prod(d, 0, false, -130) && prod(d, 1, true, -140)) {
      add(std::string("below126: p0=2^-130 p1=-2^-140 c=") + hex, cls, d);
    } else {
      d.a[0] = zero(F, true);
      d.b[0] = *one;
      add(std::string("below126: zero products (p0=-0) c=") + hex, cls, d);
    }
  }
  // Issue 13's reproducers (bf16 wgmma k-steps; the same codes for mma.sync bf16).
  if (e == Elem::bf16 && K == 16) {
    const std::vector<std::uint64_t> a = {0x8000, 0x0000, 0x8000, 0x8080, 0x0000, 0x8000, 0x8000, 0x8000,
                                          0x0003, 0x8000, 0x0000, 0x0000, 0x0000, 0x0000, 0x8000, 0x0000};
    auto row = [&](const char* name, Corner c, std::vector<std::uint64_t> ra, std::vector<std::uint64_t> rb, std::uint32_t cc) {
      DotCase d;
      d.a = std::move(ra);
      d.b = std::move(rb);
      d.c = cc;
      add(name, c, d);
    };
    row("issue13 row A", Corner::cut_zero_neg, a,
        {0x0c80, 0, 0, 0x0c80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0c00, 0x0c00, 0}, 0);
    row("issue13 row B", Corner::sub_c_below, a,
        {0x2d00, 0, 0x2d00, 0x2c80, 0x2d00, 0, 0, 0x2c80, 0, 0x2c80, 0, 0x2c80, 0, 0, 0x2d00, 0x2c80}, 0x400);
    row("issue13 row C", Corner::negzero_c_all, std::vector<std::uint64_t>(16, 0x8000),
        {0x0180, 0, 0x01c0, 0x0200, 0x0080, 0x0180, 0, 0x0200, 0x0140, 0x01c0, 0x01c0, 0, 0x01c0, 0x0140, 0x0240, 0x01c0},
        0x80000000u);
    row("issue13 row D", Corner::fields_le1,
        {0x8080, 0x8001, 0x8001, 0x8000, 0, 0, 0, 0x8001, 0, 0x0080, 0, 0x8000, 0, 0x0001, 0, 0x0080},
        {0, 0x0040, 0, 0x0080, 0, 0x0040, 0x0080, 0, 0x0040, 0, 0, 0x0040, 0x0080, 0x0080, 0x0080, 0}, 0);
  }
  return out;
}

}  // namespace mxk::probes
