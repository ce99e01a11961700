// rowwise.cuh - the rowwise block-quantization kernels (SPEC C3, C4, C5, C6,
// C7), one family: k_rowstream (each warp loads its chunk straight into
// registers, no shared memory; dense scales of MXFP8, MXINT8, MXFP6 on
// either layout, MXFP4 where row_quad32 does not fit) and
// k_rowwise (warps stream chunks through a per-warp cp.async ring in shared
// memory; NVFP4 and MXFP4 from 16-bit inputs on either layout, the other
// tcgen05 tensors k_rowtile does not take). Both
// quantize from registers with the same per-group code (row_group,
// row_ragged); the launcher (launch_impl.cuh, launch_rowwise) picks one by
// scale layout, format and size (kRowStreamDense, kRowStreamTcgen05,
// kRowStreamSmall). A third, k_rowtile (128 x 64 tiles, or 128 x 128 with
// kTileSubs = 2, through shared memory, one MX block per thread at a time),
// takes the 8-bit codes of large 16-bit tensors with tcgen05 scales (run 12:
// k_rowstream there measured 1-2% slower, h100-tail/call1).
#pragma once

#include "block32.cuh"
#include "rowwise_knobs.cuh"

namespace mxk::dev {

// The tuning knobs (kRowStream*, kRow*, kStream*, kTile*) are in rowwise_knobs.cuh.
template <class In>
struct RowU {
  static constexpr int U = sizeof(In) == 4 ? 2 : 4;  // 64 bytes of input per lane per chunk
};

// ---- shared by both kernels ---------------------------------------------------
// NVFP4's quantize reads the global amax of the pass before it: that launch
// is a programmatic dependent launch (launch_impl.cuh, PTX ISA
// "griddepcontrol"), so its CTAs may start while the amax grid finishes and
// wait here, before Q::prepare reads the amax, for that grid to complete and
// its writes to be visible. A no-op where the launch was not programmatic.
template <class Q>
constexpr bool kReadsGlobalAmax = Q::V == 16;  // NVFP4 (the only V = 16 quantizer)
template <class Q>
__device__ __forceinline__ void wait_prior_grid() {
  if constexpr (kReadsGlobalAmax<Q>) asm volatile("griddepcontrol.wait;" ::: "memory");
}

// Chunks: a warp owns (row, chunk of CH = 256*U elements); lane l owns the
// 8-element groups at chunk + u*256 + l*8 (u < U), so every load is a
// coalesced 512-byte (bf16) warp access and every fp8 store a 256-byte one.
// Row state (64-bit bases, the tcgen05 row offset) is computed once per
// chunk; nothing divides per element.
template <class In>
struct RowShape {
  static constexpr int U = RowU<In>::U;
  static constexpr int CH = 32 * 8 * U;                   // elements per warp chunk
  static constexpr int LPG = sizeof(In) == 2 ? 1 : 2;      // 16-byte loads per 8-element group
  static constexpr int W = U * LPG;                        // 16-byte words per lane per chunk
  static constexpr bool NARROW = sizeof(In) == 2;          // at most 11 significant bits (encode8)
};

struct RowOut {
  uint8_t* dr;    // the row's packed codes
  int64_t sbase;  // the row's first scale byte
  bool tc;        // tcgen05 scale layout
  // scale offset of (row, kb) = sbase + (tcgen05 ? (kb/4)*512 + kb%4 : kb)  (C7)
  template <class K>
  __device__ __forceinline__ int64_t soff(K kb) const {
    return sbase + static_cast<int64_t>(tc ? ((kb >> 2) * 512 + (kb & 3)) : kb);
  }
  template <int S = kStWb>  // store policy (block_quant.cuh; kStWb: the plain byte store)
  __device__ __forceinline__ void scale(int64_t kb, uint32_t sc, const Params& p) const {
    st1<S>(p.row.scales + soff(kb), sc);
  }
};

__device__ __forceinline__ RowOut row_out(const Params& p, int64_t row) {
  RowOut o;
  o.dr = p.row.data + row * p.row.row_bytes;
  o.tc = p.row.layout == kTcgen05;
  if (o.tc) {
    const int64_t b = p.batch == 1 ? 0 : row / p.M;
    const int64_t r = row - b * p.M;
    o.sbase = b * p.row.smat + (r >> 7) * p.row.nkt * 512 + (r & 31) * 16 + ((r >> 5) & 3) * 4;
  } else {
    o.sbase = row * p.row.sblocks;
  }
  return o;
}

// A lane's output addresses in a full chunk of CH elements at c0 >= 0 (CH a
// multiple of 4 V: the chunk's first k-block c0 / V is a multiple of 4).
// Group u (elements c0 + 256 u + 8 lane ..) stores its packed codes at
// codes + 32 u BITS (BITS bytes per 8 elements) and, from a block's first
// lane, its scale byte at scale + u sstep: from one group to the next the
// lane's k-block moves on by 256 / V (a multiple of 4), that many bytes of a
// dense row or (256 / V) / 4 whole 512-byte tcgen05 blocks (C7). Computed
// once per chunk, so that the groups' stores take fixed offsets instead of
// a 64-bit address computation each (the rowwise kernels run out of ALU
// issue slots on sm_90: bench/results/README.md "run 20").
struct ChunkOut {
  uint8_t* codes;
  uint8_t* scale;
  int64_t sstep;
};
template <class Q, int CH>
__device__ __forceinline__ ChunkOut chunk_out(const RowOut& o, const Params& p, int64_t c0, int lane) {
  constexpr int T = Q::V / 8, KPU = 256 / Q::V;  // lanes per block, k-blocks per group
  static_assert(CH % (4 * Q::V) == 0 && KPU % 4 == 0, "chunks start at a whole tcgen05 group of 4 k-blocks");
  const uint64_t kb = static_cast<uint64_t>(c0) / Q::V + static_cast<uint32_t>(lane / T);
  ChunkOut co;
  co.codes = o.dr + ((c0 >> 3) + lane) * Q::BITS;
  co.scale = p.row.scales + o.soff(kb);
  co.sstep = o.tc ? KPU / 4 * 512 : KPU;
  return co;
}

// Full group u of the chunk at element c0 from the lane's raw words w
// (all lanes call: the block amax uses shuffles), its outputs at co
// (chunk_out); SP: the store policies of the packed codes and the scale
// bytes (st_pair).
template <class In, class Q, int SP = st_pair(kStCs, kStWb)>
__device__ __forceinline__ void row_group(const uint4* w, int64_t c0, int u, int lane, const RowOut& o,
                                          const ChunkOut& co, const Params& p, const typename Q::State& st) {
  constexpr int T = Q::V / 8;  // lanes per block
  uint32_t v[8];  // (widened in each branch: the e2m1 form of bf16 words needs no widening)
  uint32_t sc;
  if (p.container8) {
    widen8<In>(w, v);
    uint32_t codes[8];
    sc = Q::template block<RowShape<In>::NARROW>(v, 8, p, st, codes);
    store8<Q::BITS>(o.dr, (c0 >> 3) + u * 32 + lane, 8, codes, 1, Q::SHIFT8, true);
  } else {  // packed codes built in registers, one store (a full chunk implies K % 8 == 0)
    uint32_t pk[2];
    widen8<In>(w, v);
    sc = Q::template block_packed<In>(v, w, p, st, pk);
    store_packed_at<Q::BITS, SP & 15>(co.codes + u * 32 * Q::BITS, pk);
  }
  if ((lane % T) == 0) st1<(SP >> 4)>(co.scale + u * co.sstep, sc);
}

// A ragged or unaligned chunk (the row's last one, or K % 8 != 0 / an
// unaligned input): per-element bounds, loaded here.
template <class In, class Q>
__device__ __forceinline__ void row_ragged(const In* __restrict__ xr, int64_t c0, int lane, const RowOut& o,
                                           const Params& p, const typename Q::State& st) {
  constexpr int U = RowShape<In>::U, CH = RowShape<In>::CH, T = Q::V / 8;
  const bool vec = p.vec_in != 0;
  const bool vout = (p.K % 8) == 0;
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
    uint32_t codes[8];
    const uint32_t sc = Q::template block<RowShape<In>::NARROW>(v[u], n[u], p, st, codes);
    const int64_t g = (c0 >> 3) + u * 32 + lane;
    if (n[u] > 0) {
      store8<Q::BITS>(o.dr, g, n[u], codes, p.container8, Q::SHIFT8, vout);
      if ((lane % T) == 0) o.scale(g / T, sc, p);
    }
  }
}

