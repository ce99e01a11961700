// tiles.cuh - the colwise/fused block-quantization kernel (SPEC C3, C4,
// C5, C6, C7): 32x64 or 128x64 tiles for colwise (source or transposed
// data) and fused rowwise+colwise quantization in one read of the input.
// The rowwise kernels are in rowwise.cuh, NVFP4's global amax in
// nvfp4/amax.cuh, the block quantizers and loads/stores in block_quant.cuh.
// Full 128x64 tiles of 16-bit MX inputs take the stream kernel
// (col_stream.cuh) instead; this one is the general path (ragged tiles,
// fp32, NVFP4, container8, forced tile rows).
#pragma once

#include "block_quant.cuh"
#include "rowwise.cuh"

namespace mxk::dev {

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
// 16-bit inputs keep the tile raw in shared memory (128 bytes per row, the
// 16-byte chunks XOR-swizzled) and read each thread's 8 rows of one column
// with one ldmatrix.x4.trans; fp32 inputs keep fp32 bits with a padded row.
constexpr int kTR = 128, kTRSmall = 32, kTC = 64;

template <int TR>
struct TileSmem16 {  // raw 16-bit rows, chunk c of row r at [r][c ^ swz(r)]
  uint4 x[TR][kTC / 8];
};
template <int TR>
struct TileSmem32 {  // fp32 bits, one padding word per row
  uint32_t x[TR][kTC + 1];
};
// Chunk swizzle: the 8 rows one ldmatrix matrix reads (32u + 8*(i/2) + 2j +
// i%2, i < 8) land in 8 distinct chunks, and a row stored by 8 lanes too.
__device__ __forceinline__ int swz(int r) { return (((r >> 3) & 3) << 1) | (r & 1); }

__device__ __forceinline__ uint4 ldmatrix_x4_trans(const void* smem) {
  uint4 d;
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(d.x), "=r"(d.y), "=r"(d.z), "=r"(d.w)
               : "r"(a));
  return d;
}

