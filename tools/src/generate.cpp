// generate.cpp - `mxconform gen`: the golden vector inputs, TestFloat style
// (exponent classes x significand patterns, every code's neighbours and
// midpoints, plus seeded random values), and the files they go into. The
// expected columns are the reference's answers (kinds.cpp). Deterministic for
// a given (level, seed): splitmix64 and no library distributions.
#include <algorithm>
#include <cmath>
#include <set>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace mxv {
namespace {

using Rows = std::vector<std::vector<std::string>>;

std::string fname(mx::Fmt f) { return std::string(mx::desc(f).name); }

std::vector<mx::NanPolicy> nan_policies(mx::Fmt f) {
  if (mx::has_nan(mx::desc(f))) return {mx::NanPolicy::nan_canonical, mx::NanPolicy::nan_keep_sign};
  return {mx::NanPolicy::nan_to_max, mx::NanPolicy::nan_to_zero};
}

// Is the fp32 value `x` exactly representable in the input type? Returns the
// input-type bits through *out.
bool to_input(mx::InType t, std::uint32_t x, std::uint64_t* out) {
  if (t == mx::InType::f32) {
    *out = x;
    return true;
  }
  if (t == mx::InType::bf16) {
    if (x & 0xFFFF) return false;
    *out = x >> 16;
    return true;
  }
  const std::uint16_t h = mx::f32_to_f16_rne(mx::bits_f32(x));
  if (mx::f16_to_f32_bits(h) != x) {
    // NaNs: keep a NaN of the same sign.
    if (((x >> 23) & 0xFF) == 0xFF && (x & 0x7FFFFF)) {
      *out = (x >> 31 ? 0xFE00u : 0x7E00u) | ((x & 0x3FF) ? 1u : 0u);
      return true;
    }
    return false;
  }
  *out = h;
  return true;
}

// Neighbour of x (positive finite fp32 bits) one step up/down in the input type's grid.
std::uint32_t step(mx::InType t, std::uint32_t x, int dir) {
  if (t == mx::InType::f32) return dir > 0 ? x + 1 : (x ? x - 1 : 0);
  if (t == mx::InType::bf16) {
    const std::uint32_t b = x & 0xFFFF0000u;
    return dir > 0 ? b + 0x10000u : (b ? b - 0x10000u : 0);
  }
  const std::uint16_t h = mx::f32_to_f16_rne(mx::bits_f32(x));
  const std::uint16_t n = dir > 0 ? static_cast<std::uint16_t>(h + 1) : static_cast<std::uint16_t>(h ? h - 1 : 0);
  return mx::f16_to_f32_bits(n);
}

std::uint32_t fbits(double v) { return mx::f32_bits(static_cast<float>(v)); }

// ---- convert ----------------------------------------------------------------
Rows convert_rows(mx::Fmt f, mx::InType t, int level, Rng& rng) {
  const mx::FormatDesc& d = mx::desc(f);
  const int w = t == mx::InType::f32 ? 8 : 4;
  const std::uint32_t maxc = mx::max_finite_code(d);
  const double maxv = mx::max_finite(d);
  const double ulp_max = maxv - static_cast<double>(mx::decode(f, maxc - 1));
  std::vector<std::uint32_t> main, special;  // fp32 bits
  // Every non-negative finite code: the value, the midpoint to the next code
  // (the tie) and the input-grid neighbours of the midpoint.
  for (std::uint32_t c = 0; c <= maxc; ++c) {
    if (mx::has_nan(d) && std::isnan(mx::decode(f, c))) continue;
    const double v = mx::decode(f, c);
    const double next = c == maxc ? maxv + ulp_max : static_cast<double>(mx::decode(f, c + 1));
    const std::uint32_t mid = fbits((v + next) / 2);
    for (std::uint32_t x : {fbits(v), mid, step(t, mid, -1), step(t, mid, +1)}) main.push_back(x);
  }
  // Seeded random values over the format's exponent range and beyond.
  const int lo = mx::emin(d) - d.mbits - 4, hi = mx::emax(d) + 4;
  const int nrand = level == 1 ? 64 : 2048;
  for (int i = 0; i < nrand; ++i) {
    const int e = lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
    const std::uint32_t x = (static_cast<std::uint32_t>(e + 127) << 23) | (rng.u32() & 0x7FFFFFu);
    main.push_back(x);
  }
  // Specials: zeros, infinities, NaNs (quiet, signalling, with payload),
  // fp32 extremes and denormals, the overflow tie and its neighbours, the
  // underflow tie, int8's -2.
  const std::uint32_t ovt = fbits(maxv + ulp_max / 2);
  const std::uint32_t unt = fbits(mx::min_subnormal(d) / 2);
  for (std::uint32_t x : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u,
                          0x7F800001u, 0xFFA00000u, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x00000001u, 0x80000001u,
                          0x007FFFFFu, 0x00800000u, fbits(maxv), ovt, step(t, ovt, -1), step(t, ovt, +1),
                          fbits(2 * maxv), fbits(1e30), unt, step(t, unt, -1), step(t, unt, +1),
                          fbits(-2.0), fbits(-2.0 - 1.0 / 128), fbits(480.0), fbits(500.0), fbits(-127.5 / 64), fbits(-1.0 / 256)}) {
    special.push_back(x);
    if (!(x >> 31)) special.push_back(x | 0x80000000u);
  }
  Rows rows;
  std::set<std::uint64_t> seen;
  const auto emit = [&](std::uint32_t x32, mx::Rounding r, std::uint32_t rbits, mx::Overflow o, mx::NanPolicy n,
                        mx::Int8Range i8, bool flush) {
    std::uint64_t in = 0;
    if (!to_input(t, x32, &in)) return;
    rows.push_back({hex(in, w), std::string(mx::rounding_name(r)), std::string(mx::overflow_name(o)),
                    std::string(mx::nan_policy_name(n)),
                    f == mx::Fmt::int8 ? (i8 == mx::Int8Range::int8_full ? "int8_full" : "int8_symmetric") : "-",
                    flush ? "1" : "0", hex(rbits, 8)});
  };
  const std::vector<mx::Int8Range> ranges =
      f == mx::Fmt::int8 ? std::vector<mx::Int8Range>{mx::Int8Range::int8_full, mx::Int8Range::int8_symmetric}
                         : std::vector<mx::Int8Range>{mx::Int8Range::int8_full};
  const auto full_product = [&](std::uint32_t x) {
    for (mx::Rounding r : {mx::Rounding::rne, mx::Rounding::rtz, mx::Rounding::rna}) {
      for (mx::Overflow o : {mx::Overflow::saturate, mx::Overflow::propagate}) {
        for (mx::NanPolicy n : nan_policies(f)) {
          for (mx::Int8Range i8 : ranges) emit(x, r, 0, o, n, i8, false);
        }
      }
    }
    for (std::uint32_t rb : {0x00000000u, 0xFFFFFFFFu, rng.u32()}) {
      for (mx::Overflow o : {mx::Overflow::saturate, mx::Overflow::propagate}) {
        for (mx::NanPolicy n : nan_policies(f)) emit(x, mx::Rounding::sr, rb, o, n, ranges[0], false);
      }
    }
  };
  for (std::size_t i = 0; i < main.size(); ++i) {
    // Level 1 alternates the sign; level 2 has both signs and every policy.
    std::uint32_t x = main[i];
    if (level == 1) {
      if (i % 2) x |= 0x80000000u;
      std::uint64_t tmp;
      if (!to_input(t, x, &tmp) || !seen.insert(tmp).second) continue;
      for (mx::Rounding r : {mx::Rounding::rne, mx::Rounding::rtz, mx::Rounding::rna}) {
        emit(x, r, 0, mx::Overflow::saturate, nan_policies(f)[0], ranges[0], false);
      }
      emit(x, mx::Rounding::sr, rng.u32(), mx::Overflow::saturate, nan_policies(f)[0], ranges[0], false);
    } else {
      for (std::uint32_t s : {0u, 0x80000000u}) {
        std::uint64_t tmp;
        if (!to_input(t, x | s, &tmp) || !seen.insert(tmp).second) continue;
        full_product(x | s);
      }
    }
  }
  for (std::uint32_t x : special) full_product(x);
  // flush_input_subnormals on the fp32 denormals (and a normal for contrast).
  for (std::uint32_t x : {0x00000001u, 0x80400000u, 0x007FFFFFu, 0x00800000u, 0x3F800000u}) {
    emit(x, mx::Rounding::rne, 0, mx::Overflow::saturate, nan_policies(f)[0], ranges[0], true);
  }
  return rows;
}

