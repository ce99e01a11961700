// rowwise.cuh - the rowwise block-quantization kernel (SPEC C3, C4, C5, C6,
// C7): warps stream chunks of rows through a per-warp cp.async ring in
// shared memory and quantize them from registers.
#pragma once

#include "block_quant.cuh"

namespace mxk::dev {

// ---- tuning knobs (rowwise) -----------------------------------------------------
// (A persistent grid that walked (row, chunk) items in a static order was
// tried and measured slower on the H100: 0.853 of the copy against 0.939 for
// MXFP8, its warps finishing unevenly; the dynamic CTA schedule of many
// CTAs balances better.)
constexpr int kRowWarps = 8;       // warps (rows) per CTA
constexpr int kRowStages = 3;      // ring depth: chunk i converts while i+1, i+2 load
constexpr int kRowCtasPerSm = 4;   // launch bound: 48 KB ring, 64 registers per thread
// chunks per warp at most (launcher), by code width: MXFP6 (6-byte stores)
// measured 0.916 of the copy with 2 against 0.896 with 4, the others best at 4
template <int BITS>
constexpr int kRowMaxChunks = BITS == 6 ? 2 : 4;
constexpr int kRowMinCtas = 3000;  // fewer chunks per warp where that leaves fewer CTAs
template <class In>
struct RowU {
  static constexpr int U = sizeof(In) == 4 ? 2 : 4;  // 64 bytes of input per lane per chunk
};

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
__device__ __forceinline__ void cp_async16(void* smem, const void* g) {
  const uint32_t sa = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

template <class In, class Q>
__global__ void __launch_bounds__(256, kRowCtasPerSm) k_rowwise(const In* __restrict__ x, Params p) {
  constexpr int U = RowU<In>::U;
  constexpr int T = Q::V / 8;          // lanes per block
  constexpr int CH = 32 * 8 * U;       // elements per warp chunk
  constexpr int LPG = sizeof(In) == 2 ? 1 : 2;  // 16-byte loads per 8-element group
  constexpr bool NARROW = sizeof(In) == 2;      // at most 11 significant bits (encode8)
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
    const uint32_t sc = Q::template block<NARROW>(v, n, p, st, codes);
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
        if (p.container8) {
          emit(c0, u, v, 8);
        } else {  // packed codes built in registers, one store (a full chunk implies K % 8 == 0)
          uint32_t pk[2];
          const uint32_t sc = Q::template block_packed<In>(v, w, p, st, pk);
          const int64_t g = (c0 >> 3) + u * 32 + lane;
          store_packed<Q::BITS>(dr, g, pk);
          if ((lane % T) == 0) {
            const int64_t kb = g / T;
            p.row.scales[sbase + (tc ? ((kb >> 2) * 512 + (kb & 3)) : kb)] = static_cast<uint8_t>(sc);
          }
        }
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

}  // namespace mxk::dev
