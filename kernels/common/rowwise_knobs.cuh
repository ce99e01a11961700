// rowwise_knobs.cuh - the tuning knobs of the rowwise quantization kernels
// (rowwise.cuh: k_rowstream, k_rowwise, k_rowtile), in one place: which
// kernel takes which format, layout and size, the CTA shapes, ring depths,
// launch bounds and store policies, each with the measurement that chose it.
// Moved out of rowwise.cuh unchanged; the launcher's runtime overrides are in
// row_select.hpp.
#pragma once

#include "block32.cuh"

namespace mxk::dev {

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
// NVFP4 takes the ring on dense scales too since run 23 (its blocks whole
// per lane there, row_pair16): H200 (bench/results/h200-run23/call2,
// probe.txt, bf16, TE order, amax + quantize, event time, ring /
// k_rowstream) 4096x7168 46.85 / 48.35 us, 8192x7168 80.58 / 82.96,
// 16384x7168 144.08 / 153.01, 16384^2 306.96 / 331.34.
template <class Q>
constexpr bool kRowStreamDense = kStreamDenseMx<Q>;
constexpr bool kRowStreamTcgen05 = false;
// By size: tensors of at most kRowStreamSmallElems<In, Q> elements take
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
// (NVFP4 in TE's order took k_rowstream up to 2^27 elements from run 17
// (h200-tail8/call1: 8192x7168 ring 95.0-95.4 us, k_rowstream 2 x 2
// 91.4-91.5) to run 22; with its blocks whole per lane in the ring
// (row_pair16) the ring is ahead at every size above the persistent
// kernel's 2^23: h200-run23/call1 nvprobe.txt, tcgen05, ring / k_rowstream,
// two rounds: 4096x4096 30.75 / 32.16 us, 4096x7168 48.26 / 48.96,
// 8192x7168 82.11 / 85.06, 16384x7168 144.80 / 156.29, 8192x16384 162.14 /
// 176.42, 16384^2 307.52 / 338.34.)
// The size limit: none since run 20 (MXFP6 / MXFP4): with fewer ALU
// instructions per group (rowwise.cuh chunk_out, the floor rule, the bf16
// e2m1 form) k_rowstream 2 x 2 beat the ring at 16384^2 too on the H200
// (bench/results/h200-run20/call3, ratio to the copy: MXFP4 tcgen05 0.794
// against 0.770, MXFP6 e3m2 / e2m3 0.797 / 0.795 against 0.789 / 0.788;
// NVFP4 0.839 against 0.866). On the H100 (run 12, before that change) the
// ring was 0.2% (MXFP4) / 1.3% (MXFP6) ahead there; not re-measured.
// The ring quantizes MXFP4 from 16-bit inputs a whole block per lane
// (rowwise.cuh row_quad32) and then takes it at every size (limit 0; where
// a row's codes cannot take row_quad32, k_rowstream: launch_impl.cuh).
// H200 (bench/results/h200-run23/call4, mxfp4probe.txt, tcgen05, ring /
// k_rowstream, two rounds): 128x7168 back to back 4.30 / 4.92 us per
// launch, 1024x7168 11.49 / 12.51, 2048x7168 16.58 / 18.85, 4096x4096
// 18.10 / 19.90, 4096x7168 26.82 / 27.82, 8192x7168 44.00 / 45.95, 16384^2
// 173.73 / 180.11 (that tree spilled 12 bytes; the final one, call 5:
// 16384^2 162.72-162.93 / 179.94-180.16, 8192x7168 42.13-42.43 / 45.76-45.95).
template <class In, class Q>
constexpr bool kRowQuad32 = Q::V == 32 && Q::BITS == 4 && sizeof(In) == 2;
template <class In, class Q>
constexpr int64_t kRowStreamSmallElems = kRowQuad32<In, Q> ? 0 : INT64_MAX;
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
// chunks per warp (automatic), one after the other. H100: 1 / 2 the same, 4 -2%; H200 (run 20, 16384^2 /
// 8192x7168, ratio to the copy): MXFP8 dense 1 0.914 / 0.893, 2 0.944 / 0.915; MXINT8 0.876 / 0.851, 0.895 / 0.864
constexpr int kStreamChunks = 2;
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
// Run 21 (H200, h200-run21/call2/split.txt, after the fp6 / e2m1 encodes
// of that run; 16384^2 / 8192x7168, ratio to the copy, chunks per warp 1,
// 2, 3, 4): MXFP4 0.850 / 0.795, 0.900 / 0.828, 0.921 / 0.832, 0.925 /
// 0.827; MXFP6 e3m2 0.881 / 0.847, 0.898 / 0.861, 0.915 / 0.862, 0.904 /
// 0.836; e2m3 0.855 / 0.848, 0.880 / 0.861, 0.899 / 0.861, 0.900 / 0.835.
// Each item costs ~130 instructions besides its groups (its row's
// addresses, the walk), and a warp's set-up is shared by its items.
constexpr int kStreamChunksSmall = 3;
// (NVFP4 takes k_rowstream only where forced since run 23, in the 2 x 3
// shape TE's order was measured in, both orders: torchao's took 8 x 2 on
// dense scales until run 22)
template <class Q>
constexpr bool kStreamShapeSmall = kRowStreamSmall<Q> || Q::V == 16;
template <class Q>
constexpr int kStreamWarpsQ = kStreamShapeSmall<Q> ? 2 : kStreamWarps;
template <class Q>
constexpr int kStreamChunksQ = kStreamShapeSmall<Q> ? kStreamChunksSmall : kStreamChunks;
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

}  // namespace mxk::dev
