// block_quant.cuh - what every block-quantization kernel shares (SPEC C3,
// C4, C5, C6, C7): the launch parameters, the scale offset of each layout,
// 8-element loads widened to fp32 bits, packed 8-code stores, and the two
// block quantizers (MX ue8m0, NVFP4 ue4m3) as policy classes. Every thread
// owns 8 consecutive elements along the quantized axis; V/8 neighbouring
// lanes share one block and reduce its amax with shuffles. All indices are
// 64-bit. The kernels: rowwise.cuh (rowwise), tiles.cuh (colwise, fused).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>

#include "dev_convert.cuh"

namespace mxk::dev {

enum : int { kDense = 0, kDenseColwise = 1, kTcgen05 = 2 };

struct Side {  // one output (rowwise or colwise)
  uint8_t* data;
  uint8_t* scales;
  int64_t row_bytes;  // bytes of one packed data row
  int64_t srows;      // scale-matrix rows (M rowwise, K colwise)
  int64_t sblocks;    // scale-matrix blocks per row
  int64_t nkt;        // ceil(sblocks / 4)
  int64_t smat;       // bytes of one scale matrix in this layout
  int layout;
  int transposed;
};

struct Params {
  int64_t batch, M, K;
  Side row, col;
  int container8;
  int rule;
  int nfb_ignore;
  float inv_max;
  int vec_in;       // K % 8 == 0 and the input 16-byte aligned
  const uint32_t* gamax;  // NVFP4 global amax (fp32 bits)
};

__device__ __forceinline__ int64_t scale_offset(const Side& s, int64_t b, int64_t r, int64_t kb) {
  if (s.layout == kDense) return (b * s.srows + r) * s.sblocks + kb;
  if (s.layout == kDenseColwise) return b * s.srows * s.sblocks + kb * s.srows + r;
  return b * s.smat + (r / 128) * s.nkt * 512 + (kb / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + (kb % 4);
}

// ---- loads: 8 consecutive elements widened to fp32 bits -------------------------
template <class In>
__device__ __forceinline__ uint32_t widen(In v);
template <> __device__ __forceinline__ uint32_t widen<float>(float v) { return __float_as_uint(v); }
template <> __device__ __forceinline__ uint32_t widen<__nv_bfloat16>(__nv_bfloat16 v) {
  return static_cast<uint32_t>(__bfloat16_as_ushort(v)) << 16;
}
template <> __device__ __forceinline__ uint32_t widen<__half>(__half v) {
  return __float_as_uint(__half2float(v));  // exact widening
}

// The streaming 16-byte load of k_rowstream, the NVFP4 amax and one-pass
// kernels and tiles.cuh: a plain `ld.global` (PTX ISA 9.7.9.8). Measured on
// the H100 against `ld.global.nc.L1::no_allocate` (the form used before run
// 11), same call, same tree otherwise (bench/results/h100-ldg/, 16384^2
// bf16, ratio to the D2D copy, plain / nc): k_rowstream MXFP8 dense 1.015 /
// 0.964, MXINT8 dense 0.955 / 0.929, MXFP8 tcgen05 0.987 / 0.924; NVFP4
// (amax pass + k_rowstream) 0.948 / 0.942; bench/sol/sol.cu's bytes-only
// kernel 1.013 / 0.967 (run 10).
__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 r;
  asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
  return r;
}

// ---- cache policies of the code and scale stores (PTX ISA 9.7.9.10 st) ----------
// kStCs: st.global.cs (__stcs, evict-first streaming), kStWb: plain
// st.global (.wb; for scale bytes the plain C++ byte store), kStNoAlloc:
// st.global.L1::no_allocate, kStEvictFirst / kStEvictLast / kStEvictNormal:
// st.global.L2::cache_hint with a createpolicy.fractional.L2::evict_first /
// evict_last / evict_normal policy of fraction 1.0 (9.7.9.17 createpolicy),
// kStCg: st.global.cg. Each kernel names its policies among its knobs
// (rowwise.cuh, col_stream.cuh), measured in run 14 hint
// (bench/results/README.md): k_rowstream's 8-bit codes plain and their
// scale bytes evict_last, the colwise stream kernel's transposed and fused
// rowwise 8-bit codes evict_last; every other code store .cs, every other
// scale byte plain. (Load policies measured there too and not kept:
// ld.global / cp.async.cg with L2::cache_hint evict_first 5-9% slower,
// .L2::128B / .L2::256B within noise.)
enum : int { kStCs = 0, kStWb = 1, kStNoAlloc = 2, kStEvictFirst = 3, kStEvictLast = 4, kStEvictNormal = 5, kStCg = 6 };
template <int S>
constexpr bool kStHinted = S == kStEvictFirst || S == kStEvictLast || S == kStEvictNormal;
template <int S>
__device__ __forceinline__ uint64_t l2_policy() {
  uint64_t c;
  if constexpr (S == kStEvictLast) {
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(c));
  } else if constexpr (S == kStEvictNormal) {
    asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(c));
  } else {
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(c));
  }
  return c;
}
// the un-hinted forms: VEC the vector suffix, OPS the value operands (%1..)
#define MXK_ST_PLAIN(VEC, OPS, ...)                                                        \
  if constexpr (S == kStWb) {                                                              \
    asm volatile("st.global" VEC " [%0], " OPS ";" ::"l"(p), __VA_ARGS__);                \
  } else if constexpr (S == kStNoAlloc) {                                                  \
    asm volatile("st.global.L1::no_allocate" VEC " [%0], " OPS ";" ::"l"(p), __VA_ARGS__); \
  } else if constexpr (S == kStCg) {                                                       \
    asm volatile("st.global.cg" VEC " [%0], " OPS ";" ::"l"(p), __VA_ARGS__);             \
  } else {                                                                                 \
    asm volatile("st.global.cs" VEC " [%0], " OPS ";" ::"l"(p), __VA_ARGS__);             \
  }