// ---- scale --------------------------------------------------------------------
Rows scale_rows(mx::Fmt f, int level, Rng& rng) {
  const mx::FormatDesc& d = mx::desc(f);
  std::vector<std::uint32_t> a = {0u, 0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7F7FFFFFu};
  // SPEC C3 worked cases: 255, 448, 449, 500.
  for (std::uint32_t x : {0x437F0000u, 0x43E00000u, 0x43E08000u, 0x43FA0000u}) a.push_back(x);
  for (int i = 0; i < 23; ++i) {
    a.push_back(1u << i);
    a.push_back((1u << i) | ((1u << i) - 1));
  }
  // Every fp32 exponent x {power of two, all ones, the `even` rounding point
  // of the element mantissa and just below it}.
  const int mb = d.is_int ? d.mbits : d.mbits;
  const std::uint32_t top = ((1u << mb) - 1) << (23 - mb);
  const std::uint32_t evenp = top | (1u << (22 - mb));
  for (std::uint32_t e = 1; e < 255; ++e) {
    for (std::uint32_t m : {0u, 0x7FFFFFu, evenp, evenp - 1}) a.push_back((e << 23) | m);
  }
  // rceil boundaries: max_finite * 2^k and its fp32 neighbours.
  for (int k = -160; k <= 130; ++k) {
    const float v = static_cast<float>(std::ldexp(mx::max_finite(d), k));
    if (!(v > 0) || std::isinf(v)) continue;
    const std::uint32_t b = mx::f32_bits(v);
    for (std::uint32_t x : {b - 2, b - 1, b, b + 1, b + 2}) a.push_back(x);
  }
  const int nrand = level == 1 ? 64 : 4096;
  for (int i = 0; i < nrand; ++i) a.push_back(rng.u32() & 0x7FFFFFFFu);
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  Rows rows;
  for (std::uint32_t x : a) {
    if (x >> 31) continue;  // amax is non-negative (wrapped neighbours dropped)
    for (const char* r : {"floor", "ceil", "even", "rceil"}) rows.push_back({hex(x, 8), r});
  }
  return rows;
}

