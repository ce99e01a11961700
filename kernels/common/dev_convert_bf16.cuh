// dev_convert_bf16.cuh - the e2m1 and fp6 encodes of 16-bit bf16 words on
// sm_89 / sm_90 (no e2m1 / fp6 cvt there), for encode8_packed
// (dev_convert.cuh, which includes this file after its element traits):
// each step on two bf16 values at once, the sign carried by the xorsign.abs
// forms of min / max, shift-adds on the FMA pipe (the rowwise kernels run
// out of ALU-pipe issue slots on sm_90: bench/results/README.md "run 20",
// "run 21"). Checked on the host by e2m1_grid_check.py (e2m1) and on the
// device by the gate (both).
#pragma once

namespace mxk::dev {

// 2^26 in constant memory: mad.hi.u32(x, kShr6Mul, y) = (x >> 6) + y. The
// compiler cannot see a __constant__ value (the host may overwrite it), so
// this stays one IMAD.HI on the FMA pipe instead of a shift-add on the ALU
// pipe, which the rowwise kernels run out of on sm_90 (bench/results/README.md
// "run 20"; the constant is never written).
static __constant__ uint32_t kShr6Mul = 1u << 26;
__device__ __forceinline__ uint32_t shr6_add(uint32_t x, uint32_t y) {
  uint32_t d;
  asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(x), "r"(kShr6Mul), "r"(y));
  return d;
}

