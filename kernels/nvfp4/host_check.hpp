// host_check.hpp - what the NVFP4 host checkers (div_check.cpp,
// nvfp4_math_check.cpp, e2m1_pack_check.cpp) share: fp32 bit casts and the
// plain e2m1 encode they compare the kernels' arithmetic against. Host C++
// only, no CUDA, no libmxref (the checkers are built by hand; see each file's
// header for the command).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace nvfp4_check {

inline float f_of(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t u_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

// e2m1 code (4 bits, sign included) of an fp32 value: RNE to {0, 0.5, 1, 1.5,
// 2, 3, 4, 6}, saturating (SPEC C2 defaults: satfinite, NaN -> +max). The
// comparisons are the decision points; at a tie the even code wins.
inline uint32_t e2m1(float q) {
  const uint32_t b = u_of(q);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0x7u;
  const uint32_t s = (b >> 31) << 3;
  const float m = std::fabs(q);
  uint32_t c;
  if (m <= 0.25f) c = 0;
  else if (m < 0.75f) c = 1;
  else if (m <= 1.25f) c = 2;
  else if (m < 1.75f) c = 3;
  else if (m <= 2.5f) c = 4;
  else if (m < 3.5f) c = 5;
  else if (m <= 5.0f) c = 6;
  else c = 7;
  return s | c;
}

}  // namespace nvfp4_check
