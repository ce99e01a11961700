// one_pass.cuh - NVFP4 rowwise quantize of a small tensor in one launch
// (SPEC C5): the global amax and the quantize of two passes (amax.cuh, then
// rowwise.cuh) in one cooperative kernel with one grid-wide barrier between
// them (hand-written: each CTA's arrival carries its max). For small tensors
// (decode shapes) the launches and round trips, not the bytes, are most of
// the time: memset + k_amax + quantize become one launch, and each warp keeps
// the input it reduced in registers across the barrier instead of reading it
// again, with what of each block scale does not need the global amax.
#pragma once

#include "common/rowwise.cuh"
#include "nvfp4/amax.cuh"

namespace mxk::dev {

// ---- tuning knobs (one pass) -------------------------------------------------------
// Tensors of at most this many elements take the one-pass kernel (rowwise
// only); larger ones the amax pass and the quantize pass (programmatic
// dependent launch between them). 2^21 elements are 4 MB in bf16, 8 MB in
// fp32: what a warp does not keep in registers is read again from L2.
constexpr int64_t kNvfp4OnePassMaxElems = int64_t{1} << 21;
// 16 warps per CTA, launch bound 1 CTA per SM (up to 128 registers: the
// kept values widened to fp32, 32 per item, and their block maxima live
// across the barrier; 90-94 registers, so 1 CTA fits per SM; run 11's
// kernel, which kept the raw words, took 64 for 16-bit inputs). Fewer, fatter CTAs
// mean fewer arrivals at the grid barrier: 128x7168 bf16 on the H100, 112
// CTAs of 16 warps 8.22 us, 224 of 8 8.54 us, 448 of 4 9.28 us (event time,
// bench/results/README.md run 11 nvs); run 12 nvd's kernel 112 x 16 8.03 us,
// 224 x 8 8.51 us.
constexpr int kOnePassWarps = 16;
constexpr int kOnePassCtasPerSm = 1;
// Items: (row, chunk of 256 * kOnePassU elements); lane l owns the 8-element
// groups at chunk + u*256 + l*8, u < kOnePassU, as in k_rowstream (whose
// chunks are 1024 elements for 16-bit inputs). 512-element chunks give
// 128x7168 1792 items: one per warp on 112 CTAs, all resident on an H100.
constexpr int kOnePassU = 2;
// Items per warp held in registers from the amax phase to the quantize
// phase (the launcher sizes the grid for one item per warp where the device
// holds enough warps; an H100 holds 2112 warps of this kernel: any one-pass
// tensor in one or two items per warp). A warp's items after these are read
// again from L2.
constexpr int kOnePassKeep = 2;
// ---- tuning knobs (persistent one launch, nvfp4/persist.cuh) ------------------------
// Rowwise tensors above kNvfp4OnePassMaxElems and of at most
// kNvfp4PersistMaxElems<Q> elements take the persistent kernel: one
// cooperative launch instead of memset + k_amax + the quantize pass, one
// per-launch fixed cost instead of two. Each warp reads its items for the
// amax from the last to the first, then (after the grid barrier) quantizes
// them from the first to the last: the bytes read last are read again first,
// from L2. Measured on the H200 (bench/results/README.md "run 18 nvp", bf16,
// two calls, 3 processes each, us against the two passes in the same call):
// TE order 2048x2048 13.9-14.1 against 16.4-16.6 (-15%), 4096x4096 33.3-33.6
// against 32.9-33.3, 8192x7168 96.9-97.3 against 90.8-91.3, 16384^2
// 395-397 against 365-367 (the two passes take the ring there); torchao
// order slower at every size (2048x2048 14.6-14.9 against 13.7-14.3,
// 8192x7168 108.4-109.2 against 100.4-100.8). So TE up to 2^23 elements
// (between the 2^22 measured faster and the 2^24 measured slower), torchao
// never (0). Not measured with fp16 / fp32 inputs (the rule counts elements).
template <class Q>
inline constexpr int64_t kNvfp4PersistMaxElems = 0;
template <>
inline constexpr int64_t kNvfp4PersistMaxElems<Nvfp4Q<0>> = int64_t{1} << 23;
// 8 warps per CTA and 4 CTAs per SM (k_rowstream's launch bound: at most 64
// registers); the quantize phase is k_rowstream's row_item on the same
// 1024-element (16-bit input) / 512-element (fp32) chunks.
constexpr int kPersistWarps = 8;
constexpr int kPersistCtasPerSm = 4;
// Amax phase: items whose loads a warp has in flight at once (1: 64 bytes
// per lane, 64 KB per SM, as k_amax's 2 loads x 2048 threads; ptxas sm_90a,
// bf16, before the prefetch probe below: 8 / 16 bytes of spill stores (TE /
// torchao) with 1, 24 / 16 with 2; 2 not timed).
constexpr int kPersistAmaxItems = 1;
// L2 prefetch distance in items, both phases: before a warp converts (or
// reduces) its item k, lane 0 asks for its item k + kPersistPrefetch (amax
// phase: k - kPersistPrefetch) with one cp.async.bulk.prefetch.L2; 0: none.
// Measured slower (H200, "run 18 nvp" call 2, TE 8192x7168: none 97.1-97.3
// us, 1 item 102.0-102.3, 2 103.6-104.1, 4 113.6-113.7); kept as a probe,
// mxbench --persist-prefetch N (common/row_select.hpp).
constexpr int kPersistPrefetch = 0;

template <class In>
struct OnePassShape {
  static constexpr int U = kOnePassU;
  static constexpr int CH = 256 * U;                   // elements per item
  static constexpr int LPG = sizeof(In) == 2 ? 1 : 2;  // 16-byte loads per 8-element group
  static constexpr int W = U * LPG;                    // 16-byte words per lane per item
  static constexpr bool NARROW = sizeof(In) == 2;
};

// An item is "full" when its lane words are whole aligned 16-byte loads: the
// input 16-byte aligned with K % 8 == 0 (p.vec_in) and the chunk inside the row.
template <class In>
__device__ __forceinline__ bool one_pass_full(const Params& p, int64_t c) {
  return p.vec_in != 0 && (c + 1) * OnePassShape<In>::CH <= p.K;
}

// The lane's words of a full chunk of shape S (OnePassShape here,
// RowShape in persist.cuh: U groups of 8 elements, LPG 16-byte loads each,
// CH elements per chunk), every load issued before any is used.
template <class S, class In>
__device__ __forceinline__ void lane_words_load(const In* __restrict__ x, const Params& p, int64_t row, int64_t c,
                                                int lane, uint4 (&w)[S::W]) {
  const In* q = x + row * p.K + c * S::CH + lane * 8;
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
#pragma unroll
    for (int j = 0; j < S::LPG; ++j) w[u * S::LPG + j] = ld_stream(q + u * 256 + j * 4);
  }
}
template <class In>
__device__ __forceinline__ void one_pass_load(const In* __restrict__ x, const Params& p, int64_t row, int64_t c,
                                              int lane, uint4 (&w)[OnePassShape<In>::W]) {
  lane_words_load<OnePassShape<In>>(x, p, row, c, lane, w);
}