// The e2m1 magnitude and sign of two bf16 inputs u (raw pair) scaled in
// bf16: y = u * s2 with s2 = 2^-se in both lanes (exact unless |y| < 2^-126:
// a signed zero or a tiny value, code 0 either way). No NaN may reach it:
// the callers turn NaN inputs into +Inf on their non-finite path
// (bf16x2_nan_to_inf; C2: NaN -> +max, as +Inf). Every step keeps the sign
// of y (the xorsign.abs forms of min / max against a positive bound):
//  - Y = sign * min(|y|, 6);
//  - M = sign * max(2^(e+6), 64) from the exponent field e of Y (Y with its
//    mantissa masked off, times 64: exact): 64, 128, 256, whose bf16 ulp
//    (0.5, 1, 2) is the e2m1 grid step of |Y|'s binade;
//  - S = Y + M rounds |Y| RNE onto that grid (M's mantissa is even, so ties
//    go to the even code), and bits(S) - bits(M) counts its steps (the sign
//    bits cancel);
//  - the code is that count plus t = 0, 2, 4 = (bits(M) >> 6) - 0x10A, and
//    the same shift brings the sign bit 15 to bit 9.
// Per lane the result is magnitude code (bits 0..2) + 512 * sign, in
// [0, 0x207]: no carry or borrow crosses the lanes (M's low 6 bits are zero,
// so lane 1 leaks nothing into lane 0 through the shift). 4 ALU-pipe
// instructions a pair (run 20's form had 10; the kernels are ALU-bound on
// sm_90). pack_e2m1_bf16 moves the sign bits into place. Checked on every
// bf16 value of y and on groups of 8 by e2m1_grid_check.py (a host model,
// the CTest mx_e2m1_grid_check); the device bytes by the gate.
// e2m1x2_bf16y takes y itself (two bf16 values, no NaN): NVFP4's scaled
// fp32 values rounded to odd at bf16's 8 bits (dev_convert_nvfp4.cuh).
__device__ __forceinline__ uint32_t e2m1x2_bf16y(uint32_t P) {
  uint32_t Y, T, M, S;
  asm("min.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(Y) : "r"(P), "r"(0x40C040C0u));            // sign * min(|y|, 6)
  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(T) : "r"(Y & 0xFF80FF80u), "r"(0x42804280u));       // sign * 2^(e+6)
  asm("max.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(M) : "r"(T), "r"(0x42804280u));            // at least 64
  asm("add.rn.bf16x2 %0, %1, %2;" : "=r"(S) : "r"(Y), "r"(M));
  return shr6_add(M, S - M - 0x010A010Au);
}
__device__ __forceinline__ uint32_t e2m1x2_bf16(uint32_t u, uint32_t s2) {
  uint32_t P;
  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(P) : "r"(u), "r"(s2));
  return e2m1x2_bf16y(P);
}
// The 8 codes of a group from e2m1x2_bf16 on its pairs (0,2), (1,3) (e02,
// e13) and (4,6), (5,7) (e46, e57), packed per C6: lo = e02 + 16 e13 holds
// byte 0 (codes 0, 1) in bits 0..7 and byte 1 (codes 2, 3) in bits 16..23,
// their signs in bits 9, 13, 25, 29; bytes 1 and 3 of lo and hi (only those
// sign bits) shifted by 2 put each sign on bit 3 of its nibble.
__device__ __forceinline__ uint32_t pack_e2m1_bf16(uint32_t e02, uint32_t e13, uint32_t e46, uint32_t e57) {
  const uint32_t lo = e02 + (e13 << 4), hi = e46 + (e57 << 4);
  return __byte_perm(lo, hi, 0x6420) | ((__byte_perm(lo, hi, 0x7531) << 2) & 0x88888888u);
}
// NaN -> +Inf in both bf16 lanes, every other value unchanged (min without
// .NaN returns the other operand): the input of e2m1x2_bf16 on the rare
// non-finite path.
__device__ __forceinline__ uint32_t bf16x2_nan_to_inf(uint32_t w) {
  uint32_t d;
  asm("min.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(w), "r"(0x7F807F80u));
  return d;
}
__device__ __forceinline__ uint4 bf16x8_nan_to_inf(uint4 w) {
  return make_uint4(bf16x2_nan_to_inf(w.x), bf16x2_nan_to_inf(w.y), bf16x2_nan_to_inf(w.z), bf16x2_nan_to_inf(w.w));
}
// 2^-se as bf16 in both halves, for se <= 126: one multiply builds both
// halves' exponent fields. That bound holds for the e2m1 and fp6 blocks of
// 16-bit inputs under every rule (C3): |amax| < 2^128, so floor(log2 amax)
// <= 127 and the scale exponent is at most 127 + 1 - emax, with emax 2
// (e2m1, e2m3) or 4 (e3m2): 126 or 124.
__device__ __forceinline__ uint32_t pow2_neg_bf16x2(int se) { return static_cast<uint32_t>(127 - se) * 0x00800080u; }

// e2m1 codes of 8 bf16 inputs (raw words, no NaN: kBf16NanFix) scaled by
// 2^-se (se <= 126), packed per C6 in w[0] (w[1] = 0): the pairs (0,2),
// (1,3), (4,6), (5,7) that pack_e2m1_bf16 takes, regrouped from the raw
// words by byte_perm.
__device__ __forceinline__ void e2m1x8_bf16(const uint4& r, int se, uint32_t (&w)[2]) {
  const uint32_t s2 = pow2_neg_bf16x2(se);
  w[0] = pack_e2m1_bf16(e2m1x2_bf16(__byte_perm(r.x, r.y, 0x5410), s2), e2m1x2_bf16(__byte_perm(r.x, r.y, 0x7632), s2),
                        e2m1x2_bf16(__byte_perm(r.z, r.w, 0x5410), s2), e2m1x2_bf16(__byte_perm(r.z, r.w, 0x7632), s2));
  w[1] = 0;
}

// Whether a full group's raw words must hold no NaN before encode8_packed
// (the e2m1 and fp6 forms from bf16 words, e2m1x2_bf16 and fp6x8_bf16): the
// block quantizers turn NaN into +Inf (bf16x8_nan_to_inf) on their rare
// non-finite path, which every block holding a NaN takes. Same codes in
// every path (C2: NaN and +Inf both give +max); the scale comes from the
// finite elements either way.
template <int F, class In>
constexpr bool kBf16NanFix = (F == kE2M1 || F == kE3M2 || F == kE2M3) && std::is_same_v<In, __nv_bfloat16>;

// fp6 codes of 8 bf16 inputs (raw words, no NaN: kBf16NanFix) scaled by
// 2^-se (se <= 126, as pow2_neg_bf16x2), packed per C6 (6 bytes: w[0] and
// the low half of w[1]), through the fp8 cvt as encode8 does (e3m2 is
// e5m2 scaled by 2^-12, e2m3 is e4m3 scaled by 2^-6: kFp6ViaFp8Shift),
// with fewer ALU-pipe instructions (the rowwise kernels are ALU-bound on
// sm_90, run 20):
//  - y = x * 2^-se * 2^-(12 or 6) in bf16 (exact unless |y| < 2^-126, far
//    below half the smallest fp6 step: code 0 either way, sign kept), then
//    min.xorsign.abs against the fp6 maximum (so scaled) saturates |y| and
//    keeps its sign (+Inf -> +max; no NaN reaches it);
//  - the widened pairs go through cvt.rn.satfinite.{e5m2,e4m3}x2.f32, the
//    only rounding; the magnitude byte is at most 0x1F;
//  - each fp8 byte s << 7 | m becomes the 6-bit code s << 5 | m at bit
//    6 i of the stream by masks and shifts of 4 bytes at once.
template <int F>
__device__ __forceinline__ void fp6x8_bf16(const uint4& r, int se, uint32_t (&w)[2]) {
  constexpr uint32_t kSub = static_cast<uint32_t>(127 - kFp6ViaFp8Shift<F>) * 0x00800080u;  // 2^-12, 2^-6
  static_assert(kSub == (F == kE3M2 ? 0x39803980u : 0x3C803C80u));
  constexpr uint32_t kMax = F == kE3M2 ? 0x3BE03BE0u : 0x3DF03DF0u;  // 28 * 2^-12, 7.5 * 2^-6 (code 0x1F)
  const uint32_t s2 = pow2_neg_bf16x2(se);
  const uint32_t u[4] = {r.x, r.y, r.z, r.w};
  uint32_t y[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    uint32_t P;
    asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(P) : "r"(u[j]), "r"(s2));
    asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(P) : "r"(P), "r"(kSub));
    asm("min.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(y[j]) : "r"(P), "r"(kMax));
  }
  uint32_t b[2];  // fp8 codes of elements 4h .. 4h + 3, one per byte
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float a0 = __uint_as_float(y[2 * h] << 16), a1 = __uint_as_float(y[2 * h] & 0xFFFF0000u);
    const float a2 = __uint_as_float(y[2 * h + 1] << 16), a3 = __uint_as_float(y[2 * h + 1] & 0xFFFF0000u);
    if constexpr (F == kE3M2) {
      asm("{ .reg .b16 t0, t1; cvt.rn.satfinite.e5m2x2.f32 t0, %1, %2; cvt.rn.satfinite.e5m2x2.f32 t1, %3, %4;"
          " mov.b32 %0, {t0, t1}; }" : "=r"(b[h]) : "f"(a1), "f"(a0), "f"(a3), "f"(a2));
    } else {
      asm("{ .reg .b16 t0, t1; cvt.rn.satfinite.e4m3x2.f32 t0, %1, %2; cvt.rn.satfinite.e4m3x2.f32 t1, %3, %4;"
          " mov.b32 %0, {t0, t1}; }" : "=r"(b[h]) : "f"(a1), "f"(a0), "f"(a3), "f"(a2));
    }
  }
  // byte i = s_i << 7 | m_i (bits 5, 6 clear): m_0; s_0, m_1 >> 2; s_1, m_2 >> 4; s_2, m_3 >> 6; s_3 >> 8
  uint32_t c[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const uint32_t x = b[h];
    c[h] = (x & 0x1Fu) | ((x & 0x1F80u) >> 2) | ((x & 0x1F8000u) >> 4) | ((x & 0x1F800000u) >> 6) | ((x >> 8) & 0x800000u);
  }
  w[0] = c[0] | (c[1] << 24);
  w[1] = c[1] >> 8;
}
}  // namespace mxk::dev
