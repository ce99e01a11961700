// e2m1_pack_check.cpp - exhaustive host check of the NVFP4 e2m1 encode of
// scaled fp32 values (e2m1x2_f16rz in kernels/common/dev_convert_nvfp4.cuh, used by
// encode8_packed_e2m1_prescaled on sm_89/sm_90). Not built by CMake and not
// run by CI: run it by hand (no CUDA needed):
//
//   g++ -O2 -std=c++20 -ffp-contract=off -fopenmp kernels/nvfp4/e2m1_pack_check.cpp -o /tmp/e2m1_pack_check
//   /tmp/e2m1_pack_check      # mismatches must be 0
//
// The device sequence is emulated instruction by instruction on the packed
// 32-bit words (two f16 lanes), following the PTX ISA semantics of each
// instruction:
//   - sticky: a' = a | ((a + 0x1FFF) & 0x2000) on the fp32 bits (bit 13 of
//     a + 0x1FFF is a13 xor "bits 0..12 not all zero", so a' has bit 13 =
//     a13 or that sticky: with the truncation below, round to odd at 11 bits);
//   - cvt.rz.f16x2.f32: round toward zero to f16 (finite overflow to the
//     largest finite f16, Inf to Inf, NaN to a NaN, tiny values to f16
//     subnormals or a signed zero);
//   - and / add / sub / shr / or on the 32-bit word;
//   - min.f16x2 (a NaN operand gives the other operand), max.f16x2 (here on
//     non-negative non-NaN lanes only), add.rn.f16x2 (round to nearest even;
//     computed exactly in double, then rounded).
// For EVERY fp32 bit pattern y (2^32) in the low lane and again in the high
// lane (the other lane holding a rotating set of fp32 values), the 4-bit code
// must equal e2m1(y): RNE to {0, 0.5, 1, 1.5, 2, 3, 4, 6}, saturating (|y| > 6
// and Inf give 7 with the sign), NaN -> 0x7 (SPEC C2 defaults), -0 -> 0x8.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "host_check.hpp"

