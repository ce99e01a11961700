// tiles.cuh - the block-quantization kernel templates (SPEC C3, C4, C5,
// C6, C7): a rowwise kernel that works from registers, and a 32x64 tile
// kernel for colwise (source or transposed data) and fused rowwise+colwise
// quantization in one read of the input. The block quantizer (MX ue8m0 or
// NVFP4 ue4m3) is a policy class. Every thread owns 8 consecutive elements
// along the quantized axis; V/8 neighbouring lanes share one block and
// reduce its amax with shuffles. All indices are 64-bit.
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

__device__ __forceinline__ uint4 ld_stream(const void* p) {
  uint4 r;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p));
  return r;
}

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
  __device__ __forceinline__ static uint32_t block(const uint32_t (&v)[8], int n, const Params& p, const State&,
                                                   uint32_t (&codes)[8]) {
    // amax over all present elements; a NaN/Inf shows up as am >= 0x7F800000
    // and (rarely) sends the warp through the finite-only recomputation (C3).
    // (absent elements i >= n are zero bits in v: they never raise amax)
    uint32_t am = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) am = max(am, v[i] & 0x7FFFFFFFu);
    uint32_t nf = 0;
    if (__any_sync(0xFFFFFFFFu, am >= 0x7F800000u)) {  // rare: some block of the warp is non-finite
      nf = am >= 0x7F800000u ? 1u : 0u;
      am = 0;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const uint32_t a = v[i] & 0x7FFFFFFFu;
        if (i < n && a < 0x7F800000u) am = max(am, a);
      }
      nf |= __shfl_xor_sync(0xFFFFFFFFu, nf, 1);
      nf |= __shfl_xor_sync(0xFFFFFFFFu, nf, 2);
    }
    am = max(am, __shfl_xor_sync(0xFFFFFFFFu, am, 1));
    am = max(am, __shfl_xor_sync(0xFFFFFFFFu, am, 2));
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
// The per-tensor terms (S_enc, S_dec, S_enc/6; torchao's per_tensor_scale)
// depend only on the global amax: State computes them once per thread.
template <int ORDER>
struct Nvfp4Q {
  static constexpr int V = 16;
  static constexpr int BITS = 4;
  static constexpr int SHIFT8 = 2;
  struct State {
    float a, b;  // TE: s_dec, s_enc * fp32(1/6); torchao: per_tensor_scale, unused
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
      st.b = 0.0f;
    }
    return st;
  }
  __device__ __forceinline__ static uint32_t block(const uint32_t (&v)[8], int n, const Params& p, const State& st,
                                                   uint32_t (&codes)[8]) {
    (void)p;
    float m = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) if (i < n) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
    m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, 1));
    uint32_t s;
    float x[8];
    if (ORDER == 0) {
      const float s_dec = st.a;
      s = encode_ue4m3(__fmul_rn(m, st.b));
      const float denom = __fmul_rn(decode_e4m3_mag(s), s_dec);
      const float mult = fminf(__fdiv_rn(1.0f, denom), FLT_MAX);
#pragma unroll
      for (int i = 0; i < 8; ++i) x[i] = __fmul_rn(__uint_as_float(v[i]), mult);
    } else {
      const float pts = st.a;
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

// ---- rowwise: cp.async ring per warp ---------------------------------------------
// One warp per (row, chunk of 256*U elements): lane l owns the 8-element
// groups at chunk + u*256 + l*8 (u < U), so every load is a coalesced
// 512-byte (bf16) warp access. grid.x covers rows (8 warps per CTA, one row
// each), grid.y strides over the chunks (a warp converts up to 4 chunks of
// its row). Full vector chunks are prefetched kRowStages-1 chunks ahead with
// cp.async (16 bytes per lane per copy, L2 only) into a per-warp ring in
// shared memory: the bytes in flight hold no registers. Each lane reads back
// only the words it copied itself, so the ring needs no barrier; a stage is
// refilled only after the same lane consumed it. Row, 64-bit bases and the
// tcgen05 row offset are computed once per warp; nothing divides per element.
constexpr int kRowWarps = 8;
constexpr int kRowStages = 3;  // ring depth: chunk i converts while i+1, i+2 load

__device__ __forceinline__ void cp_async16(void* smem, const void* g) {
  const uint32_t sa = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
template <class In>
struct RowU {
  static constexpr int U = sizeof(In) == 4 ? 2 : 4;  // 64 bytes of input per thread in flight
};

template <class In, class Q>
__global__ void __launch_bounds__(256, 4) k_rowwise(const In* __restrict__ x, Params p) {
  constexpr int U = RowU<In>::U;
  constexpr int T = Q::V / 8;          // lanes per block
  constexpr int CH = 32 * 8 * U;       // elements per warp chunk
  constexpr int LPG = sizeof(In) == 2 ? 1 : 2;  // 16-byte loads per 8-element group
  const int lane = threadIdx.x & 31;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kRowWarps + (threadIdx.x >> 5);
  const int64_t rows = p.batch * p.M;
  if (row >= rows) return;  // warp-uniform
  const typename Q::State st = Q::prepare(p);
  const In* __restrict__ xr = x + row * p.K;
  uint8_t* __restrict__ dr = p.row.data + row * p.row.row_bytes;
  // scale offset of (row, kb) = sbase + (tcgen05 ? (kb/4)*512 + kb%4 : kb)  (C7)
  const bool tc = p.row.layout == kTcgen05;
  int64_t sbase;
  if (tc) {
    const int64_t b = p.batch == 1 ? 0 : row / p.M;
    const int64_t r = row - b * p.M;
    sbase = b * p.row.smat + (r >> 7) * p.row.nkt * 512 + (r & 31) * 16 + ((r >> 5) & 3) * 4;
  } else {
    sbase = row * p.row.sblocks;
  }
  const bool vec = p.vec_in != 0;
  const bool vout = (p.K % 8) == 0;
  const int64_t nch = (p.K + CH - 1) / CH;
  const int64_t gy = gridDim.y;
  // quantize group u of chunk c0 (all lanes call: the block amax uses shuffles)
  auto emit = [&](int64_t c0, int u, const uint32_t (&v)[8], int n) {
    uint32_t codes[8];
    const uint32_t sc = Q::block(v, n, p, st, codes);
    const int64_t g = (c0 >> 3) + u * 32 + lane;  // 8-element group index in the row
    if (n > 0) {
      store8<Q::BITS>(dr, g, n, codes, p.container8, Q::SHIFT8, vout);
      if ((lane % T) == 0) {
        const int64_t kb = g / T;
        p.row.scales[sbase + (tc ? ((kb >> 2) * 512 + (kb & 3)) : kb)] = static_cast<uint8_t>(sc);
      }
    }
  };
  // 16-byte words per lane per chunk, in a ring [stage][warp][word][lane]:
  // a warp's copy of one word is 512 contiguous bytes (no bank conflicts).
  constexpr int W = U * LPG;
  constexpr int S = kRowStages;
  __shared__ uint4 ring[S][kRowWarps][W][32];
  const int wp = threadIdx.x >> 5;
  auto is_full = [&](int64_t c) { return c < nch && vec && (c + 1) * CH <= p.K; };
  // Copies the lane's words of chunk c into stage st (when that chunk exists
  // and is full; a ragged one loads directly), then commits a group (maybe
  // empty: one group per chunk slot, so the group count stays in step).
  auto issue = [&](int64_t c, int st) {
    if (is_full(c)) {
      const In* q = xr + c * CH + lane * 8;
#pragma unroll
      for (int u = 0; u < U; ++u) {
#pragma unroll
        for (int j = 0; j < LPG; ++j) cp_async16(&ring[st][wp][u * LPG + j][lane], q + u * 256 + j * 4);
      }
    }
    cp_async_commit();
  };
#pragma unroll
  for (int k = 0; k < S - 1; ++k) issue(static_cast<int64_t>(blockIdx.y) + k * gy, k);
  int cs = 0, is = S - 1;  // stage of the chunk converted now / of the one copied now
  for (int64_t ch = blockIdx.y; ch < nch; ch += gy) {
    // stage `is` == the previous iteration's `cs`: this lane has consumed it
    // (its words went through registers into the stores already)
    issue(ch + (S - 1) * gy, is);
    cp_async_wait<S - 1>();  // this chunk's group (and all before it) complete
    const int64_t c0 = ch * CH;
    if (is_full(ch)) {
#pragma unroll
      for (int u = 0; u < U; ++u) {
        uint4 w[LPG];
#pragma unroll
        for (int j = 0; j < LPG; ++j) w[j] = ring[cs][wp][u * LPG + j][lane];
        uint32_t v[8];
        widen8<In>(w, v);
        emit(c0, u, v, 8);
      }
    } else {  // ragged or unaligned chunk: per-element bounds
      const int64_t left = p.K - c0;  // > 0
      const int rem = left >= CH ? CH : static_cast<int>(left);
      uint32_t v[U][8];
      int n[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const int off = u * 256 + lane * 8;
        const int r = rem - off;
        n[u] = r <= 0 ? 0 : (r >= 8 ? 8 : r);
        load8<In>(xr + c0, off, n[u], vec, v[u]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if (u * 256 >= rem) break;  // warp-uniform: nothing left in this chunk
        emit(c0, u, v[u], n[u]);
      }
    }
    cs = cs + 1 == S ? 0 : cs + 1;
    is = is + 1 == S ? 0 : is + 1;
  }
  cp_async_wait<0>();  // nothing is left in flight (only existing chunks were copied)
}

// ---- colwise / fused: TR x 64 tiles (TR = 128, or 32 for small tensors) ---------
// A CTA of 256 threads owns a TR-row x 64-column tile. Load: thread ->
// columns lc..lc+7 of rows lr, lr+32, ... (TR/32 independent 16-byte loads
// in flight); the rowwise blocks (fused) are quantized from those
// registers. Colwise: thread -> column cc, rows 32u + rg*8 .. +7 of each
// 32-row band. In-tile offsets are 32-bit; the 64-bit tile bases are
// computed once per tile. Two barriers per tile (three for source-order
// colwise data, which goes back through shared memory). The launcher uses
// TR = 32 where 128-row tiles would leave the GPU under ~2 waves of CTAs
// (small tensors: more, smaller CTAs); both are gated (mxk::set_tile_rows).
constexpr int kTR = 128, kTRSmall = 32, kTC = 64;

template <class In, class Q, bool ROW, bool COL, int TR = kTR>
__global__ void __launch_bounds__(256, 3) k_tile(const In* __restrict__ x, Params p) {
  static_assert(TR == 32 || TR == 64 || TR == 128, "tile rows: a multiple of 32, at most 128");
  constexpr int T = Q::V / 8;
  constexpr int kTB = TR / 32;
  __shared__ uint32_t sx[TR][kTC + 1];
  __shared__ uint8_t scode[TR][kTC + 4];
  const int tid = threadIdx.x;
  const int64_t ntm = (p.M + TR - 1) / TR, ntc = (p.K + kTC - 1) / kTC;
  const int64_t ntiles = p.batch * ntm * ntc;
  const bool vrow = (p.K % 8) == 0;
  const bool vcol = (p.M % 8) == 0;
  const typename Q::State st = Q::prepare(p);
  const int lr = tid >> 3, lc = (tid & 7) * 8;  // load / source-order store mapping
  const int cc = tid >> 2, rg = tid & 3;        // colwise mapping
  constexpr int LPG = sizeof(In) == 2 ? 1 : 2;  // 16-byte loads per 8-element group
  const bool small = ntiles < (int64_t{1} << 31);
  const uint32_t ntc32 = static_cast<uint32_t>(ntc), nt32 = static_cast<uint32_t>(ntm * ntc);
  // tile -> (batch, first row, first column); 32-bit divisions when they fit
  auto coords = [&](int64_t tile, int64_t& b, int64_t& m0, int64_t& c0) {
    int64_t tm, tc;
    if (small) {
      const uint32_t t = static_cast<uint32_t>(tile);
      const uint32_t b32 = t / nt32, r32 = t - b32 * nt32, tm32 = r32 / ntc32;
      b = b32;
      tm = tm32;
      tc = r32 - tm32 * ntc32;
    } else {
      b = tile / (ntm * ntc);
      const int64_t rem = tile - b * ntm * ntc;
      tm = rem / ntc;
      tc = rem - tm * ntc;
    }
    m0 = tm * TR;
    c0 = tc * kTC;
  };
  // Full, aligned tiles are software-pipelined: the raw 16-byte words of the
  // CTA's next tile are loaded before the current tile is converted.
  auto is_full = [&](int64_t m0, int64_t c0) { return p.vec_in && p.M - m0 >= TR && p.K - c0 >= kTC; };
  auto raw_load = [&](int64_t b, int64_t m0, int64_t c0, uint4 (&w)[kTB * LPG]) {
    const In* q = x + (b * p.M + m0 + lr) * p.K + c0 + lc;
#pragma unroll
    for (int u = 0; u < kTB; ++u) {
#pragma unroll
      for (int j = 0; j < LPG; ++j) w[u * LPG + j] = ld_stream(q + static_cast<int64_t>(32 * u) * p.K + j * 4);
    }
  };
  int64_t tile = blockIdx.x;
  int64_t b = 0, m0 = 0, c0 = 0;
  if (tile < ntiles) coords(tile, b, m0, c0);
  uint4 cur[kTB * LPG];
  bool cur_full = tile < ntiles && is_full(m0, c0);
  if (cur_full) raw_load(b, m0, c0, cur);
  for (; tile < ntiles; tile += gridDim.x) {
    const int64_t nx = tile + gridDim.x;
    int64_t nb = 0, nm0 = 0, nc0 = 0;
    if (nx < ntiles) coords(nx, nb, nm0, nc0);
    uint4 nxt[kTB * LPG];
    const bool nx_full = nx < ntiles && is_full(nm0, nc0);
    if (nx_full) raw_load(nb, nm0, nc0, nxt);
    const int mrem = static_cast<int>(p.M - m0 < TR ? p.M - m0 : TR);  // rows of this tile
    const int krem = static_cast<int>(p.K - c0 < kTC ? p.K - c0 : kTC);  // columns of this tile
    // load phase for band u: into shared memory (colwise) and rowwise blocks (fused)
    auto phase1 = [&](int u, const uint32_t (&v)[8], int n) {
      if (COL) {
#pragma unroll
        for (int i = 0; i < 8; ++i) sx[lr + 32 * u][lc + i] = v[i];
      }
      if (ROW) {
        if (32 * u < mrem) {  // warp-uniform (a warp's lanes share the band)
          uint32_t codes[8];
          const uint32_t sc = Q::block(v, n, p, st, codes);
          const int64_t m = m0 + lr + 32 * u;
          const int64_t g = (c0 + lc) / 8;
          if (n > 0) {
            store8<Q::BITS>(p.row.data + (b * p.M + m) * p.row.row_bytes, g, n, codes, p.container8, Q::SHIFT8, vrow);
            if ((g % T) == 0) p.row.scales[scale_offset(p.row, b, m, g / T)] = static_cast<uint8_t>(sc);
          }
        }
      }
    };
    if (cur_full) {
#pragma unroll
      for (int u = 0; u < kTB; ++u) {
        uint32_t v[8];
        widen8<In>(&cur[u * LPG], v);
        phase1(u, v, 8);
      }
    } else {
      const In* __restrict__ xt = x + (b * p.M + m0) * p.K + c0;
      uint32_t v[kTB][8];
      int n[kTB];
#pragma unroll
      for (int u = 0; u < kTB; ++u) {
        const int r = krem - lc;
        n[u] = (lr + 32 * u >= mrem || r <= 0) ? 0 : (r >= 8 ? 8 : r);
        load8<In>(xt, static_cast<int64_t>(lr + 32 * u) * p.K + lc, n[u], p.vec_in, v[u]);
      }
#pragma unroll
      for (int u = 0; u < kTB; ++u) phase1(u, v[u], n[u]);
    }
    if (COL) {
      __syncthreads();
      const int64_t k = c0 + cc;
#pragma unroll
      for (int u = 0; u < kTB; ++u) {
        if (32 * u >= mrem) break;  // block-uniform
        const int r0 = 32 * u + rg * 8;
        const int r = mrem - r0;
        const int n = (cc >= krem || r <= 0) ? 0 : (r >= 8 ? 8 : r);
        uint32_t v[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) v[i] = (i < n) ? sx[r0 + i][cc] : 0u;
        uint32_t codes[8];
        const uint32_t sc = Q::block(v, n, p, st, codes);
        const int64_t g = (m0 + r0) / 8;
        if (n > 0) {
          if ((g % T) == 0) p.col.scales[scale_offset(p.col, b, k, g / T)] = static_cast<uint8_t>(sc);
          if (p.col.transposed) {
            store8<Q::BITS>(p.col.data + (b * p.K + k) * p.col.row_bytes, g, n, codes, p.container8, Q::SHIFT8, vcol);
          }
        }
        if (!p.col.transposed) {
#pragma unroll
          for (int i = 0; i < 8; ++i) scode[r0 + i][cc] = static_cast<uint8_t>(codes[i]);
        }
      }
      if (!p.col.transposed) {
        __syncthreads();
        const int r = krem - lc;
#pragma unroll
        for (int u = 0; u < kTB; ++u) {
          const int row = lr + 32 * u;
          const int n2 = (row >= mrem || r <= 0) ? 0 : (r >= 8 ? 8 : r);
          if (n2 > 0) {
            uint32_t c2[8];
#pragma unroll
            for (int i = 0; i < 8; ++i) c2[i] = (i < n2) ? scode[row][lc + i] : 0u;
            store8<Q::BITS>(p.col.data + (b * p.M + m0 + row) * p.col.row_bytes, (c0 + lc) / 8, n2, c2, p.container8,
                            Q::SHIFT8, vrow);
          }
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kTB * LPG; ++i) cur[i] = nxt[i];
    cur_full = nx_full;
    b = nb;
    m0 = nm0;
    c0 = nc0;
  }
}

// ---- global amax (NVFP4, per-tensor): NaN-dropping fmax of |x| -------------------
template <class In>
__global__ void __launch_bounds__(256) k_amax(const In* __restrict__ x, int64_t n, int vec, uint32_t* out) {
  float m = 0.0f;
  const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t ngroups = (n + 7) / 8;
  for (int64_t g = t0; g < ngroups; g += nthreads) {
    const int64_t i0 = g * 8;
    const int64_t r = n - i0;
    const int cnt = r >= 8 ? 8 : static_cast<int>(r);
    uint32_t v[8];
    load8<In>(x, i0, cnt, vec, v);
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  __shared__ float sm[8];
  if ((threadIdx.x & 31) == 0) sm[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    m = threadIdx.x < (blockDim.x >> 5) ? sm[threadIdx.x] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    // non-negative fp32 values order like their bit patterns
    if (threadIdx.x == 0 && m > 0.0f) atomicMax(out, __float_as_uint(m));
  }
}

}  // namespace mxk::dev
