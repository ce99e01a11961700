// block32.cuh - one thread quantizes a whole MX block (SPEC C3, C4, C6):
// 32 16-bit elements held raw in four 16-byte words (8 elements each, in
// order), no shuffles. The block amax is taken on the raw words two at a
// time (max.NaN.xorsign.abs on bf16x2 / f16x2, exact, NaN propagates), the
// scale by scale_code (C3), the elements by encode8 / encode8_packed
// (dev_convert.cuh), the same conversions the other kernels gate.
// Used by the colwise/fused stream kernel (col_stream.cuh).
#pragma once

#include "block_quant.cuh"

namespace mxk::dev {

// The element format and conversion path of an MX block quantizer.
template <class Q>
struct MxTraits;
template <int F, bool HW>
struct MxTraits<MxQ<F, HW>> {
  static constexpr int kF = F;
  static constexpr bool kHW = HW;
};

// |x| max of 32 raw 16-bit elements as fp32 bits (NaN/Inf: >= 0x7F800000).
template <class In>
__device__ __forceinline__ uint32_t absmax2(uint32_t a, uint32_t b) {  // per 16-bit lane, sign undefined
  uint32_t d;
  if constexpr (std::is_same_v<In, __nv_bfloat16>) {
    asm("max.NaN.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  } else {
    asm("max.NaN.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  }
  return d;
}
template <class In>
__device__ __forceinline__ uint32_t amax32(const uint4 (&r)[4]) {
  uint32_t g4[4];
#pragma unroll
  for (int g = 0; g < 4; ++g) g4[g] = absmax2<In>(absmax2<In>(r[g].x, r[g].y), absmax2<In>(r[g].z, r[g].w));
  const uint32_t m = absmax2<In>(absmax2<In>(g4[0], g4[1]), absmax2<In>(g4[2], g4[3])) & 0x7FFF7FFFu;
  if constexpr (std::is_same_v<In, __nv_bfloat16>) {
    return max(m << 16, m & 0xFFFF0000u);
  } else {  // exact widening of the two halves; fp32 bits order like the values
    const uint32_t lo = widen<__half>(__ushort_as_half(static_cast<unsigned short>(m & 0xFFFFu)));
    const uint32_t hi = widen<__half>(__ushort_as_half(static_cast<unsigned short>(m >> 16)));
    return max(lo, hi);
  }
}

// The ue8m0 code used to encode the block (C3) and, in `stored`, the scale
// byte written out (0xFF for a block holding a NaN/Inf unless
// nonfinite_block_ignore). A non-finite block (rare) recomputes the amax
// over its finite elements, as MxQ::scale does.
// (kBf16NanFix: that path also turns the NaN elements of r into +Inf.)
template <class In, class Q>
__device__ __forceinline__ uint32_t scale32(uint4 (&r)[4], const Params& p, uint32_t& stored) {
  constexpr int F = MxTraits<Q>::kF;
  uint32_t am = amax32<In>(r);
  bool nf = false;
  if (am >= 0x7F800000u) {
    nf = true;
    am = 0;
#pragma unroll
    for (int g = 0; g < 4; ++g) {
      uint32_t v[8];
      widen8<In>(&r[g], v);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const uint32_t a = v[i] & 0x7FFFFFFFu;
        if (a < 0x7F800000u) am = max(am, a);
      }
      if constexpr (kBf16NanFix<F, In>) r[g] = bf16x8_nan_to_inf(r[g]);
    }
  }
  const uint32_t code = scale_code<F>(am, p.rule, p.inv_max);
  stored = (nf && !p.nfb_ignore) ? 0xFFu : code;
  return code;
}

// The 32 codes packed per C6: BITS 32-bit words (8-bit: 8 words, fp6: a
// 24-byte little-endian stream in 6 words, e2m1: 4 words of nibbles).
template <class In, class Q>
__device__ __forceinline__ void encode32_packed(const uint4 (&r)[4], int se, uint32_t (&w)[Q::BITS]) {
  constexpr int F = MxTraits<Q>::kF;
  constexpr bool HW = MxTraits<Q>::kHW;
  uint32_t pk[4][2];
#pragma unroll
  for (int g = 0; g < 4; ++g) {
    uint32_t v[8];
    widen8<In>(&r[g], v);
    encode8_packed<F, HW, In>(v, se, pk[g], &r[g]);
  }
  if constexpr (Q::BITS == 8) {
#pragma unroll
    for (int g = 0; g < 4; ++g) {
      w[2 * g] = pk[g][0];
      w[2 * g + 1] = pk[g][1];
    }
  } else if constexpr (Q::BITS == 4) {
#pragma unroll
    for (int g = 0; g < 4; ++g) w[g] = pk[g][0];
  } else {  // 6 bytes per group: pk[g][0] and the low half of pk[g][1]
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const uint32_t(&a)[2] = pk[2 * h];
      const uint32_t(&b)[2] = pk[2 * h + 1];
      w[3 * h] = a[0];
      w[3 * h + 1] = (a[1] & 0xFFFFu) | (b[0] << 16);
      w[3 * h + 2] = (b[0] >> 16) | (b[1] << 16);
    }
  }
}

// The 32 codes one byte each (element i in byte i%4 of word i/4): the
// source-order colwise path transposes these through shared memory.
template <class In, class Q>
__device__ __forceinline__ void encode32_bytes(const uint4 (&r)[4], int se, uint32_t (&w)[8]) {
  constexpr int F = MxTraits<Q>::kF;
  constexpr bool HW = MxTraits<Q>::kHW;
#pragma unroll
  for (int g = 0; g < 4; ++g) {
    uint32_t v[8];
    widen8<In>(&r[g], v);
    if constexpr (Q::BITS == 8) {
      uint32_t pk[2];
      encode8_packed<F, HW, In>(v, se, pk, &r[g]);
      w[2 * g] = pk[0];
      w[2 * g + 1] = pk[1];
    } else {
      uint32_t c[8];
      encode8<F, HW, true>(v, se, c);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        w[2 * g + h] = __byte_perm(__byte_perm(c[4 * h], c[4 * h + 1], 0x3340), __byte_perm(c[4 * h + 2], c[4 * h + 3], 0x3340),
                                   0x5410);
      }
    }
  }
}

// 8 codes, one per byte of lo (codes 0..3) and hi (4..7), packed per C6 for
// store_packed.
template <int BITS>
__device__ __forceinline__ void pack_bytes8(uint32_t lo, uint32_t hi, uint32_t (&w)[2]) {
  if constexpr (BITS == 8) {
    w[0] = lo;
    w[1] = hi;
  } else if constexpr (BITS == 4) {  // byte 0 | byte 1 << 4 in bits 0..7, bytes 2, 3 in bits 16..23
    w[0] = __byte_perm(lo | (lo >> 4), hi | (hi >> 4), 0x6420);
    w[1] = 0;
  } else {
    uint64_t v = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      v |= static_cast<uint64_t>((lo >> (8 * i)) & 0x3Fu) << (6 * i);
      v |= static_cast<uint64_t>((hi >> (8 * i)) & 0x3Fu) << (6 * (i + 4));
    }
    w[0] = static_cast<uint32_t>(v);
    w[1] = static_cast<uint32_t>(v >> 32);
  }
}

