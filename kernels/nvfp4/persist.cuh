// persist.cuh - NVFP4 rowwise quantize of a large tensor in one launch (SPEC
// C5): the amax pass (amax.cuh) and the quantize pass (rowwise.cuh,
// k_rowstream) of the two-pass path as the two phases of one persistent
// cooperative kernel, joined by the one-pass kernel's grid barrier that
// carries the CTA maxima (one_pass.cuh: OnePassSync, its per-stream state
// and rules). The two-pass path pays two per-launch fixed costs (k_amax's
// ramp and tail, then the quantize grid's), the copy it is measured against
// one; here the quantize phase starts on every SM the moment the barrier
// opens. Knobs: one_pass.cuh ("persistent one launch"). Measured on the
// H200 (bench/results/README.md "run 18 nvp"): faster than the two passes
// for TE's order at 2^22 elements, slower from 2^24 up and in torchao's
// order, so the launcher takes it only for TE up to 2^23.
#pragma once

#include "nvfp4/one_pass.cuh"

namespace mxk::dev {

// A full chunk of k_rowstream's walk (RowShape): the lane's words are whole
// aligned 16-byte loads (vec_in: the input 16-byte aligned, K % 8 == 0) and
// the chunk lies inside the row.
template <class In>
__device__ __forceinline__ bool persist_full(const Params& p, int64_t c) {
  return p.vec_in != 0 && (c + 1) * RowShape<In>::CH <= p.K;
}

// A ragged or unaligned chunk (the row's last one, or K % 8 != 0 / an
// unaligned input): per-element bounds (load8 gives zeros past them).
template <class In>
__device__ __forceinline__ float persist_ragged_amax(const In* __restrict__ x, const Params& p, int64_t row, int64_t c,
                                                     int lane, float m) {
  using S = RowShape<In>;
  const int64_t c0 = c * S::CH;
  const int64_t left = p.K - c0;  // > 0
  const int rem = left >= S::CH ? S::CH : static_cast<int>(left);
#pragma unroll
  for (int u = 0; u < S::U; ++u) {
    const int r = rem - (u * 256 + lane * 8);
    const int n = r <= 0 ? 0 : (r >= 8 ? 8 : r);
    uint32_t v[8];
    load8<In>(x + row * p.K + c0, u * 256 + lane * 8, n, p.vec_in != 0, v);
#pragma unroll
    for (int i = 0; i < 8; ++i) m = fmaxf(m, fabsf(__uint_as_float(v[i])));
  }
  return m;
}

// L2 prefetch of item `it` (a full chunk only: 16-byte aligned, vec_in) by
// lane 0: one cp.async.bulk.prefetch.L2 of its bytes (sm_90+).
template <class In>
__device__ __forceinline__ void persist_prefetch_l2(const In* __restrict__ x, const Params& p, int64_t it, int64_t items,
                                                    int64_t nch, int lane) {
  if (lane != 0 || it < 0 || it >= items) return;
  int64_t row, c;
  item_rc(it, items, nch, row, c);
  if (!persist_full<In>(p, c)) return;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(x + row * p.K + c * RowShape<In>::CH),
               "r"(static_cast<uint32_t>(RowShape<In>::CH * sizeof(In)))
               : "memory");
}