// NaN-dropping max of |x| over the lane's words of a chunk of shape S folded
// into m (SPEC C5's global amax: the maximum of non-negative non-NaN values,
// whatever the order).
template <class S, class In>
__device__ __forceinline__ float lane_words_amax(const uint4 (&w)[S::W], float m) {
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
    uint32_t v[8];
    widen8<In>(&w[u * S::LPG], v);
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
  }
  return m;
}
template <class In>
__device__ __forceinline__ float one_pass_words_amax(const uint4 (&w)[OnePassShape<In>::W], float m) {
  return lane_words_amax<OnePassShape<In>, In>(w, m);
}

// A ragged item (the row's last chunk, or K % 8 != 0 / an unaligned input):
// per-element bounds. Elements the lane owns: n[u] of group u (0 past the row).
template <class In>
__device__ __forceinline__ void one_pass_ragged_load(const In* __restrict__ xr, const Params& p, int64_t c0, int lane,
                                                     uint32_t (&v)[OnePassShape<In>::U][8], int (&n)[OnePassShape<In>::U]) {
  using S = OnePassShape<In>;
  const int64_t left = p.K - c0;  // > 0
  const int rem = left >= S::CH ? S::CH : static_cast<int>(left);
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
    const int off = u * 256 + lane * 8;
    const int r = rem - off;
    n[u] = r <= 0 ? 0 : (r >= 8 ? 8 : r);
    load8<In>(xr + c0, off, n[u], p.vec_in != 0, v[u]);  // zeros past n[u]
  }
}

