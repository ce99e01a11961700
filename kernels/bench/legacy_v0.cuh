// legacy_v0.cuh - the quantize kernels as they were BEFORE the performance
// rework (commit 25b3cff, common/tiles.cuh: 8 elements per thread, 64-bit
// per-group index math, 32x64 tiles), kept only so that mxbench measures
// "before" and "after" in the same run on the same GPU. Benchmark-only:
// nothing else calls these, and the gate covers the current kernels.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>
#include <cstdint>

#include "common/dev_convert.cuh"

namespace mxk::v0 {
using namespace mxk::dev;  // conversions (unchanged since v0)


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

__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 r;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
  return r;
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

// ---- block quantizers -----------------------------------------------------------
// block(): called by every lane of the warp (shuffles); lanes of one block
// are V/8 aligned neighbours. Elements i >= n are absent (zero bits in v).
template <int F, bool HW>
struct MxQ {
  static constexpr int V = 32;
  static constexpr int BITS = Elem<F>::bits;
  static constexpr int SHIFT8 = (F == kE2M1) ? 2 : 0;  // container8 placement (C6)
  __device__ __forceinline__ static uint32_t block(const uint32_t (&v)[8], int n, const Params& p,
                                                   uint32_t (&codes)[8]) {
    // amax over all present elements; a NaN/Inf shows up as am >= 0x7F800000
    // and (rarely) sends the warp through the finite-only recomputation (C3).
    // (absent elements i >= n are zero bits in v: they never raise amax)
    uint32_t am = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) am = max(am, v[i] & 0x7FFFFFFFu);
    uint32_t nf = am >= 0x7F800000u ? 1u : 0u;
    if (__any_sync(0xFFFFFFFFu, nf)) {
      am = 0;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const uint32_t a = v[i] & 0x7FFFFFFFu;
        if (i < n && a < 0x7F800000u) am = max(am, a);
      }
    }
    am = max(am, __shfl_xor_sync(0xFFFFFFFFu, am, 1));
    am = max(am, __shfl_xor_sync(0xFFFFFFFFu, am, 2));
    nf |= __shfl_xor_sync(0xFFFFFFFFu, nf, 1);
    nf |= __shfl_xor_sync(0xFFFFFFFFu, nf, 2);
    const uint32_t code = scale_code<F>(am, p.rule, p.inv_max);
    encode8<F, HW>(v, static_cast<int>(code) - 127, codes);
    if (n < 8) {
#pragma unroll
      for (int i = 0; i < 8; ++i) if (i >= n) codes[i] = 0;
    }
    return (nf && !p.nfb_ignore) ? 0xFFu : code;
  }
};

// NVFP4 (C5). ORDER 0: TransformerEngine, 1: torchao. The operation order
// follows reference/src/quantize.cpp (nvfp4_block), one fp32 op at a time.
template <int ORDER>
struct Nvfp4Q {
  static constexpr int V = 16;
  static constexpr int BITS = 4;
  static constexpr int SHIFT8 = 2;
  __device__ __forceinline__ static uint32_t block(const uint32_t (&v)[8], int n, const Params& p,
                                                   uint32_t (&codes)[8]) {
    float m = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) if (i < n) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
    m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
    const float gam = __uint_as_float(*p.gamax & 0x7FFFFFFFu);
    uint32_t s;
    float x[8];
    if (ORDER == 0) {
      const float s_enc = (gam == 0.0f || !isfinite(gam)) ? 1.0f : __fdiv_rn(2688.0f, gam);
      const float s_dec = __fdiv_rn(1.0f, s_enc);
      const float t = __fmul_rn(s_enc, static_cast<float>(1.0 / 6.0));
      s = encode_ue4m3(__fmul_rn(m, t));
      const float denom = __fmul_rn(decode_e4m3_mag(s), s_dec);
      const float mult = fminf(__fdiv_rn(1.0f, denom), FLT_MAX);
#pragma unroll
      for (int i = 0; i < 8; ++i) x[i] = __fmul_rn(__uint_as_float(v[i]), mult);
    } else {
      const float pts = __fdiv_rn(gam, 2688.0f);
      const float bs = __fdiv_rn(m, 6.0f);
      float sc = __fdiv_rn(bs, pts);
      if (!(sc != sc)) sc = sc < 0.015625f ? 0.015625f : (sc > 448.0f ? 448.0f : sc);
      s = encode_ue4m3(sc);
      const float total = __fmul_rn(pts, decode_e4m3_mag(s));
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        float q = __fdiv_rn(__uint_as_float(v[i]), total);
        if (!(q != q)) q = q < -6.0f ? -6.0f : (q > 6.0f ? 6.0f : q);
        x[i] = q;
      }
    }
    uint32_t xb[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) xb[i] = __float_as_uint(x[i]);
    encode8<kE2M1, true>(xb, 0, codes);
#pragma unroll
    for (int i = 0; i < 8; ++i) if (i >= n) codes[i] = 0;
    return s;
  }
};

