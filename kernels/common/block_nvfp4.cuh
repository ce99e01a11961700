// block_nvfp4.cuh - the NVFP4 block quantizer (SPEC C5), Nvfp4Q<ORDER>:
// the per-tensor state, the ue4m3 block scale and the prescaled e2m1
// elements in both operation orders. Part of block_quant.cuh (which
// includes it at its end, after the store and widening helpers it uses;
// include that one); moved out of it in run 22, when it passed 600 lines.
#pragma once

namespace mxk::dev {

// NVFP4 (C5). ORDER 0: TransformerEngine, 1: torchao. The operation order
// follows reference/src/quantize.cpp (nvfp4_block), one fp32 op at a time.
// The per-tensor terms (S_enc, S_dec, S_enc/6; torchao's per_tensor_scale)
// depend only on the global amax: State computes them once per thread.
//
// torchao's x / total per element (ORDER 1) without an IEEE division:
// Markstein's theorem (P. Markstein, "Computation of elementary functions on
// the IBM RISC System/6000 processor", IBM J. Res. Dev. 34(1), 1990; also
// J.-M. Muller et al., Handbook of Floating-Point Arithmetic, the chapter on
// division with an FMA; M. Cornea, J. Harrison, P. T. P. Tang, Scientific
// Computing on Itanium-based Systems, 2002): in binary floating point with
// round to nearest, if y is within half an ulp of 1/b (y = RN(1/b)) and q is
// within one ulp of a/b, then the remainder r = a - b*q is a floating-point
// number (one fma computes it exactly) and RN(q + r*y) = RN(a/b), provided
// no step underflows or overflows. Here y = RN(1/total) once per block and,
// on a = |x|: q0 = RN(a*y); q1 = fma(fma(-q0, total, a), y, q0), capped at
// 16; result fma(fma(-q1, total, a), y, q1), the sign of x put back.
// q0 alone is NOT always within one ulp (|a*y - a/b| is up to ~1 ulp before
// the rounding: the host check finds about 1% of its pairs 1 to 1.5 ulp
// away), so the first step makes q1 so: q0 + RN(a - b*q0)*y differs from
// a/b by at most |a/b - q0| * (|b*y - 1| + 2^-24 + ...) < 1.5 ulp * 2^-22,
// q1 is within half an ulp plus that. The second step is the theorem's.
// Where the hypotheses can fail:
//  - total outside [2^-64, 2^64], 0, subnormal, Inf or NaN (per_tensor_scale
//    0, tiny, huge or NaN; a NaN ue4m3 decode): the block takes the exact
//    __fdiv_rn path (one test per block on total, the same in both lanes of
//    the block: no per-element branch). Inside the range y is normal.
//  - a / total below 2^-30 (x zero or subnormal, or a tiny element next to
//    a large one): q0, the remainders may underflow, but every step stays
//    below 2^-27 in magnitude, so e2m1 code 0 either way; the sign is x's in
//    both paths (the fma's own sign is dropped: an exact zero sum is +0).
//  - a / total >= 16 (x = Inf, or a huge x in the host check: in the recipe
//    |x| <= block amax, so a / total is about 6 at most): q0 may be Inf and
//    q1 NaN (Inf - Inf); the cap makes q1 16 (fminf(NaN, 16) = 16), so the
//    second remainder is finite (or +Inf for x = Inf) and the result is
//    >= 16 - 2^-18 or +Inf: the e2m1 encode saturates to code 7 with x's
//    sign, as the exact path's clamp to 6 does.
//  - x NaN: the first remainder is NaN, q1 is capped to 16, the second
//    remainder fma(-16, total, NaN) is NaN, so is the result: code 0x7
//    (NaN -> +max, whatever the sign) like the exact path.
//  - a / total in [2^-30, 16) with total in the range: x is normal
//    (|x| >= 2^-94), q0, q1 >= 2^-31, the remainder's grid
//    ulp(total) * ulp(q1) >= 2^-141 is above the subnormal step (so the
//    second remainder is exact), nothing overflows: the theorem applies and
//    the result is RN(x / total) (the host check compares these bits too).
// The result is not clamped to [-6, 6]: the e2m1 encode saturates (|v| > 6
// and Inf give code 7 with the sign), so the code equals the clamped one.
// kNvfp4ExactDiv (MXK_NVFP4_EXACT_DIV=1) builds the exact path everywhere.
#ifndef MXK_NVFP4_EXACT_DIV
#define MXK_NVFP4_EXACT_DIV 0
#endif
template <int ORDER>
struct Nvfp4Q {
  static constexpr int V = 16;
  static constexpr int BITS = 4;
  static constexpr int SHIFT8 = 2;
  static constexpr bool kNvfp4ExactDiv = MXK_NVFP4_EXACT_DIV != 0;
  static constexpr float kFastDivLo = 0x1p-64f, kFastDivHi = 0x1p64f;  // the fast path's totals
  // RN(1 / x) for x in [2^-64, 2^64]: the instructions of __frcp_rn's own
  // fast path (SASS of run 22, bench/results/h200-run22/call3/rw_tao.sass.gz
  // at 0x13b80: MUFU.RCP y0; FFMA e = x y0 - 1; FADD.FTZ -e; FFMA y0 (-e) +
  // y0), without its test of x's exponent (that path is taken for every
  // exponent field in [1, 252]; here 63 .. 191) and its branch. The FTZ of
  // the negation never acts: e = RN(x y0 - 1) is 0 or at least 2^-48 in
  // magnitude (x y0 has at most 48 significant bits).
  __device__ __forceinline__ static float rcp_rn_mid(float x) {
    float y0;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y0) : "f"(x));
    const float e = __fmaf_rn(x, y0, -1.0f);
    return __fmaf_rn(y0, -e, y0);
  }
  // torchao's block scale RN(RN(m / 6) / pts) without the two IEEE
  // divisions, where pts is in [2^-64, 2^64] (State::b = RN(1 / pts), else
  // 0 and the block takes __fdiv_rn twice):
  //  - div6_rn(m) = RN(m / 6) by Markstein's step on q0 = RN(m * RN(1/6)):
  //    kernels/nvfp4/div_check.cpp --scale compares it with IEEE division
  //    for every finite fp32 m >= 0: equal wherever m / 6 is normal (m >=
  //    6 * 2^-126); below that it may be one subnormal ulp off, and the
  //    quotient by pts >= 2^-64 is then below 2^-59, which the 2^-6 clamp
  //    below makes 2^-6 either way;
  //  - div_rn_pos(a, pts, y) = RN(a / pts) for a >= 0 by the two steps of
  //    quotient_rn's fp32 path (the theorem above, hypotheses met: pts and
  //    y normal, a / pts <= 448 (1 + 2^-22) since m <= the global amax G
  //    and pts = RN(G / 2688); where a / pts < 2^-30 the steps may
  //    underflow, but the result stays below 2^-29 and the clamp makes it
  //    2^-6, as it does RN(a / pts)). div_check.cpp --scale checks the
  //    bits on the recipe's (m, G) pairs.
  // m = +Inf makes G and pts infinite (the __fdiv_rn path).
  __device__ __forceinline__ static float div6_rn(float m) {
    constexpr float c = 1.0f / 6.0f;  // RN(1/6)
    const float q0 = __fmul_rn(m, c);
    return __fmaf_rn(__fmaf_rn(-q0, 6.0f, m), c, q0);
  }
  __device__ __forceinline__ static float div_rn_pos(float a, float b, float y) {
    const float q0 = __fmul_rn(a, y);
    const float q1 = __fmaf_rn(__fmaf_rn(-q0, b, a), y, q0);
    return __fmaf_rn(__fmaf_rn(-q1, b, a), y, q1);
  }
  // RN(x / total) with y = RN(1/total) (fp32 bits in and out; see above).
  // NARROW (bf16, f16 inputs: x and the global amax G have at most 11
  // significant bits), three instructions on the signed x: q0 = RN(x * y),
  // r = RD(x - q0 * total) (fma.rm), result RN(q0 + r * y). This is
  // Markstein's step on q0 directly, and q0 is not always within one ulp, so
  // the theorem does not cover it: kernels/nvfp4/nvfp4_math_check.cpp checks
  // it on every divisor significand the recipe can produce from such inputs
  // (total = RN(RN(G / 2688) * decode(s))) against every 11-bit dividend
  // significand of both signs at every exponent that matters (the bits are
  // RN(x / total) wherever |x / total| < 16, the codes equal everywhere),
  // and against every bf16 and f16 pattern (zeros, subnormals, NaN: codes
  // and signs equal). The rounding down makes an exact zero remainder -0,
  // so x = -0 gives -0 (and +0 gives +0) without a sign step. No cap: in
  // this path x is finite (an infinite x makes G, so per_tensor_scale and
  // every total, infinite: exact path) and |x| / total is about 6.4 at most
  // (|x| <= block amax, s >= 2^-6 is a normal ue4m3 code).
  template <bool NARROW>
  __device__ __forceinline__ static uint32_t quotient_rn(uint32_t xbits, float total, float y) {
    if constexpr (NARROW) {
      const float x = __uint_as_float(xbits);
      const float q0 = __fmul_rn(x, y);
      return __float_as_uint(__fmaf_rn(__fmaf_rd(-q0, total, x), y, q0));
    } else {
      const float ax = fabsf(__uint_as_float(xbits));
      const float q0 = __fmul_rn(ax, y);
      const float q1 = fminf(__fmaf_rn(__fmaf_rn(-q0, total, ax), y, q0), 16.0f);  // within 1 ulp
      const float res = __fmaf_rn(__fmaf_rn(-q1, total, ax), y, q1);              // RN(ax / total)
      return (__float_as_uint(res) & 0x7FFFFFFFu) | (xbits & 0x80000000u);
    }
  }
  struct State {
    float a, b;  // TE: s_dec, s_enc * fp32(1/6); torchao: per_tensor_scale, RN(1 / it) or 0 (div_rn_pos)
  };
  __device__ __forceinline__ static State prepare(const Params& p) {
    const float gam = __uint_as_float(*p.gamax & 0x7FFFFFFFu);
    State st;
    if (ORDER == 0) {
      const float s_enc = (gam == 0.0f || !isfinite(gam)) ? 1.0f : __fdiv_rn(2688.0f, gam);
      st.a = __fdiv_rn(1.0f, s_enc);
      st.b = __fmul_rn(s_enc, static_cast<float>(1.0 / 6.0));
    } else {
      st.a = __fdiv_rn(gam, 2688.0f);
      st.b = (!kNvfp4ExactDiv && st.a >= kFastDivLo && st.a <= kFastDivHi) ? __frcp_rn(st.a) : 0.0f;
    }
    return st;
  }
  // The ue4m3 scale of the lane's block and its 8 values scaled for the
  // e2m1 encode (fp32 bits). The ue4m3 encode and decode are the sm_89+
  // conversions (encode_ue4m3_fast: equal to encode_ue4m3 for v >= 0 and
  // NaN; its saturation also does torchao's upper clamp to 448: every v >
  // 448 and +Inf gives 0x7E either way). TE's 1 / denom is __frcp_rn (the
  // same correctly rounded reciprocal as __fdiv_rn(1, denom)).
  // scaled_max takes the block's max m of |x| (a kernel may find it before
  // the global amax is known: kernels/nvfp4/one_pass.cuh).
  template <bool NARROW>
  __device__ __forceinline__ static uint32_t scaled(const uint32_t (&v)[8], int n, const State& st, uint32_t (&xb)[8]) {
    float m = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) if (i < n) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
    m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
    return scaled_max<NARROW>(v, m, st, xb);
  }
  // The block scale in two steps: scale_of_max (the ue4m3 code s and what
  // the elements need: TE the multiplier, torchao total and RN(1 / total),
  // or y = 0 for the exact path), then apply to 8 values (a lane holding a
  // whole 16-element block applies one scale to both its halves: row_pair16
  // in rowwise.cuh).
  struct BlockScale {
    uint32_t s;
    float a, y;  // TE: the multiplier, unused; torchao: total, RN(1 / total) or 0
  };
  __device__ __forceinline__ static BlockScale scale_of_max(float m, const State& st) {
    BlockScale b;
    if (ORDER == 0) {
      const float s_dec = st.a;
      b.s = encode_ue4m3_fast(__fmul_rn(m, st.b));  // m * b >= 0, never NaN
      const float denom = __fmul_rn(decode_ue4m3_fast(b.s), s_dec);
      b.a = fminf(__frcp_rn(denom), FLT_MAX);
      b.y = 0.0f;
    } else {
      const float pts = st.a;
      // sc = RN(RN(m / 6) / pts); the two divisions by FMA steps where pts
      // is in the fast range (st.b = RN(1 / pts), uniform over the tensor;
      // div6_rn, div_rn_pos), else by __fdiv_rn
      float sc = st.b != 0.0f ? div_rn_pos(div6_rn(m), pts, st.b) : __fdiv_rn(__fdiv_rn(m, 6.0f), pts);
      if (sc < 0.015625f) sc = 0.015625f;  // NaN passes (torch.clamp); the upper clamp: see above
      b.s = encode_ue4m3_fast(sc);
      b.a = __fmul_rn(pts, decode_ue4m3_fast(b.s));  // total
      // RN(x / total) without a division per element where total is in the
      // fast range (see quotient_rn; NaN total: exact path); the codes
      // equal the exact path's (kernels/nvfp4/div_check.cpp,
      // nvfp4_math_check.cpp)
      b.y = (!kNvfp4ExactDiv && b.a >= kFastDivLo && b.a <= kFastDivHi) ? rcp_rn_mid(b.a) : 0.0f;
    }
    return b;
  }
  template <bool NARROW>
  __device__ __forceinline__ static void apply(const uint32_t (&v)[8], const BlockScale& b, uint32_t (&xb)[8]) {
    if (ORDER == 0) {
#pragma unroll
      for (int i = 0; i < 8; ++i) xb[i] = __float_as_uint(__fmul_rn(__uint_as_float(v[i]), b.a));
    } else if (b.y != 0.0f) {
#pragma unroll
      for (int i = 0; i < 8; ++i) xb[i] = quotient_rn<NARROW>(v[i], b.a, b.y);
    } else {
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float q = __fdiv_rn(__uint_as_float(v[i]), b.a);
        if (!(q != q)) q = q < -6.0f ? -6.0f : (q > 6.0f ? 6.0f : q);
        xb[i] = __float_as_uint(q);
      }
    }
  }
  template <bool NARROW>
  __device__ __forceinline__ static uint32_t scaled_max(const uint32_t (&v)[8], float m, const State& st,
                                                        uint32_t (&xb)[8]) {
    const BlockScale b = scale_of_max(m, st);
    apply<NARROW>(v, b, xb);
    return b.s;
  }
  template <bool NARROW>  // picks the torchao quotient's sequence (the scaled values are fp32 results)
  __device__ __forceinline__ static uint32_t block(const uint32_t (&v)[8], int n, const Params& p, const State& st,
                                                   uint32_t (&codes)[8]) {
    (void)p;
    uint32_t xb[8];
    const uint32_t s = scaled<NARROW>(v, n, st, xb);
    encode8<kE2M1, true>(xb, 0, codes);
#pragma unroll
    for (int i = 0; i < 8; ++i) if (i >= n) codes[i] = 0;
    return s;
  }
  template <class In>  // 16-bit In: NARROW (the scaled values are fp32 results whatever In is)
  __device__ __forceinline__ static uint32_t block_packed(const uint32_t (&v)[8], const uint4* raw, const Params& p,
                                                          const State& st, uint32_t (&w)[2]) {
    (void)p;
    (void)raw;
    uint32_t xb[8];
    const uint32_t s = scaled<sizeof(In) == 2>(v, 8, st, xb);
    encode8_packed_e2m1_prescaled(xb, w);
    return s;
  }
  // A whole 16-element block in one lane (16-bit inputs: two raw 16-byte
  // words w0, w1), packed: 8 code bytes in pk, the scale code returned. The
  // same steps as scaled + block_packed on each half, with the block max
  // from the lane's 16 values instead of a shuffle (fmaxf drops NaN and the
  // values are non-negative: the order does not matter) and one
  // scale_of_max for both halves.
  template <class In>
  __device__ __forceinline__ static uint32_t block16_packed(const uint4& w0, const uint4& w1, const State& st,
                                                            uint32_t (&pk)[2]) {
    static_assert(sizeof(In) == 2, "16-bit inputs: 8 values a word");
    uint32_t v0[8], v1[8], xb[8], w[2];
    widen8<In>(&w0, v0);
    widen8<In>(&w1, v1);
    float m = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v0[i])));
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v1[i])));
    const BlockScale b = scale_of_max(m, st);
    apply<true>(v0, b, xb);
    encode8_packed_e2m1_prescaled(xb, w);
    pk[0] = w[0];
    apply<true>(v1, b, xb);
    encode8_packed_e2m1_prescaled(xb, w);
    pk[1] = w[0];
    return b.s;
  }
};

}  // namespace mxk::dev