template <int S>
__device__ __forceinline__ void st16(void* p, uint4 v) {
  if constexpr (S == kStCs) {
    __stcs(static_cast<uint4*>(p), v);
  } else if constexpr (kStHinted<S>) {
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w), "l"(l2_policy<S>()));
  } else {
    MXK_ST_PLAIN(".v4.u32", "{%1,%2,%3,%4}", "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w))
  }
}
template <int S>
__device__ __forceinline__ void st8(void* p, uint32_t a, uint32_t b) {
  if constexpr (S == kStCs) {
    __stcs(static_cast<uint2*>(p), make_uint2(a, b));
  } else if constexpr (kStHinted<S>) {
    asm volatile("st.global.L2::cache_hint.v2.u32 [%0], {%1,%2}, %3;" ::"l"(p), "r"(a), "r"(b), "l"(l2_policy<S>()));
  } else {
    MXK_ST_PLAIN(".v2.u32", "{%1,%2}", "r"(a), "r"(b))
  }
}
template <int S>
__device__ __forceinline__ void st1(uint8_t* p, uint32_t a) {
  if constexpr (S == kStWb) {
    *p = static_cast<uint8_t>(a);
  } else if constexpr (kStHinted<S>) {
    asm volatile("st.global.L2::cache_hint.u8 [%0], %1, %2;" ::"l"(p), "h"(static_cast<unsigned short>(a & 0xFFu)),
                 "l"(l2_policy<S>()));
  } else {
    MXK_ST_PLAIN(".u8", "%1", "h"(static_cast<unsigned short>(a & 0xFFu)))
  }
}
#undef MXK_ST_PLAIN

// 8 elements from raw 16-byte words (one word for 16-bit inputs, two for fp32).
template <class In>
__device__ __forceinline__ void widen8(const uint4* w, uint32_t (&v)[8]) {
  if constexpr (sizeof(In) == 2) {
    const uint32_t u[4] = {w[0].x, w[0].y, w[0].z, w[0].w};
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      if constexpr (std::is_same_v<In, __nv_bfloat16>) {
        v[2 * j] = u[j] << 16;
        v[2 * j + 1] = u[j] & 0xFFFF0000u;
      } else {
        v[2 * j] = widen<__half>(__ushort_as_half(static_cast<unsigned short>(u[j] & 0xFFFFu)));
        v[2 * j + 1] = widen<__half>(__ushort_as_half(static_cast<unsigned short>(u[j] >> 16)));
      }
    }
  } else {
    v[0] = w[0].x; v[1] = w[0].y; v[2] = w[0].z; v[3] = w[0].w;
    v[4] = w[1].x; v[5] = w[1].y; v[6] = w[1].z; v[7] = w[1].w;
  }
}