// ---- quantize -------------------------------------------------------------------
// Fills one block of n values (fp32 bits) with pattern p.
void fill_block(std::uint32_t* x, std::int64_t n, std::int64_t stride, int p, Rng& rng) {
  const int base = static_cast<int>(rng.below(41)) - 20;
  const auto rnd = [&](int e) {
    e = std::clamp(e, -126, 127);
    return (static_cast<std::uint32_t>(rng.below(2)) << 31) | (static_cast<std::uint32_t>(e + 127) << 23) |
           (rng.u32() & 0x7FFFFFu);
  };
  for (std::int64_t j = 0; j < n; ++j) {
    std::uint32_t v = 0;
    switch (p) {
      case 0: v = rnd(base - static_cast<int>(rng.below(9))); break;           // random, 8 binades
      case 1: v = static_cast<std::uint32_t>(rng.below(2)) << 31; break;        // amax 0: signed zeros
      case 2: v = (static_cast<std::uint32_t>(rng.below(2)) << 31) | (rng.u32() & 0x7FFFFFu); break;  // fp32 denormals
      case 3: case 4: case 5: v = rnd(base - static_cast<int>(rng.below(4))); break;  // non-finite set below
      case 6: v = rnd(base - 1 - static_cast<int>(rng.below(3))); break;       // amax all ones set below
      case 7: v = rnd(base - static_cast<int>(rng.below(31))); break;          // wide range
      case 8: v = rnd(120 + static_cast<int>(rng.below(8))); break;            // huge
      case 9: v = (static_cast<std::uint32_t>(rng.below(2)) << 31) |
                  (rng.below(2) ? (static_cast<std::uint32_t>(1 + rng.below(6)) << 23) : 0u) | (rng.u32() & 0x7FFFFFu);
        break;  // tiny: smallest normals and denormals
      case 10: v = rnd(base - static_cast<int>(rng.below(4))) & ~0x1FFFFu; break;  // short significands: ties
      default: v = 0xBFC00000u + (static_cast<std::uint32_t>(base) << 23); break;  // all equal, negative
    }
    x[j * stride] = v;
  }
  const std::int64_t at = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n)));
  if (p == 3) x[at * stride] = 0x7FC00000u;
  if (p == 4) x[at * stride] = 0x7F800000u;
  if (p == 5) x[at * stride] = 0xFF800000u;
  if (p == 6) x[at * stride] = (static_cast<std::uint32_t>(base + 127) << 23) | 0x7FFFFFu;
}
constexpr int kPatterns = 12;

