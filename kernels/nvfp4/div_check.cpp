// div_check.cpp - host check of the NVFP4 torchao-order quotient without a
// per-element IEEE division (Nvfp4Q<1>::scaled, kernels/common/block_quant.cuh).
// Not built by CMake and not run by CI: run it by hand (no CUDA needed; x86
// SSE float division and std::fma round to nearest even like the GPU's
// div.rn.f32 / fma.rn.f32, and subnormals are kept: do not build with
// -ffast-math or flush-to-zero):
//
//   g++ -O2 -std=c++20 -ffp-contract=off -fopenmp kernels/nvfp4/div_check.cpp -o /tmp/div_check
//   /tmp/div_check            # the kernel's sequence: every count must be 0
//   /tmp/div_check --one-step # Markstein's step on q0 = RN(a * RN(1/b)) directly
//   /tmp/div_check --broken   # q0 = RN(a * RN(1/b)) alone (every 23rd recipe divisor): must report mismatches
//   /tmp/div_check --scale    # the block scale's two divisions (div6_rn, div_rn_pos; below)
//   /tmp/div_check --scale-broken  # div_rn_pos as q0 = RN(a * RN(1/b)) alone: must report mismatches
//
// --scale: torchao's block scale sc = RN(RN(m / 6) / pts) without IEEE
// divisions (Nvfp4Q<1>::div6_rn, div_rn_pos; pts in the fast range):
//   - div6_rn(m) against m / 6 for EVERY finite fp32 m >= 0: equal bits
//     wherever m / 6 is normal; below, the count of (at most one subnormal
//     ulp) differences, harmless since the quotient by pts >= 2^-64 is then
//     below 2^-6 (checked at pts = 2^-64);
//   - div_rn_pos(div6_rn(m), pts, RN(1/pts)) against (m / 6) / pts for the
//     recipe's pairs: pts = RN(G / 2688) for many G, m every bf16 value in
//     [0, G] and random fp32 m in [0, G]: the bits must be equal wherever
//     the exact sc >= 2^-6 (below, both must be below 2^-6: the clamp makes
//     both 2^-6), so the ue4m3 code is the exact path's.
//
// For every dividend a in A (every bf16 bit pattern, every f16 bit pattern,
// random and edge fp32 patterns) and every divisor b in B it compares, per
// element, the kernel's fast sequence with the exact path
// clamp(RN(a / b), -6, 6) -> e2m1 (RNE, saturating, NaN -> +max 0x7):
//   - the e2m1 code (4 bits, sign included), always;
//   - the fp32 quotient bits (sign attached) wherever the fast path is taken
//     and the quotient is "regular" (b in the fast range, RN(|a|/b) in
//     [2^-30, 16), not NaN): there Markstein's theorem applies and the bits
//     must be RN(a/b) itself;
//   - in the regular range, whether the q that the theorem's step starts
//     from is within 1 ulp of |a|/b (its hypothesis): q1 for the kernel's
//     sequence (must be all), q0 = RN(|a| * y) for --one-step (is not).
// B: the divisors the recipe produces, total = RN(pts * decode(s)) with
// pts = RN(G / 2688) for many G and every ue4m3 value s (incl. subnormal
// decodes, below the 2^-6 clamp, and NaN), plus random fp32 b over the
// whole range incl. subnormals, b with all-ones / all-zeros significands at
// every exponent, the fast-range bounds +-1 ulp, 0, Inf, NaN.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "host_check.hpp"

