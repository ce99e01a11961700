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
// e2m1 of two fp32 values y (bits; already scaled, any value) in fewer
// instructions than round_odd11 + e2m1x2_f16, same codes (lane 0 in bits
// 0..3, lane 1 in bits 16..19):
//  - round to odd at 11 bits as two steps: bit 13 of a + 0x1FFF is a13 xor
//    "bits 0..12 not all zero", so a | ((a + 0x1FFF) & 0x2000) sets bit 13
//    when any lower bit was set (Inf keeps its bits: no NaN is made), and
//    cvt.rz.f16x2.f32 truncates the rest (values below the f16 normals code
//    0 either way, finite values past 65504 become 65504: code 7);
//  - |y| clamped to 6 (NaN -> 6), M = max(2^(e+9), 512) from the exponent
//    field e of the clamped value (one max, no clamp to [1, 4]), S = |y| + M
//    in f16 rounds RNE onto the e2m1 grid of that binade, and the code is
//    S - M + t with t = 0, 2, 4 read off M (M >> 9 is 0x30, 0x32, 0x34);
//  - the sign as in e2m1x2_f16 (none for NaN).
// kernels/nvfp4/e2m1_pack_check.cpp emulates these instructions on the host
// for every fp32 pattern in either lane: every code equals e2m1(y) (C2).
__device__ __forceinline__ uint32_t e2m1x2_f16rz(uint32_t lo, uint32_t hi) {
  const uint32_t l = lo | ((lo + 0x1FFFu) & 0x2000u), h = hi | ((hi + 0x1FFFu) & 0x2000u);
  uint32_t P, Y, Mb, S;
  asm("cvt.rz.f16x2.f32 %0, %1, %2;" : "=r"(P) : "f"(__uint_as_float(h)), "f"(__uint_as_float(l)));
  const uint32_t Y0 = P & 0x7FFF7FFFu;
  const uint32_t nanb = Y0 + 0x03FF03FFu;  // bit 15 of a lane set iff that lane is NaN
  asm("min.f16x2 %0, %1, %2;" : "=r"(Y) : "r"(Y0), "r"(0x46004600u));                               // min(|y|, 6)
  asm("max.f16x2 %0, %1, %2;" : "=r"(Mb) : "r"((Y & 0x7C007C00u) + 0x24002400u), "r"(0x60006000u));  // 512, 1024, 2048
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(S) : "r"(Y), "r"(Mb));
  const uint32_t sg = (P & ~nanb & 0x80008000u) >> 12;  // sign -> bit 3
  return S - Mb + (Mb >> 9) + sg - 0x00300030u;        // per lane, no borrow or carry between the lanes
}
// e2m1 codes of 8 fp32 values that are already scaled (NVFP4: x * w or
// x / total), packed per C6 like encode8_packed<kE2M1, true, float>(x, 0,
// ...), without its multiply by 2^-0 (exact, but one instruction a value)
// and with e2m1x2_f16rz; on sm_100a/sm_120a the native cvt (encode8_packed).
__device__ __forceinline__ void encode8_packed_e2m1_prescaled(const uint32_t (&x)[8], uint32_t (&w)[2]) {
#if !MXK_NATIVE_CVT && defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 890)
  // pairs (0,2), (1,3), (4,6), (5,7) as in encode8_packed
  const uint32_t lo = e2m1x2_f16rz(x[0], x[2]) + (e2m1x2_f16rz(x[1], x[3]) << 4);
  const uint32_t hi = e2m1x2_f16rz(x[4], x[6]) + (e2m1x2_f16rz(x[5], x[7]) << 4);
  w[0] = __byte_perm(lo, hi, 0x6420);
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
