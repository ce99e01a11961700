// rowwise.cuh - the rowwise block-quantization kernels (SPEC C3, C4, C5, C6,
// C7), one family: k_rowstream (each warp loads its chunk straight into
// registers, no shared memory; dense scales of MXFP8, MXINT8, NVFP4, and
// MXFP6 / MXFP4 / NVFP4 in TE's order on tensors of at most 2^27 elements,
// either layout) and
// k_rowwise (warps stream chunks through a per-warp cp.async ring in shared
// memory; tcgen05 scales, and MXFP6 / MXFP4 above 2^27 elements). Both
// quantize from registers with the same per-group code (row_group,
// row_ragged); the launcher (launch_impl.cuh, launch_rowwise) picks one by
// scale layout, format and size (kRowStreamDense, kRowStreamTcgen05,
// kRowStreamSmall). A third, k_rowtile (128 x 64 tiles, or 128 x 128 with
// kTileSubs = 2, through shared memory, one MX block per thread at a time),
// takes the 8-bit codes of large 16-bit tensors with tcgen05 scales (run 12:
// k_rowstream there measured 1-2% slower, h100-tail/call1).
#pragma once

#include "block32.cuh"

namespace mxk::dev {

// ---- tuning knobs (rowwise) -----------------------------------------------------
// Which kernel, by scale layout. Measured on the H100 (16384^2 bf16, one
// device call, bench/results/h100-run6-row/call2): MXFP8 e4m3 dense 0.965
// of the copy with k_rowstream against 0.935 with the ring, MXINT8 dense
// 0.931 / 0.910; with tcgen05 scales the ring is faster for every format
// (MXFP8 0.941 / 0.923, MXFP4 0.910 / 0.864, MXFP6 0.925 / 0.867, NVFP4 TE
// 0.847 / 0.802, both passes). Mapping a CTA's warps onto 8 consecutive rows
// or onto the rows that share tcgen05 scale sectors instead of consecutive
// chunks made k_rowstream slower for both layouts (0.908-0.911). The final
// call (h100-run6-row/final) confirmed: dense 0.964 / 0.936, tcgen05 0.923
// (k_rowstream) / 0.941 (ring).
// With the ring's chunks-fastest order (kRingChunksFast), the ring measured
// faster on dense scales too (h100-row2/call2: MXFP8 0.975 / 0.964, MXINT8
// 0.964 / 0.928, ring / k_rowstream; 8192x7168 0.938 / 0.948 and 0.924 /
// 0.906). Run 10 (h100-sol/call1, same binary): ring / k_rowstream MXFP8
// 0.974 / 0.965, MXINT8 0.964 / 0.931; 8192x7168 0.938 / 0.944, 0.925 /
// 0.908 (call2: 0.973 / 0.964, 0.962 / 0.928). So MX dense scales take
// the ring; NVFP4's quantize pass keeps k_rowstream on dense scales (not
// measured on the ring here; the NVFP4 kernels are another branch's).
// Run 11 (bench/results/h100-ldg/, one call, both builds alternating): with
// ld_stream a plain ld.global, k_rowstream / ring on dense scales MXFP8
// 1.015 / 0.974 (269.3 us, torch's plain fp8 cast 273.6 us in the same
// call), 8192x7168 0.976 / 0.939; MXINT8 0.955 / 0.964, 8192x7168 0.918 /
// 0.924. With MXINT8's one-fma encode (int8_biased8, dev_convert.cuh; run
// 11 final call, mxint8_probe.txt) k_rowstream / ring MXINT8 1.017 / 0.989
// (split 2), 8192x7168 0.973 / 0.931. So the 8-bit MX codes (MXFP8,
// MXINT8) and NVFP4 take k_rowstream on dense scales, MXFP6 / MXFP4 the ring.
template <class Q>
constexpr bool kIsIntQ = false;  // MXINT8
template <int F, bool HW>
constexpr bool kIsIntQ<MxQ<F, HW>> = Elem<F>::is_int != 0;
template <class Q>
constexpr bool kStreamDenseMx = false;
template <int F, bool HW>
constexpr bool kStreamDenseMx<MxQ<F, HW>> = Elem<F>::bits == 8;
template <class Q>
constexpr bool kRowStreamDense = Q::V == 16 || kStreamDenseMx<Q>;
constexpr bool kRowStreamTcgen05 = false;
// By size: tensors of at most kRowStreamSmallElems elements take
// k_rowstream (in the kStreamWarpsQ x kStreamChunksQ shape below) for the
// formats kRowStreamSmall names (MXFP6, MXFP4; the ring above that size, on
// either layout). Run 12 (bench/results/h100-tail/call2, stamps.txt, bf16,
// event time, ratio to the copy, the ring at its automatic split /
// k_rowstream 2 x 2): MXFP4 tcgen05 4096x7168 0.744 / 0.806, 8192x7168
// 0.801 / 0.852, 16384x7168 (2^26.8 elements) 0.842 / 0.879, 8192x16384
// (2^27) 0.868 / 0.885, 16384^2 0.909 / 0.907; MXFP6 e3m2 tcgen05 0.807 /
// 0.837, 0.844 / 0.879, 0.885 / 0.902, 0.897 / 0.910, 0.940 / 0.928;
// MXFP6 e3m2 dense 0.825 / 0.856, 0.854 / 0.903, 0.898 / 0.931, 0.909 /
// 0.937, 0.950 / 0.959. Why (per-CTA stamps, bench/results/README.md
// "run 12 tail", MXFP4 at 8192x7168): the ring's long CTAs (7.5 us) make a
// first wave that costs 5.6 us over the steady rate (k_rowstream 4.7), and
// with 2 chunks per warp at this size its steady rate is lower (2559
// against 2683 GB/s; at 16384^2, 4 chunks: 2742 against 2699).
template <class Q>
constexpr bool kRowStreamSmall = Q::V == 32 && Q::BITS != 8;
// NVFP4 in TransformerEngine's order too (its quantize pass; the torchao
// order keeps the ring). H200 (bench/results/h200-tail8/call1/probe.txt,
// bf16 tcgen05, amax + quantize, event time, two rounds): 8192x7168 ring
// (automatic split 2) 95.0-95.4 us, k_rowstream 2 x 2 91.4-91.5, 4 x 2
// 91.5-91.7, 8 x 1 93.9-94.1; 16384^2 (above 2^27: the ring, split 4)
// 371.6 us, k_rowstream 2 x 2 394.1, 8 x 2 383.6. torchao order at
// 8192x7168: ring 100.4-101.2, k_rowstream 2 x 2 101.3-101.5 (not taken).
template <>
constexpr bool kRowStreamSmall<Nvfp4Q<0>> = true;
constexpr int64_t kRowStreamSmallElems = int64_t{1} << 27;
// (A persistent grid that walked (row, chunk) items in a static order was
// tried and measured slower on the H100: 0.853 of the copy against 0.939 for
// MXFP8, its warps finishing unevenly; the dynamic CTA schedule of many
// CTAs balances better.)
constexpr int kRowWarps = 8;       // warps (rows) per CTA
constexpr int kRowStages = 3;      // ring depth: chunk i converts while i+1, i+2 load
constexpr int kRowCtasPerSm = 4;   // launch bound: 48 KB ring, 64 registers per thread
// chunks per warp at most (launcher), by format. Run 11 (h100-lead/exp,
// split.txt: 16384^2 bf16 tcgen05 / dense, ratio to the copy, forced splits
// 1 / 2 / 3 / 4 / 7): MXFP4 0.803 / 0.890 / 0.899 / 0.915 / 0.913, MXFP6
// e3m2 0.867 / 0.935 / 0.945 / 0.943 / 0.926 (16384x7168: 0.851 / 0.885 /
// 0.892 / 0.878 / 0.843), MXINT8 0.941 / 0.987 / 0.979 / 0.964 / 0.955
// (best at 2 on every size measured). (Run 6, before the chunks-fastest
// order: MXFP6 0.916 with 2 against 0.896 with 4.)
template <class Q>
constexpr int kRowMaxChunks = Q::BITS == 6 ? 3 : (Q::BITS == 8 && kIsIntQ<Q>) ? 2 : 4;
constexpr int kRowMinCtas = 3000;  // fewer chunks per warp where that leaves fewer CTAs
// grid order of k_rowwise: rows fastest (false: the gy CTAs of one row
// block far apart in time) or chunks fastest (true: the gy CTAs of a row
// block run together and the grid walks memory in order). Measured on the
// H100 (bench/results/h100-row2/call1, 16384^2 bf16, ratio to the copy,
// rows / chunks): MXFP8 tcgen05 0.940 / 0.973, rceil 0.939 / 0.971, MXFP4
// 0.908 / 0.909, MXFP6 0.922 / 0.928, NVFP4 TE 0.850 / 0.852 (both passes);
// at 8192x7168: MXFP8 0.930 / 0.929, MXFP4 0.813 / 0.798, MXFP6 0.850 /
// 0.839, NVFP4 0.797 / 0.793.
constexpr bool kRingChunksFast = true;
// streaming kernel (k_rowstream): every lane issues all U (64 bytes) of its
// chunk's 16-byte loads before using any; many short CTAs, as an elementwise
// cast does
constexpr int kStreamWarps = 8;       // warps per CTA (large tensors)
constexpr int kStreamWarpsSmall = 2;  // warps per CTA where 8 would leave under kStreamMinCtasPerSm CTAs per SM
constexpr int kStreamMinCtasPerSm = 4;
constexpr int kStreamCtasPerSm = 4;   // launch bound: at most 64 registers per thread
constexpr int kStreamChunks = 1;      // chunks per warp (automatic), one after the other (2: same, 4: -2%)
// k_rowstream's shape (warps per CTA, chunks per warp) by quantizer: the
// issue-heavy formats that take it by size (kRowStreamSmall: MXFP6, MXFP4,
// NVFP4 in TE's order, whose dense scales take k_rowstream at every size)
// 2 x 2, the others kStreamWarps x kStreamChunks. Run 12 (h100-tail/call2,
// stamps.txt, event time at 8192x7168 / 16384^2, warps x chunks): MXFP4
// tcgen05 8 x 1 62.46 / 261.86 us, 4 x 1 62.05 / 260.26, 2 x 1 61.73 /
// 259.20, 8 x 2 62.66 / 257.02, 4 x 2 61.50 / 252.96, 2 x 2 61.06 /
// 251.68, 2 x 3 61.60 / 250.53; MXFP6 e3m2 tcgen05 8 x 1 66.05 / 278.30,
// 4 x 1 65.02 / 275.97, 2 x 2 65.18 / 269.79, 2 x 3 65.38 / 267.71; MXFP8
// dense 8 x 1 63.90 / 269.25, 2 x 2 65.73 / 275.84 (call 1 the same within
// 0.2 us).
template <class Q>
constexpr int kStreamWarpsQ = kRowStreamSmall<Q> ? 2 : kStreamWarps;
template <class Q>
constexpr int kStreamChunksQ = kRowStreamSmall<Q> ? 2 : kStreamChunks;
// k_rowstream's store policies (block_quant.cuh kSt*) for the 8-bit MX codes
// (MXFP8, MXINT8; the formats of kStreamDenseMx) and their scale bytes,
// as one template argument (st_pair); the other formats keep .cs codes and
// plain scale bytes. Run 14 hint (bench/results/h100-hint/call2, H100, bf16
// dense, event time, medians; README "run 14 hint"), codes / scale bytes,
// MXFP8 e4m3 16384^2 / 8192x7168, MXINT8 the same: .cs / plain (the form
// before) 269.14 / 64.02, 268.82 / 64.21 us; plain / plain 269.36 / 64.00,
// 268.88 / 64.16; evict_last / plain 270.82 / 64.10; L1::no_allocate /
// plain 268.99 / 63.97; evict_last / evict_last 270.79 / 64.02; plain /
// evict_last 269.46 / 63.06, 268.67 / 63.27 (8192x7168: 0.989 / 0.986 of
// the copy against 0.975 / 0.973). Call 1 (a run-time switch per store):
// .cs scale bytes +10 us, loads with an L2 evict_first hint +13 us.
constexpr int st_pair(int codes, int scales) { return codes | (scales << 4); }
constexpr int kStreamCodeSt = kStWb;
constexpr int kStreamScaleSt = kStEvictLast;
template <class Q>
constexpr int kStreamStQ = kStreamDenseMx<Q> ? st_pair(kStreamCodeSt, kStreamScaleSt) : st_pair(kStCs, kStWb);
// tile kernel (k_rowtile): 16-bit inputs, MX blocks, 8-bit codes (MXFP8,
// MXINT8), packed, 128 x 64 tiles (the colwise stream kernel's walk and
// loads, col_stream.cuh), one per CTA; used for the scale layouts that
// row_tile_layout names (tcgen05) where the tensor is made of whole tiles
// and has at least kTileMinCtasPerSm tiles per SM (the rest: the ring /
// k_rowstream above).
// Measured on the H100 (bench/results/h100-sol/call2, 16384^2 bf16, ratio
// to the copy, k_rowtile / ring): MXFP8 tcgen05 1.001 / 0.973 (273.2 us
// against torch's plain fp8 cast 273.4-273.6 us in the same call), rceil
// 1.001 / 0.973; 8192x7168 0.975 / 0.931. With dense scales it is slower
// (MXFP8 0.947 / 0.973, MXINT8 0.888 / 0.962; 8192x7168 0.904 / 0.938):
// a tile writes 2 scale bytes into each of 128 rows' 32-byte sectors
// there, against one 512-byte tcgen05 block (not profiled). Loading the
// tile into registers instead (ld.global.nc, a warp per 4 rows x 128
// bytes, h100-sol/call1) measured 0.876 (tcgen05) / 0.856 (dense). Run 11
// (h100-lead/exp, builds A / B alternating): the tile loaded by plain
// ld.global into registers and stored to shared memory instead of cp.async
// measured the same (0.999-1.000 both, 8192x7168 0.974-0.975 both).
// The quantizers it takes: MX, 8-bit codes, the hardware cvt (with
// mxk::set_force_software the ring runs)
template <class Q>
constexpr bool kRowTileQ = false;
template <int F, bool HW>
constexpr bool kRowTileQ<MxQ<F, HW>> = HW && Elem<F>::bits == 8;
__host__ __device__ constexpr bool row_tile_layout(int layout) { return layout == kTcgen05; }
constexpr int kTileRows = 128, kTileCols = 64;
constexpr int kTileMinCtasPerSm = 4;  // in 128 x 64 tiles
constexpr int kTileCtasPerSm = 4;  // launch bound: at most 64 registers per thread, 16 KB shared memory per sub-tile
// 128 x 64 sub-tiles per k_rowtile CTA (NB): 1, or 2 (128 x 128, so that a
// CTA writes one whole 512-byte tcgen05 scale block, staged in shared
// memory, and 128-byte code rows) where K % 128 == 0, M % 128 == 0 and the
// scale buffer is 16-byte aligned; mxk::set_work_split(1 / 2) forces 1 / 2
// where it fits (mxbench --split). Run 13 (bench/results/h100-tcs/call2,
// H100, 16384^2 bf16, event time, three rounds alternating with main's
// binary; README "run 13 tcs"): MXFP8 tcgen05 floor / rceil NB = 1
// 271.22-271.46 / 271.15-271.34 us (1.005-1.007 of the copy), main's
// k_rowtile 272.88-273.22 / 272.80-273.01 (the only difference for NB = 1:
// the row's output offsets, row_out, computed before the tile's loads
// land), NB = 2 274.11-274.30 / 273.97-274.13 (call 1, 4 CTAs per SM:
// 273.31-273.66), NB = 1 bound to 6 CTAs per SM (40 registers) 272.67-
// 273.15; torch's plain fp8 cast 272.66 / 273.31 in the same call.
// 8192x7168: NB = 1 63.74-63.87 / 63.87-63.89, main 63.98-64.00 /
// 64.05-64.18, NB = 2 64.58-64.61. Nsight Compute (one launch,
// call2/ncu.txt): the same DRAM bytes for every form (537 MB read, 260-262
// MB written: NB = 1's partial scale sectors cost no DRAM traffic), L2
// write sectors 9.42 M (NB = 1) / 8.65 M (NB = 2), time 264.51 / 268.74 us
// (k_rowstream dense 264.48); NB = 2 has 20% fewer instructions (81.5 M
// against 106.4 M) and the same warps active (57% against 59%), but its
// CTAs convert sub-tile 0, then 1, after a barrier each.
constexpr int kTileSubs = 1;
// k_rowtile's code stores (store32_pair8): .cs. Run 14 hint
// (h100-hint/call1, 16384^2 bf16, MXFP8 tcgen05 floor, through a run-time
// probe that cost this kernel nothing: 271.09 us against main's 271.59):
// .cs 271.09, plain 271.57, L1::no_allocate 271.15, L2 evict_first 271.01,
// evict_last 272.90, evict_normal 271.36, .cg 271.48; .cs scale bytes
// 270.99; cp.async with an L2 evict_first hint 294.62, .L2::256B 270.96,
// .L2::128B 271.25 (8192x7168: 63.78-64.03 for all but the evict_first
// loads, 67.48). No policy moves it (1.02 needs ~268 us with the copy at 360.5 us).
constexpr int kTileCodeSt = kStCs;
// launch bound of the 128 x 128 CTAs: 5 per SM (at most 48 registers, 5 x
// 33 KB shared memory; with 4: 58 registers, 4 CTAs, 32 warps per SM
// against the 128 x 64 CTAs' 40, 267.65 us under Nsight Compute)
constexpr int kTileWideCtasPerSm = 5;
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
  template <int S = kStWb>  // store policy (block_quant.cuh; kStWb: the plain byte store)
  __device__ __forceinline__ void scale(int64_t kb, uint32_t sc, const Params& p) const {
    st1<S>(p.row.scales + sbase + (tc ? ((kb >> 2) * 512 + (kb & 3)) : kb), sc);
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

// Full group u of the chunk at element c0 from the lane's raw words w
// (all lanes call: the block amax uses shuffles); SP: the store policies of
// the packed codes and the scale bytes (st_pair).
template <class In, class Q, int SP = st_pair(kStCs, kStWb)>
__device__ __forceinline__ void row_group(const uint4* w, int64_t c0, int u, int lane, const RowOut& o,
                                          const Params& p, const typename Q::State& st) {
  constexpr int T = Q::V / 8;  // lanes per block
  uint32_t v[8];
  widen8<In>(w, v);
  const int64_t g = (c0 >> 3) + u * 32 + lane;  // 8-element group index in the row
  uint32_t sc;
  if (p.container8) {
    uint32_t codes[8];
    sc = Q::template block<RowShape<In>::NARROW>(v, 8, p, st, codes);
    store8<Q::BITS>(o.dr, g, 8, codes, 1, Q::SHIFT8, true);
  } else {  // packed codes built in registers, one store (a full chunk implies K % 8 == 0)
    uint32_t pk[2];
    sc = Q::template block_packed<In>(v, w, p, st, pk);
    store_packed<Q::BITS, SP & 15>(o.dr, g, pk);
  }
  if ((lane % T) == 0) o.scale<(SP >> 4)>(g / T, sc, p);
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
#pragma unroll
    for (int u = 0; u < S::U; ++u) row_group<In, Q, SP>(&w[u * S::LPG], c0, u, lane, o, p, st);
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
// after the same lane consumed it.
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
        row_group<In, Q>(w, c0, u, lane, o, p, st);
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