template <class In>
__device__ __forceinline__ float one_pass_ragged_amax(const In* __restrict__ x, const Params& p, int64_t row, int64_t c,
                                                      int lane, float m) {
  using S = OnePassShape<In>;
  uint32_t v[S::U][8];
  int n[S::U];
  one_pass_ragged_load<In>(x + row * p.K, p, c * S::CH, lane, v, n);
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v[u][i])));
  }
  return m;
}

// Quantize a ragged item (read again: from L2). As row_ragged (rowwise.cuh)
// for this kernel's item size.
template <class In, class Q>
__device__ __forceinline__ void one_pass_ragged_quant(const In* __restrict__ x, const Params& p,
                                                      const typename Q::State& st, int64_t row, int64_t c, int lane) {
  using S = OnePassShape<In>;
  constexpr int T = Q::V / 8;  // lanes per block
  const RowOut o = row_out(p, row);
  const int64_t c0 = c * S::CH;
  const int64_t left = p.K - c0;
  const bool vout = (p.K % 8) == 0;
  uint32_t v[S::U][8];
  int n[S::U];
  one_pass_ragged_load<In>(x + row * p.K, p, c0, lane, v, n);
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
    if (u * 256 >= left) break;  // warp-uniform: nothing left in this chunk
    uint32_t codes[8];
    const uint32_t sc = Q::template block<S::NARROW>(v[u], n[u], p, st, codes);
    const int64_t g = (c0 >> 3) + u * 32 + lane;
    if (n[u] > 0) {
      store8<Q::BITS>(o.dr, g, n[u], codes, p.container8, Q::SHIFT8, vout);
      if ((lane % T) == 0) o.scale(g / T, sc, p);
    }
  }
}

// Quantize a full item from the lane's words (row_group: rowwise.cuh).
template <class In, class Q>
__device__ __forceinline__ void one_pass_full_quant(const uint4 (&w)[OnePassShape<In>::W], const Params& p,
                                                    const typename Q::State& st, int64_t row, int64_t c, int lane) {
  using S = OnePassShape<In>;
  const RowOut o = row_out(p, row);
  const ChunkOut co = chunk_out<Q, S::CH>(o, p, c * S::CH, lane);
#pragma unroll
  for (int u = 0; u < S::U; ++u) row_group<In, Q>(&w[u * S::LPG], c * S::CH, u, lane, o, co, p, st);
}

// ---- kept items: the block scales' first half before the barrier ----------------
// NVFP4's block scale is a function of the block's max of |x| and of the
// global amax; the max is known before the barrier. A kept full item keeps
// the lane's values widened to fp32 and, per 16-element block, its max m
// of |x|. After the barrier only the rest of Nvfp4Q::scaled
// (common/block_nvfp4.cuh), the encode and the stores remain
// (Nvfp4Q::scaled_max: the same step as every other NVFP4 path).
template <class In>
struct OnePassKept {
  uint32_t v[OnePassShape<In>::U][8];  // fp32 bits
  float bm[OnePassShape<In>::U];       // per group (the lane pair's block)
};

