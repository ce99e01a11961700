// dev_convert.cuh - device-side conversions written independently of
// libmxref (SPEC C1, C2, C3, C8). Nothing here calls the reference: the
// gate (conformance/gpu) compares these results with mx::quantize byte for
// byte. Only the default policies are implemented: rne, saturate, default
// NaN policy (e4m3/e5m2 NaN -> 0x7F, others -> +max), int8_full.
//
// On sm_100a/sm_120a (__CUDA_ARCH_FAMILY_SPECIFIC__ / __CUDA_ARCH_SPECIFIC__)
// the native cvt instructions are used where their semantics equal the
// recipe: cvt.rn.satfinite.{e4m3x2,e5m2x2,e2m1x2}.f32 and
// cvt.rp.satfinite.ue8m0x2.f32 (PTX ISA, "cvt" section, conversions to
// fp8/fp6/fp4/ue8m0 x2 packed types).
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>

namespace mxk::dev {

// Element format ids (same numbering as mx::Fmt, static_asserted in the
// launcher against the reference descriptors).
enum : int { kE4M3 = 0, kE5M2 = 1, kE3M2 = 2, kE2M3 = 3, kE2M1 = 4, kINT8 = 5 };

// One descriptor per element format (C1), written out independently.
template <int F>
struct Elem;
//                         bits mbits bias emax is_int maxcode nancode
template <> struct Elem<kE4M3> { static constexpr int bits = 8, mb = 3, bias = 7,  emaxe = 8,  is_int = 0; static constexpr unsigned maxc = 0x7E, nanc = 0x7F; };
template <> struct Elem<kE5M2> { static constexpr int bits = 8, mb = 2, bias = 15, emaxe = 15, is_int = 0; static constexpr unsigned maxc = 0x7B, nanc = 0x7F; };
template <> struct Elem<kE3M2> { static constexpr int bits = 6, mb = 2, bias = 3,  emaxe = 4,  is_int = 0; static constexpr unsigned maxc = 0x1F, nanc = 0x1F; };
template <> struct Elem<kE2M3> { static constexpr int bits = 6, mb = 3, bias = 1,  emaxe = 2,  is_int = 0; static constexpr unsigned maxc = 0x1F, nanc = 0x1F; };
template <> struct Elem<kE2M1> { static constexpr int bits = 4, mb = 1, bias = 1,  emaxe = 2,  is_int = 0; static constexpr unsigned maxc = 0x7,  nanc = 0x7;  };
template <> struct Elem<kINT8> { static constexpr int bits = 8, mb = 7, bias = 6,  emaxe = 0,  is_int = 1; static constexpr unsigned maxc = 0x7F, nanc = 0x7F; };

// The fp6 encodes that go through the fp8 cvt (C1: same mantissa bits, a
// smaller bias): e3m2 is e5m2 scaled by 2^-12, e2m3 is e4m3 scaled by 2^-6,
// the bias difference. encode8 (fp32 words) and fp6x8_bf16 (bf16 words) both.
template <int F>
constexpr int kFp6ViaFp8Shift = F == kE3M2 ? Elem<kE5M2>::bias - Elem<kE3M2>::bias : Elem<kE4M3>::bias - Elem<kE2M3>::bias;
static_assert(kFp6ViaFp8Shift<kE3M2> == 12 && kFp6ViaFp8Shift<kE2M3> == 6);

#if defined(__CUDA_ARCH__) && (defined(__CUDA_ARCH_FAMILY_SPECIFIC__) || defined(__CUDA_ARCH_SPECIFIC__)) && \
    (__CUDA_ARCH__ >= 1000)
#define MXK_NATIVE_CVT 1
#else
#define MXK_NATIVE_CVT 0
#endif

__device__ __forceinline__ int floor_log2_bits(uint32_t a) {  // a finite, > 0
  const uint32_t e = a >> 23;
  if (e != 0) return static_cast<int>(e) - 127;
  return (31 - __clz(static_cast<int>(a))) - 149;
}
__device__ __forceinline__ bool is_pow2_bits(uint32_t a) {
  const uint32_t e = a >> 23, m = a & 0x7FFFFFu;
  return e != 0 ? m == 0 : (m & (m - 1)) == 0;
}

// Round the exact positive value sig * 2^exp (sig != 0, sig < 2^32) to a
// float format with MB mantissa bits and minimum normal exponent EMIN, RNE.
// Returns the magnitude code, which may exceed the largest finite code (the
// caller handles overflow). Subnormals and the carry into the next binade
// fall out of the same formula: code = ((ev + bias) << MB) + q - 2^MB.
template <int MB, int EMIN>
__device__ __forceinline__ uint32_t round_mag(uint32_t sig, int exp) {
  const int p = 31 - __clz(static_cast<int>(sig));
  const int ev = exp + p;
  const bool sub = ev < EMIN;
  const int unit = (sub ? EMIN : ev) - MB;
  const int sh = unit - exp;
  uint32_t q;
  if (sh <= 0) {
    q = sig << (-sh);  // -sh <= MB: exact
  } else if (sh >= 33) {
    q = 0;
  } else {
    const uint64_t s64 = sig;
    q = static_cast<uint32_t>(s64 >> sh);
    const uint64_t rem = s64 & ((uint64_t{1} << sh) - 1);
    const uint64_t half = uint64_t{1} << (sh - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
  }
  if (q == 0) return 0;
  if (sub) return q;  // q == 2^MB is the smallest normal code, as it should be
  return (static_cast<uint32_t>(ev - EMIN + 1) << MB) + q - (1u << MB);
}

// encode(F, x * 2^-se) with one rounding (C2, C3): x is fp32 bits.
template <int F>
__device__ __forceinline__ uint32_t encode_scaled_sw(uint32_t x, int se) {
  using D = Elem<F>;
  const uint32_t ax = x & 0x7FFFFFFFu;
  const bool neg = (x >> 31) != 0;
  constexpr uint32_t sbit = D::is_int ? 0u : (1u << (D::bits - 1));
  if (ax >= 0x7F800000u) {
    if (ax > 0x7F800000u) return D::nanc;                 // NaN: canonical / +max
    if (D::is_int) return neg ? 0x80u : 0x7Fu;            // Inf saturates
    return D::maxc | (neg ? sbit : 0u);
  }
  uint32_t sig = ax & 0x7FFFFFu;
  int exp;
  if (ax >> 23) {
    sig |= 0x800000u;
    exp = static_cast<int>(ax >> 23) - 150;
  } else {
    exp = -149;
  }
  if (sig == 0) return neg ? sbit : 0u;
  exp -= se;
  if constexpr (D::is_int) {
    // round |v| * 64 to an integer (RNE), clamp to [-128, 127]
    const int sh = -D::bias - exp;
    uint32_t q;
    if (sh <= 0) {
      q = (-sh) >= 8 ? 0x100u : (sig << (-sh));  // sig < 2^24: no wrap
      if (q > 0x100u) q = 0x100u;
    } else if (sh >= 33) {
      q = 0;
    } else {
      const uint64_t s64 = sig;
      q = static_cast<uint32_t>(s64 >> sh);
      const uint64_t rem = s64 & ((uint64_t{1} << sh) - 1);
      const uint64_t half = uint64_t{1} << (sh - 1);
      if (rem > half || (rem == half && (q & 1u))) ++q;
    }
    if (neg) {
      if (q > 128u) q = 128u;
      return static_cast<uint32_t>(-static_cast<int>(q)) & 0xFFu;
    }
    return q > 127u ? 127u : q;
  } else {
    if (exp > 200) return D::maxc | (neg ? sbit : 0u);
    uint32_t c = round_mag<D::mb, 1 - D::bias>(sig, exp);
    if (c > D::maxc) c = D::maxc;  // saturate (decided after rounding)
    return c | (neg ? sbit : 0u);
  }
}

// 2^-se as an fp32 (se in [-127, 127]; 2^-127 is a subnormal).
__device__ __forceinline__ float exp2_neg(int se) {
  const int e = -se;
  if (e >= -126) return __uint_as_float(static_cast<uint32_t>(e + 127) << 23);
  return __uint_as_float(0x00400000u);  // 2^-127
}

// Fast software encode of an fp32 value y (already scaled) with RNE and
// saturation (C2 defaults), a handful of integer/fp32 instructions:
//  - |y| >= 2^EMIN (target normal range): round the fp32 mantissa to MB bits
//    with ties-to-even on the bit pattern; the carry into the exponent and
//    the overflow past max finite fall out of the integer add (then clamp);
//  - |y| <  2^EMIN (target subnormals): one fp32 add of C = 2^(EMIN-MB+23),
//    whose ulp is the target's subnormal step, rounds RNE exactly once.
// y = x * 2^-se is exact in fp32 except when it drops below 2^-126, where
// every element format rounds it to a signed zero either way.
template <int F>
__device__ __forceinline__ uint32_t encode_fast(uint32_t yb) {
  using D = Elem<F>;
  const uint32_t a = yb & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return D::nanc;
  if constexpr (D::is_int) {
    // y already carries the 2^6 of int8 (see encode8): round to an integer.
    int q = __float2int_rn(__uint_as_float(yb));  // Inf -> INT_MAX/INT_MIN, clamped below
    q = q < -128 ? -128 : (q > 127 ? 127 : q);
    return static_cast<uint32_t>(q) & 0xFFu;
  } else {
    constexpr int EMIN = 1 - D::bias;
    constexpr uint32_t sbit = 1u << (D::bits - 1);
    uint32_t c;
    if (a >= static_cast<uint32_t>(EMIN + 127) << 23) {
      constexpr int SH = 23 - D::mb;
      const uint32_t r = (a + ((1u << (SH - 1)) - 1u) + ((a >> SH) & 1u)) >> SH;
      c = r - (static_cast<uint32_t>(127 - D::bias) << D::mb);
      c = c > D::maxc ? D::maxc : c;
    } else {
      constexpr uint32_t cb = static_cast<uint32_t>(EMIN - D::mb + 23 + 127) << 23;
      c = __float_as_uint(__fadd_rn(__uint_as_float(a), __uint_as_float(cb))) - cb;
    }
    return c | ((yb >> 31) ? sbit : 0u);
  }
}

// 2^e as an fp32 for e in [-149, 127] (subnormal below -126).
__device__ __forceinline__ float pow2f(int e) {
  if (e >= -126) return __uint_as_float(static_cast<uint32_t>(e + 127) << 23);
  return __uint_as_float(1u << (e + 149));
}

// ---- e2m1 from f16 pairs (sm_80+: f16x2 min/max/add) ----------------------------
// Two values y (fp32, already scaled), each exactly representable with 11
// significant bits (or made so by round_odd11), to two e2m1 codes: lane 0 in
// bits 0..3, lane 1 in bits 16..19. y is packed to f16x2 (exact for |y| in
// [2^-14, 65504]; smaller values code 0 either way, larger ones saturate),
// |y| is clamped to 6 (NaN -> 6, Inf -> 6: both code 7), and one f16 add of
// M = 512, 1024 or 2048 (for |y| < 2, < 4, >= 4: ulp(M) is the e2m1 step of
// that binade) rounds |y| RNE onto the e2m1 grid; the code is then S - M
// plus 0, 2 or 4. The sign is kept except for NaN (C2 default: NaN -> +max).
__device__ __forceinline__ uint32_t e2m1x2_f16(float lo, float hi) {
  uint32_t P, Y, Yc, S;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(P) : "f"(hi), "f"(lo));
  const uint32_t Y0 = P & 0x7FFF7FFFu;
  const uint32_t nanb = Y0 + 0x03FF03FFu;  // bit 15 of a lane set iff that lane is NaN (> 0x7C00)
  asm("min.f16x2 %0, %1, %2;" : "=r"(Y) : "r"(Y0), "r"(0x46004600u));   // min(|y|, 6); NaN -> 6
  asm("max.f16x2 %0, %1, %2;" : "=r"(Yc) : "r"(Y), "r"(0x3C003C00u));   // clamp to [1, 4]:
  asm("min.f16x2 %0, %1, %2;" : "=r"(Yc) : "r"(Yc), "r"(0x44004400u));  //   its binade picks M
  const uint32_t Mb = (Yc & 0x7C007C00u) + 0x24002400u;                  // 512, 1024, 2048
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(S) : "r"(Y), "r"(Mb));
  const uint32_t t = (Mb >> 9) & 0x00060006u;                            // 0, 2, 4
  const uint32_t sg = (P & ~nanb & 0x80008000u) >> 12;                   // sign -> bit 3
  return S - Mb + t + sg;  // per lane, no borrow or carry between the lanes
}
// Round to odd at 11 significant bits (truncate the low 13 mantissa bits,
// set the lowest kept bit when any was set): rounding the result RNE to the
// e2m1 grid (at most 2 significant bits) equals rounding the original once.
__device__ __forceinline__ float round_odd11(float y) {
  const uint32_t a = __float_as_uint(y);
  return __uint_as_float((a | ((a & 0x1FFFu) + 0x1FFFu)) & ~0x1FFFu);
}

}  // namespace mxk::dev

