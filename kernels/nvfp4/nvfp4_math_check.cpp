// nvfp4_math_check.cpp - exhaustive host check of a shortcut in the NVFP4
// torchao-order quantizer (Nvfp4Q<1>, kernels/common/block_quant.cuh).
// Not built by CMake and not run by CI: run it by hand (no CUDA needed; x86
// SSE float division and std::fma round to nearest even like the GPU's
// div.rn.f32 / fma.rn.f32, subnormals kept: no -ffast-math):
//
//   g++ -O2 -std=c++20 -ffp-contract=off -fopenmp kernels/nvfp4/nvfp4_math_check.cpp -o /tmp/nvfp4_math_check
//   /tmp/nvfp4_math_check     # both mismatch counts must be 0
//
// The element quotient x / total for NARROW inputs (bf16, f16: at most 11
// significant bits) as three instructions on the signed x: q0 = RN(x * y),
// y = RN(1/total), r = RD(x - q0 * total) (fma.rm), result RN(q0 + r * y)
// (Markstein's step on q0 directly; q0 is not always within one ulp, so the
// theorem alone does not cover it: this check does). In the fast range
// (total in [2^-64, 2^64]) every step scales exactly by powers of two for
// normal x, so the result depends only on the significands of x and total
// and on the exponent difference. The recipe's totals RN(pts * decode(s)),
// pts = RN(G / 2688), have significands fixed by G's significand and s's
// (8 values; the subnormal ue4m3 decodes have the same ones): with G a
// NARROW value (G is an input element) that is at most 1024 x 8 divisor
// significands (6,277 distinct). Checked:
//  1. every such divisor b in [1, 2) (also scaled by 2^60 and 2^-60) x every
//     11-bit significand x every exponent with |x| / b in [2^-8, 2^7) x both
//     signs: the result's bits equal RN(x / b) wherever |x / b| < 16, and the
//     e2m1 codes (clamp to +-6, RNE, SPEC C2) equal everywhere;
//  2. every bf16 and every f16 pattern (zeros, subnormals, every exponent,
//     NaN; not Inf, which never reaches the kernel's fast path) x every such
//     divisor at scales 2^0, 2^+-20, 2^+-60, where |x / b| < 16 (the kernel
//     sees |x| / total <= ~6.4): codes equal and the result's sign is x's.
// Rounding the remainder down makes an exact zero remainder -0 (IEEE: an
// exact zero sum rounds to -0 downward unless both addends are +0), so
// x = -0 gives -0 and +0 gives +0: no sign step in the kernel.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "host_check.hpp"

namespace {

using nvfp4_check::e2m1;
using nvfp4_check::f_of;
using nvfp4_check::u_of;

// keep in step with Nvfp4Q<1>::quotient_rn<true>: on the signed x,
// q0 = RN(x * y), r = RD(x - q0 * total) (fma.rm), result RN(q0 + r * y).
// RD makes an exact zero remainder -0 (x = -0: r = -0, result -0; x = +0:
// r = -0, result +0): the signs of zero come out right without a sign step.
// r is formed in long double (64-bit significand: q0 * total is exact, and
// x - q0 * total has at most ~50 significant bits here) and rounded down.
float rd_of(long double v) {
  float f = static_cast<float>(v);  // RN
  if (static_cast<long double>(f) > v) f = std::nextafter(f, -INFINITY);
  return f;
}
float one_step(float x, float b, float y) {
  const float q0 = x * y;
  const long double negp = -(static_cast<long double>(q0) * static_cast<long double>(b));  // exact, signed zero kept
  const long double d = static_cast<long double>(x) + negp;
  float r;
  if (d == 0.0L) {  // an exact zero sum rounds to -0 downward, unless both addends are +0
    r = (x == 0.0f && negp == 0.0L && !std::signbit(x) && !std::signbit(negp)) ? 0.0f : -0.0f;
  } else {
    r = rd_of(d);
  }
  return std::fma(r, y, q0);
}
uint32_t ref_code(float x, float b) {  // the exact path: e2m1(clamp(RN(x / b), -6, 6))
  float q = x / b;
  if (q == q) q = q < -6.0f ? -6.0f : (q > 6.0f ? 6.0f : q);
  return e2m1(q);
}

}  // namespace