// Widen the lane's words, the block maxima (all lanes call: shuffles), and
// the lane's max of |x| folded into m (the same NaN-dropping fmaxf as
// one_pass_words_amax: the maximum of non-negative non-NaN values whatever
// the order).
template <class In, class Q>
__device__ __forceinline__ float one_pass_keep(const uint4 (&w)[OnePassShape<In>::W], OnePassKept<In>& kp, float m) {
  using S = OnePassShape<In>;
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
    widen8<In>(&w[u * S::LPG], kp.v[u]);
    float lm = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i) lm = fmaxf(lm, fabsf(__uint_as_float(kp.v[u][i])));
    m = fmaxf(m, lm);
    const float bm = fmaxf(lm, __shfl_xor_sync(0xFFFFFFFFu, lm, 1));
    kp.bm[u] = bm;
  }
  return m;
}

// Quantize a kept full item (row_group's stores: rowwise.cuh).
template <class In, class Q>
__device__ __forceinline__ void one_pass_kept_quant(const OnePassKept<In>& kp, const Params& p, const typename Q::State& st,
                                                    const RowOut& o, int64_t c, int lane) {
  using S = OnePassShape<In>;
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
    uint32_t xb[8];
    const uint32_t sc = Q::template scaled_max<S::NARROW>(kp.v[u], kp.bm[u], st, xb);
    const int64_t g = ((c * S::CH) >> 3) + u * 32 + lane;  // 8-element group index in the row
    if (p.container8) {
      uint32_t codes[8];
      encode8<kE2M1, true>(xb, 0, codes);
      store8<Q::BITS>(o.dr, g, 8, codes, 1, Q::SHIFT8, true);
    } else {
      uint32_t pk[2];
      encode8_packed_e2m1_prescaled(xb, pk);
      store_packed<Q::BITS>(o.dr, g, pk);
    }
    if ((lane & 1) == 0) o.scale(g >> 1, sc, p);
  }
}

// ---- the grid barrier ------------------------------------------------------------
// The grid barrier's state, one per (device, stream) (launch_impl.cuh
// OnePassSyncs), zeroed once when allocated. Launch k of a stream uses
// set[epoch & 1]: every CTA raises set.amax to its maximum (red.max: the
// maxima are >= 0 and never NaN, and such fp32 values order like their bit
// patterns), then adds 1 to set.count with release semantics; each CTA's
// thread 0 waits (acquire) for count == gridDim.x, then reads amax once. The
// set of launch k - 1 is free once launch k runs (launches on one stream do
// not overlap), so launch k's CTA 0 zeroes it for launch k + 1, and bumps
// the epoch after its barrier (every CTA read the epoch before arriving;
// only its parity is used, so its wrap after 2^32 launches keeps the
// alternation). Nothing on the host changes per launch: the order of the
// launches is the stream's, whichever host threads enqueue them. Each word
// has its own 128-byte line (the polls of count and the max's atomics go to
// different lines; not timed apart from the move to 16-warp CTAs).
struct OnePassSync {
  uint32_t epoch;
  uint32_t pad0[31];
  struct Set {
    uint32_t count;  // polled by every CTA
    uint32_t pad1[31];
    uint32_t amax;  // raised by every CTA, read once by each
    uint32_t pad2[31];
  } set[2];
};

__device__ __forceinline__ uint32_t ld_relaxed_gpu(const uint32_t* a) {
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
  return v;
}
__device__ __forceinline__ uint32_t ld_acquire_gpu(const uint32_t* a) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
  return v;
}
__device__ __forceinline__ void st_relaxed_gpu(uint32_t* a, uint32_t v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(a), "r"(v) : "memory");
}
// The CTA's arrival (thread 0 only): its maximum, then the count (release:
// the max is performed first, PTX ISA "Memory Consistency Model", release
// patterns), then the wait for every CTA (acquire) and the grid's maximum.
__device__ __forceinline__ uint32_t one_pass_arrive_wait(OnePassSync::Set* set, uint32_t bits) {
  asm volatile("red.relaxed.gpu.global.max.u32 [%0], %1;" ::"l"(&set->amax), "r"(bits) : "memory");
  asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&set->count) : "memory");
  while (ld_acquire_gpu(&set->count) < gridDim.x) {
  }
  return ld_relaxed_gpu(&set->amax);
}