Rows quantize_rows(const mx::Recipe& r, mx::Axis axis, mx::InType t, int level, Rng& rng) {
  // (rows, cols) along the quantized axis: (outer, inner); colwise swaps them.
  const std::vector<std::pair<int, int>> l1 = {{1, 32}, {2, 64}, {1, 40}, {3, 33}, {1, 1}, {2, 7},
                                               {1, 100}, {4, 32}, {1, 16}, {2, 48}};
  const std::vector<std::pair<int, int>> l2 = {{8, 256}, {5, 96}, {16, 33}, {3, 200}, {1, 1024}};
  std::vector<std::pair<int, int>> shapes = l1;
  if (level == 2) shapes.insert(shapes.end(), l2.begin(), l2.end());
  const int reps = level == 1 ? 2 : 8;
  const bool col = axis == mx::Axis::colwise;
  const int w = t == mx::InType::f32 ? 8 : 4;
  Rows rows;
  int counter = 0;
  for (const auto& [outer, inner] : shapes) {
    for (int rep = 0; rep < reps; ++rep) {
      const std::int64_t M = col ? inner : outer, K = col ? outer : inner;
      std::vector<std::uint32_t> x(static_cast<std::size_t>(M * K));
      for (std::int64_t o = 0; o < outer; ++o) {
        for (std::int64_t b0 = 0; b0 < inner; b0 += r.block) {
          const std::int64_t n = std::min<std::int64_t>(r.block, inner - b0);
          std::uint32_t* p = col ? x.data() + b0 * K + o : x.data() + o * K + b0;
          fill_block(p, n, col ? K : 1, counter++ % kPatterns, rng);
        }
      }
      std::string xs;
      for (std::uint32_t v : x) {
        std::uint64_t in = 0;
        if (t == mx::InType::f32) {
          in = v;
        } else if (t == mx::InType::bf16) {
          in = v >> 16;
        } else if (!to_input(t, v, &in)) {
          in = mx::f32_to_f16_rne(mx::bits_f32(v));
        }
        append_hex(xs, in, w);
      }
      rows.push_back({std::to_string(M) + "x" + std::to_string(K), xs});
    }
  }
  return rows;
}

// ---- pack -------------------------------------------------------------------
Rows pack_rows(mx::Fmt f, int level, Rng& rng) {
  const std::uint64_t lim = std::uint64_t{1} << mx::desc(f).bits;
  Rows rows;
  const int nmax = level == 1 ? 40 : 300;
  for (int n = 1; n <= nmax; ++n) {
    for (int variant = 0; variant < (n <= 8 ? 3 : 1); ++variant) {
      std::string c;
      for (int i = 0; i < n; ++i) {
        const std::uint64_t v = variant == 1 ? lim - 1 : variant == 2 ? (i % 2 ? 0 : lim - 1) : rng.below(lim);
        append_hex(c, v, 2);
      }
      rows.push_back({std::to_string(n), c});
    }
  }
  return rows;
}

