// numerics_cases.cpp - inputs of the numerics probes (see numerics_cases.hpp):
// random tiles and Fasi-style feature cases for the C9 hardware models of
// reference/SPEC.md. Plain C++: linked into the probe driver and the cpu tests.
#include "numerics_cases.hpp"

#include <bit>
#include <cmath>
#include <map>

#include "mx/convert.hpp"
#include "mx/error.hpp"

namespace mxk::probes {

using mx::DotCase;
using mx::Elem;
using mx::MmaForm;

namespace {
int ebits_of(Elem e) { return mx::elem_bits(e); }
}  // namespace

double elem_value(Elem e, std::uint64_t code) {
  switch (e) {
    case Elem::f16: return mx::bits_f32(mx::f16_to_f32_bits(static_cast<std::uint16_t>(code)));
    case Elem::bf16: return mx::bits_f32(mx::bf16_to_f32_bits(static_cast<std::uint16_t>(code)));
    case Elem::tf32:
    case Elem::f32: return std::bit_cast<float>(static_cast<std::uint32_t>(code));
    case Elem::e4m3: return mx::decode(mx::Fmt::e4m3, static_cast<std::uint32_t>(code));
    case Elem::e5m2: return mx::decode(mx::Fmt::e5m2, static_cast<std::uint32_t>(code));
    case Elem::s8: return static_cast<std::int8_t>(code);
    case Elem::s32: return static_cast<std::int32_t>(code);
    case Elem::f64: return std::bit_cast<double>(code);
    default: return std::nan("");
  }
}

Elem numerics_elem(MmaForm f) { return mx::form_info(f).a_elem; }

bool has_float_numerics(MmaForm f) {
  switch (f) {
    case MmaForm::mma_f16_m16n8k16: case MmaForm::mma_bf16_m16n8k16: case MmaForm::mma_tf32_m16n8k8:
    case MmaForm::mma_e4m3_m16n8k32: case MmaForm::mma_e5m2_m16n8k32: case MmaForm::wgmma_bf16_m64n8k16_rs:
    case MmaForm::wgmma_bf16_m64n8k16_ss: case MmaForm::wgmma_e4m3_m64n8k32_rs:
    case MmaForm::wgmma_e4m3_m64n8k32_ss: case MmaForm::wgmma_e5m2_m64n8k32_rs:
    case MmaForm::wgmma_e5m2_m64n8k32_ss:
      return true;
    default:
      return false;
  }
}

namespace {

// Random element: mode 0 wide exponents, mode 1 narrow (|x| near 1).
std::uint64_t rand_elem(Elem e, Rng& r, int mode) {
  const std::uint64_t s = r.next() & 1;
  if (r.next() % 20 == 0) return s << (ebits_of(e) - 1);  // signed zero, 5%
  auto build = [&](int eb, int mb, int ef) {
    const std::uint64_t m = r.next() & ((std::uint64_t{1} << mb) - 1);
    return (s << (eb + mb)) | (static_cast<std::uint64_t>(ef) << mb) | m;
  };
  switch (e) {
    case Elem::e4m3: {
      int ef = mode == 0 ? r.range(0, 15) : r.range(5, 9);
      std::uint64_t c = build(4, 3, ef);
      if ((c & 0x7F) == 0x7F) c -= 1;  // not NaN
      return c;
    }
    case Elem::e5m2: return build(5, 2, mode == 0 ? r.range(0, 30) : r.range(13, 17));
    case Elem::f16: return build(5, 10, mode == 0 ? r.range(0, 30) : r.range(13, 17));
    case Elem::bf16: return build(8, 7, mode == 0 ? r.range(127 - 30, 127 + 30) : r.range(125, 129));
    case Elem::tf32: return build(8, 10, mode == 0 ? r.range(127 - 30, 127 + 30) : r.range(125, 129)) << 13;
    case Elem::s8: return r.next() & 0xFF;
    default: throw mx::InvalidArgument("rand_elem: not an element kind with random cases");
  }
}

std::uint32_t rand_c(Elem e, Rng& r, int mode) {
  if (e == Elem::s8) return static_cast<std::uint32_t>(r.next());
  if (mode == 2 || r.next() % 10 == 0) return (r.next() & 1) ? 0x80000000u : 0u;
  const int span = (e == Elem::bf16 || e == Elem::tf32) ? 40 : e == Elem::f16 ? 24 : e == Elem::e5m2 ? 24 : 18;
  const int ex = mode == 0 ? r.range(-span, span) : r.range(-2, 6);
  const std::uint32_t s = static_cast<std::uint32_t>(r.next() & 1) << 31;
  return s | (static_cast<std::uint32_t>(ex + 127) << 23) | static_cast<std::uint32_t>(r.next() & 0x7FFFFF);
}
}  // namespace

std::vector<DotCase> random_tile_cases(MmaForm f, std::uint64_t seed, int tile) {
  const auto& fi = mx::form_info(f);
  Rng r{seed * 0x100000001B3ull + static_cast<std::uint64_t>(tile) * 0x9E3779B97F4A7C15ull +
        static_cast<std::uint64_t>(f) * 0x632BE59BD9B4E019ull};
  const int mode = tile % 3;
  const Elem e = fi.a_elem;
  std::vector<std::vector<std::uint64_t>> A(static_cast<std::size_t>(fi.m)), B(static_cast<std::size_t>(fi.n));
  for (auto& row : A)
    for (int k = 0; k < fi.k; ++k) row.push_back(rand_elem(e, r, mode == 2 ? 1 : mode));
  for (auto& col : B)
    for (int k = 0; k < fi.k; ++k) col.push_back(rand_elem(e, r, mode == 2 ? 1 : mode));
  std::vector<DotCase> out;
  for (int m = 0; m < fi.m; ++m)
    for (int n = 0; n < fi.n; ++n) {
      DotCase c;
      c.a = A[static_cast<std::size_t>(m)];
      c.b = B[static_cast<std::size_t>(n)];
      c.c = rand_c(e, r, mode);
      out.push_back(std::move(c));
    }
  return out;
}

std::uint32_t exact_int_dot(const DotCase& cs) {
  std::uint32_t acc = cs.c;
  for (std::size_t i = 0; i < cs.a.size(); ++i)
    acc += static_cast<std::uint32_t>(static_cast<std::int8_t>(cs.a[i]) * static_cast<std::int8_t>(cs.b[i]));
  return acc;
}

// Code of an exactly representable value (table of all codes, built once).
bool code_of(Elem e, double v, std::uint64_t* out) {
  if (e == Elem::tf32) {
    const float fv = static_cast<float>(v);
    const std::uint32_t u = std::bit_cast<std::uint32_t>(fv);
    if (static_cast<double>(fv) != v || (u & 0x1FFF)) return false;
    *out = u;
    return true;
  }
  static std::map<std::pair<int, std::uint64_t>, std::uint64_t> table;
  static std::map<int, bool> built;
  const int ek = static_cast<int>(e);
  if (!built[ek]) {
    const int bits = ebits_of(e);
    for (std::uint64_t c = 0; c < (std::uint64_t{1} << bits); ++c) {
      const double x = elem_value(e, c);
      if (std::isnan(x)) continue;
      table.emplace(std::make_pair(ek, std::bit_cast<std::uint64_t>(x)), c);
    }
    built[ek] = true;
  }
  const auto it = table.find({ek, std::bit_cast<std::uint64_t>(v)});
  if (it == table.end()) return false;
  *out = it->second;
  return true;
}

std::vector<Feature> feature_cases(MmaForm f) {
  const auto& fi = mx::form_info(f);
  const Elem e = fi.a_elem;
  const std::size_t K = static_cast<std::size_t>(fi.k);
  std::vector<Feature> out;
  auto base = [&] {
    DotCase c;
    c.a.assign(K, 0);
    c.b.assign(K, 0);
    return c;
  };
  // Product a*b = 2^x split over two exact factors.
  auto set_prod = [&](DotCase& c, std::size_t i, double a, double b) {
    std::uint64_t ca, cb;
    if (!code_of(e, a, &ca) || !code_of(e, b, &cb)) return false;
    c.a[i] = ca;
    c.b[i] = cb;
    return true;
  };
  auto pow2 = [](int x) { return std::ldexp(1.0, x); };
  auto split = [&](DotCase& c, std::size_t i, double sign, int x) {  // product sign * 2^x
    for (int xa = x / 2 - 12; xa <= x / 2 + 12; ++xa)
      if (set_prod(c, i, sign * pow2(xa), pow2(x - xa))) return true;
    return false;
  };
  // 1. Exact products: the largest significand squared.
  {
    DotCase c = base();
    double mx = 0;
    std::uint64_t best = 0;
    for (std::uint64_t code = 0; code < (e == Elem::tf32 ? 1u : (1u << ebits_of(e))); ++code) {
      const double v = elem_value(e, code);
      if (v >= 1.0 && v < 2.0 && v > mx) {
        mx = v;
        best = code;
      }
    }
    if (e == Elem::tf32) best = 0x3FFFE000u;
    c.a[0] = best;
    c.b[0] = best;
    out.push_back({"product_exact: (1.max)^2, c=0", c});
  }
  // 2. Alignment bits: c = 2^s, one product 2^(s-j).
  const int s = 12;
  for (int j : {20, 22, 23, 24, 25, 26, 27, 28}) {
    DotCase c = base();
    c.c = std::bit_cast<std::uint32_t>(static_cast<float>(pow2(s)));
    if (split(c, 0, 1.0, s - j)) out.push_back({"align_one: c=2^12, p0=2^(12-" + std::to_string(j) + ")", c});
  }
  // 3. Many small terms under c: c = 2^s, every product 2^(s-j).
  for (int j : {20, 23, 24, 25, 26, 27, 28, 30}) {
    DotCase c = base();
    c.c = std::bit_cast<std::uint32_t>(static_cast<float>(pow2(s)));
    bool ok = true;
    for (std::size_t i = 0; i < K; ++i) ok = ok && split(c, i, 1.0, s - j);
    if (ok) out.push_back({"align_all: c=2^12, all p=2^(12-" + std::to_string(j) + ")", c});
  }
  // 4. Rounding of the alignment: negative small term.
  for (int j : {22, 24, 26}) {
    DotCase c = base();
    c.c = std::bit_cast<std::uint32_t>(static_cast<float>(pow2(s)));
    if (split(c, 0, -1.0, s - j)) out.push_back({"align_neg: c=2^12, p0=-2^(12-" + std::to_string(j) + ")", c});
  }
  // 5. Final rounding: c = 2^s, p0 = 1.5 * 2^(s-24) (RNE rounds up, RZ not).
  {
    DotCase c = base();
    c.c = std::bit_cast<std::uint32_t>(static_cast<float>(pow2(s)));
    if (split(c, 0, 1.0, s - 23) && split(c, 1, 1.0, s - 24) && split(c, 2, 1.0, s - 25))
      out.push_back({"round_final: c=2^12 + 2^(12-23)+2^(12-24)+2^(12-25)", c});
    DotCase d = base();
    d.c = std::bit_cast<std::uint32_t>(static_cast<float>(pow2(s)));
    if (split(d, 0, 1.0, s - 24) && split(d, 1, 1.0, s - 25))
      out.push_back({"round_final: c=2^12 + 2^(12-24)+2^(12-25)", d});
  }
  // 6. Group size: p0 = 2^X and p1 = -2^X cancel; pg = 2^-X is cut away
  // when it is aligned in the same group as p0 (result 0), and survives
  // exactly when it lies in a later group (result 2^-X).
  const int X = (e == Elem::e4m3 || e == Elem::e5m2) ? 16 : 40;
  for (std::size_t g = 2; g < K; ++g) {
    DotCase c = base();
    if (split(c, 0, 1.0, X) && split(c, 1, -1.0, X) && split(c, g, 1.0, -X))
      out.push_back({"group: p0=2^" + std::to_string(X) + " p1=-p0 p" + std::to_string(g) + "=2^-" + std::to_string(X), c});
  }
  // 6b. The same with the cancelling pair elsewhere (K = 32): which k share
  // a group with k = 2, 16, 18 (maps the whole grouping, not only k = 0's).
  if (K == 32)
    for (std::size_t i0 : {std::size_t{2}, std::size_t{16}, std::size_t{18}})
      for (std::size_t g = 0; g < K; ++g) {
        if (g == i0 || g == i0 + 1) continue;
        DotCase c = base();
        if (split(c, i0, 1.0, X) && split(c, i0 + 1, -1.0, X) && split(c, g, 1.0, -X))
          out.push_back({"group@" + std::to_string(i0) + ": p" + std::to_string(i0) + "=2^" + std::to_string(X) +
                             " p" + std::to_string(i0 + 1) + "=-p" + std::to_string(i0) + " p" + std::to_string(g) +
                             "=2^-" + std::to_string(X),
                         c});
      }
  // 6c. Where C enters: c = 2^X cancels p0 = -2^X only if C is aligned in
  // p0's group; pg = 2^-X then survives when it lies in a later group.
  for (std::size_t g : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
    if (g >= K) continue;
    DotCase c = base();
    c.c = std::bit_cast<std::uint32_t>(static_cast<float>(pow2(X)));
    if (split(c, 0, -1.0, X) && split(c, g, 1.0, -X))
      out.push_back({"cgroup: c=2^" + std::to_string(X) + " p0=-c p" + std::to_string(g) + "=2^-" + std::to_string(X), c});
  }
  // 6d. Is a group result rounded to fp32 before the next group? p0 = 2^8,
  // p1 = 2^(8-j) in the first group, p2 = -2^8 in a later one (K = 32 with
  // k = 2 in another group than k = 0, as the H100 fp8 forms have).
  if (K == 32)
    for (int j : {20, 23, 24, 25, 26, 27}) {
      DotCase c = base();
      if (split(c, 0, 1.0, 8) && split(c, 1, 1.0, 8 - j) && split(c, 2, -1.0, 8))
        out.push_back({"inter: p0=2^8 p1=2^(8-" + std::to_string(j) + ") p2=-2^8", c});
    }
  // 6e. Signs of zero: c = -0 with +0 products; c = -0 with -0 products.
  {
    DotCase c = base();
    c.c = 0x80000000u;
    out.push_back({"zero_sign: c=-0, products +0", c});
    DotCase d = base();
    d.c = 0x80000000u;
    d.a[0] = std::uint64_t{1} << (ebits_of(e) - 1);  // -0
    std::uint64_t one;
    if (code_of(e, 1.0, &one)) {
      d.b[0] = one;
      out.push_back({"zero_sign: c=-0, p0=-0*1", d});
    }
  }
  // 7. Subnormal operand (element's smallest positive) times 1, c = 0.
  {
    DotCase c = base();
    c.a[0] = 1;  // code 1: smallest subnormal of every float element kind (tf32: 2^-13 units dropped)
    if (e == Elem::tf32) c.a[0] = 0x2000;
    std::uint64_t one;
    if (code_of(e, 1.0, &one)) c.b[0] = one;
    out.push_back({"subnormal_operand: min_sub * 1", c});
  }
  // 8. Subnormal result: c = 2^-126 * 1.5, p0 = -2^-126 (if reachable).
  {
    DotCase c = base();
    c.c = 0x00C00000u;
    if (split(c, 0, -1.0, -126)) out.push_back({"subnormal_result: c=1.5*2^-126, p0=-2^-126", c});
    DotCase d = base();
    d.c = 0x00000001u;
    out.push_back({"subnormal_c: c=2^-149, products 0", d});
  }
  // 9. NaN and Inf.
  {
    DotCase c = base();
    c.c = 0x7FC00000u;
    out.push_back({"nan_c: c=NaN", c});
    DotCase d = base();
    d.c = 0x7F800000u;
    out.push_back({"inf_c: c=+Inf", d});
    DotCase g = base();
    g.c = 0x7F800000u;
    if (split(g, 0, -1.0, 0)) out.push_back({"inf_c_plus_product: c=+Inf, p0=-1", g});
    DotCase h = base();
    h.c = 0x7F7FFFFFu;
    if (split(h, 0, 1.0, 104)) out.push_back({"overflow: c=max_f32, p0=2^104", h});
    DotCase n = base();
    std::uint64_t nanc = e == Elem::e4m3 ? 0x7F : e == Elem::e5m2 ? 0x7F : e == Elem::f16 ? 0x7E00
                       : e == Elem::bf16 ? 0x7FC0 : 0x7FC00000;
    n.a[0] = nanc;
    std::uint64_t one;
    if (code_of(e, 1.0, &one)) n.b[0] = one;
    out.push_back({"nan_operand: NaN * 1", n});
    if (e != Elem::e4m3) {
      DotCase i = base();
      const std::uint64_t infc = e == Elem::e5m2 ? 0x7C : e == Elem::f16 ? 0x7C00 : e == Elem::bf16 ? 0x7F80 : 0x7F800000;
      i.a[0] = infc;
      i.b[0] = one;
      out.push_back({"inf_operand: Inf * 1", i});
      DotCase z = base();
      z.a[0] = infc;
      z.b[0] = 0;
      out.push_back({"inf_times_zero: Inf * 0", z});
      DotCase mm = base();
      mm.a[0] = infc;
      mm.b[0] = one;
      mm.a[1] = infc;
      mm.b[1] = one | (std::uint64_t{1} << (ebits_of(e) - 1));
      out.push_back({"inf_minus_inf: Inf*1 + Inf*-1", mm});
    }
  }
  return out;
}
}  // namespace mxk::probes
