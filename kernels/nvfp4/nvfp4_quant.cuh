// nvfp4_quant.cuh - the NVFP4 block quantizer the NVFP4 launchers use (SPEC
// C5): common/block_quant.cuh's Nvfp4Q, with the torchao order's
// per-element division q = RN(x / total) replaced where that is exact in
// effect (the e2m1 code it gives is the code of RN(x / total)).
//
// torchao order, per block: total = RN(pts * dec(s)) > 0. When total is in
// [2^-126, 2^126], y = RN(1 / total) is a normal fp32 number and every
// element takes q0 = RN(x * y). For |q0| >= 2^-64 (x * y normal):
// x * y = (x / total)(1 + e1), |e1| <= u = 2^-24, and q0 = x * y (1 + e2),
// |e2| <= u, so |q0 - x/total| <= (2u + u^2)|x/total| < 2.0001 ulp(x/total)
// and |q0 - RN(x/total)| < 3.0001 ulp(x/total): at most 7 fp32 steps apart
// (6 when q0 sits one binade lower, where the step is half). The e2m1 code
// of clamp(q, -6, 6) changes only at |q| = 0.25, 0.75, 1.25, 1.75, 2.5, 3.5,
// 5, whose fp32 bit patterns are all multiples of 2^21; so when |q0|'s bits
// are more than 16 steps from every multiple of 2^21 in [0.25, 8], q0 and
// RN(x/total) lie strictly between the same two boundaries (or both beyond
// 6, clamped) and give the same code. Otherwise (near a boundary), for a
// NaN, and for 0 < |q0| < 2^-64, the element is divided exactly
// (__fdiv_rn); q0 = +-0 comes from x = +-0 (exact) or an underflow of a
// non-zero x * y below 2^-150, where RN(x/total) is +-0 or +-2^-149 with
// x's sign: code +-0 either way; |q0| = inf means |x/total| > 2^127:
// code +-6 either way. Outside that range of total (0, NaN, extreme
// global amaxes) the whole block divides exactly.
// Checked on the host over every bf16 and f16 dividend and the divisors the
// recipe makes (torchao_div_check.c: 0 mismatches; without the fallback it
// finds mismatches).
#pragma once

#include "common/block_quant.cuh"

namespace mxk::dev {

// |q| (fp32 bits, sign cleared) within 16 steps of a multiple of 2^21 in
// [0.25 - 16 steps, 8 + 16 steps]: a possible e2m1 decision boundary nearby.
__device__ __forceinline__ bool e2m1_boundary_near(uint32_t b) {
  constexpr uint32_t kMargin = 16, kLo = 0x3E800000u - kMargin, kSpan = 0x41000000u - 0x3E800000u + 2 * kMargin + 1;
  return (b - kLo) < kSpan && ((b + kMargin) & 0x1FFFFFu) < 2 * kMargin + 1;
}

template <int ORDER>
struct Nvfp4FastQ : Nvfp4Q<ORDER> {
  using Base = Nvfp4Q<ORDER>;
  using typename Base::State;
  __device__ __forceinline__ static uint32_t scaled(const uint32_t (&v)[8], int n, const State& st, uint32_t (&xb)[8]) {
    if constexpr (ORDER == 0) {
      return Base::scaled(v, n, st, xb);
    } else {
      float m = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i) if (i < n) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
      m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
      const float pts = st.a;
      const float bs = __fdiv_rn(m, 6.0f);
      float sc = __fdiv_rn(bs, pts);
      if (!(sc != sc)) sc = sc < 0.015625f ? 0.015625f : (sc > 448.0f ? 448.0f : sc);
      const uint32_t s = encode_ue4m3(sc);
      const float total = __fmul_rn(pts, decode_e4m3_mag(s));
      const bool fast = total >= 0x1p-126f && total <= 0x1p126f;  // false for NaN
      const float y = fast ? __frcp_rn(total) : 0.0f;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const float x = __uint_as_float(v[i]);
        float q = __fmul_rn(x, y);
        const uint32_t b = __float_as_uint(q) & 0x7FFFFFFFu;
        if (!fast || (b - 1u) < 0x1F7FFFFFu || b > 0x7F800000u || e2m1_boundary_near(b)) q = __fdiv_rn(x, total);
        if (!(q != q)) q = q < -6.0f ? -6.0f : (q > 6.0f ? 6.0f : q);
        xb[i] = __float_as_uint(q);
      }
      return s;
    }
  }
  template <bool NARROW>
  __device__ __forceinline__ static uint32_t block(const uint32_t (&v)[8], int n, const Params&, const State& st,
                                                   uint32_t (&codes)[8]) {
    uint32_t xb[8];
    const uint32_t s = scaled(v, n, st, xb);
    encode8<kE2M1, true>(xb, 0, codes);
#pragma unroll
    for (int i = 0; i < 8; ++i) if (i >= n) codes[i] = 0;
    return s;
  }
  template <class In>
  __device__ __forceinline__ static uint32_t block_packed(const uint32_t (&v)[8], const uint4* raw, const Params&,
                                                          const State& st, uint32_t (&w)[2]) {
    uint32_t xb[8];
    const uint32_t s = scaled(v, 8, st, xb);
    encode8_packed<kE2M1, true, float>(xb, 0, w, raw);
    return s;
  }
};

}  // namespace mxk::dev