// ---- layout -----------------------------------------------------------------
Rows layout_rows(int level, Rng& rng) {
  std::vector<std::int64_t> R = {1, 2, 31, 32, 33, 127, 128, 129, 200, 255, 256, 257, 384, 1000};
  std::vector<std::int64_t> B = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 33};
  if (level == 2) {
    R.insert(R.end(), {511, 512, 513, 4096, 4097});
    B.insert(B.end(), {16, 64, 65, 128});
  }
  Rows rows;
  const auto add = [&](std::int64_t r, std::int64_t b, std::int64_t n, std::int64_t bi, std::int64_t ri,
                       std::int64_t ki) {
    rows.push_back({std::to_string(r), std::to_string(b), std::to_string(n), std::to_string(bi), std::to_string(ri),
                    std::to_string(ki)});
  };
  // SPEC C7 worked examples (R = 256, K = 256, V = 32; R = 200, K = 192).
  for (auto [ri, ki] : std::vector<std::pair<int, int>>{{0, 1}, {1, 0}, {31, 0}, {32, 0}, {127, 3}, {0, 4},
                                                        {128, 0}, {255, 7}}) {
    add(256, 8, 1, 0, ri, ki);
  }
  add(200, 6, 1, 0, 199, 5);
  int idx = 0;
  const int nrand = level == 1 ? 4 : 32;
  for (std::int64_t r : R) {
    for (std::int64_t b : B) {
      const std::int64_t n = (idx++ % 5 == 4) ? 2 + idx % 2 : 1;
      add(r, b, n, 0, 0, 0);
      add(r, b, n, n - 1, r - 1, b - 1);
      add(r, b, n, 0, r - 1, 0);
      add(r, b, n, 0, 0, b - 1);
      for (int i = 0; i < nrand; ++i) {
        add(r, b, n, static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))),
            static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(r))),
            static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(b))));
      }
    }
  }
  return rows;
}

// ---- dequant ------------------------------------------------------------------
Rows dequant_rows(mx::Fmt f, int level, Rng& rng) {
  std::vector<std::uint32_t> scales;
  if (level == 2) {
    for (std::uint32_t s = 0; s < 256; ++s) scales.push_back(s);
  } else {
    scales = {0x00, 0x01, 0x50, 0x66, 0x70, 0x76, 0x7f, 0x80, 0x85, 0x8e, 0x8f, 0x90, 0xf0, 0xfe, 0xff};
    for (int i = 0; i < 3; ++i) scales.push_back(static_cast<std::uint32_t>(rng.below(255)));
  }
  const std::uint32_t lim = 1u << mx::desc(f).bits;
  Rows rows;
  for (std::uint32_t s : scales) {
    for (std::uint32_t e = 0; e < lim; ++e) rows.push_back({hex(s, 2), hex(e, 2)});
  }
  return rows;
}

Rows dequant_nvfp4_rows(int level, Rng& rng) {
  std::vector<std::uint32_t> g = {0x00000000u, 0x3F800000u, fbits(2688.0), fbits(448.0), 0x0DA24260u /*1e-30*/,
                                  0x7F7FFFFFu, 0x7F800000u, 0x00000001u};
  for (int i = 0; i < (level == 1 ? 3 : 30); ++i) g.push_back((static_cast<std::uint32_t>(rng.below(60) + 97) << 23) | (rng.u32() & 0x7FFFFFu));
  std::vector<std::uint32_t> s = {0x00, 0x01, 0x08, 0x38, 0x7e, 0x7f};
  for (int i = 0; i < (level == 1 ? 4 : 40); ++i) s.push_back(static_cast<std::uint32_t>(rng.below(0x80)));
  Rows rows;
  for (std::uint32_t gv : g) {
    for (std::uint32_t sv : s) {
      for (std::uint32_t e = 0; e < 16; ++e) rows.push_back({hex(gv, 8), hex(sv, 2), hex(e, 2)});
    }
  }
  return rows;
}