#include "dev_convert_bf16.cuh"  // the e2m1 and fp6 encodes from bf16 words (needs the traits above)

namespace mxk::dev {

// Encode 8 values of one thread (same block scale). codes[i] in low bits.
// HW selects the fast path where it exists and matches the contract:
//  - cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (sm_89 and later, so also sm_90a)
//    and, on sm_100a/sm_120a, cvt.rn.satfinite.e2m1x2.f32;
//  - fp6 through the fp8 cvt: e3m2 (2 mantissa bits, emin -2) is e5m2
//    (emin -14) scaled by 2^-12, e2m3 (3 bits, emin 0) is e4m3 (emin -6)
//    scaled by 2^-6: the same grid, normals and subnormals, and the same
//    magnitude code; saturation to 0x1F after rounding, NaN -> 0x1F;
//  - e2m1 without a cvt (sm_90): e2m1x2_f16 above; NARROW says the input
//    values have at most 11 significant bits (bf16, f16), else each scaled
//    value is first rounded to odd at 11 bits;
//  - int8: int8_biased8 below (one fma, a min and a max per element).
// With HW false the software path above runs. The gate checks both paths
// on the GPU it runs on.
//
// int8 (C2: v = x * 2^-se * 2^6 rounded to nearest even, clamped to
// [-128, 127], NaN -> 0x7F) of 8 values, each code as the low byte of r[i]:
// one fma adds 1.5 * 2^23 to the exact product x * 2^(6 - se), so the
// single rounding lands on the integers (ulp 1 in [2^23, 2^24)) and the
// low mantissa byte is the two's complement code; the clamp follows in that
// domain (RNE(clamp(v)) = clamp(RNE(v)) for integer bounds). fminf first:
// minNum returns the bound for NaN, so NaN -> 127 (0x7F), +Inf -> 127,
// -Inf -> -128. The product is never rounded on its own (the fma), so a
// tiny x gives code 0 as the two-multiply form did. 2^(6 - se) is a normal
// fp32 for se >= -121; below (every finite |x| < 2^-120 there) x is first
// scaled by 2^64, exactly. It replaces two multiplies, the clamp, an add
// and a NaN test per element (run 11: MXINT8 rowwise 16384^2 executed
// 202.8 M warp instructions before, ncu; after: bench/results/README.md).
// kernels/common/int8_check.cpp checks it against C2 on the host.
__device__ __forceinline__ void int8_biased8(const uint32_t (&x)[8], int se, uint32_t (&r)[8]) {
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  constexpr float kLo = kMagic - 128.0f, kHi = kMagic + 127.0f;
  if (se >= -121) {
    const float m = __uint_as_float(static_cast<uint32_t>(133 - se) << 23);  // 2^(6 - se)
#pragma unroll
    for (int i = 0; i < 8; ++i) r[i] = __float_as_uint(fmaxf(fminf(__fmaf_rn(__uint_as_float(x[i]), m, kMagic), kHi), kLo));
  } else {
    const float m = __uint_as_float(static_cast<uint32_t>(133 - 64 - se) << 23);  // 2^(6 - 64 - se)
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const float xs = __fmul_rn(__uint_as_float(x[i]), 18446744073709551616.0f);  // x * 2^64, exact
      r[i] = __float_as_uint(fmaxf(fminf(__fmaf_rn(xs, m, kMagic), kHi), kLo));
    }
  }
}