// NVFP4 from 16-bit inputs, packed codes, a full chunk in the ring: each
// lane quantizes whole 16-element blocks (Nvfp4Q::block16_packed: one
// block scale for 16 values, no shuffle; row_group's lane pairs compute
// every scale twice). Groups u and u + 1 at once: lane l takes block l & 15
// of group u + (l >> 4), the ring words 2 (l & 15) and 2 (l & 15) + 1 that
// two other lanes copied (the caller's __syncwarp before and after makes
// their cp.async bytes visible and keeps the stage until every lane has
// read it); 8 code bytes and one scale byte per lane and group pair. Within
// a group pair a warp stores 256 contiguous code bytes.
template <class In, class Q>
constexpr bool kRowPair16 = Q::V == 16 && sizeof(In) == 2 && RowShape<In>::U % 2 == 0;
template <class In, class Q>
__device__ __forceinline__ void row_pair16(const uint4 (*words)[32], int64_t c0, int lane, const RowOut& o, const Params& p,
                                           const typename Q::State& st) {
  constexpr int U = RowShape<In>::U;
  const int h = lane >> 4, j = lane & 15;
  uint8_t* const cp = o.dr + (c0 >> 1) + h * 128 + j * 8;             // 16 codes: 8 bytes
  uint8_t* const sp = p.row.scales + o.soff((c0 >> 4) + h * 16 + j);  // block (c0 / 16) + 16 (u + h) + j
  const int sstep = o.tc ? 4096 : 32;  // 32 blocks on: 8 tcgen05 groups of 4 k-blocks
  // the offsets above are multiples of 8 bytes; a row of K % 16 == 8
  // elements (K / 2 code bytes) starts 4-byte aligned only: two stores
  // there (warp-uniform: one row per warp)
  const bool a8 = (reinterpret_cast<uintptr_t>(o.dr) & 7u) == 0;
#pragma unroll
  for (int u = 0; u < U; u += 2) {
    uint32_t pk[2];
    const uint32_t sc = Q::template block16_packed<In>(words[u + h][2 * j], words[u + h][2 * j + 1], st, pk);
    if (a8) {
      st8<kStCs>(cp + u * 128, pk[0], pk[1]);
    } else {
      __stcs(reinterpret_cast<unsigned int*>(cp + u * 128), pk[0]);
      __stcs(reinterpret_cast<unsigned int*>(cp + u * 128 + 4), pk[1]);
    }
    st1<kStWb>(sp + (u / 2) * sstep, sc);
  }
}