// Thread 0 of each CTA, at the grid barrier (this kernel and the persistent
// one, nvfp4/persist.cuh): arrives with the CTA's max cm (>= 0, never NaN),
// leaves with the grid's (0 when every element is 0 or NaN, as k_amax's
// atomicMax into a zeroed word leaves it); CTA 0 frees launch k - 1's set
// for launch k + 1 (nobody touches it during this grid), bumps the epoch
// (every CTA read it before arriving) and writes the global amax bits to
// gamax. Returns Q::State of the grid's amax.
template <class Q>
__device__ __forceinline__ typename Q::State one_pass_grid_state(OnePassSync* sync, uint32_t epoch, uint32_t cm,
                                                                 const Params& p, uint32_t* gamax) {
  const uint32_t par = epoch & 1u;
  uint32_t g = one_pass_arrive_wait(&sync->set[par], cm);
  if (blockIdx.x == 0) {
    st_relaxed_gpu(&sync->set[par ^ 1u].count, 0u);
    st_relaxed_gpu(&sync->set[par ^ 1u].amax, 0u);
    st_relaxed_gpu(&sync->epoch, epoch + 1u);
    *gamax = g;
  }
  Params pg = p;
  pg.gamax = &g;  // Q::prepare reads the amax through p.gamax
  return Q::prepare(pg);
}

#ifdef MXK_ONE_PASS_STAMPS
// Scratch builds only (bench/results/h100-nvd/probe.cu): per CTA, thread
// 0's globaltimer at entry (0) and exit (6), clock64 at each phase boundary (1-5).
__device__ unsigned long long g_one_pass_stamps[1024][8];
__device__ __forceinline__ void one_pass_stamp(int i, bool gtime) {
  if (threadIdx.x != 0 || blockIdx.x >= 1024) return;
  unsigned long long t;
  if (gtime) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } else {
    t = static_cast<unsigned long long>(clock64());
  }
  g_one_pass_stamps[blockIdx.x][i] = t;
}
#define MXK_OP_STAMP(i) one_pass_stamp(i, false)
#else
#define MXK_OP_STAMP(i) (void)0
#endif