// ---- dot ----------------------------------------------------------------------
Rows dot_rows(mx::Fmt fa, mx::Fmt fb, bool nv, int level, Rng& rng) {
  const int V = nv ? 16 : 32;
  const std::vector<int> ks = {1, 7, 16, 31, 32, 33, 64, 96, 128};
  const int reps = level == 1 ? 12 : 100;
  const auto finite_code = [&](mx::Fmt f) {
    const std::uint64_t lim = std::uint64_t{1} << mx::desc(f).bits;
    for (;;) {
      const auto c = static_cast<std::uint32_t>(rng.below(lim));
      const float v = mx::decode(f, c);
      if (std::isfinite(v)) return c;
    }
  };
  Rows rows;
  int pat = 0;
  for (int rep = 0; rep < reps; ++rep) {
    for (int k : ks) {
      const int p = pat++ % 6;
      const int nb = (k + V - 1) / V;
      std::vector<std::uint32_t> a(static_cast<std::size_t>(k)), b(a.size()), sa(static_cast<std::size_t>(nb)), sb(sa.size());
      for (int i = 0; i < k; ++i) {
        a[i] = finite_code(fa);
        b[i] = finite_code(fb);
      }
      for (int i = 0; i < nb; ++i) {
        if (nv) {
          sa[i] = static_cast<std::uint32_t>(rng.below(0x7F));
          sb[i] = static_cast<std::uint32_t>(rng.below(0x7F));
        } else {
          sa[i] = static_cast<std::uint32_t>(117 + rng.below(21));
          sb[i] = static_cast<std::uint32_t>(117 + rng.below(21));
        }
      }
      std::uint32_t c = p == 5 ? (rng.u32() & 0xC7FFFFFFu) : (rng.below(2) ? 0u : fbits(std::ldexp(1.0, static_cast<int>(rng.below(20)) - 10)));
      if (p == 1 && fa == fb) {
        // cancellation: b = a, and the second half of a negated.
        for (int i = 0; i < k; ++i) {
          b[i] = a[i];
          if (i >= k / 2) a[i] ^= mx::sign_mask(mx::desc(fa));  // int8: no sign bit, no cancellation
        }
        for (int i = 0; i < nb; ++i) sb[i] = sa[i];
      }
      if (p == 2 && !nv) {  // extreme scales
        for (int i = 0; i < nb; ++i) {
          sa[i] = rng.below(2) ? 0x00 : 0xFE;
          sb[i] = rng.below(2) ? 0x00 : 0xFE;
        }
      }
      if (p == 3) sa[0] = nv ? 0x7F : 0xFF;  // NaN scale
      if (p == 4 && mx::has_nan(mx::desc(fa))) a[0] = fa == mx::Fmt::e5m2 ? 0x7C : 0x7F;  // Inf or NaN element
      std::string as, ae, bs, be;
      for (auto v : sa) append_hex(as, v, 2);
      for (auto v : a) append_hex(ae, v, 2);
      for (auto v : sb) append_hex(bs, v, 2);
      for (auto v : b) append_hex(be, v, 2);
      const std::uint32_t ga = nv ? (static_cast<std::uint32_t>(107 + rng.below(30)) << 23) | (rng.u32() & 0x7FFFFFu) : 0x3F800000u;
      const std::uint32_t gb = nv ? (static_cast<std::uint32_t>(107 + rng.below(30)) << 23) | (rng.u32() & 0x7FFFFFu) : 0x3F800000u;
      rows.push_back({std::to_string(k), as, ae, hex(ga, 8), bs, be, hex(gb, 8), hex(c, 8)});
    }
  }
  return rows;
}

std::string recipe_file(const std::string& name) {
  std::string s = name;
  std::replace(s.begin(), s.end(), ':', '-');
  return s;
}

}  // namespace

