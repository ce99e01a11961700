// col_stream.cuh - the colwise / fused MX kernel for full tiles of 16-bit
// inputs (SPEC C3, C4, C6, C7): 128 x 64 tiles copied into shared memory
// by cp.async (a CTA given several tiles loads the next one while it
// converts; one tile per CTA measured best, see the knobs), every thread
// quantizing whole 32-element blocks (no shuffles, one scale per thread per
// block). The general kernel (ragged tiles, fp32 inputs, NVFP4,
// container8, forced tile rows) stays in tiles.cuh; the launcher
// (launch_impl.cuh) picks this one where col_stream_ok holds.
//
// Per tile, 256 threads:
//  - load: 4 cp.async of 16 bytes per thread (a warp copies 4 rows x 128
//    bytes) into a raw tile, 16-byte chunks XOR-swizzled by swz128(row);
//  - colwise: thread -> column c = 8*warp + lane/4, rows 32*(lane%4) ..
//    +31 (one block): four ldmatrix.x4.trans; transposed order stores its
//    32 packed codes straight to the output row k (a warp writes 8 rows x
//    128 contiguous bytes; 8-bit codes by lane pairs, whole 32-byte sectors
//    per store: fused 0.964 of the copy against 0.936 without); source order writes the code bytes to a
//    column-major code tile, and after a barrier each thread reads back
//    4 rows x 8 columns (8 LDS.32, a 4x4 byte transpose by prmt) and
//    stores 4 row segments (a warp writes 4 rows x 64 contiguous bytes);
//  - rowwise (fused): thread -> row r, columns 32h .. +31 (one block),
//    four conflict-free LDS.128 from the same raw tile (8-bit codes stored
//    by lane pairs as above).
// One barrier per tile (two for source-order colwise). Indices: the tile
// bases are 64-bit, computed once per tile; in-tile offsets are 32-bit.
#pragma once

#include "block32.cuh"
#include "tiles.cuh"  // ldmatrix_x4_trans; cp.async helpers (rowwise.cuh)