template <int F, bool HW, bool NARROW = false>
__device__ __forceinline__ void encode8(const uint32_t (&x)[8], int se, uint32_t (&codes)[8]) {
  constexpr bool fp8 = (F == kE4M3 || F == kE5M2);
  constexpr bool fp6 = (F == kE3M2 || F == kE2M3);
#if MXK_NATIVE_CVT
  constexpr bool native = HW && (fp8 || F == kE2M1);
  constexpr bool via_fp8 = HW && fp6;
  constexpr bool e2m1_f16 = false;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
  constexpr bool native = HW && fp8;
  constexpr bool via_fp8 = HW && fp6;
  constexpr bool e2m1_f16 = HW && F == kE2M1;
#else
  constexpr bool native = false;
  constexpr bool via_fp8 = false;
  constexpr bool e2m1_f16 = false;
#endif
  if constexpr (native) {
    // x * 2^-se is exact in fp32 whenever it matters: a product that loses
    // bits lies below 2^-126 and rounds to a signed zero in every element
    // format either way (C3 "scaling is exact").
    const float m = exp2_neg(se);
#pragma unroll
    for (int i = 0; i < 8; i += 2) {
      const float a = __fmul_rn(__uint_as_float(x[i]), m);
      const float b = __fmul_rn(__uint_as_float(x[i + 1]), m);
      uint32_t d = 0;
      if constexpr (F == kE4M3) {
        // satfinite: |v| > max and Inf give +-448; NaN gives 0x7F (C2 defaults)
        asm("{ .reg .b16 t; cvt.rn.satfinite.e4m3x2.f32 t, %1, %2; cvt.u32.u16 %0, t; }" : "=r"(d) : "f"(b), "f"(a));
        codes[i] = d & 0xFFu;
        codes[i + 1] = d >> 8;
      } else if constexpr (F == kE5M2) {
        asm("{ .reg .b16 t; cvt.rn.satfinite.e5m2x2.f32 t, %1, %2; cvt.u32.u16 %0, t; }" : "=r"(d) : "f"(b), "f"(a));
        codes[i] = d & 0xFFu;
        codes[i + 1] = d >> 8;
      } else {
#if MXK_NATIVE_CVT
        asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %2; cvt.u32.u8 %0, t; }" : "=r"(d) : "f"(b), "f"(a));
#endif
        codes[i] = d & 0xFu;
        codes[i + 1] = (d >> 4) & 0xFu;
        // NaN: C2's default for e2m1 is +max (0x7); never depend on cvt's NaN.
        if ((x[i] & 0x7FFFFFFFu) > 0x7F800000u) codes[i] = Elem<F>::nanc;
        if ((x[i + 1] & 0x7FFFFFFFu) > 0x7F800000u) codes[i + 1] = Elem<F>::nanc;
      }
    }
  } else if constexpr (via_fp8) {
    // one multiply by 2^-(se + 12) (e3m2) or 2^-(se + 6) (e2m3): exact
    // unless the product is below 2^-126 (code 0 either way, sign kept)
    const float m = pow2f(-se - kFp6ViaFp8Shift<F>);
#pragma unroll
    for (int i = 0; i < 8; i += 2) {
      const float a = __fmul_rn(__uint_as_float(x[i]), m);
      const float b = __fmul_rn(__uint_as_float(x[i + 1]), m);
      uint32_t d = 0;
      if constexpr (F == kE3M2) {
        asm("{ .reg .b16 t; cvt.rn.satfinite.e5m2x2.f32 t, %1, %2; cvt.u32.u16 %0, t; }" : "=r"(d) : "f"(b), "f"(a));
      } else {
        asm("{ .reg .b16 t; cvt.rn.satfinite.e4m3x2.f32 t, %1, %2; cvt.u32.u16 %0, t; }" : "=r"(d) : "f"(b), "f"(a));
      }
      // magnitude code clamped to 0x1F (fp8 NaN 0x7F -> 0x1F: NaN -> +max),
      // the fp8 sign (bit 7) to the fp6 sign (bit 5)
      codes[i] = min(d & 0x7Fu, 0x1Fu) | ((d >> 2) & 0x20u);
      codes[i + 1] = min((d >> 8) & 0x7Fu, 0x1Fu) | ((d >> 10) & 0x20u);
    }
  } else if constexpr (e2m1_f16) {
    const float m = exp2_neg(se);
#pragma unroll
    for (int i = 0; i < 8; i += 2) {
      float a = __fmul_rn(__uint_as_float(x[i]), m);
      float b = __fmul_rn(__uint_as_float(x[i + 1]), m);
      if constexpr (!NARROW) {
        a = round_odd11(a);
        b = round_odd11(b);
      }
      const uint32_t c = e2m1x2_f16(a, b);
      codes[i] = c & 0xFu;
      codes[i + 1] = c >> 16;
    }
  } else if constexpr (HW && F == kINT8) {
    static_assert(Elem<F>::nanc == 0x7F, "int8_biased8 maps NaN to 0x7F");
    uint32_t r[8];
    int8_biased8(x, se, r);
#pragma unroll
    for (int i = 0; i < 8; ++i) codes[i] = r[i] & 0xFFu;
  } else {
    const float m = exp2_neg(se);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      float y = __fmul_rn(__uint_as_float(x[i]), m);
      if constexpr (Elem<F>::is_int) y = __fmul_rn(y, 64.0f);  // int8: v * 2^6, exact (C2)
      codes[i] = encode_fast<F>(__float_as_uint(y));
    }
  }
}