// The 32 packed codes of encode32_packed at p (16-byte aligned for 8- and
// 4-bit codes, 8-byte aligned for fp6), streaming stores.
template <int BITS>
__device__ __forceinline__ void store32(uint8_t* p, const uint32_t (&w)[BITS]) {
  if constexpr (BITS == 6) {
    uint2* q = reinterpret_cast<uint2*>(p);
#pragma unroll
    for (int i = 0; i < 3; ++i) __stcs(q + i, make_uint2(w[2 * i], w[2 * i + 1]));
  } else {
    uint4* q = reinterpret_cast<uint4*>(p);
#pragma unroll
    for (int i = 0; i < BITS / 4; ++i) __stcs(q + i, make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]));
  }
}

// The same 32 codes (8-bit) when this lane and the lane `xmask` away own the
// two halves of one 64-byte run (this lane: half e): the pair swaps 16
// bytes by shuffles so that each of the two stores writes whole 32-byte
// sectors (lane e writes bytes 16e.. and 32+16e.. of the run), with the
// store policy S (block_quant.cuh). Every lane of the warp calls it.
template <int S = kStCs>
__device__ __forceinline__ void store32_pair8(uint8_t* own, int e, int xmask, const uint32_t (&w)[8]) {
  uint32_t rv[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) rv[i] = __shfl_xor_sync(0xFFFFFFFFu, e ? w[i] : w[4 + i], xmask);
  uint8_t* run = own - 32 * e;
  const uint4 a = e ? make_uint4(rv[0], rv[1], rv[2], rv[3]) : make_uint4(w[0], w[1], w[2], w[3]);
  const uint4 b = e ? make_uint4(w[4], w[5], w[6], w[7]) : make_uint4(rv[0], rv[1], rv[2], rv[3]);
  st16<S>(run + 16 * e, a);
  st16<S>(run + 32 + 16 * e, b);
}

}  // namespace mxk::dev