template <class In>
__device__ __forceinline__ void load8(const In* __restrict__ x, int64_t i0, int n, bool vec, uint32_t (&v)[8]) {
  if (vec && n == 8) {
    if constexpr (sizeof(In) == 2) {
      const uint4 u = ld_stream(x + i0);
      const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if constexpr (std::is_same_v<In, __nv_bfloat16>) {
          v[2 * j] = w[j] << 16;
          v[2 * j + 1] = w[j] & 0xFFFF0000u;
        } else {
          v[2 * j] = widen<__half>(__ushort_as_half(static_cast<unsigned short>(w[j] & 0xFFFFu)));
          v[2 * j + 1] = widen<__half>(__ushort_as_half(static_cast<unsigned short>(w[j] >> 16)));
        }
      }
    } else {
      const uint4 a = ld_stream(x + i0);
      const uint4 b = ld_stream(x + i0 + 4);
      v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
      v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) v[i] = (i < n) ? widen<In>(x[i0 + i]) : 0u;
}

// ---- stores: 8 codes of one thread, packed per C6 -------------------------------
template <int BITS>
__device__ __forceinline__ void store8(uint8_t* row, int64_t g, int n, const uint32_t (&c)[8], int container8,
                                       int shift8, bool vec) {
  if (BITS == 8 || container8) {
    uint64_t w = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) w |= static_cast<uint64_t>((c[i] << shift8) & 0xFFu) << (8 * i);
    uint8_t* p = row + g * 8;
    if (vec && n == 8) {
      __stcs(reinterpret_cast<uint2*>(p), make_uint2(static_cast<uint32_t>(w), static_cast<uint32_t>(w >> 32)));
    } else {
      for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(w >> (8 * i));
    }
  } else if (BITS == 4) {
    uint32_t w = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) w |= (c[i] & 0xFu) << (4 * i);
    uint8_t* p = row + g * 4;
    if (vec && n == 8) {
      __stcs(reinterpret_cast<unsigned int*>(p), w);
    } else {
      const int nb = (n + 1) / 2;
      for (int i = 0; i < nb; ++i) p[i] = static_cast<uint8_t>(w >> (8 * i));
    }
  } else {  // 6-bit little-endian stream
    uint64_t w = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) w |= static_cast<uint64_t>(c[i] & 0x3Fu) << (6 * i);
    uint8_t* p = row + g * 6;
    if (vec && n == 8) {
      unsigned short* q = reinterpret_cast<unsigned short*>(p);
      __stcs(q, static_cast<unsigned short>(w));
      __stcs(q + 1, static_cast<unsigned short>(w >> 16));
      __stcs(q + 2, static_cast<unsigned short>(w >> 32));
    } else {
      const int nb = (6 * n + 7) / 8;
      for (int i = 0; i < nb; ++i) p[i] = static_cast<uint8_t>(w >> (8 * i));
    }
  }
}

// A full group's packed codes (encode8_packed) at group g of a packed row;
// 8-bit codes with the store policy S (4- and 6-bit codes: .cs).
// store_packed_at: the same at the group's first byte q (BITS bytes per group).
template <int BITS, int S = kStCs>
__device__ __forceinline__ void store_packed_at(uint8_t* q, const uint32_t (&w)[2]) {
  if constexpr (BITS == 8) {
    st8<S>(q, w[0], w[1]);
  } else if constexpr (BITS == 4) {
    __stcs(reinterpret_cast<unsigned int*>(q), w[0]);
  } else {  // 6 bytes, 2-byte aligned
    unsigned short* h = reinterpret_cast<unsigned short*>(q);
    __stcs(h, static_cast<unsigned short>(w[0]));
    __stcs(h + 1, static_cast<unsigned short>(w[0] >> 16));
    __stcs(h + 2, static_cast<unsigned short>(w[1]));
  }
}
template <int BITS, int S = kStCs>
__device__ __forceinline__ void store_packed(uint8_t* row, int64_t g, const uint32_t (&w)[2]) {
  store_packed_at<BITS, S>(row + g * BITS, w);
}