// The 8 codes of encode8 packed per C6 (packed layout, element i first):
// 8-bit formats in w[0] (elements 0..3) and w[1] (4..7), fp6 as a 48-bit
// little-endian stream (w[0], low 16 bits of w[1]), e2m1 nibbles in w[0].
// The fp8 cvt and the e2m1 f16 paths build the words directly (no per-code
// extraction); the others pack encode8's codes.
template <int BITS>
__device__ __forceinline__ void pack8(const uint32_t (&c)[8], uint32_t (&w)[2]) {
  if constexpr (BITS == 8) {
    w[0] = (c[0] & 0xFFu) | ((c[1] & 0xFFu) << 8) | ((c[2] & 0xFFu) << 16) | (c[3] << 24);
    w[1] = (c[4] & 0xFFu) | ((c[5] & 0xFFu) << 8) | ((c[6] & 0xFFu) << 16) | (c[7] << 24);
  } else if constexpr (BITS == 6) {
    uint64_t v = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(c[i] & 0x3Fu) << (6 * i);
    w[0] = static_cast<uint32_t>(v);
    w[1] = static_cast<uint32_t>(v >> 32);
  } else {
    uint32_t v = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) v |= (c[i] & 0xFu) << (4 * i);
    w[0] = v;
    w[1] = 0;
  }
}
// In: the input type (bf16 e2m1 works on the raw words, raw[0]: elements
// 0..7 as 4 bf16 pairs; NARROW: at most 11 significant bits).
template <int F, bool HW, class In>
__device__ __forceinline__ void encode8_packed(const uint32_t (&x)[8], int se, uint32_t (&w)[2], const uint4* raw) {
  constexpr bool NARROW = sizeof(In) == 2;
  constexpr bool fp8 = (F == kE4M3 || F == kE5M2);
#if MXK_NATIVE_CVT
  constexpr bool fp8_cvt = HW && fp8;
  constexpr bool e2m1_f16 = false;
  constexpr bool fp6_bf16 = false;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
  constexpr bool fp8_cvt = HW && fp8;
  constexpr bool e2m1_f16 = HW && F == kE2M1;
  constexpr bool fp6_bf16 = HW && (F == kE3M2 || F == kE2M3) && std::is_same_v<In, __nv_bfloat16>;
#else
  constexpr bool fp8_cvt = false;
  constexpr bool e2m1_f16 = false;
  constexpr bool fp6_bf16 = false;
#endif
  if constexpr (fp8_cvt) {
    const float m = exp2_neg(se);
    uint32_t d[4];
#pragma unroll
    for (int i = 0; i < 8; i += 2) {
      const float a = __fmul_rn(__uint_as_float(x[i]), m);
      const float b = __fmul_rn(__uint_as_float(x[i + 1]), m);
      if constexpr (F == kE4M3) {
        asm("{ .reg .b16 t; cvt.rn.satfinite.e4m3x2.f32 t, %1, %2; cvt.u32.u16 %0, t; }" : "=r"(d[i / 2]) : "f"(b), "f"(a));
      } else {
        asm("{ .reg .b16 t; cvt.rn.satfinite.e5m2x2.f32 t, %1, %2; cvt.u32.u16 %0, t; }" : "=r"(d[i / 2]) : "f"(b), "f"(a));
      }
    }
    w[0] = __byte_perm(d[0], d[1], 0x5410);
    w[1] = __byte_perm(d[2], d[3], 0x5410);
  } else if constexpr (e2m1_f16 && std::is_same_v<In, __nv_bfloat16>) {
    e2m1x8_bf16(*raw, se, w);  // raw holds no NaN: kBf16NanFix
  } else if constexpr (fp6_bf16) {
    fp6x8_bf16<F>(*raw, se, w);
  } else if constexpr (e2m1_f16) {
    // pairs (0,2), (1,3), (4,6), (5,7): c02 + 16 * c13 holds byte 0 (codes
    // 0, 1) in bits 0..7 and byte 1 (codes 2, 3) in bits 16..23
    const float m = exp2_neg(se);
    float y[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      y[i] = __fmul_rn(__uint_as_float(x[i]), m);
      if constexpr (!NARROW) y[i] = round_odd11(y[i]);
    }
    const uint32_t lo = e2m1x2_f16(y[0], y[2]) + (e2m1x2_f16(y[1], y[3]) << 4);
    const uint32_t hi = e2m1x2_f16(y[4], y[6]) + (e2m1x2_f16(y[5], y[7]) << 4);
    w[0] = __byte_perm(lo, hi, 0x6420);
    w[1] = 0;
  } else if constexpr (HW && F == kINT8) {
    (void)raw;
    uint32_t r[8];
    int8_biased8(x, se, r);  // codes in the low bytes: two byte_perm per 4
    w[0] = __byte_perm(__byte_perm(r[0], r[1], 0x0040), __byte_perm(r[2], r[3], 0x0040), 0x5410);
    w[1] = __byte_perm(__byte_perm(r[4], r[5], 0x0040), __byte_perm(r[6], r[7], 0x0040), 0x5410);
  } else {
    (void)raw;
    uint32_t c[8];
    encode8<F, HW, NARROW>(x, se, c);
    pack8<Elem<F>::bits>(c, w);
  }
}

