// e2m1_pack_check.cpp - exhaustive host check of the NVFP4 e2m1 encode of
// scaled fp32 values (e2m1x2_f32ro in kernels/common/dev_convert_nvfp4.cuh,
// used by encode8_packed_e2m1_prescaled on sm_89/sm_90). Not built by CMake
// and not run by CI: run it by hand (no CUDA needed):
//
//   g++ -O2 -std=c++20 -ffp-contract=off -fopenmp kernels/nvfp4/e2m1_pack_check.cpp -o /tmp/e2m1_pack_check
//   /tmp/e2m1_pack_check           # mismatches must be 0
//   /tmp/e2m1_pack_check --broken  # the sticky bit left out (plain truncation): must report mismatches
//
// The device sequence is emulated instruction by instruction on the packed
// 32-bit words (two bf16 lanes), following the PTX ISA semantics of each
// instruction:
//   - bf16x2_round_odd: a' = a | ((a + 0xFFFF) & 0x10000) on the fp32 bits
//     of each value, then prmt 0x7632 (the two high halves: truncation);
//   - min.bf16x2 against +Inf (a NaN operand gives the other operand: NaN ->
//     +Inf, every other lane unchanged);
//   - min.xorsign.abs / max.xorsign.abs.bf16x2 against positive bounds: the
//     smaller / larger magnitude with the xor of the signs (the input's);
//   - and, mul.rn.bf16x2 by 64 (exact here: a signed power of two or zero
//     times 64), add.rn.bf16x2 (round to nearest even at 8 significant bits,
//     computed exactly in double, then rounded; the operands share a sign);
//   - the 32-bit integer sub and mad.hi.u32 by 2^26 (= >> 6, add).
// For EVERY fp32 bit pattern y (2^32) in the low lane and again in the high
// lane (the other lane holding a rotating set of fp32 values), the lane must
// be code + 512 * sign with code = e2m1(y): RNE to {0, 0.5, 1, 1.5, 2, 3, 4,
// 6}, saturating (|y| > 6 and Inf give 7 with the sign), NaN -> 0x7 (SPEC C2
// defaults), -0 -> 0x8. pack_e2m1_bf16, which moves the sign bits onto the
// nibbles, is checked on groups by kernels/common/e2m1_grid_check.py.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "host_check.hpp"

namespace {

using nvfp4_check::f_of;
uint32_t e2m1_ref(uint32_t b) { return nvfp4_check::e2m1(f_of(b)); }

bool g_broken = false;
uint32_t lane(uint32_t w, int i) { return (w >> (16 * i)) & 0xFFFFu; }
uint32_t per_lane(uint32_t w, uint32_t (*f)(uint32_t)) { return f(lane(w, 0)) | (f(lane(w, 1)) << 16); }
double bf16_mag(uint32_t h) {  // |value| of a finite bf16
  const uint32_t e = (h >> 7) & 0xFFu, m = h & 0x7Fu;
  return e == 0 ? std::ldexp(static_cast<double>(m), -133) : std::ldexp(static_cast<double>(128 + m), static_cast<int>(e) - 134);
}
uint32_t bf16_rn_pos(double v) {  // RNE of v in [2^-126, 2^127) to a bf16 magnitude (8 significant bits)
  int e;
  std::frexp(v, &e);  // v in [2^(e-1), 2^e)
  const double u = std::ldexp(v, 8 - e);  // in [128, 256)
  double r = std::floor(u);
  const double fr = u - r;
  if (fr > 0.5 || (fr == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  if (r == 256.0) { r = 128.0; ++e; }
  return (static_cast<uint32_t>(e - 1 + 127) << 7) | (static_cast<uint32_t>(r) - 128u);
}

// keep in step with e2m1x2_f32ro (dev_convert_nvfp4.cuh) and e2m1x2_bf16y
// (dev_convert_bf16.cuh)
uint32_t round_odd16(uint32_t a) { return g_broken ? a : a | ((a + 0xFFFFu) & 0x10000u); }
uint32_t nan_to_inf(uint32_t x) { return (x & 0x7FFFu) > 0x7F80u ? 0x7F80u : x; }
uint32_t min_xs6(uint32_t x) {  // min.xorsign.abs against 6 (0x40C0), x not NaN
  const uint32_t a = x & 0x7FFFu;
  return (x & 0x8000u) | (a < 0x40C0u ? a : 0x40C0u);
}
uint32_t mul64(uint32_t x) {  // x = a signed power of two below 8 or a signed zero; times 64 (exact)
  return (x & 0x7FFFu) == 0 ? x : x + (6u << 7);
}
uint32_t max_xs64(uint32_t x) {  // max.xorsign.abs against 64 (0x4280)
  const uint32_t a = x & 0x7FFFu;
  return (x & 0x8000u) | (a > 0x4280u ? a : 0x4280u);
}
uint32_t e2m1x2_f32ro(uint32_t lo, uint32_t hi) {
  const uint32_t l = round_odd16(lo), h = round_odd16(hi);
  const uint32_t P = per_lane((l >> 16) | (h & 0xFFFF0000u), nan_to_inf);
  const uint32_t Y = per_lane(P, min_xs6);
  const uint32_t T = per_lane(Y & 0xFF80FF80u, mul64);
  const uint32_t M = per_lane(T, max_xs64);
  uint32_t S = 0;
  for (int i = 0; i < 2; ++i) {  // Y and M share the sign; |S| = |Y| + |M| >= 58
    const uint32_t y = lane(Y, i), m = lane(M, i);
    S |= ((m & 0x8000u) | bf16_rn_pos(bf16_mag(y) + bf16_mag(m))) << (16 * i);
  }
  return (M >> 6) + (S - M - 0x010A010Au);
}
uint32_t want(uint32_t y) {  // code + 512 * sign, as the lane must hold it
  const uint32_t c = e2m1_ref(y);
  return (c & 7u) + 512u * (c >> 3);
}

}  // namespace

int main(int argc, char** argv) {
  g_broken = argc > 1 && std::strcmp(argv[1], "--broken") == 0;
  static const uint32_t others[] = {0x00000000u, 0x80000000u, 0x7FC00000u, 0xFFC00000u, 0x7F800000u, 0xFF800000u,
                                    0x40C00000u, 0xC0A00000u, 0x3E800001u, 0xBF400000u, 0x7F7FFFFFu, 0x00000001u,
                                    0x477FF000u, 0x40200000u, 0x3FDFFFFFu, 0x7F800001u};
  unsigned long long bad = 0, n = 0;
  unsigned int first = 0;
  bool have_first = false;
#pragma omp parallel for reduction(+ : bad, n) schedule(static)
  for (long long i = 0; i < (1LL << 32); ++i) {
    const uint32_t y = static_cast<uint32_t>(i), o = others[i & 15];
    const uint32_t c0 = e2m1x2_f32ro(y, o), c1 = e2m1x2_f32ro(o, y);
    const uint32_t ry = want(y), ro = want(o);
    n += 2;
    const bool ok = lane(c0, 0) == ry && lane(c0, 1) == ro && lane(c1, 1) == ry && lane(c1, 0) == ro;
    if (!ok) {
      ++bad;
#pragma omp critical
      if (!have_first) { have_first = true; first = y; }
    }
  }
  std::printf("e2m1x2_f32ro%s: %llu fp32 patterns x 2 lanes = %llu encodes, mismatching patterns %llu",
              g_broken ? " (--broken: no sticky bit)" : "", 1ULL << 32, n, bad);
  if (bad) std::printf(" (first y = 0x%08x)", first);
  std::printf("\n%s\n", bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