// MXFP4 from 16-bit inputs, packed codes, a full chunk in the ring: lane l
// quantizes block l of the chunk's 32 (elements c0 + 32 l .. + 31) whole
// (block32.cuh: scale32, encode32_packed; no shuffle, one scale code per
// block where row_group's four lanes compute it four times), from the four
// ring words that lanes 4 (l & 7) .. + 3 copied for group l >> 3; 16 code
// bytes and one scale byte per lane, 512 contiguous code bytes per warp.
// The caller's __syncwarp before and after, as for row_pair16. The reads
// conflict 4-way in the banks (the 8 lanes of a quarter-warp read words 4k
// + g, k < 8); H200 (bench/results/h200-run23/call3, variants.txt, MXFP4
// tcgen05 16384^2 / 8192x7168, two rounds): 163.8 / 42.5-42.6 us, against
// 166.0-166.6 / 42.7-42.9 with the copies rotated inside each 128-byte line
// (conflict-free) and 307.8-308.1 / 73.1-73.3 with each warp's copies
// spread over 4 lines of shared memory (conflict-free too: cp.async.cg was
// 1.7x slower); k_rowstream 180.5 / 46.3 (call 2). Not for MXFP6: its 24
// code bytes per lane store as 8-byte pieces 24 bytes apart (MXFP6 e2m3
// here 199.8-202.5 us, against the ring's 192.0 with row_group and
// k_rowstream's 194.0); MXFP8 (the ring takes it only for software
// conversions and tensors k_rowtile does not take) was not measured in
// this form. Taken where every row's codes
// start 4-byte aligned and packed (quad_fits; else k_rowstream), and then
// the kernel has no row_group path (64 registers: with both it spilled).
// (kRowQuad32: rowwise_knobs.cuh)
__host__ __device__ inline bool quad_fits(const Params& p) {
  return !p.container8 && (reinterpret_cast<uintptr_t>(p.row.data) & 3u) == 0 && (p.row.row_bytes & 3) == 0;
}
template <class In, class Q>
__device__ __forceinline__ void row_quad32(const uint4 (*words)[32], int64_t c0, int lane, const RowOut& o,
                                           const Params& p) {
  static_assert(Q::BITS == 4 && Q::V == 32 && RowShape<In>::U == 4, "row_quad32: MXFP4, 32 blocks per chunk");
  const int u = lane >> 3, k = lane & 7;
  uint4 r[4];
#pragma unroll
  for (int g = 0; g < 4; ++g) r[g] = words[u][4 * k + g];
  uint32_t sc;
  const int se = static_cast<int>(scale32<In, Q>(r, p, sc)) - 127;
  uint32_t w[4];
  encode32_packed<In, Q>(r, se, w);
  // the block's 16 code bytes at (c0 + 32 lane) / 2, c0 % 1024 == 0: as
  // aligned as the row (warp-uniform; quad_fits: at least 4 bytes). The
  // alignment is read off cp: read off o.dr, it made the kernel spill 12
  // bytes and run 6% slower (h200-run23, call 4 against call 5).
  uint8_t* const cp = o.dr + (c0 >> 5) * 16 + lane * 16;
  const uintptr_t a = reinterpret_cast<uintptr_t>(cp);
  if ((a & 15u) == 0) {
    store32<4>(cp, w);  // (block32.cuh: one 16-byte .cs store)
  } else if ((a & 7u) == 0) {
    __stcs(reinterpret_cast<uint2*>(cp), make_uint2(w[0], w[1]));
    __stcs(reinterpret_cast<uint2*>(cp) + 1, make_uint2(w[2], w[3]));
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) __stcs(reinterpret_cast<unsigned int*>(cp) + i, w[i]);
  }
  st1<kStWb>(p.row.scales + o.soff((c0 >> 5) + lane), sc);
}