// Scale rules (C3). Returns the ue8m0 code of a finite amax (fp32 bits,
// sign cleared): 0 for amax 0, clamped to [-127, 127] + 127.
enum : int { kFloor = 0, kCeil = 1, kEven = 2, kRceil = 3 };

template <int F>
__device__ __forceinline__ uint32_t scale_code(uint32_t a, int rule, float inv_max) {
  using D = Elem<F>;
  if (rule == kFloor) {
    // floor(log2 a) - emax + 127, clamped to [0, 254], without a branch on a:
    // a normal a gives (a >> 23) - emax (at most 254 - emax); a subnormal a
    // (floor(log2 a) <= -127) and a = 0 give 0, as do normal ones at or
    // below 2^(emax - 127). (The quantize kernels run out of ALU issue
    // slots on sm_90, bench/results/README.md "run 20".)
    const int e = static_cast<int>(a >> 23) - D::emaxe;
    return static_cast<uint32_t>(e > 0 ? e : 0);
  }
  if (a == 0) return 0;
  int e;
  if (rule == kRceil) {
#if MXK_NATIVE_CVT
    const float q = __fmul_rn(__uint_as_float(a), inv_max);
    if (__float_as_uint(q) == 0) return 0;  // underflow clamps to 2^-127
    uint32_t d;
    asm("{ .reg .b16 t; cvt.rp.satfinite.ue8m0x2.f32 t, %1, %1; cvt.u32.u16 %0, t; }" : "=r"(d) : "f"(q));
    return d & 0xFFu;
#else
    const float q = __fmul_rn(__uint_as_float(a), inv_max);
    const uint32_t qb = __float_as_uint(q);
    if (qb == 0) return 0;
    e = floor_log2_bits(qb) + (is_pow2_bits(qb) ? 0 : 1);
#endif
  } else {
    const int fl = floor_log2_bits(a);
    if (rule == kCeil) {
      e = fl + (is_pow2_bits(a) ? 0 : 1) - D::emaxe;
    } else {  // even: round amax to mb+1 significant bits, ties away, then floor
      constexpr int mb = D::is_int ? 6 : D::mb;
      uint32_t sig;
      if (a >> 23) {
        sig = (a & 0x7FFFFFu) | 0x800000u;
      } else {
        sig = a << (23 - (31 - __clz(static_cast<int>(a))));
      }
      const uint32_t thr = 0x1000000u - (0x800000u >> (mb + 1));
      e = fl + (sig >= thr ? 1 : 0) - D::emaxe;
    }
  }
  e = e < -127 ? -127 : (e > 127 ? 127 : e);
  return static_cast<uint32_t>(e + 127);
}