// Cooperative launch (every CTA resident: the launcher caps the grid by the
// occupancy). Global warp gw of nw converts items gw, gw + nw, ... (all
// warps cover consecutive chunks at each step); the first kOnePassKeep stay
// in registers.
//  1. thread 0 reads the barrier's epoch (beside the input loads); every
//     item's lane words are loaded (the kept ones all at once, before any is
//     used); kept full items are widened and their block maxima taken
//     (OnePassKept); the CTA's max of |x| is reduced (redux.sync on the bits);
//  2. one grid barrier that carries the maxima (OnePassSync above): thread 0
//     arrives with the CTA's max and leaves with the grid's, one word,
//     derives Q::State from it for the CTA (shared memory); CTA 0 writes the
//     global amax bits to gamax (the caller reads them);
//  3. the kept items are quantized from registers, the rest read again.
// Measured at 128x7168 bf16 on the H100: bench/results/README.md run 11 nvs
// (this barrier) and run 12 nvd (the block maxima before it).
template <class In, class Q>
__global__ void __launch_bounds__(32 * kOnePassWarps, kOnePassCtasPerSm)
    k_nvfp4_one_pass(const In* __restrict__ x, Params p, int64_t nch, OnePassSync* sync, uint32_t* gamax) {
  using S = OnePassShape<In>;
  constexpr int KEEP = kOnePassKeep, NW = kOnePassWarps;
#ifdef MXK_ONE_PASS_STAMPS
  one_pass_stamp(0, true);
#endif
  MXK_OP_STAMP(1);
  const int lane = threadIdx.x & 31;
  const int64_t nw = static_cast<int64_t>(gridDim.x) * NW;  // blockDim.x == 32 * NW
  const int64_t gw = static_cast<int64_t>(blockIdx.x) * NW + (threadIdx.x >> 5);
  const int64_t items = p.batch * p.M * nch;
  // stable during this grid: the previous launch on the stream has finished,
  // and CTA 0 bumps it only after every CTA has arrived
  uint32_t epoch = 0;
  if (threadIdx.x == 0) epoch = ld_relaxed_gpu(&sync->epoch);
  // ---- 1. loads, the kept items' block maxima and the CTA's amax (warp-uniform branches throughout)
  __shared__ uint32_t wmax[NW];
  __shared__ typename Q::State sst;
  OnePassKept<In> kp[KEEP];
  RowOut o[KEEP];
  int64_t row[KEEP], col[KEEP];
  bool full[KEEP];
  {
    uint4 w[KEEP][S::W];
#pragma unroll
    for (int k = 0; k < KEEP; ++k) {
      const int64_t it = gw + k * nw;
      row[k] = 0;
      col[k] = 0;
      if (it < items) item_rc(it, items, nch, row[k], col[k]);
      full[k] = it < items && one_pass_full<In>(p, col[k]);
      if (full[k]) one_pass_load<In>(x, p, row[k], col[k], lane, w[k]);
    }
    float m = 0.0f;
#pragma unroll
    for (int k = 0; k < KEEP; ++k) {
      if (full[k]) {
        m = one_pass_keep<In, Q>(w[k], kp[k], m);
        o[k] = row_out(p, row[k]);
      } else if (gw + k * nw < items) {
        m = one_pass_ragged_amax<In>(x, p, row[k], col[k], lane, m);
      }
    }
    for (int64_t it = gw + KEEP * nw; it < items; it += nw) {  // not kept: read again in 3.
      int64_t r, c;
      item_rc(it, items, nch, r, c);
      if (one_pass_full<In>(p, c)) {
        uint4 t[S::W];
        one_pass_load<In>(x, p, r, c, lane, t);
        m = one_pass_words_amax<In>(t, m);
      } else {
        m = one_pass_ragged_amax<In>(x, p, r, c, lane, m);
      }
    }
    // m >= 0, never NaN: its bits order like the values
    const uint32_t wm = __reduce_max_sync(0xFFFFFFFFu, __float_as_uint(m));
    if (lane == 0) wmax[threadIdx.x >> 5] = wm;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    // ---- 2. the barrier, carrying the CTA's max (>= 0, never NaN) out and the grid's back
    const uint32_t cm = __reduce_max_sync(0xFFFFFFFFu, lane < NW ? wmax[lane] : 0u);
    if (lane == 0) {
      MXK_OP_STAMP(2);
      sst = one_pass_grid_state<Q>(sync, epoch, cm, p, gamax);
      MXK_OP_STAMP(3);
    }
  }
  __syncthreads();
  const typename Q::State st = sst;
  MXK_OP_STAMP(4);
  // ---- 3. quantize
#pragma unroll
  for (int k = 0; k < KEEP; ++k) {
    if (full[k]) {
      one_pass_kept_quant<In, Q>(kp[k], p, st, o[k], col[k], lane);
    } else if (gw + k * nw < items) {
      one_pass_ragged_quant<In, Q>(x, p, st, row[k], col[k], lane);
    }
  }
  for (int64_t it = gw + KEEP * nw; it < items; it += nw) {
    int64_t r, c;
    item_rc(it, items, nch, r, c);
    if (one_pass_full<In>(p, c)) {
      uint4 t[S::W];
      one_pass_load<In>(x, p, r, c, lane, t);
      one_pass_full_quant<In, Q>(t, p, st, r, c, lane);
    } else {
      one_pass_ragged_quant<In, Q>(x, p, st, r, c, lane);
    }
  }
#ifdef MXK_ONE_PASS_STAMPS
  __syncthreads();
  MXK_OP_STAMP(5);
  one_pass_stamp(6, true);
#endif
}

#undef MXK_OP_STAMP

}  // namespace mxk::dev