// |x| max of a full group as fp32 bits (a NaN/Inf shows as >= 0x7F800000),
// from the raw 16-byte words: bf16 two at a time with max.NaN.xorsign.abs
// (exact on bf16 values, subnormals kept; NaN propagates; the sign of the
// result is cleared), other types from the widened values.
template <class In>
__device__ __forceinline__ uint32_t amax8(const uint4* w, const uint32_t (&v)[8]) {
  if constexpr (std::is_same_v<In, __nv_bfloat16>) {
    uint32_t a, b, m;
    asm("max.NaN.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(a) : "r"(w[0].x), "r"(w[0].y));
    asm("max.NaN.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(b) : "r"(w[0].z), "r"(w[0].w));
    asm("max.NaN.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(m) : "r"(a), "r"(b));
    m &= 0x7FFF7FFFu;
    return max(m << 16, m & 0xFFFF0000u);
  } else {
    uint32_t am = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) am = max(am, v[i] & 0x7FFFFFFFu);
    return am;
  }
}

// ---- block quantizers -----------------------------------------------------------
// block(): called by every lane of the warp (shuffles); lanes of one block
// are V/8 aligned neighbours. Elements i >= n are absent (zero bits in v).
template <int F, bool HW>
struct MxQ {
  static constexpr int V = 32;
  static constexpr int BITS = Elem<F>::bits;
  static constexpr int SHIFT8 = (F == kE2M1) ? 2 : 0;  // container8 placement (C6)
  struct State {};
  __device__ __forceinline__ static State prepare(const Params&) { return {}; }
  // The ue8m0 scale code of the lane's block (C3), and in nfm the mask
  // OR-ed into the stored scale byte: 0xFF for a block holding a NaN/Inf
  // (unless nonfinite_block_ignore), else 0.
  // am: the lane's |x| max as fp32 bits (amax8), or ~0u to compute it here.
  // raw: where not null, the lane's raw words, whose NaN elements the rare
  // non-finite path turns into +Inf (kBf16NanFix).
  __device__ __forceinline__ static uint32_t scale(const uint32_t (&v)[8], int n, const Params& p, uint32_t& nfm,
                                                   uint32_t am = ~0u, uint4* raw = nullptr) {
    // amax over all present elements; a NaN/Inf shows up as am >= 0x7F800000
    // and (rarely) sends the warp through the finite-only recomputation (C3).
    // (absent elements i >= n are zero bits in v: they never raise amax)
    if (am == ~0u) {
      am = 0;
#pragma unroll
      for (int i = 0; i < 8; ++i) am = max(am, v[i] & 0x7FFFFFFFu);
    }
    nfm = 0;
    if (__any_sync(0xFFFFFFFFu, am >= 0x7F800000u)) {  // rare: some block of the warp is non-finite
      uint32_t nf = am >= 0x7F800000u ? 1u : 0u;
      am = 0;
      // with raw (bf16 words, n == 8) the values are widened here, so that
      // the common path does not widen at all (e2m1x2_bf16 reads the words)
      uint32_t u[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) u[i] = v[i];
      if (raw != nullptr) widen8<__nv_bfloat16>(raw, u);
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const uint32_t a = u[i] & 0x7FFFFFFFu;
        if (i < n && a < 0x7F800000u) am = max(am, a);
      }
      nf |= __shfl_xor_sync(0xFFFFFFFFu, nf, 1);
      nf |= __shfl_xor_sync(0xFFFFFFFFu, nf, 2);
      nfm = (nf && !p.nfb_ignore) ? 0xFFu : 0u;
      if (raw != nullptr) *raw = bf16x8_nan_to_inf(*raw);
    }
    am = max(am, __shfl_xor_sync(0xFFFFFFFFu, am, 1));
    am = max(am, __shfl_xor_sync(0xFFFFFFFFu, am, 2));
    return scale_code<F>(am, p.rule, p.inv_max);
  }
  // NARROW: the input type has at most 11 significant bits (bf16, f16)
  template <bool NARROW>
  __device__ __forceinline__ static uint32_t block(const uint32_t (&v)[8], int n, const Params& p, const State&,
                                                   uint32_t (&codes)[8]) {
    uint32_t nfm;
    const uint32_t code = scale(v, n, p, nfm);
    encode8<F, HW, NARROW>(v, static_cast<int>(code) - 127, codes);
    if (n < 8) {
#pragma unroll
      for (int i = 0; i < 8; ++i) if (i >= n) codes[i] = 0;
    }
    return code | nfm;
  }
  // A full group (n == 8) and its raw 16-byte word(s), codes packed per C6
  // (packed layout): see amax8, encode8_packed.
  template <class In>
  __device__ __forceinline__ static uint32_t block_packed(const uint32_t (&v)[8], const uint4* raw, const Params& p,
                                                          const State&, uint32_t (&w)[2]) {
    uint32_t nfm;
    uint4 r = *raw;
    const uint32_t code = scale(v, 8, p, nfm, amax8<In>(raw, v), kBf16NanFix<F, In> ? &r : nullptr);
    encode8_packed<F, HW, In>(v, static_cast<int>(code) - 127, w, &r);
    return code | nfm;
  }
};

}  // namespace mxk::dev

#include "block_nvfp4.cuh"  // Nvfp4Q (NVFP4, C5), on the helpers above