// ue4m3 / e2m1 for NVFP4 (C5): dev_convert_nvfp4.cuh, included at the end.

// x86 SSE multiply NaN rules, so that fp32 NaN bits equal the host
// reference's (a NaN operand is returned quieted, the first one wins; an
// invalid operation gives the default NaN 0xFFC00000).
__device__ __forceinline__ float mul_x86(float a, float b) {
  const uint32_t ab = __float_as_uint(a), bb = __float_as_uint(b);
  if ((ab & 0x7FFFFFFFu) > 0x7F800000u) return __uint_as_float(ab | 0x00400000u);
  if ((bb & 0x7FFFFFFFu) > 0x7F800000u) return __uint_as_float(bb | 0x00400000u);
  const float r = __fmul_rn(a, b);
  if (r != r) return __uint_as_float(0xFFC00000u);
  return r;
}
__device__ __forceinline__ float div_x86(float a, float b) {
  const uint32_t ab = __float_as_uint(a), bb = __float_as_uint(b);
  if ((ab & 0x7FFFFFFFu) > 0x7F800000u) return __uint_as_float(ab | 0x00400000u);
  if ((bb & 0x7FFFFFFFu) > 0x7F800000u) return __uint_as_float(bb | 0x00400000u);
  const float r = __fdiv_rn(a, b);
  if (r != r) return __uint_as_float(0xFFC00000u);
  return r;
}

