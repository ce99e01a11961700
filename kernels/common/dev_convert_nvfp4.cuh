// dev_convert_nvfp4.cuh - the device conversions of NVFP4 (SPEC C5): ue4m3
// block scales and e2m1 elements from fp32 values, and back. Part of
// dev_convert.cuh (which includes it at its end; include that one); moved out
// of it unchanged. Like it, independent of the reference library.
#pragma once

namespace mxk::dev {

// ---- ue4m3 / e2m1 for NVFP4 (C5), fp32 value in ---------------------------------
__device__ __forceinline__ uint32_t encode_ue4m3(float v) {  // v >= 0 or NaN
  const uint32_t b = __float_as_uint(v);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return 0x7F;
  return encode_fast<kE4M3>(b) & 0x7Fu;  // +0 -> 0; v >= 0 always here
}
__device__ __forceinline__ float decode_e4m3_mag(uint32_t c) {  // ue4m3 / |e4m3|
  c &= 0x7Fu;
  if (c == 0x7F) return __uint_as_float(0x7FC00000u);
  const uint32_t e = c >> 3, m = c & 7u;
  // exact: value = m * 2^-9 (e = 0) or (8 + m) * 2^(e - 10)
  if (e == 0) return static_cast<float>(m) * 0.001953125f;
  return __uint_as_float(((e + 120u) << 23) | (m << 20));
}
// The same two with the sm_89+ fp8 conversions (one instruction each way,
// no branch): cvt.rn.satfinite.e4m3x2.f32 is RNE with saturation to +-448
// (Inf too) and NaN -> NaN (0x7F once the sign is masked off): for v >= 0
// or NaN that is encode_ue4m3 (C2 rne, saturate, NaN -> 0x7F); the
// conversion back, cvt.rn.f16x2.e4m3x2 (exact: every e4m3 value, subnormals
// included, is an f16 normal), then f16 -> f32 (exact). PTX ISA, "cvt":
// the e4m3x2 forms need sm_89. c: a ue4m3 code (bit 7 clear).
__device__ __forceinline__ uint32_t encode_ue4m3_fast(float v) {  // v >= 0 or NaN
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
  uint32_t d;
  asm("{ .reg .b16 t; cvt.rn.satfinite.e4m3x2.f32 t, %1, %1; cvt.u32.u16 %0, t; }" : "=r"(d) : "f"(v));
  return d & 0x7Fu;
#else
  return encode_ue4m3(v);
#endif
}
__device__ __forceinline__ float decode_ue4m3_fast(uint32_t c) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
  float f;
  asm("{ .reg .b16 t, lo, hi; .reg .b32 h; cvt.u16.u32 t, %1; cvt.rn.f16x2.e4m3x2 h, t;"
      " mov.b32 {lo, hi}, h; cvt.f32.f16 %0, lo; }"
      : "=f"(f)
      : "r"(c));
  return f;
#else
  return decode_e4m3_mag(c);
#endif
}
// e2m1 of scaled fp32 values (NVFP4: x * w or x / total; bits, any value)
// through the bf16 encode of dev_convert_bf16.cuh:
//  - bf16x2_round_odd: each value rounded to odd at bf16's 8 significant
//    bits (bit 16 of a + 0xFFFF is a16 xor "bits 0..15 not all zero", so
//    a | ((a + 0xFFFF) & 0x10000) has bit 16 = a16 or that sticky bit; the
//    bits above are untouched, so Inf stays Inf, a NaN stays a NaN and the
//    largest finite value stays finite), the two high halves taken as one
//    bf16x2 word (lo in the low half). Rounding to odd at 8 >= 2 + 2 bits,
//    then RNE to e2m1's 2 bits, is RNE to e2m1 of the fp32 value
//    (subnormals are bf16 subnormals: code 0 either way);
//  - NaN -> +Inf (bf16x2_nan_to_inf; C2: NaN -> +max whatever its sign);
//  - e2m1x2_bf16y: per lane the magnitude code + 512 * sign.
// kernels/nvfp4/e2m1_pack_check.cpp emulates the whole sequence for every
// fp32 pattern in either lane (every lane equals e2m1 of the value, C2);
// e2m1_grid_check.py checks the last step on every bf16 value.
__device__ __forceinline__ uint32_t bf16x2_round_odd(uint32_t lo, uint32_t hi) {
  const uint32_t l = lo | ((lo + 0xFFFFu) & 0x10000u), h = hi | ((hi + 0xFFFFu) & 0x10000u);
  return __byte_perm(l, h, 0x7632);
}
__device__ __forceinline__ uint32_t e2m1x2_f32ro(uint32_t lo, uint32_t hi) {
  return e2m1x2_bf16y(bf16x2_nan_to_inf(bf16x2_round_odd(lo, hi)));
}
// e2m1 codes of 8 fp32 values that are already scaled (NVFP4: x * w or
// x / total), packed per C6 like encode8_packed<kE2M1, true, float>(x, 0,
// ...), without its multiply by 2^-0 and with e2m1x2_f32ro on the pairs
// (0,2), (1,3), (4,6), (5,7) that pack_e2m1_bf16 takes; on sm_100a/sm_120a
// the native cvt (encode8_packed).
__device__ __forceinline__ void encode8_packed_e2m1_prescaled(const uint32_t (&x)[8], uint32_t (&w)[2]) {
#if !MXK_NATIVE_CVT && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
  w[0] = pack_e2m1_bf16(e2m1x2_f32ro(x[0], x[2]), e2m1x2_f32ro(x[1], x[3]), e2m1x2_f32ro(x[4], x[6]),
                        e2m1x2_f32ro(x[5], x[7]));
  w[1] = 0;
#else
  encode8_packed<kE2M1, true, float>(x, 0, w, nullptr);
#endif
}
__device__ __forceinline__ float decode_e2m1(uint32_t c) {
  const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float v = mag[c & 7u];
  return (c & 8u) ? -v : v;
}

}  // namespace mxk::dev