// ---- k_rowstream (dense scales) --------------------------------------------------
// One (row, chunk) item of the flat walk: a full chunk's U loads (16 bytes
// each) are all issued before any is used (no prefetch of the next item: it
// spilled at 64 registers; the resident warps hide the latency); a ragged
// or unaligned chunk goes through row_ragged. (Also the quantize phase of
// nvfp4/one_pass.cuh.)
template <class In, class Q, int SP = kStreamStQ<Q>>
__device__ __forceinline__ void row_item(const In* __restrict__ x, const Params& p, const typename Q::State& st,
                                         int64_t row, int64_t c, int lane) {
  using S = RowShape<In>;
  const RowOut o = row_out(p, row);
  const int64_t c0 = c * S::CH;
  if (p.vec_in != 0 && c0 + S::CH <= p.K) {
    const In* q = x + row * p.K + c0 + lane * 8;
    uint4 w[S::W];
#pragma unroll
    for (int u = 0; u < S::U; ++u) {
#pragma unroll
      for (int j = 0; j < S::LPG; ++j) w[u * S::LPG + j] = ld_stream(q + u * 256 + j * 4);
    }
    const ChunkOut co = chunk_out<Q, S::CH>(o, p, c0, lane);
#pragma unroll
    for (int u = 0; u < S::U; ++u) row_group<In, Q, SP>(&w[u * S::LPG], c0, u, lane, o, co, p, st);
  } else {
    row_ragged<In, Q>(x + row * p.K, c0, lane, o, p, st);
  }
}