std::vector<VecFile> generate(const GenOptions& o) {
  if (o.level != 1 && o.level != 2) throw mx::InvalidArgument("--level must be 1 or 2");
  std::vector<std::string> recipes;
  if (o.recipes.empty()) {
    recipes = mx::recipe_names();
    for (const char* extra : {"mxfp8_e4m3:nonfinite_block_ignore", "mxfp8_e4m3:propagate", "mxfp8_e5m2:nan_keep_sign",
                              "mxint8:int8_symmetric", "mxfp4:rna"}) {
      recipes.emplace_back(extra);
    }
  } else {
    for (const auto& r : o.recipes) {
      const mx::Recipe rr = mx::parse_recipe(r);
      if (rr.conv.rounding == mx::Rounding::sr) {
        throw mx::InvalidArgument("recipe '" + r + "': gen does not write quantize vectors for sr (use convert vectors)");
      }
      recipes.push_back(rr.name());
    }
  }
  std::set<mx::Fmt> fmts;
  bool any_nv = false;
  for (const auto& r : recipes) {
    const mx::Recipe rr = mx::parse_recipe(r);
    fmts.insert(rr.elem);
    any_nv |= rr.is_nvfp4();
  }
  const int L = o.level;
  std::vector<VecFile> files;
  // Each file has its own stream, so adding a file never changes another.
  const auto rng_for = [&](const std::string& path) {
    std::uint64_t h = o.seed;
    for (char c : path) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    return Rng(h);
  };
  const auto add = [&](const std::string& path, const std::string& kind, const Params& p, auto&& gen) {
    Rng rng = rng_for(path);
    auto k = make_kind(kind);
    k->set_params(p);
    files.push_back(build_file(path, *k, p, L, o.seed, gen(rng)));
    if (o.on_file) o.on_file(path);
  };
  for (mx::Fmt f : mx::kElementFormats) {
    if (!fmts.count(f)) continue;
    for (mx::InType t : {mx::InType::f32, mx::InType::bf16, mx::InType::f16}) {
      const std::string tn(mx::in_type_name(t));
      add("convert/" + fname(f) + "_from_" + tn + ".csv", "convert", {{"format", fname(f)}, {"input", tn}},
          [&](Rng& g) { return convert_rows(f, t, L, g); });
    }
  }
  for (mx::Fmt f : mx::kElementFormats) {
    if (!fmts.count(f)) continue;
    add("scale/" + fname(f) + ".csv", "scale", {{"format", fname(f)}}, [&](Rng& g) { return scale_rows(f, L, g); });
  }
  std::vector<mx::InType> qtypes = {mx::InType::f32};
  if (L == 2) qtypes = {mx::InType::f32, mx::InType::bf16, mx::InType::f16};
  for (const auto& r : recipes) {
    const mx::Recipe rr = mx::parse_recipe(r);
    for (mx::Axis a : {mx::Axis::rowwise, mx::Axis::colwise}) {
      for (mx::InType t : qtypes) {
        const std::string an(mx::axis_name(a)), tn(mx::in_type_name(t));
        add("quantize/" + an + "/" + recipe_file(rr.name()) + "_from_" + tn + ".csv", "quantize",
            {{"recipe", rr.name()}, {"axis", an}, {"input", tn}}, [&](Rng& g) { return quantize_rows(rr, a, t, L, g); });
      }
    }
  }
  for (mx::Fmt f : {mx::Fmt::e2m1, mx::Fmt::e3m2, mx::Fmt::e2m3}) {
    if (!fmts.count(f)) continue;
    for (const char* p : {"packed", "container8"}) {
      add("pack/" + fname(f) + "_" + p + ".csv", "pack", {{"format", fname(f)}, {"packing", p}},
          [&](Rng& g) { return pack_rows(f, L, g); });
    }
  }
  for (const char* l : {"dense", "dense_colwise", "tcgen05"}) {
    add(std::string("layout/") + l + ".csv", "layout", {{"layout", l}}, [&](Rng& g) { return layout_rows(L, g); });
  }
  for (mx::Fmt f : mx::kElementFormats) {
    if (!fmts.count(f)) continue;
    add("dequant/" + fname(f) + ".csv", "dequant", {{"format", fname(f)}}, [&](Rng& g) { return dequant_rows(f, L, g); });
  }
  if (any_nv) {
    for (const char* r : {"nvfp4", "nvfp4:torchao"}) {
      add("dequant/" + recipe_file(r) + ".csv", "dequant_nvfp4", {{"recipe", r}},
          [&](Rng& g) { return dequant_nvfp4_rows(L, g); });
    }
  }
  const std::vector<std::pair<mx::Fmt, mx::Fmt>> pairs = {
      {mx::Fmt::e4m3, mx::Fmt::e4m3}, {mx::Fmt::e5m2, mx::Fmt::e5m2}, {mx::Fmt::e3m2, mx::Fmt::e3m2},
      {mx::Fmt::e2m3, mx::Fmt::e2m3}, {mx::Fmt::e2m1, mx::Fmt::e2m1}, {mx::Fmt::int8, mx::Fmt::int8},
      {mx::Fmt::e4m3, mx::Fmt::e5m2}};
  for (const auto& [fa, fb] : pairs) {
    if (!fmts.count(fa) || !fmts.count(fb)) continue;
    add("dot/" + fname(fa) + "_" + fname(fb) + ".csv", "dot",
        {{"a_format", fname(fa)}, {"b_format", fname(fb)}, {"scale_format", "ue8m0"}, {"block", "32"}},
        [&](Rng& g) { return dot_rows(fa, fb, false, L, g); });
  }
  if (any_nv) {
    add("dot/nvfp4.csv", "dot", {{"a_format", "e2m1"}, {"b_format", "e2m1"}, {"scale_format", "ue4m3"}, {"block", "16"}},
        [&](Rng& g) { return dot_rows(mx::Fmt::e2m1, mx::Fmt::e2m1, true, L, g); });
  }
  return files;
}

}  // namespace mxv