// ---- rowwise: registers only ------------------------------------------------------
template <class In, class Q>
__global__ void __launch_bounds__(256) k_rowwise(const In* __restrict__ x, Params p) {
  constexpr int T = Q::V / 8;
  const int64_t G = p.row.sblocks * T;  // thread groups per row
  const int64_t rows = p.batch * p.M;
  const int64_t total = rows * G;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int lane = threadIdx.x & 31;
  const bool vout = (p.K % 8) == 0;
  const bool small = total < (int64_t{1} << 32);
  // Two independent groups per iteration: both loads are in flight before
  // either is converted (memory-level parallelism).
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * blockDim.x + (threadIdx.x & ~31); base < total;
       base += 2 * stride) {
    int64_t row[2], g[2];
    int n[2];
    uint32_t v[2][8];
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int64_t t = base + u * stride + lane;
      row[u] = 0;
      g[u] = 0;
      n[u] = 0;
      if (t < total) {
        row[u] = small ? static_cast<int64_t>(static_cast<uint32_t>(t) / static_cast<uint32_t>(G)) : t / G;
        g[u] = t - row[u] * G;
        const int64_t r = p.K - g[u] * 8;
        n[u] = r <= 0 ? 0 : (r >= 8 ? 8 : static_cast<int>(r));
      }
      load8<In>(x, row[u] * p.K + g[u] * 8, n[u], p.vec_in, v[u]);
    }
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const bool live = base + u * stride + lane < total;
      uint32_t codes[8];
      const uint32_t sc = Q::block(v[u], n[u], p, codes);
      if (n[u] > 0) store8<Q::BITS>(p.row.data + row[u] * p.row.row_bytes, g[u], n[u], codes, p.container8, Q::SHIFT8, vout);
      if (live && (g[u] % T) == 0) {
        const int64_t b = row[u] / p.M;
        p.row.scales[scale_offset(p.row, b, row[u] - b * p.M, g[u] / T)] = static_cast<uint8_t>(sc);
      }
    }
  }
}

// ---- colwise / fused: 32 x 64 tiles ---------------------------------------------
constexpr int kTR = 32, kTC = 64;

template <class In, class Q, bool ROW, bool COL>
__global__ void __launch_bounds__(256) k_tile(const In* __restrict__ x, Params p) {
  constexpr int T = Q::V / 8;
  __shared__ uint32_t sx[kTR][kTC + 1];
  __shared__ uint8_t scode[kTR][kTC + 4];
  const int tid = threadIdx.x;
  const int64_t ntm = (p.M + kTR - 1) / kTR, ntc = (p.K + kTC - 1) / kTC;
  const int64_t ntiles = p.batch * ntm * ntc;
  const bool vrow = (p.K % 8) == 0;
  const bool vcol = (p.M % 8) == 0;
  for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    const int64_t b = tile / (ntm * ntc);
    const int64_t rem = tile - b * ntm * ntc;
    const int64_t tm = rem / ntc, tc = rem - tm * ntc;
    const int64_t m0 = tm * kTR, c0 = tc * kTC;
    // load: thread -> row lr, columns lc..lc+7
    const int lr = tid >> 3, lc = (tid & 7) * 8;
    {
      const int64_t m = m0 + lr, k = c0 + lc;
      int n = 0;
      if (m < p.M) {
        const int64_t r = p.K - k;
        n = r <= 0 ? 0 : (r >= 8 ? 8 : static_cast<int>(r));
      }
      uint32_t v[8];
      load8<In>(x, (b * p.M + m) * p.K + k, n, p.vec_in, v);
      if (COL) {
#pragma unroll
        for (int i = 0; i < 8; ++i) sx[lr][lc + i] = v[i];
      }
      if (ROW) {
        uint32_t codes[8];
        const uint32_t sc = Q::block(v, n, p, codes);
        const int64_t g = k / 8;
        if (n > 0) store8<Q::BITS>(p.row.data + (b * p.M + m) * p.row.row_bytes, g, n, codes, p.container8, Q::SHIFT8, vrow);
        if (m < p.M && k < p.K && (g % T) == 0) p.row.scales[scale_offset(p.row, b, m, g / T)] = static_cast<uint8_t>(sc);
      }
    }
    if (COL) {
      __syncthreads();
      // thread -> column cc, rows rg*8 .. rg*8+7
      const int cc = tid >> 2, rg = tid & 3;
      const int64_t k = c0 + cc, mm = m0 + rg * 8;
      int n = 0;
      if (k < p.K) {
        const int64_t r = p.M - mm;
        n = r <= 0 ? 0 : (r >= 8 ? 8 : static_cast<int>(r));
      }
      uint32_t v[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = (i < n) ? sx[rg * 8 + i][cc] : 0u;
      uint32_t codes[8];
      const uint32_t sc = Q::block(v, n, p, codes);
      const int64_t g = mm / 8;
      if (k < p.K && mm < p.M && (g % T) == 0) p.col.scales[scale_offset(p.col, b, k, g / T)] = static_cast<uint8_t>(sc);
      if (p.col.transposed) {
        if (n > 0) store8<Q::BITS>(p.col.data + (b * p.K + k) * p.col.row_bytes, g, n, codes, p.container8, Q::SHIFT8, vcol);
      } else {
#pragma unroll
        for (int i = 0; i < 8; ++i) scode[rg * 8 + i][cc] = static_cast<uint8_t>(codes[i]);
        __syncthreads();
        const int64_t m = m0 + lr, kk = c0 + lc;
        int n2 = 0;
        if (m < p.M) {
          const int64_t r = p.K - kk;
          n2 = r <= 0 ? 0 : (r >= 8 ? 8 : static_cast<int>(r));
        }
        uint32_t c2[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) c2[i] = (i < n2) ? scode[lr][lc + i] : 0u;
        if (n2 > 0) store8<Q::BITS>(p.col.data + (b * p.M + m) * p.col.row_bytes, kk / 8, n2, c2, p.container8, Q::SHIFT8, vrow);
      }
      __syncthreads();
    }
  }
}

}  // namespace mxk::v0