// Cooperative launch (every CTA resident: the launcher caps the grid by the
// occupancy; never in a graph, launch_impl.cuh nvfp4_one_launch). Items are
// k_rowstream's (row, chunk) pairs in row-major order; global warp gw of nwt
// owns items gw + k nwt, k < nk (at each step k the grid's warps cover nwt
// consecutive chunks).
//  1. amax: the warp reads its items from k = nk - 1 down to 0 (thread 0
//     reads the barrier's epoch first),
//     kPersistAmaxItems items' loads in flight at once; the CTA's max of |x|
//     (redux.sync on the bits, then one warp);
//  2. the grid barrier (one_pass_grid_state: thread 0 arrives with the CTA's
//     max and leaves with the grid's; CTA 0 writes the amax bits to gamax);
//  3. quantize: k = 0 up to nk - 1, each item by row_item (k_rowstream's
//     loads, per-group code and stores). The grid read step 0 last in 1.,
//     so the first steps of 3. find their bytes in L2.
// In both phases lane 0 prefetches the warp's item pf steps ahead into L2
// (pf: kPersistPrefetch, or the probe's value; 0: none).
template <class In, class Q>
__global__ void __launch_bounds__(32 * kPersistWarps, kPersistCtasPerSm)
    k_nvfp4_persist(const In* __restrict__ x, Params p, int64_t nch, OnePassSync* sync, uint32_t* gamax, int pf) {
  using S = RowShape<In>;
  constexpr int NW = kPersistWarps, P = kPersistAmaxItems;
  const int lane = threadIdx.x & 31;
  const int64_t nwt = static_cast<int64_t>(gridDim.x) * NW;  // blockDim.x == 32 * NW
  const int64_t items = p.batch * p.M * nch;
  __shared__ uint32_t wmax[NW];
  __shared__ uint32_t sepoch;
  __shared__ typename Q::State sst;
  // the barrier's epoch, kept in shared memory (no register across 1.):
  // stable during this grid (the previous launch on the stream has finished,
  // and CTA 0 bumps it only after every CTA has arrived)
  if (threadIdx.x == 0) sepoch = ld_relaxed_gpu(&sync->epoch);
  // ---- 1. amax, last item first (warp-uniform branches throughout)
  {
    const int64_t gw = static_cast<int64_t>(blockIdx.x) * NW + (threadIdx.x >> 5);
    float m = 0.0f;
    // the warp's last item: gw + (nk - 1) nwt, nk = its items (none: it < gw)
    for (int64_t it = gw >= items ? gw - nwt : gw + (items - 1 - gw) / nwt * nwt; it >= gw; it -= P * nwt) {
      if (pf > 0 && it - (P - 1 + pf) * nwt >= gw) persist_prefetch_l2<In>(x, p, it - (P - 1 + pf) * nwt, items, nch, lane);
      uint4 w[P][S::W];
      int64_t row[P], c[P];
      bool full[P];
#pragma unroll
      for (int j = 0; j < P; ++j) {
        row[j] = 0;
        c[j] = 0;
        if (it - j * nwt >= gw) item_rc(it - j * nwt, items, nch, row[j], c[j]);
        full[j] = it - j * nwt >= gw && persist_full<In>(p, c[j]);
        if (full[j]) lane_words_load<RowShape<In>>(x, p, row[j], c[j], lane, w[j]);
      }
#pragma unroll
      for (int j = 0; j < P; ++j) {
        if (full[j]) {
          m = lane_words_amax<RowShape<In>, In>(w[j], m);
        } else if (it - j * nwt >= gw) {
          m = persist_ragged_amax<In>(x, p, row[j], c[j], lane, m);
        }
      }
    }
    // m >= 0, never NaN: its bits order like the values
    const uint32_t wm = __reduce_max_sync(0xFFFFFFFFu, __float_as_uint(m));
    if (lane == 0) wmax[threadIdx.x >> 5] = wm;
  }
  __syncthreads();
  // ---- 2. the barrier, carrying the CTA's max out and the grid's back
  if (threadIdx.x < 32) {
    const uint32_t cm = __reduce_max_sync(0xFFFFFFFFu, lane < NW ? wmax[lane] : 0u);
    if (lane == 0) sst = one_pass_grid_state<Q>(sync, sepoch, cm, p, gamax);
  }
  __syncthreads();
  const typename Q::State st = sst;
  // ---- 3. quantize, first item first
  for (int64_t it = static_cast<int64_t>(blockIdx.x) * NW + (threadIdx.x >> 5); it < items; it += nwt) {
    if (pf > 0) persist_prefetch_l2<In>(x, p, it + pf * nwt, items, nch, lane);
    int64_t row, c;
    item_rc(it, items, nch, row, c);
    row_item<In, Q>(x, p, st, row, c, lane);
  }
}

}  // namespace mxk::dev