// 8 widened values of a 16-bit input back to their raw 16-byte word (exact).
template <class In>
__device__ __forceinline__ uint4 narrow8(const uint32_t (&v)[8]) {
  uint32_t w[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if constexpr (std::is_same_v<In, __nv_bfloat16>) {
      w[j] = (v[2 * j] >> 16) | (v[2 * j + 1] & 0xFFFF0000u);
    } else {
      w[j] = static_cast<uint32_t>(__half_as_ushort(__float2half_rn(__uint_as_float(v[2 * j])))) |
             (static_cast<uint32_t>(__half_as_ushort(__float2half_rn(__uint_as_float(v[2 * j + 1])))) << 16);
    }
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

template <class In, class Q, bool ROW, bool COL, int TR = kTR>
__global__ void __launch_bounds__(256, 3) k_tile(const In* __restrict__ x, Params p) {
  static_assert(TR == 32 || TR == 64 || TR == 128, "tile rows: a multiple of 32, at most 128");
  constexpr int T = Q::V / 8;
  constexpr int kTB = TR / 32;
  // ldmatrix tiles for colwise only: measured on the H100 (16384^2 bf16),
  // colwise transposed 0.570 -> 0.728 of the copy, but fused 0.554 -> 0.521
  constexpr bool LDM = sizeof(In) == 2 && !ROW;
  __shared__ std::conditional_t<LDM, TileSmem16<TR>, TileSmem32<TR>> sx;
  __shared__ alignas(16) uint8_t scode[TR][kTC + 4];
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
    auto phase1 = [&](int u, const uint32_t (&v)[8], int n, const uint4* raw) {
      if (COL) {
        const int row = lr + 32 * u;
        if constexpr (LDM) {
          sx.x[row][(tid & 7) ^ swz(row)] = raw ? raw[0] : narrow8<In>(v);
        } else {
#pragma unroll
          for (int i = 0; i < 8; ++i) sx.x[row][lc + i] = v[i];
        }
      }
      if (ROW) {
        if (raw && !p.container8) {  // full tile (CTA-uniform): packed codes, one store
          uint32_t pk[2];
          const uint32_t sc = Q::template block_packed<In>(v, raw, p, st, pk);
          const int64_t m = m0 + lr + 32 * u;
          const int64_t g = (c0 + lc) / 8;
          store_packed<Q::BITS>(p.row.data + (b * p.M + m) * p.row.row_bytes, g, pk);
          if ((g % T) == 0) p.row.scales[scale_offset(p.row, b, m, g / T)] = static_cast<uint8_t>(sc);
        } else if (32 * u < mrem) {  // warp-uniform (a warp's lanes share the band)
          uint32_t codes[8];
          const uint32_t sc = Q::template block<sizeof(In) == 2>(v, n, p, st, codes);
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
        phase1(u, v, 8, &cur[u * LPG]);
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
      for (int u = 0; u < kTB; ++u) phase1(u, v[u], n[u], nullptr);
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
        uint4 d = make_uint4(0u, 0u, 0u, 0u);  // the raw words (16-bit inputs)
        if constexpr (LDM) {
          // lane l addresses row i = l%8 of matrix j = l/8: tile row
          // 32u + 8*(i/2) + 2j + i%2, chunk = this warp's 8 columns; the lane
          // gets column cc, rows r0 + 2j, r0 + 2j + 1 in register j
          const int l = tid & 31, i = l & 7;
          const int row = 32 * u + 8 * (i >> 1) + 2 * (l >> 3) + (i & 1);
          d = ldmatrix_x4_trans(&sx.x[row][(tid >> 5) ^ i]);  // swz(row) == i
          widen8<In>(&d, v);
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = (e < n) ? v[e] : 0u;
        } else {
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = (e < n) ? sx.x[r0 + e][cc] : 0u;
        }
        const int64_t g = (m0 + r0) / 8;
        // CTA-uniform: packed codes, one store. Needs the raw words d (ldmatrix
        // tiles) for 16-bit inputs: the fp32 tile of the fused kernel takes the
        // codes path below (H100 final call: without the LDM guard, d was zero
        // there and the gate failed every fused transposed bf16/f16 case).
        if ((LDM || sizeof(In) == 4) && cur_full && vcol && p.col.transposed && !p.container8) {
          uint32_t pk[2];
          const uint32_t sc = Q::template block_packed<In>(v, &d, p, st, pk);
          if ((g % T) == 0) p.col.scales[scale_offset(p.col, b, k, g / T)] = static_cast<uint8_t>(sc);
          store_packed<Q::BITS>(p.col.data + (b * p.K + k) * p.col.row_bytes, g, pk);
          continue;
        }
        uint32_t codes[8];
        const uint32_t sc = Q::template block<sizeof(In) == 2>(v, n, p, st, codes);
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
            // the 8 code bytes of this row segment: two aligned 32-bit loads
            // (row stride 68 bytes, lc a multiple of 8)
            const uint32_t* q = reinterpret_cast<const uint32_t*>(&scode[row][lc]);
            const uint32_t w0 = q[0], w1 = q[1];
            uint8_t* dst = p.col.data + (b * p.M + m0 + row) * p.col.row_bytes;
            if (Q::BITS == 8 && n2 == 8 && vrow && !p.container8) {
              __stcs(reinterpret_cast<uint2*>(dst + (c0 + lc)), make_uint2(w0, w1));
            } else {
              uint32_t c2[8];
#pragma unroll
              for (int i = 0; i < 8; ++i) c2[i] = (i < n2) ? (((i < 4 ? w0 : w1) >> (8 * (i & 3))) & 0xFFu) : 0u;
              store8<Q::BITS>(dst, (c0 + lc) / 8, n2, c2, p.container8, Q::SHIFT8, vrow);
            }
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

}  // namespace mxk::dev
