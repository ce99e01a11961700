// int8_check.cpp - host check of the MXINT8 element encode of the kernels
// (int8_biased8 in kernels/common/dev_convert.cuh: one fma of x by 2^(6-se)
// plus 1.5 * 2^23, fminf to the upper bound, fmaxf to the lower, the code in
// the low byte; x first scaled by 2^64 where se < -121). Not built by CMake
// and not run by CI: run it by hand (no CUDA needed):
//
//   g++ -O2 -std=c++20 -ffp-contract=off -fopenmp kernels/common/int8_check.cpp -o /tmp/int8_check
//   /tmp/int8_check      # mismatches must be 0
//
// Expected code, from SPEC C2 directly (int8_full, rne, nan_to_max): v = x *
// 2^(6 - se) computed in double (exact: a 24-bit significand scaled by a
// power of two), rounded to the nearest integer with ties to even
// (nearbyint in the default rounding mode), clamped to [-128, 127] (+-Inf
// included), NaN -> 0x7F; the code is the two's complement low byte.
// Cases: every fp32 bit pattern for se in {-127, -122, -121, 0, 127} (both
// branches and the ends of the scale range), every bf16 pattern for every
// se in [-127, 127], and 2^28 pseudo-random (fp32 pattern, se) pairs.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

namespace {

float f_of(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t u_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

uint32_t expected(uint32_t xb, int se) {
  const float x = f_of(xb);
  if (std::isnan(x)) return 0x7Fu;
  double v = std::ldexp(static_cast<double>(x), 6 - se);
  v = std::nearbyint(v);
  if (v > 127.0) v = 127.0;
  if (v < -128.0) v = -128.0;
  return static_cast<uint32_t>(static_cast<int>(v)) & 0xFFu;
}

// the device sequence, one fp32 operation at a time
uint32_t device(uint32_t xb, int se) {
  const float magic = 12582912.0f, lo = magic - 128.0f, hi = magic + 127.0f;
  float x = f_of(xb), m;
  if (se >= -121) {
    m = f_of(static_cast<uint32_t>(133 - se) << 23);
  } else {
    x = x * 18446744073709551616.0f;
    m = f_of(static_cast<uint32_t>(133 - 64 - se) << 23);
  }
  const float r = std::fmax(std::fmin(std::fma(x, m, magic), hi), lo);
  return u_of(r) & 0xFFu;
}

}  // namespace

int main() {
  unsigned long long n = 0, bad = 0;
  for (int se : {-127, -122, -121, 0, 127}) {
    unsigned long long b = 0;
#pragma omp parallel for reduction(+ : b) schedule(static, 1 << 16)
    for (long long i = 0; i < (1LL << 32); ++i) {
      const uint32_t xb = static_cast<uint32_t>(i);
      if (device(xb, se) != expected(xb, se)) {
        if (b < 4) std::printf("mismatch x=0x%08x se=%d: device 0x%02x expected 0x%02x\n", xb, se, device(xb, se), expected(xb, se));
        ++b;
      }
    }
    n += 1ULL << 32;
    bad += b;
    std::printf("se %4d: every fp32 pattern, %llu mismatches\n", se, b);
  }
  unsigned long long b2 = 0;
  for (int se = -127; se <= 127; ++se) {
    for (uint32_t h = 0; h < 65536; ++h) {
      const uint32_t xb = h << 16;
      if (device(xb, se) != expected(xb, se)) ++b2;
    }
  }
  n += 255ULL * 65536;
  bad += b2;
  std::printf("every bf16 pattern x every se in [-127, 127]: %llu mismatches\n", b2);
  unsigned long long b3 = 0;
#pragma omp parallel for reduction(+ : b3)
  for (long long i = 0; i < (1LL << 28); ++i) {
    uint64_t z = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    const uint32_t xb = static_cast<uint32_t>(z);
    const int se = static_cast<int>((z >> 32) % 255) - 127;
    if (device(xb, se) != expected(xb, se)) ++b3;
  }
  n += 1ULL << 28;
  bad += b3;
  std::printf("2^28 random (fp32, se) pairs: %llu mismatches\n", b3);
  std::printf("total %llu encodes, %llu mismatches\n", n, bad);
  return bad == 0 ? 0 : 1;
}