namespace mxk::dev {

// ---- tuning knobs (colwise / fused stream kernel) ----------------------------------
constexpr int kCsRows = 128, kCsCols = 64;  // tile (one MX block per thread and side)
constexpr int kCsThreads = 256;
constexpr int kCsCtasPerSm = 4;             // launch bound: <= 64 registers, 41 KB shared memory
// Tiles per CTA (launcher; mxk::set_work_split forces more): one. On the
// H100 (16384^2 bf16, e4m3) one tile per CTA measured colwise source 1.012,
// transposed 0.893, fused 0.939 of the copy, against 0.968 / 0.747 / 0.839
// with 4 (the next tile prefetched) and 0.950 / 0.725 / 0.781 with 8.
// Tiles are taken in row-major order: grouping 4, 8, 16 or 32 row tiles
// (row tile fastest, for longer runs of each transposed output row) measured
// transposed 0.908, 0.890, 0.886, 0.902 against 0.922, fused 0.945 (4)
// against 0.964 (h100-col/call2).
constexpr int kCsTilesPerCta = 1;
// ... except on devices whose DRAM is fast for their SM count (peak GB/s per
// SM at least kCsFastMemGbsPerSm: the H200 ~37, the H100 SXM ~25): there two
// tiles per CTA, the second in flight while the first converts. H200 (run 20,
// bench/results/h200-run20/call4/colsplit.txt, 16384^2 / 8192x7168, ratio to
// the copy, 1 / 2 / 4 tiles): colwise source dense_colwise 0.881 / 0.989 /
// 0.975, 0.872 / 0.941 / 0.898; source tcgen05 0.857 / 0.981 / 0.974;
// transposed 0.874 / 0.913 / 0.729, 0.873 / 0.931 / 0.900; fused 0.850 /
// 0.942 / 0.917, 0.840 / 0.915 / 0.884 (on the H100, 2 was not measured);
// only where tiles / 2 CTAs still fill every SM's kCsCtasPerSm slots: at
// 128x7168 (112 tiles) 2 per CTA took 6.6-6.8 us against 6.0-6.3 (call 5).
constexpr int kCsTilesPerCtaFastMem = 2;
constexpr double kCsFastMemGbsPerSm = 30.0;
// Store policies (block_quant.cuh kSt*) of the 8-bit codes, as one template
// argument (cs_pol): transposed-order colwise codes, fused rowwise codes,
// source-order colwise codes (other code widths: .cs; scale bytes: plain).
// Run 14 hint (bench/results/h100-hint/call2, H100, bf16 e4m3, event time,
// medians; README "run 14 hint"), 16384^2 / 8192x7168, transposed dense;
// fused row+col tcgen05: all .cs (the form before) 294.50 / 67.75; 379.28 /
// 88.24 us; evict_last transposed 285.00 / 65.70; 379.02 / 84.72;
// evict_last transposed and row 285.07 / 65.82; 371.44 / 86.37; evict_last
// all three 284.87 / 65.71; 371.53 / 86.29, but source order 271.49 against
// 270.19 (dense_colwise); all plain 292.56 / 67.32; 373.75 / 86.97. So
// evict_last where a CTA writes 64-byte pieces of many output rows
// (presumably the L2 then keeps those lines until the neighbouring CTAs'
// pieces arrive; not profiled), .cs for the source-order rows.
constexpr int cs_pol(int transposed, int row, int source) { return transposed | (row << 4) | (source << 8); }
constexpr int kCsStPol = cs_pol(kStEvictLast, kStEvictLast, kStCs);

// Chunk swizzle of the raw tile: swz128 (rowwise.cuh, shared with k_rowtile).

struct ColStreamSmem {
  uint4 x[2][kCsRows][kCsCols / 8];  // raw tiles, double-buffered (32 KB)
  uint32_t code[kCsCols][33];        // source-order codes: [column][4-row word], XOR-swizzled
};

// Word (c, a) of the code tile: rows 4a .. 4a+3 of column c; bit 2 of a is
// flipped for columns 32..63 so that the read-back (8 columns x 4 words per
// quarter of a warp) is conflict-free, as is the write (stride 33 words).
__device__ __forceinline__ uint32_t& code_word(ColStreamSmem& s, int c, int a) {
  return s.code[c][a ^ ((c >> 5) << 2)];
}

// CP: the store policies of the 8-bit codes (kCsStPol)
template <class In, class Q, bool ROW, int CP = kCsStPol>
__global__ void __launch_bounds__(kCsThreads, kCsCtasPerSm)
    k_colstream(const In* __restrict__ x, Params p) {
  static_assert(sizeof(In) == 2 && Q::V == 32, "16-bit inputs, MX blocks of 32");
  constexpr int BITS = Q::BITS;
  __shared__ ColStreamSmem sm;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int64_t ntc = p.K / kCsCols;                 // column tiles
  const int64_t mtiles = p.M / kCsRows;              // row tiles per batch entry
  const int64_t ntiles = p.batch * mtiles * ntc;
  const bool small = ntiles < (int64_t{1} << 31);
  const uint32_t ntc32 = static_cast<uint32_t>(ntc);
  auto split = [&](int64_t t, int64_t& tr, int64_t& tc) {  // tile -> (row tile over the batch, column tile)
    if (small) {
      const uint32_t t32 = static_cast<uint32_t>(t), q = t32 / ntc32;
      tr = q;
      tc = t32 - q * ntc32;
    } else {
      tr = t / ntc;
      tc = t - tr * ntc;
    }
  };
  // load mapping: thread -> row lr + 32s (s < 4), chunk lch
  const int lr = tid >> 3, lch = tid & 7;
  const int64_t lr_off = static_cast<int64_t>(lr) * p.K + lch * 8;
  const int64_t band = 32 * p.K;
  auto issue = [&](int64_t t, int buf) {
    int64_t tr, tc;
    split(t, tr, tc);
    const In* q = x + tr * kCsRows * p.K + tc * kCsCols + lr_off;
#pragma unroll
    for (int s = 0; s < 4; ++s) cp_async16(&sm.x[buf][lr + 32 * s][lch ^ ((s << 1) | (lr & 1))], q + s * band);
    cp_async_commit();
  };
  // colwise mapping
  const int cc = 8 * warp + (lane >> 2), rb = lane & 3;
  // rowwise mapping: bits of tid -> r bit 0, h, r bit 5, r bits 1-2, r bits 3-4, r bit 6
  const int rr = (tid & 1) | (((tid >> 3) & 3) << 1) | (((tid >> 5) & 3) << 3) | (((tid >> 2) & 1) << 5) | ((tid >> 7) << 6);
  const int rh = (tid >> 1) & 1;
  // source-order read-back mapping: rows 4a .. 4a+3, columns 8bq .. 8bq+7
  const int bq = lane & 7, qa = 4 * warp + (lane >> 3);

  int64_t t = blockIdx.x;
  if (t >= ntiles) return;
  issue(t, 0);
  for (int buf = 0; t < ntiles; t += gridDim.x, buf ^= 1) {
    cp_async_wait<0>();  // this thread's copies of tile t landed
    __syncthreads();     // everyone's; and every thread is done with the other buffer and the code tile
    if (t + gridDim.x < ntiles) issue(t + gridDim.x, buf ^ 1);
    int64_t tr, tc;
    split(t, tr, tc);
    const int64_t b = tr / mtiles;
    const int64_t m0 = (tr - b * mtiles) * kCsRows;  // first row in the batch entry
    const int64_t c0 = tc * kCsCols;
    const bool src_order = !p.col.transposed;
    {  // colwise: column cc, rows 32rb .. 32rb+31
      uint4 r[4];
      const int i = lane & 7, j = lane >> 3;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        // lane addresses row i of matrix j: tile row 32(i/2) + 8q + 2j + i%2 (swz128 == i)
        r[q] = ldmatrix_x4_trans(&sm.x[buf][32 * (i >> 1) + 8 * q + 2 * j + (i & 1)][warp ^ i]);
      }
      uint32_t sc;
      const int se = static_cast<int>(scale32<In, Q>(r, p, sc)) - 127;
      const int64_t k = c0 + cc;
      p.col.scales[scale_offset(p.col, b, k, m0 / 32 + rb)] = static_cast<uint8_t>(sc);
      if (!src_order) {
        uint32_t w[BITS];
        encode32_packed<In, Q>(r, se, w);
        uint8_t* dst = p.col.data + (b * p.K + k) * p.col.row_bytes + (m0 + 32 * rb) * BITS / 8;
        if constexpr (BITS == 8) {
          store32_pair8<CP & 15>(dst, rb & 1, 1, w);  // the lane of rb ^ 1 holds the other half of the run
        } else {
          store32<BITS>(dst, w);
        }
      } else {
        uint32_t w[8];
        encode32_bytes<In, Q>(r, se, w);
#pragma unroll
        for (int a = 0; a < 8; ++a) code_word(sm, cc, 8 * rb + a) = w[a];
      }
    }
    if constexpr (ROW) {  // rowwise: row rr, columns 32rh .. 32rh+31
      uint4 r[4];
#pragma unroll
      for (int g = 0; g < 4; ++g) r[g] = sm.x[buf][rr][(4 * rh + g) ^ swz128(rr)];
      uint32_t sc;
      const int se = static_cast<int>(scale32<In, Q>(r, p, sc)) - 127;
      const int64_t m = m0 + rr;
      p.row.scales[scale_offset(p.row, b, m, c0 / 32 + rh)] = static_cast<uint8_t>(sc);
      uint32_t w[BITS];
      encode32_packed<In, Q>(r, se, w);
      uint8_t* dst = p.row.data + (b * p.M + m) * p.row.row_bytes + (c0 + 32 * rh) * BITS / 8;
      if constexpr (BITS == 8) {
        store32_pair8<(CP >> 4) & 15>(dst, rh, 2, w);  // the lane of rh ^ 1 (tid bit 1) holds the other half
      } else {
        store32<BITS>(dst, w);
      }
    }
    if (src_order) {
      __syncthreads();  // the code tile is complete
      uint32_t cw[8];
#pragma unroll
      for (int jc = 0; jc < 8; ++jc) cw[jc] = code_word(sm, 8 * bq + jc, qa);
      // 4x4 byte transposes: columns 0..3 and 4..7 of rows 4qa .. 4qa+3
      uint32_t rw[2][4];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const uint32_t t0 = __byte_perm(cw[4 * h], cw[4 * h + 1], 0x5140);
        const uint32_t t1 = __byte_perm(cw[4 * h], cw[4 * h + 1], 0x7362);
        const uint32_t t2 = __byte_perm(cw[4 * h + 2], cw[4 * h + 3], 0x5140);
        const uint32_t t3 = __byte_perm(cw[4 * h + 2], cw[4 * h + 3], 0x7362);
        rw[h][0] = __byte_perm(t0, t2, 0x5410);
        rw[h][1] = __byte_perm(t0, t2, 0x7632);
        rw[h][2] = __byte_perm(t1, t3, 0x5410);
        rw[h][3] = __byte_perm(t1, t3, 0x7632);
      }
      uint8_t* dst = p.col.data + (b * p.M + m0 + 4 * qa) * p.col.row_bytes;
      const int64_t g = c0 / 8 + bq;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        uint32_t w[2];
        pack_bytes8<BITS>(rw[0][e], rw[1][e], w);
        store_packed<BITS, (CP >> 8) & 15>(dst + e * p.col.row_bytes, g, w);
      }
    }
  }
}

}  // namespace mxk::dev
