/* torchao_div_check.c - host check of the torchao-order NVFP4 fast quotient
 * (kernels/nvfp4/nvfp4_quant.cuh, Nvfp4FastQ<1>): the e2m1 code of
 * clamp(q0, -6, 6), q0 = RN(a * RN(1/T)), with the fallback to RN(a / T)
 * where q0 is within 16 fp32 steps of an e2m1 decision boundary, is NaN, or
 * is tiny but non-zero, equals the code of clamp(RN(a / T), -6, 6) (the
 * reference's order, reference/src/quantize.cpp).
 * Dividends: every bf16 value (and every f16 value with --f16), all signs.
 * Divisors T: the ones the recipe makes, T = RN(pts * dec(s)) with pts =
 * RN(gam / 2688) over random global amaxes and every ue4m3 code s, plus
 * random normal T. Also run with the margin 0 and no fallback (--broken):
 * it must then find mismatches (the check can fail).
 * Build: cc -O2 -ffp-contract=off -fno-fast-math torchao_div_check.c -lm
 * (IEEE binary32 arithmetic with round-to-nearest-even: SSE on x86-64). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float f_of(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static uint32_t b_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* e2m1 code of an fp32 value, round to nearest even, saturating to 6, NaN
 * to 6 with its sign (only the comparison of the two paths matters here). */
static unsigned e2m1(float x) {
  const unsigned s = signbit(x) ? 8u : 0u;
  float a = fabsf(x);
  if (isnan(a)) return s | 7u;
  static const float grid[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  unsigned best = 7;
  for (unsigned i = 0; i < 7; ++i) {
    const float mid = 0.5f * (grid[i] + grid[i + 1]); /* exact */
    if (a < mid) { best = i; break; }
    if (a == mid) { best = (i % 2 == 0) ? i : i + 1; break; } /* tie: even code */
  }
  return s | best;
}
static float clamp6(float q) { return isnan(q) ? q : (q < -6.0f ? -6.0f : (q > 6.0f ? 6.0f : q)); }

static int g_margin = 16, g_fallback = 1;
/* near a boundary: 0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5 are multiples of
 * 2^21 in the fp32 bit pattern; the test covers [0.25, 8] with a margin */
static int near_boundary(uint32_t b) {
  const uint32_t lo = 0x3E800000u - (uint32_t)g_margin;
  return (b - lo) < (0x41000000u - 0x3E800000u + 2u * (uint32_t)g_margin + 1u) &&
         ((b + (uint32_t)g_margin) & 0x1FFFFFu) < 2u * (uint32_t)g_margin + 1u;
}
static float fast_q(float a, float T, float y, long* slow) {
  float q = a * y;
  const uint32_t b = b_of(q) & 0x7FFFFFFFu;
  if (g_fallback && ((b - 1u) < 0x1F7FFFFFu || b > 0x7F800000u || near_boundary(b))) {
    ++*slow;
    q = a / T;
  }
  return q;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)(rng >> 11); }

static float ue4m3(unsigned c) { /* e4m3 magnitude, bias 7, subnormals */
  const unsigned e = (c >> 3) & 15u, m = c & 7u;
  return e == 0 ? ldexpf((float)m, -9) : ldexpf(1.0f + (float)m / 8.0f, (int)e - 7);
}

int main(int argc, char** argv) {
  int f16 = 0;
  long nt = 3000;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--broken")) { g_margin = 0; g_fallback = 0; }
    else if (!strcmp(argv[i], "--f16")) f16 = 1;
    else nt = atol(argv[i]);
  }
  float* as = malloc(sizeof(float) * 65536);
  for (uint32_t i = 0; i < 65536; ++i) {
    if (f16) {
      const unsigned e = (i >> 10) & 31u, m = i & 1023u;
      float v = e == 0 ? ldexpf((float)m, -24) : (e == 31 ? (m ? NAN : INFINITY) : ldexpf(1.0f + (float)m / 1024.0f, (int)e - 15));
      as[i] = (i & 0x8000u) ? -v : v;
    } else {
      as[i] = f_of(i << 16);
    }
  }
  long mism = 0, slow = 0, pairs = 0, ts = 0;
  for (long t = 0; t < nt; ++t) {
    /* a global amax (a random finite positive fp32 or bf16 value) */
    const float gam = (t & 1) ? f_of(((rnd() % 0xFEu) + 1u) << 23 | (rnd() & 0x7FFFFFu))
                              : f_of((((rnd() % 0xFEu) + 1u) << 23 | (rnd() & 0x7FFFFFu)) & 0xFFFF0000u);
    const float pts = gam / 2688.0f;
    for (unsigned s = 1; s < 0x7F; ++s) {
      float T = pts * ue4m3(s);
      if (s % 8 == 0) T = f_of(((rnd() % 0xFCu) + 2u) << 23 | (rnd() & 0x7FFFFFu)); /* and random normal divisors */
      if (!(T >= 0x1p-126f && T <= 0x1p126f)) continue; /* the kernel divides exactly there */
      const float y = 1.0f / T;
      ++ts;
      for (uint32_t i = 0; i < 65536; ++i) {
        const float a = as[i];
        const unsigned want = e2m1(clamp6(a / T));
        const unsigned got = e2m1(clamp6(fast_q(a, T, y, &slow)));
        ++pairs;
        if (want != got) {
          if (mism < 5) printf("mismatch: a=%a T=%a want %u got %u\n", a, T, want, got);
          ++mism;
        }
      }
    }
  }
  printf("%s%s: %ld divisors x 65536 dividends = %ld pairs, %ld mismatches, %ld fallbacks (%.2e)\n",
         f16 ? "f16" : "bf16", g_fallback ? "" : " (broken: no fallback)", ts, pairs, mism, slow,
         (double)slow / (double)pairs);
  return mism ? 1 : 0;
}