namespace {

using nvfp4_check::e2m1;
using nvfp4_check::f_of;
using nvfp4_check::u_of;

float clamp_nan(float v, float lo, float hi) { return v != v ? v : (v < lo ? lo : (v > hi ? hi : v)); }

// The exact path (the reference's operation order, and the kernel's
// MXK_NVFP4_EXACT_DIV path).
uint32_t exact_code(float a, float total) { return e2m1(clamp_nan(a / total, -6.0f, 6.0f)); }

// The kernel's per-block test and per-element sequence (keep in step with
// Nvfp4Q<1>::scaled).
constexpr float kFastLo = 0x1p-64f, kFastHi = 0x1p64f;
bool fast_block(float total) { return total >= kFastLo && total <= kFastHi; }
enum class Seq { kernel, one_step, broken } g_seq = Seq::kernel;
uint32_t fast_bits(float a, float total, float y) {
  const float ax = std::fabs(a);
  float res;
  if (g_seq == Seq::kernel) {  // Nvfp4Q<1>::quotient_rn
    const float q0 = ax * y;
    const float q1 = std::fmin(std::fma(std::fma(-q0, total, ax), y, q0), 16.0f);
    res = std::fma(std::fma(-q1, total, ax), y, q1);
  } else if (g_seq == Seq::one_step) {  // Markstein's step on q0 directly (q0 not always within 1 ulp)
    const float q0 = std::fmin(ax * y, 16.0f);
    res = std::fma(std::fma(-q0, total, ax), y, q0);
  } else {  // broken on purpose: q0 alone
    res = std::fmin(ax * y, 16.0f);
  }
  return (u_of(res) & 0x7FFFFFFFu) | (u_of(a) & 0x80000000u);
}

struct Counts {
  uint64_t pairs = 0, fast = 0, regular = 0, code_mismatch = 0, bits_mismatch = 0, q_not_faithful = 0;
  uint64_t slow_would_fail = 0;  // outside the fast range: codes the fast sequence would get wrong
  void add(const Counts& o) {
    pairs += o.pairs; fast += o.fast; regular += o.regular; code_mismatch += o.code_mismatch;
    bits_mismatch += o.bits_mismatch; q_not_faithful += o.q_not_faithful; slow_would_fail += o.slow_would_fail;
  }
};

uint32_t first_bad_a = 0, first_bad_b = 0;

void check_pair(float a, float b, float y, Counts& c) {
  ++c.pairs;
  const uint32_t ex = exact_code(a, b);
  if (!fast_block(b)) {
    // the kernel takes the exact path: nothing to compare; count what the
    // fast sequence would get wrong there (why the range test exists)
    const float yy = 1.0f / b;
    const uint32_t fb = fast_bits(a, b, yy);
    if (e2m1(f_of(fb)) != ex) ++c.slow_would_fail;
    return;
  }
  ++c.fast;
  const uint32_t fb = fast_bits(a, b, y);
  if (e2m1(f_of(fb)) != ex) {
    ++c.code_mismatch;
#pragma omp critical
    if (first_bad_b == 0) { first_bad_a = u_of(a); first_bad_b = u_of(b); }
  }
  const float ax = std::fabs(a);
  const float q = ax / b;
  if (q == q && q >= 0x1p-30f && q < 16.0f) {
    ++c.regular;
    const uint32_t want = u_of(a / b);
    if (fb != want) ++c.bits_mismatch;
    // the theorem's hypothesis on q: is q0 (one_step) / q1 (kernel) within
    // one ulp of ax / b? (in double: ax / b to 53 bits, enough here)
    const float q0 = ax * y;
    const float qh = g_seq == Seq::kernel ? std::fmin(std::fma(std::fma(-q0, b, ax), y, q0), 16.0f) : q0;
    const double exactq = static_cast<double>(ax) / static_cast<double>(b);
    const double ulp = std::ldexp(1.0, std::ilogb(exactq) - 23);
    if (std::fabs(static_cast<double>(qh) - exactq) >= ulp) ++c.q_not_faithful;
  }
}

float ue4m3_decode(uint32_t c) {
  if (c == 0x7F) return NAN;
  const uint32_t e = c >> 3, m = c & 7u;
  return e == 0 ? static_cast<float>(m) * 0x1p-9f : std::ldexp(static_cast<float>(8 + m), static_cast<int>(e) - 10);
}

// keep in step with Nvfp4Q<1>::div6_rn / div_rn_pos (block_quant.cuh)
float div6_rn(float m) {
  const float c = 1.0f / 6.0f;
  const float q0 = m * c;
  return std::fma(std::fma(-q0, 6.0f, m), c, q0);
}
bool g_scale_broken = false;
float div_rn_pos(float a, float b, float y) {
  const float q0 = a * y;
  const float q1 = std::fma(std::fma(-q0, b, a), y, q0);
  return g_scale_broken ? q0 : std::fma(std::fma(-q1, b, a), y, q1);
}

int scale_check() {
  // div6_rn for every finite m >= 0
  unsigned long long d6_normal_bad = 0, d6_sub_diff = 0, d6_sub_far = 0, d6_clamp_bad = 0;
#pragma omp parallel for reduction(+ : d6_normal_bad, d6_sub_diff, d6_sub_far, d6_clamp_bad) schedule(static)
  for (long long i = 0; i < 0x7F800000LL; ++i) {
    const float m = f_of(static_cast<uint32_t>(i));
    const float want = m / 6.0f, got = div6_rn(m);
    if (u_of(got) == u_of(want)) continue;
    if (want >= FLT_MIN) {
      ++d6_normal_bad;
    } else {
      ++d6_sub_diff;
      const long long dd = static_cast<long long>(u_of(got)) - static_cast<long long>(u_of(want));
      if (dd > 1 || dd < -1) ++d6_sub_far;
      const float pts = kFastLo;  // the smallest fast-range pts: the largest quotient
      if (!(div_rn_pos(got, pts, 1.0f / pts) < 0.015625f)) ++d6_clamp_bad;
    }
  }
  std::printf("div6_rn, every finite m >= 0: mismatches where m/6 is normal %llu; subnormal m/6: %llu differ "
              "(%llu by more than one ulp, %llu not below 2^-6 after the division by pts = 2^-64)\n",
              d6_normal_bad, d6_sub_diff, d6_sub_far, d6_clamp_bad);

  // the block scale on the recipe's pairs
  std::mt19937 rng(20261129u);
  std::vector<float> G;
  for (uint32_t h = 0x0001; h < 0x7F80; h += 61) G.push_back(f_of(h << 16));
  for (int i = 0; i < 600; ++i) G.push_back(f_of(rng() & 0x7F7FFFFFu));
  for (float g : {1.0f, 2688.0f, 448.0f, 6.0f, FLT_MAX, FLT_MIN, 3.0e38f, 1e-30f, 0x1p-52f, 0x1p-55f, 0x1p75f, 0x1p76f})
    G.push_back(g);
  unsigned long long pairs = 0, fast = 0, bits_bad = 0, clamp_bad = 0;
  float bad_m = 0, bad_g = 0;
#pragma omp parallel for reduction(+ : pairs, fast, bits_bad, clamp_bad) schedule(dynamic, 4)
  for (long j = 0; j < static_cast<long>(G.size()); ++j) {
    const float g = G[static_cast<size_t>(j)];
    const float pts = g / 2688.0f;
    if (!(pts >= kFastLo && pts <= kFastHi)) continue;  // the kernel divides (__fdiv_rn)
    const float y = 1.0f / pts;
    std::mt19937 r2(static_cast<uint32_t>(j));
    auto one = [&](float m) {
      ++pairs;
      ++fast;
      const float want = (m / 6.0f) / pts, got = div_rn_pos(div6_rn(m), pts, y);
      if (want >= 0.015625f) {
        if (u_of(got) != u_of(want)) {
          ++bits_bad;
#pragma omp critical
          { bad_m = m; bad_g = g; }
        }
      } else if (!(got < 0.015625f)) {
        ++clamp_bad;
      }
    };
    for (uint32_t h = 0; h < 0x7F80u; ++h) {  // every non-negative finite bf16 m <= G
      const float m = f_of(h << 16);
      if (m > g) break;
      one(m);
    }
    for (int i = 0; i < 20000; ++i) {  // random fp32 m in [0, G]: G times a random fraction, and near G
      const float t = static_cast<float>(r2() >> 8) * 0x1p-24f;
      one(g * t);
      const uint32_t d = r2() & 0xFFFu;
      one(u_of(g) >= d ? f_of(u_of(g) - d) : 0.0f);
    }
    one(g);
  }
  std::printf("block scale, recipe pairs (m <= G, pts = RN(G / 2688) in the fast range): %llu pairs, %llu fast; "
              "bit mismatches where sc >= 2^-6: %llu; not below 2^-6 where it must be: %llu\n",
              pairs, fast, bits_bad, clamp_bad);
  if (bits_bad) std::printf("a mismatch: m = %a, G = %a\n", bad_m, bad_g);
  const bool bad = d6_normal_bad || d6_sub_far || d6_clamp_bad || bits_bad || clamp_bad;
  std::printf("%s\n", bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--scale") == 0) return scale_check();
  if (argc > 1 && std::strcmp(argv[1], "--scale-broken") == 0) {
    g_scale_broken = true;
    return scale_check();
  }
  if (argc > 1 && std::strcmp(argv[1], "--broken") == 0) g_seq = Seq::broken;
  if (argc > 1 && std::strcmp(argv[1], "--one-step") == 0) g_seq = Seq::one_step;
  std::mt19937 rng(20261127u);

  // ---- dividends ----
  std::vector<float> A;
  for (uint32_t h = 0; h < 65536; ++h) A.push_back(f_of(h << 16));  // every bf16
  for (uint32_t h = 0; h < 65536; ++h) {                           // every f16 (widened exactly)
    const uint32_t s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? std::ldexp(static_cast<float>(m), -24)
                     : (e == 31 ? (m ? NAN : INFINITY) : std::ldexp(static_cast<float>(1024 + m), static_cast<int>(e) - 25));
    A.push_back(s ? -v : v);
  }
  const size_t narrow_a = A.size();
  for (int i = 0; i < 16384; ++i) A.push_back(f_of(static_cast<uint32_t>(rng())));  // random fp32 patterns
  for (int e = 1; e < 255; ++e) {  // all-ones / all-zeros significands at every exponent
    A.push_back(f_of((static_cast<uint32_t>(e) << 23) | 0x7FFFFFu));
    A.push_back(f_of(static_cast<uint32_t>(e) << 23));
  }

  // ---- divisors ----
  std::vector<float> Brecipe, Bother;
  std::vector<float> G;  // global amax values: bf16 steps over the range, random fp32, edges
  for (uint32_t h = 0x0001; h < 0x7F80; h += 97) G.push_back(f_of(h << 16));
  for (int i = 0; i < 400; ++i) G.push_back(f_of(rng() & 0x7F7FFFFFu));
  for (float g : {1.0f, 2688.0f, 448.0f, 6.0f, FLT_MAX, FLT_MIN, 0x1p-149f, 3.0e38f, 1e-30f, 0.0f}) G.push_back(g);
  for (float g : G) {
    const float pts = g / 2688.0f;
    for (uint32_t s = 0; s < 0x80; ++s) Brecipe.push_back(pts * ue4m3_decode(s));
  }
  for (int i = 0; i < 4000; ++i) Bother.push_back(f_of(rng() & 0x7FFFFFFFu));  // random, incl. subnormal, Inf, NaN
  for (int e = 0; e < 255; ++e) {
    Bother.push_back(f_of((static_cast<uint32_t>(e) << 23) | 0x7FFFFFu));
    Bother.push_back(f_of(static_cast<uint32_t>(e) << 23));
  }
  for (float b : {kFastLo, kFastHi, 0.0f, INFINITY, NAN, 0x1p-149f, FLT_MAX}) {
    Bother.push_back(b);
    Bother.push_back(std::nextafter(b, 0.0f));
    Bother.push_back(std::nextafter(b, INFINITY));
  }

  auto run = [&](const char* name, const std::vector<float>& B, size_t a_end) {
    Counts tot;
#pragma omp parallel
    {
      Counts c;
#pragma omp for schedule(dynamic, 16)
      for (long j = 0; j < static_cast<long>(B.size()); ++j) {
        const float b = B[static_cast<size_t>(j)];
        const float y = 1.0f / b;  // the per-block reciprocal (RN)
        for (size_t i = 0; i < a_end; ++i) check_pair(A[i], b, y, c);
      }
#pragma omp critical
      tot.add(c);
    }
    std::printf("%-34s divisors %8zu  pairs %12llu  fast %12llu  regular %12llu  code mismatches %llu  "
                "bit mismatches %llu  q not within 1 ulp %llu  (outside the range: fast sequence would miss %llu codes)\n",
                name, B.size(), (unsigned long long)tot.pairs, (unsigned long long)tot.fast,
                (unsigned long long)tot.regular, (unsigned long long)tot.code_mismatch,
                (unsigned long long)tot.bits_mismatch, (unsigned long long)tot.q_not_faithful,
                (unsigned long long)tot.slow_would_fail);
    return tot.code_mismatch + tot.bits_mismatch;
  };
  if (g_seq == Seq::broken) {  // every 23rd recipe divisor: enough to show it failing, quickly
    std::vector<float> sub;
    for (size_t j = 0; j < Brecipe.size(); j += 23) sub.push_back(Brecipe[j]);
    Brecipe.swap(sub);
  }
  std::printf("sequence: %s\n", g_seq == Seq::broken     ? "BROKEN (q0 alone)"
                                 : g_seq == Seq::one_step ? "one step (q0, r, q1: Markstein on q0)"
                                                          : "kernel (q0, r0, q1 capped, r1, result)");
  uint64_t bad = 0;
  bad += run("recipe totals x (bf16, f16, fp32 a)", Brecipe, A.size());
  bad += run("other divisors x (bf16, f16, fp32 a)", Bother, A.size());
  (void)narrow_a;
  if (bad) std::printf("first mismatch: a = 0x%08x, b = 0x%08x\n", first_bad_a, first_bad_b);
  std::printf("%s\n", bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