// item -> (row, chunk) of the flat walk (nch chunks per row): one division
__device__ __forceinline__ void item_rc(int64_t it, int64_t items, int64_t nch, int64_t& row, int64_t& c) {
  if (items <= 0xFFFFFFFFll) {
    const uint32_t r32 = static_cast<uint32_t>(it) / static_cast<uint32_t>(nch);
    row = r32;
    c = it - static_cast<int64_t>(r32) * nch;
  } else {
    row = it / nch;
    c = it - row * nch;
  }
}

// L2 prefetch of a warp's k_rowstream items (the walk of rowstream_body
// below): lane 0 asks for each full vector chunk's 2 KB with one bulk
// prefetch (cp.async.bulk.prefetch.L2, sm_90+; 16-byte aligned: vec_in);
// ragged chunks are left out.
template <class In>
__device__ __forceinline__ void stream_prefetch_l2(const In* __restrict__ x, const Params& p, int64_t items,
                                                   int64_t nch, int nw, int cpw, int64_t it, int64_t row, int64_t c,
                                                   int lane) {
  using S = RowShape<In>;
  if (lane != 0 || p.vec_in == 0) return;
  for (int k = 0; k < cpw && it < items; ++k) {
    if ((c + 1) * S::CH <= p.K) {
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(x + row * p.K + c * S::CH),
                   "r"(static_cast<uint32_t>(S::CH * sizeof(In)))
                   : "memory");
    }
    it += nw;
    c += nw;
    while (c >= nch) {
      c -= nch;
      ++row;
    }
  }
}

// Items are (row, chunk) pairs in row-major order, nch chunks per row (a
// flat walk: no idle warps when K is not a multiple of the CTA's span). CTA
// b owns items [b*nw*cpw, (b+1)*nw*cpw), nw = blockDim.x / 32; its warp w
// converts items b*nw*cpw + k*nw + w, k < cpw, so at each step the CTA's
// warps cover nw consecutive chunks.
// (The kernels' bodies are device functions so that a probe can wrap them,
// e.g. with per-CTA time stamps: bench/results/h100-tail/stamps.cu.)
template <class In, class Q, int SP = kStreamStQ<Q>>
__device__ __forceinline__ void rowstream_body(const In* __restrict__ x, const Params& p, int64_t nch, int cpw) {
  const int lane = threadIdx.x & 31;
  const int nw = static_cast<int>(blockDim.x >> 5);
  const int64_t items = p.batch * p.M * nch;
  int64_t it = static_cast<int64_t>(blockIdx.x) * nw * cpw + (threadIdx.x >> 5);
  if (it >= items) return;  // warp-uniform
  int64_t row, c;
  item_rc(it, items, nch, row, c);
  // NVFP4: the warp's items are prefetched into L2 before the wait for the
  // amax grid (which does not write the input), so that they move while
  // that grid finishes
  if constexpr (kReadsGlobalAmax<Q>) stream_prefetch_l2<In>(x, p, items, nch, nw, cpw, it, row, c, lane);
  wait_prior_grid<Q>();
  const typename Q::State st = Q::prepare(p);
  // (run 21: keeping the row's RowOut for the warp's next item of the same
  // row made MXFP8 dense 8% slower on the H200 at the same instruction
  // count, h200-run21/call2; the outputs are recomputed per item)
  for (int k = 0;; ++k) {
    row_item<In, Q, SP>(x, p, st, row, c, lane);
    it += nw;
    if (k + 1 >= cpw || it >= items) break;
    c += nw;  // the warp's next item, nw chunks on
    while (c >= nch) {
      c -= nch;
      ++row;
    }
  }
}
// SP: the store policies of codes and scale bytes (kStreamStQ)
template <class In, class Q, int SP = kStreamStQ<Q>>
__global__ void __launch_bounds__(256, kStreamCtasPerSm) k_rowstream(const In* __restrict__ x, Params p, int64_t nch,
                                                                    int cpw) {
  rowstream_body<In, Q, SP>(x, p, nch, cpw);
}