namespace {

using nvfp4_check::f_of;
uint32_t e2m1_ref(uint32_t b) { return nvfp4_check::e2m1(f_of(b)); }

// cvt.rz.f16.f32 of one fp32 pattern
uint32_t f16_rz(uint32_t a) {
  const uint32_t s = (a >> 16) & 0x8000u, ax = a & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return s | 0x7E00u;  // a NaN (which one does not matter: see nanb)
  if (ax == 0x7F800000u) return s | 0x7C00u;
  const int e = static_cast<int>(ax >> 23) - 127;
  if (e >= 16) return s | 0x7BFFu;  // finite overflow, toward zero
  if (e >= -14) return s | (static_cast<uint32_t>(e + 15) << 10) | ((ax & 0x7FFFFFu) >> 13);
  // f16 subnormal or zero: floor(|a| / 2^-24)
  const double v = std::ldexp(static_cast<double>(f_of(ax)), 24);
  return s | static_cast<uint32_t>(std::floor(v));
}
double f16_val(uint32_t h) {  // non-negative finite f16
  const uint32_t e = (h >> 10) & 31, m = h & 1023;
  return e == 0 ? std::ldexp(static_cast<double>(m), -24) : std::ldexp(static_cast<double>(1024 + m), static_cast<int>(e) - 25);
}
uint32_t f16_rn_pos(double v) {  // v >= 0, exact double, below 65504: RNE to f16
  if (v == 0.0) return 0;
  int e;
  std::frexp(v, &e);  // v in [2^(e-1), 2^e)
  int q = e - 1 - 10;  // ulp exponent
  if (q < -24) q = -24;
  const double u = std::ldexp(v, -q);
  double r = std::floor(u);
  const double fr = u - r;
  if (fr > 0.5 || (fr == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  const double val = std::ldexp(r, q);
  // encode val
  if (val < std::ldexp(1.0, -14)) return static_cast<uint32_t>(std::ldexp(val, 24));
  int ee;
  std::frexp(val, &ee);
  const uint32_t mant = static_cast<uint32_t>(std::ldexp(val, 11 - ee)) - 1024u;
  return (static_cast<uint32_t>(ee - 1 + 15) << 10) | mant;
}
uint32_t lane(uint32_t w, int i) { return (w >> (16 * i)) & 0xFFFFu; }
uint32_t min_f16x2(uint32_t a, uint32_t b) {  // lanes of a non-negative or NaN, b non-negative non-NaN
  uint32_t r = 0;
  for (int i = 0; i < 2; ++i) {
    const uint32_t x = lane(a, i), y = lane(b, i);
    const uint32_t m = (x > 0x7C00u) ? y : (x < y ? x : y);
    r |= m << (16 * i);
  }
  return r;
}
uint32_t max_f16x2(uint32_t a, uint32_t b) {  // non-negative non-NaN lanes
  uint32_t r = 0;
  for (int i = 0; i < 2; ++i) {
    const uint32_t x = lane(a, i), y = lane(b, i);
    r |= (x > y ? x : y) << (16 * i);
  }
  return r;
}
uint32_t add_f16x2(uint32_t a, uint32_t b) {  // non-negative finite lanes
  uint32_t r = 0;
  for (int i = 0; i < 2; ++i) r |= f16_rn_pos(f16_val(lane(a, i)) + f16_val(lane(b, i))) << (16 * i);
  return r;
}

// keep in step with e2m1x2_f16rz (dev_convert_nvfp4.cuh)
uint32_t sticky13(uint32_t a) { return a | ((a + 0x1FFFu) & 0x2000u); }
uint32_t e2m1x2_f16rz(uint32_t ylo, uint32_t yhi) {
  const uint32_t P = f16_rz(sticky13(ylo)) | (f16_rz(sticky13(yhi)) << 16);
  const uint32_t Y0 = P & 0x7FFF7FFFu;
  const uint32_t nanb = Y0 + 0x03FF03FFu;
  const uint32_t Y = min_f16x2(Y0, 0x46004600u);
  const uint32_t Mb = max_f16x2((Y & 0x7C007C00u) + 0x24002400u, 0x60006000u);
  const uint32_t S = add_f16x2(Y, Mb);
  const uint32_t sg = (P & ~nanb & 0x80008000u) >> 12;
  return S - Mb + (Mb >> 9) + sg - 0x00300030u;
}

}  // namespace

int main() {
  static const uint32_t others[] = {0x00000000u, 0x80000000u, 0x7FC00000u, 0xFFC00000u, 0x7F800000u, 0xFF800000u,
                                    0x40C00000u, 0xC0A00000u, 0x3E800001u, 0xBF400000u, 0x7F7FFFFFu, 0x00000001u,
                                    0x477FF000u, 0x40200000u, 0x3FDFFFFFu, 0x33800000u};
  unsigned long long bad = 0, n = 0;
  unsigned int first = 0;
  bool have_first = false;
#pragma omp parallel for reduction(+ : bad, n) schedule(static)
  for (long long i = 0; i < (1LL << 32); ++i) {
    const uint32_t y = static_cast<uint32_t>(i), o = others[i & 15];
    const uint32_t c0 = e2m1x2_f16rz(y, o), c1 = e2m1x2_f16rz(o, y);
    const uint32_t ry = e2m1_ref(y), ro = e2m1_ref(o);
    n += 2;
    const bool ok = lane(c0, 0) == ry && lane(c0, 1) == ro && lane(c1, 1) == ry && lane(c1, 0) == ro;
    if (!ok) {
      ++bad;
#pragma omp critical
      if (!have_first) { have_first = true; first = y; }
    }
  }
  std::printf("e2m1x2_f16rz: %llu fp32 patterns x 2 lanes = %llu encodes, mismatching patterns %llu", 1ULL << 32, n, bad);
  if (bad) std::printf(" (first y = 0x%08x)", first);
  std::printf("\n%s\n", bad ? "FAIL" : "OK");
  return bad ? 1 : 0;
}