int main() {
  // ---- one step on NARROW dividends x the recipe's divisor significands ----
  std::set<uint32_t> bsig;  // divisor significands, as fp32 bits of b in [1, 2)
  for (int k = 0; k < 1024; ++k) {
    const float g = 1.0f + static_cast<float>(k) / 1024.0f;  // every 11-bit significand of G
    const float pts = g / 2688.0f;
    for (int j = 0; j < 8; ++j) {
      const float t = pts * (1.0f + static_cast<float>(j) / 8.0f);  // ue4m3 significand (8 + j) / 8
      int e;
      const float fr = std::frexp(t, &e);  // [0.5, 1)
      bsig.insert(u_of(std::ldexp(fr, 1)));  // exact
    }
  }
  std::vector<float> B;
  for (uint32_t u : bsig) B.push_back(f_of(u));
  unsigned long long pairs = 0, regular = 0, bits_bad = 0, code_bad = 0, not_faithful = 0;
#pragma omp parallel for reduction(+ : pairs, regular, bits_bad, code_bad, not_faithful) schedule(dynamic, 8)
  for (long j = 0; j < static_cast<long>(B.size()); ++j) {
    for (int sc : {0, 60, -60}) {
      const float b = std::ldexp(B[static_cast<size_t>(j)], sc);
      const float y = 1.0f / b;
      for (int k = 0; k < 1024; ++k) {
        const float asig = 1.0f + static_cast<float>(k) / 1024.0f;
        for (int e = -7; e <= 6; ++e) {
          for (float sgn : {1.0f, -1.0f}) {
            const float a = sgn * std::ldexp(asig, e + sc);
            ++pairs;
            const float want = a / b;
            const float got = one_step(a, b, y);
            if (std::fabs(want) < 16.0f) {
              ++regular;
              if (u_of(want) != u_of(got)) ++bits_bad;
            }
            if (ref_code(a, b) != e2m1(got)) ++code_bad;
            const float q0 = std::fabs(a * y);
            const double ex = std::fabs(static_cast<double>(a) / static_cast<double>(b));
            if (std::fabs(static_cast<double>(q0) - ex) >= std::ldexp(1.0, std::ilogb(ex) - 23)) ++not_faithful;
          }
        }
      }
    }
  }
  std::printf("one step, normal x: %zu divisor significands x 1024 dividend significands x 14 exponents x 2 signs x "
              "3 divisor scales = %llu pairs: code mismatches %llu; |x/b| < 16: %llu pairs, bit mismatches %llu "
              "(q0 not within 1 ulp of x/b: %llu)\n",
              B.size(), pairs, code_bad, regular, bits_bad, not_faithful);
  // every bf16 and every f16 pattern (zeros, subnormals, all exponents, NaN;
  // not Inf: an Inf never reaches the kernel's fast path, G would be Inf)
  // against every divisor significand at scales 2^0, 2^60, 2^-60, 2^-20,
  // 2^20, where |x / b| < 16 (NaN included: the kernel's fast path only sees
  // |x| / total <= ~6.4, see Nvfp4Q's comment)
  std::vector<float> X;
  for (uint32_t h = 0; h < 65536; ++h) X.push_back(f_of(h << 16));
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t sgn = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    const float v = e == 0 ? std::ldexp(static_cast<float>(m), -24)
                           : (e == 31 ? (m ? NAN : INFINITY) : std::ldexp(static_cast<float>(1024 + m), static_cast<int>(e) - 25));
    X.push_back(sgn ? -v : v);
  }
  unsigned long long pairs2 = 0, code_bad2 = 0, sign_bad2 = 0;
#pragma omp parallel for reduction(+ : pairs2, code_bad2, sign_bad2) schedule(dynamic, 8)
  for (long j = 0; j < static_cast<long>(B.size()); ++j) {
    for (int sc : {0, 60, -60, 20, -20}) {
      const float b = std::ldexp(B[static_cast<size_t>(j)], sc);
      const float y = 1.0f / b;
      for (float x : X) {
        if (std::isinf(x)) continue;
        if (std::fabs(x / b) >= 16.0f) continue;  // the kernel's fast path: |x| / total <= ~6.4 (see Nvfp4Q)
        ++pairs2;
        const float got = one_step(x, b, y);
        if (ref_code(x, b) != e2m1(got)) ++code_bad2;
        if (x == x && std::signbit(got) != std::signbit(x)) ++sign_bad2;
      }
    }
  }
  std::printf("one step, every finite bf16 / f16 x (zeros, subnormals, NaN) x every divisor significand x 5 scales, |x/b| < 16: "
              "%llu pairs: code mismatches %llu, result sign != x sign %llu\n",
              pairs2, code_bad2, sign_bad2);
  const bool ok = bits_bad == 0 && code_bad == 0 && code_bad2 == 0 && sign_bad2 == 0;
  std::printf("%s\n", ok ? "OK" : "FAIL");
  return ok ? 0 : 1;
}