// ---- k_rowwise (cp.async ring) --------------------------------------------------
// gx row blocks (8 warps per CTA, one row each) x gy chunk offsets (a warp
// converts chunks by, by + gy, ... of its row: up to 4), as a 1-D grid. Full vector
// chunks are prefetched kRowStages-1 chunks ahead with cp.async (16 bytes
// per lane per copy, L2 only) into a per-warp ring in shared memory: the
// bytes in flight hold no registers. Each lane reads back only the words it
// copied itself, so the ring needs no barrier; a stage is refilled only
// after the same lane consumed it (NVFP4's row_pair16 and MXFP4's
// row_quad32 read other lanes' words between two __syncwarp).
__device__ __forceinline__ void cp_async16(void* smem, const void* g) {
  const uint32_t sa = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(g) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

template <class In, class Q>
__device__ __forceinline__ void rowwise_body(const In* __restrict__ x, const Params& p, int gx, int gy, int chunks_fast) {
  using SH = RowShape<In>;
  constexpr int U = SH::U, CH = SH::CH, LPG = SH::LPG, W = SH::W;
  const int lane = threadIdx.x & 31;
  // the 1-D grid's block -> (row block bx, chunk offset by): rows fastest
  // (bx = b % gx) or chunks fastest (by = b % gy: the gy CTAs of a row block
  // are dispatched together, so the grid walks memory in order)
  const uint32_t b = blockIdx.x;
  const uint32_t bx = chunks_fast ? b / static_cast<uint32_t>(gy) : b % static_cast<uint32_t>(gx);
  const uint32_t by = chunks_fast ? b % static_cast<uint32_t>(gy) : b / static_cast<uint32_t>(gx);
  const int64_t row = static_cast<int64_t>(bx) * kRowWarps + (threadIdx.x >> 5);
  const int64_t rows = p.batch * p.M;
  if (row >= rows) return;  // warp-uniform
  const In* __restrict__ xr = x + row * p.K;
  const RowOut o = row_out(p, row);
  const bool vec = p.vec_in != 0;
  const int64_t nch = (p.K + CH - 1) / CH;
  // 16-byte words per lane per chunk, in a ring [stage][warp][word][lane]:
  // a warp's copy of one word is 512 contiguous bytes (no bank conflicts).
  constexpr int S = kRowStages;
  __shared__ uint4 ring[S][kRowWarps][W][32];
  const int wp = threadIdx.x >> 5;
  auto is_full = [&](int64_t c) { return c < nch && vec && (c + 1) * CH <= p.K; };
  // MXFP4 from 16-bit inputs (kRowQuad32): blocks whole per lane
  // (row_quad32); the launcher sends only tensors that it takes (quad_fits)
  constexpr bool QUAD = kRowQuad32<In, Q>;
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
  auto prefetch = [&] {
#pragma unroll
    for (int k = 0; k < S - 1; ++k) issue(static_cast<int64_t>(by) + k * gy, k);
  };
  // NVFP4 (kReadsGlobalAmax): the first chunks' copies are issued before the
  // wait for the amax grid (which does not write the input)
  if constexpr (kReadsGlobalAmax<Q>) prefetch();
  wait_prior_grid<Q>();
  const typename Q::State st = Q::prepare(p);
  if constexpr (!kReadsGlobalAmax<Q>) prefetch();
  int cs = 0, is = S - 1;  // stage of the chunk converted now / of the one copied now
  for (int64_t ch = by; ch < nch; ch += gy) {
    // stage `is` == the previous iteration's `cs`: this lane has consumed it
    // (its words went through registers into the stores already; with
    // row_pair16 every lane of the warp has, past its second __syncwarp)
    issue(ch + (S - 1) * gy, is);
    cp_async_wait<S - 1>();  // this chunk's group (and all before it) complete
    const int64_t c0 = ch * CH;
    if (is_full(ch)) {
      if constexpr (QUAD) {
        __syncwarp();
        row_quad32<In, Q>(ring[cs][wp], c0, lane, o, p);
        __syncwarp();
      } else {
        bool paired = false;
        if constexpr (kRowPair16<In, Q>) {
          if (!p.container8) {  // (a kernel parameter: uniform)
            __syncwarp();
            row_pair16<In, Q>(ring[cs][wp], c0, lane, o, p, st);
            __syncwarp();
            paired = true;
          }
        }
        if (!paired) {
          const ChunkOut co = chunk_out<Q, CH>(o, p, c0, lane);
#pragma unroll
          for (int u = 0; u < U; ++u) {
            uint4 w[LPG];
#pragma unroll
            for (int j = 0; j < LPG; ++j) w[j] = ring[cs][wp][u * LPG + j][lane];
            row_group<In, Q>(w, c0, u, lane, o, co, p, st);
          }
        }
      }
    } else {
      row_ragged<In, Q>(xr, c0, lane, o, p, st);
    }
    cs = cs + 1 == S ? 0 : cs + 1;
    is = is + 1 == S ? 0 : is + 1;
  }
  cp_async_wait<0>();  // nothing is left in flight (only existing chunks were copied)
}
template <class In, class Q>
__global__ void __launch_bounds__(256, kRowCtasPerSm) k_rowwise(const In* __restrict__ x, Params p, int gx, int gy,
                                                               int chunks_fast) {
  rowwise_body<In, Q>(x, p, gx, gy, chunks_fast);
}

// ---- k_rowtile (16-bit inputs, MX blocks, 8-bit codes) ----------------------------
// CTA b converts tile b in row-major tile order (row bands of 128 in turn,
// tiles fastest), one 128 x 64 NB tile per CTA (NB = 1 or 2 sub-tiles of
// 128 x 64, kTileSubs), the way the colwise stream kernel (col_stream.cuh)
// walks and loads its tiles: per sub-tile 4 cp.async of 16 bytes per
// thread (a warp copies 4 rows x 128 bytes) into a 16 KB sub-tile whose
// 16-byte chunks are XOR-swizzled by swz128(row) (as in col_stream.cuh),
// one cp.async group per sub-tile (sub-tile 0 converts while 1 lands);
// then, per sub-tile, thread -> (row rr, columns 32 rh .. +31): one whole
// MX block from four conflict-free LDS.128, quantized in the thread
// (block32.cuh: no shuffles), its 32 codes stored by lane pairs as whole
// 32-byte sectors (store32_pair8). Scale bytes: with NB = 2 and tcgen05
// scales the CTA's 512 scales are exactly one 512-byte tcgen05 block (C7:
// 128 rows x 4 k-blocks), staged in shared memory and stored by one warp
// as 32 16-byte stores (4 whole 128-byte lines); otherwise one byte per
// block by row_out (with NB = 1 a CTA writes half of every 16-byte row
// slot of a tcgen05 block, the next CTA the other half). The launcher
// guarantees rows % 128 == 0, K % (64 NB) == 0, a 16-byte aligned input and
// code buffer, packed codes, and for NB = 2: M % 128 == 0 (a band inside
// one batch entry) and a 16-byte aligned scale buffer.
// Chunk swizzle of a 128 x 64 16-bit tile (128-byte rows, 8 chunks of 16
// bytes; here and in col_stream.cuh): the 8 rows of one ldmatrix matrix
// (rows 32i' + 8q + 2j + i%2, i' = i/2 < 4) and the 8 rows/halves of a
// rowwise quarter-warp land in 8 distinct chunks.
__device__ __forceinline__ int swz128(int r) { return (((r >> 5) & 3) << 1) | (r & 1); }

template <class In, class Q, int NB>
__device__ __forceinline__ void rowtile_body(const In* __restrict__ x, const Params& p, int64_t ntc) {
  static_assert(sizeof(In) == 2 && kRowTileQ<Q>, "k_rowtile: 16-bit inputs, MX blocks, 8-bit codes, hardware cvt");
  static_assert(NB == 1 || NB == 2, "k_rowtile: 1 or 2 sub-tiles of 128 x 64");
  __shared__ uint4 tile[NB][kTileRows][kTileCols / 8];
  __shared__ uint4 stile[NB == 2 ? 32 : 1];  // NB = 2: the CTA's 512-byte tcgen05 scale block
  const int tid = threadIdx.x;
  int64_t tr, tc;
  item_rc(blockIdx.x, gridDim.x, ntc, tr, tc);  // grid < 2^31 (launcher)
  const int64_t r0 = tr * kTileRows, c0 = tc * (kTileCols * NB);
  {  // load: thread -> rows lr + 32 s (s < 4), chunk lch of each sub-tile
    const int lr = tid >> 3, lch = tid & 7;
    const In* q = x + (r0 + lr) * p.K + c0 + lch * 8;
#pragma unroll
    for (int h = 0; h < NB; ++h) {
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        cp_async16(&tile[h][lr + 32 * s][lch ^ swz128(lr + 32 * s)], q + h * kTileCols + s * 32 * p.K);
      }
      cp_async_commit();
    }
  }
  // thread -> row rr, half rh (the bits of tid as in col_stream.cuh's rowwise
  // part: a quarter-warp's eight LDS.128 hit eight distinct chunks)
  const int rr = (tid & 1) | (((tid >> 3) & 3) << 1) | (((tid >> 5) & 3) << 3) | (((tid >> 2) & 1) << 5) | ((tid >> 7) << 6);
  const int rh = (tid >> 1) & 1;
  const RowOut o = row_out(p, r0 + rr);
  const bool stage = NB == 2 && o.tc;  // CTA-uniform
#pragma unroll
  for (int h = 0; h < NB; ++h) {
    if (NB == 2 && h == 0) {
      cp_async_wait<1>();  // this thread's copies of sub-tile 0
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();  // every thread's copies of sub-tile h
    uint4 r[4];
#pragma unroll
    for (int g = 0; g < 4; ++g) r[g] = tile[h][rr][(4 * rh + g) ^ swz128(rr)];
    uint32_t sc;
    const int se = static_cast<int>(scale32<In, Q>(r, p, sc)) - 127;
    uint32_t w[8];
    encode32_packed<In, Q>(r, se, w);
    // the lane of rh ^ 1 (tid bit 1) holds the other half of the 64 codes
    store32_pair8<kTileCodeSt>(o.dr + c0 + h * kTileCols + 32 * rh, rh, 2, w);
    if (stage) {  // (row rr, k-block 2h + rh) of the 512-byte block (C7)
      reinterpret_cast<uint8_t*>(stile)[16 * (rr & 31) + 4 * (rr >> 5) + 2 * h + rh] = static_cast<uint8_t>(sc);
    } else {
      o.scale(c0 / 32 + 2 * h + rh, sc, p);
    }
  }
  if (stage) {
    __syncthreads();
    if (tid < 32) {  // row r0's offset is the block's start (r0 % 128 == 0); k-blocks 4 tc .. 4 tc + 3
      uint4* dst = reinterpret_cast<uint4*>(p.row.scales + row_out(p, r0).sbase + tc * 512);
      __stcs(dst + tid, stile[tid]);
    }
  }
}
// MINB: the launch bound's CTAs per SM (kTileCtasPerSm for NB = 1: 44
// registers, so 5 CTAs fit; kTileWideCtasPerSm for NB = 2)
template <class In, class Q, int NB, int MINB>
__global__ void __launch_bounds__(256, MINB) k_rowtile(const In* __restrict__ x, Params p, int64_t ntc) {
  rowtile_body<In, Q, NB>(x, p, ntc);
}

}  // namespace mxk::dev