// Round fp32 to bf16 / fp16 with RNE, overflow to Inf, NaN canonical (C8).
__device__ __forceinline__ uint32_t f32_to_bf16_bits(float v) {
  const uint32_t b = __float_as_uint(v);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u;
  const uint32_t lsb = (b >> 16) & 1u;
  return (b + 0x7FFFu + lsb) >> 16;  // carries into Inf correctly
}
__device__ __forceinline__ uint32_t f32_to_f16_bits(float v) {
  const uint32_t b = __float_as_uint(v);
  const uint32_t ax = b & 0x7FFFFFFFu;
  const uint32_t s = (b >> 16) & 0x8000u;
  if (ax > 0x7F800000u) return 0x7E00u;
  if (ax == 0x7F800000u) return s | 0x7C00u;
  if (ax == 0) return s;
  uint32_t sig = ax & 0x7FFFFFu;
  int exp;
  if (ax >> 23) {
    sig |= 0x800000u;
    exp = static_cast<int>(ax >> 23) - 150;
  } else {
    exp = -149;
  }
  uint32_t c = round_mag<10, -14>(sig, exp);
  if (c >= 0x7C00u) c = 0x7C00u;
  return s | c;
}

}  // namespace mxk::dev

#include "dev_convert_nvfp4.cuh"  // NVFP4's ue4m3 / e2m1 (C5)
