// gemm_w4a16_decode.cu - the w4a16 GEMM for decode shapes (M <= 64) on sm_90a,
// defined bit for bit by reference/SPEC.md C11 `w4a16` (as gemm_w4a16.cu).
//
// Transposed: a block computes D^T = B * A^T for 64 rows of B (the weights,
// the wgmma's M side) and NA = 8..64 rows of A (the activations, its N side),
// so a small M wastes no wgmma rows. Each element of D is still one fp32
// chain of m64nNAk16 steps in increasing k over the same 16 products per step
// (only which operand is "A" changes; the gate confirms the bits).
// B is widened in registers straight into the wgmma's A fragment (PTX ISA
// 9.0, 9.7.15.5.1, and C10: warp w holds rows 16w..16w+15, lane l rows l/4
// and l/4 + 8 at k 2(l%4), 2(l%4) + 1 and 8 more), never through shared
// memory. One packed byte (two elements) becomes one bf16x2 word by a table
// lookup (the two e2m1 values, exact in bf16; 32 copies of the 256-entry
// table, one per bank, so a warp's lookups never conflict) and one bf16x2
// multiply by 2^(e-127) (exact in range, +-Inf beyond it, NaN for 0xff:
// C11's widening, subnormal 2^-127 included).
// The chain of a 64 x NA tile runs over k-tiles of KT = 256 (16 steps; 512,
// 32 steps, in the W4RsLong forms: 4 scale words per row, 128 registers of
// widened k-tile); W
// warpgroups take the k-tiles in turn: each loads its own k-tiles (cp.async,
// STW stages of its own), widens a whole k-tile into registers while the
// others run their steps, then takes the accumulator from shared memory
// (handed over exactly, fp32 bits), issues its 16 wgmmas, and hands it on.
// No split-K: one k-ordered chain per element (C11).
// Synchronization is by mbarriers only (PTX ISA 9.0, 9.7.13.15), every thread
// arriving for its own accesses: `hand[g]` (128 arrivals: the writer
// warpgroup g's threads after their stores of the accumulator; warpgroup g + 1
// waits before its loads; arrive has .release, try_wait .acquire semantics at
// CTA scope, 9.7.13.15.13/16) and `ready[g]` (128 arrivals of warpgroup g's
// own threads once their copies of a k-tile landed: a barrier within the
// warpgroup for its stages). The accumulator has one slot: its next writer is
// always its reader (the same thread, in program order), so it needs no
// `empty` barrier; a phase of hand[g] cannot be overtaken, since warpgroup g
// hands over again only after the accumulator came round the whole chain.
// Elements of B past K are +0 (never a widened value: C11's padding), A past
// K is zero-filled; the steps past ceil(K / 16) add only zero products.
#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_w4a16_decode.hpp"
#include "gemm/gemm_ws.cuh"
#include "gemm/wgmma_rs_ops.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

using RsParams = W4aParams;  // gemm_host.hpp

// Shared memory: the lookup table (256 packed bytes x 32 lanes), the
// accumulator being handed over ([NA / 2][128] fp32), 2W mbarriers (128
// bytes), then W x STW stages of
// packed B [64][KT / 2] (rows RS bytes apart: the 16-byte pad keeps the 8 rows
// a warp reads at once on different banks), its scale codes [64][CW words],
// and A [NA][KT] bf16 in the wgmma layout of gemm_common.cuh (one 32-byte
// slice of NA rows per k16 step).
template <class C>
struct RsLayout {
  static constexpr int WT = 128, THREADS = WT * C::W, KT = C::KT, KB = KT / 32, CW = KB / 4;
  static constexpr int RS = KT / 2 + 16;
  static constexpr int ACC = 256 * 32 * 4, BARS = ACC + C::NA / 2 * WT * 4;  // the table at 0
  static constexpr int STAGES = BARS + 128;  // mbarriers hand[W], ready[W]
  static constexpr int CODES = 64 * RS, ACT = CODES + 64 * CW * 4;
  static constexpr int STAGE = (ACT + C::NA * KT * 2 + 127) / 128 * 128;
  static constexpr int BYTES = STAGES + C::W * C::STW * STAGE;
  static_assert((KT == 256 || KT == 512) && 64 * CW % WT == 0, "two or four scale words per row");
  static_assert(C::NA * (KT / 8) % WT == 0 && 64 * KB % WT == 0, "chunks per thread");
  static_assert(STAGES % 128 == 0 && ACT % 128 == 0 && BYTES <= 227 * 1024, "shared memory");
  static_assert(C::W >= 2 && 2 * C::W * 8 <= STAGES - BARS && C::STW >= 2, "2W mbarriers");
};

#ifdef MXK_GEMM_HAVE_WGMMA
// bf16 bits of an e2m1 code (exact).
__device__ __forceinline__ std::uint32_t e2m1_bf16(std::uint32_t c) { return e2m1_f32_bits(c) >> 16; }

// One warpgroup's copies of k-tile kt (wt: thread in the warpgroup). A: the
// thread's chunk i (8 elements) is row 8 (i / CG) + wt % 8, 16-byte column
// 16 (i % CG) + 2 (wt / 16) + (wt / 8) % 2 (CG = KT / 128), so the 8 lanes of a group write the
// 8 rows of one core matrix (128 contiguous bytes of shared memory, where a
// row per warp put its 32 chunks on the same 4 banks) and 4 lanes read 64
// contiguous bytes of a row. B: chunk i is row wt / KB + 16 i, 32 elements
// at (wt % KB) * 32; scale word wt + WT u (row / CW, word % CW), u < CPT. Whole k-tiles
// with aligned rows take the cp.async loops alone (compact code in the
// k-loop: the SASS of NA 64 went from 145 to 87 KB); the others load16.
template <class C>
__device__ __forceinline__ void rs_load(std::uint8_t* st, const RsParams& p, std::int64_t m0, std::int64_t n0,
                                        std::int64_t kt, int wt) {
  using L = RsLayout<C>;
  constexpr int A_PT = C::NA * (L::KT / 8) / L::WT, BRS = L::WT / L::KB, B_PT = 64 * L::KB / L::WT;
  constexpr int CG = L::KT / 128, CPT = 64 * L::CW / L::WT;  // 16-chunk column groups of A; scale words per thread
  static_assert(A_PT % CG == 0, "CG x 16 chunks per row of A: 16 columns x 8 rows per pass");
  const int ar = wt & 7, ach = 2 * (wt >> 4) + ((wt >> 3) & 1), br = wt / L::KB, bch = wt % L::KB;
  const std::int64_t k0 = kt * L::KT, lda8 = 8 * p.lda, ldbs = BRS * p.ldb;
  std::uint8_t* const da = st + L::ACT + (ach >> 1) * C::NA * 32 + core_off(ar, ach & 1);
  std::uint8_t* const db = st + br * L::RS + 16 * bch;
  const std::int64_t oa = (m0 + ar) * p.lda + k0 + 8 * ach, ob = (n0 + br) * p.ldb + (k0 + 32 * bch) / 2;
  // A chunk i: + (i / CG) * 256 bytes (core_off, 8 rows on) and + (i % CG) * 8 * NA * 32 (16 columns on).
  if (p.vec_a && p.vec_b && k0 + L::KT <= p.k) {
#pragma unroll
    for (int i = 0; i < A_PT; ++i)
      if (m0 + 8 * (i / CG) + ar < p.m)
        cp_async16(da + (i / CG) * 256 + (i % CG) * 8 * C::NA * 32, p.a + oa + (i / CG) * lda8 + 128 * (i % CG));
#pragma unroll
    for (int i = 0; i < B_PT; ++i)
      if (n0 + br + i * BRS < p.n) cp_async16(db + i * BRS * L::RS, p.b + ob + i * ldbs);
  } else {
#pragma unroll 1
    for (int i = 0; i < A_PT; ++i) {
      if (m0 + 8 * (i / CG) + ar >= p.m) continue;
      const int c = 8 * (16 * (i % CG) + ach);  // first element of the chunk in the k-tile
      load16(da + (i / CG) * 256 + (i % CG) * 8 * C::NA * 32,
             reinterpret_cast<const std::uint8_t*>(p.a + oa + (i / CG) * lda8 + 128 * (i % CG)), 2 * (p.k - (k0 + c)),
             p.vec_a, p.a);
    }
#pragma unroll 1
    for (int i = 0; i < B_PT; ++i)
      if (n0 + br + i * BRS < p.n)
        load16(db + i * BRS * L::RS, p.b + ob + i * ldbs, (p.k - (k0 + 32 * bch) + 1) / 2, p.vec_b, p.b);
  }
#pragma unroll
  for (int u = 0; u < CPT; ++u) {
    const int w = wt + u * L::WT, r = w / L::CW, wi = w % L::CW;
    const std::int64_t kb4 = kt * L::KB + 4 * wi;
    if (n0 + r < p.n && kb4 < p.nkb)
      load_codes4(reinterpret_cast<std::uint32_t*>(st + L::CODES) + w, p.sb, p.tc_b, p.vsc_b, n0 + r, kb4, p.nkb);
  }
}

// smem_desc (gemm_common.cuh) of a 32-bit shared address.
__device__ __forceinline__ std::uint64_t smem_desc_addr(std::uint32_t addr) {
  return static_cast<std::uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<std::uint64_t>(128 >> 4) << 16) |
         (static_cast<std::uint64_t>(256 >> 4) << 32);
}

// Shared-memory loads and stores by 32-bit shared address (no generic
// 64-bit address arithmetic in the widening loop).
__device__ __forceinline__ std::uint32_t lds32(std::uint32_t a) {
  std::uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
  return v;
}
__device__ __forceinline__ uint2 lds64(std::uint32_t a) {
  uint2 v;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(a));
  return v;
}
__device__ __forceinline__ uint4 lds128(std::uint32_t a) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
  return v;
}
__device__ __forceinline__ float lds_f32(std::uint32_t a) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(a) : "memory");
  return v;
}
__device__ __forceinline__ void sts_f32(std::uint32_t a, float v) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(a), "f"(v) : "memory");
}

// The whole k-tile's A fragments for this thread: f[j][0..3] k-step 2j,
// f[j][4..7] k-step 2j + 1 of k-block j (st, lut: shared addresses).
// `valid`: elements of the tile inside K (RAGGED only; past it B is +0).
template <class C, bool RAGGED>
__device__ __forceinline__ void widen_tile(std::uint32_t st, std::uint32_t lut, int valid,
                                           std::uint32_t (&f)[RsLayout<C>::KB][8]) {
  using L = RsLayout<C>;
  const int wt = static_cast<int>(threadIdx.x) & 127, l = wt & 31, c = l & 3;
  const int r = 16 * (wt >> 5) + (l >> 2);
  const std::uint32_t selc = 0x4440u | static_cast<std::uint32_t>(c);  // byte c, zero-extended
  const std::uint32_t tab = lut + 4 * static_cast<std::uint32_t>(l);  // this lane's copy (bank l)
  std::uint32_t codes[2][L::CW];  // the row's scale words (four codes each)
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::uint32_t a = st + L::CODES + (r + 8 * h) * L::CW * 4;
    if constexpr (L::CW == 2) {
      const uint2 v = lds64(a);
      codes[h][0] = v.x, codes[h][1] = v.y;
    } else {
      const uint4 v = lds128(a);
      codes[h][0] = v.x, codes[h][1] = v.y, codes[h][2] = v.z, codes[h][3] = v.w;
    }
  }
#pragma unroll
  for (int j = 0; j < L::KB; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // rows r and r + 8
      const uint4 x = lds128(st + (r + 8 * h) * L::RS + 16 * j);
      // 2^(e-127) as bf16x2 (e = 0: the subnormal 2^-127; 0xff: NaN), as ue8m0_bf16x2
      const std::uint32_t e = prmt(codes[h][j >> 2], 0u, 0x4440u | (j & 3));
      const std::uint32_t f2 = ((e << 7) | (((e + 1u) & 0xFEu) == 0u ? 0x40u : 0u)) * 0x00010001u;
      const std::uint32_t w[4] = {x.x, x.y, x.z, x.w};  // byte c: k 2c, 8 + 2c, 16 + 2c, 24 + 2c
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        std::uint32_t o = mul_bf16x2(lds32(tab + prmt(w[q], 0u, selc) * 128u), f2);
        if constexpr (RAGGED) {
          const int k = 32 * j + 8 * q + 2 * c;
          o &= k + 1 < valid ? 0xFFFFFFFFu : k < valid ? 0x0000FFFFu : 0u;
        }
        f[j][4 * (q >> 1) + 2 * (q & 1) + h] = o;
      }
    }
    asm volatile("" ::: "memory");  // one k-block at a time (the widened tile already holds 64 registers)
  }
}

// D = acc (C10 map, transposed: value i is D[col(i)][row(i)]), in range only.
template <class C, bool BF16>
__device__ __forceinline__ void rs_store(const float (&acc)[C::NA / 2], const RsParams& p, std::int64_t m0,
                                         std::int64_t n0) {
  const int wt = static_cast<int>(threadIdx.x) & 127, l = wt & 31;
  const std::int64_t nr = n0 + 16 * (wt >> 5) + (l >> 2), mc = m0 + 2 * (l & 3);
#pragma unroll
  for (int i = 0; i < C::NA / 2; ++i) {
    const std::int64_t row = nr + 8 * ((i >> 1) & 1), col = mc + 8 * (i >> 2) + (i & 1);
    if (col >= p.m || row >= p.n) continue;
    if constexpr (BF16)
      static_cast<std::uint16_t*>(p.d)[col * p.n + row] = out_bf16(acc[i]);
    else
      static_cast<std::uint32_t*>(p.d)[col * p.n + row] = out_f32(acc[i]);
  }
}

// One k-tile of warpgroup g: widen (overlapping the other warpgroups' steps),
// take the accumulator, 16 wgmma steps, hand it on (the last tile stores D).
template <class C, bool BF16, bool RAGGED>
__device__ __forceinline__ void rs_tile(std::uint32_t st, std::uint32_t smem, std::uint64_t* hand, int valid,
                                        std::int64_t kt, std::int64_t ntiles, const RsParams& p, std::int64_t m0,
                                        std::int64_t n0) {
  using L = RsLayout<C>;
  constexpr int R = C::NA / 2;
  const int wt = static_cast<int>(threadIdx.x) & 127, g = static_cast<int>(threadIdx.x) >> 7;
  std::uint32_t f[L::KB][8];
  widen_tile<C, RAGGED>(st, smem, valid, f);
  const std::uint32_t accs = smem + L::ACC + 4 * static_cast<std::uint32_t>(wt);
  // Tile kt - 1 (warpgroup g - 1) handed the accumulator on: phase (kt - 1) / W of its barrier.
  if (kt > 0) mbar_wait(hand + (g + C::W - 1) % C::W, static_cast<std::uint32_t>((kt - 1) / C::W) & 1u);
  float acc[R];
#pragma unroll
  for (int i = 0; i < R; ++i) acc[i] = lds_f32(accs + i * L::WT * 4);
  // Step s's descriptor: the k-tile's plus s * NA * 32 bytes (address field in 16-byte units; < 2^14).
  const std::uint64_t d0 = smem_desc_addr(st + L::ACT);
  __syncwarp();  // the waits above are per-thread loops: converge before the .aligned wgmma instructions
  wgmma_fence();
#pragma unroll
  for (int j = 0; j < L::KB; ++j) {
    const std::uint32_t(&a0)[4] = *reinterpret_cast<const std::uint32_t(*)[4]>(&f[j][0]);
    const std::uint32_t(&a1)[4] = *reinterpret_cast<const std::uint32_t(*)[4]>(&f[j][4]);
    WgmmaRs<C::NA>::bf16(acc, a0, d0 + static_cast<std::uint64_t>((2 * j) * C::NA * 2));
    WgmmaRs<C::NA>::bf16(acc, a1, d0 + static_cast<std::uint64_t>((2 * j + 1) * C::NA * 2));
  }
  wgmma_commit();
  wgmma_wait<0>();
  if (kt + 1 == ntiles) return rs_store<C, BF16>(acc, p, m0, n0);
#pragma unroll
  for (int i = 0; i < R; ++i) sts_f32(accs + i * L::WT * 4, acc[i]);
  mbar_arrive(hand + g);  // every thread, after its own stores (no wait: on to the next tile's widening)
}
#endif  // MXK_GEMM_HAVE_WGMMA

template <class C, bool BF16>
__global__ void __launch_bounds__(128 * C::W, 1) w4a16_rs_kernel(const RsParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = RsLayout<C>;
  constexpr int R = C::NA / 2, STW = C::STW;
  extern __shared__ __align__(1024) std::uint8_t smem[];
  const std::uint32_t sm = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  const int tid = static_cast<int>(threadIdx.x), wt = tid & 127, g = tid >> 7, l = tid & 31;
  std::uint64_t* const hand = reinterpret_cast<std::uint64_t*>(smem + L::BARS);  // hand[W], then ready[W]
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x / p.mt) * 64, m0 = (blockIdx.x % p.mt) * C::NA;
  const std::int64_t ntiles = (p.k + L::KT - 1) / L::KT;
  pdl_trigger();
  // Rows of A past M and of B past N are never loaded: zero the stages once
  // (they only reach elements of D that are not stored).
  for (int i = L::STAGES / 16 + tid; i < L::BYTES / 16; i += L::THREADS)
    reinterpret_cast<uint4*>(smem)[i] = make_uint4(0, 0, 0, 0);
  // The table: thread b < 256 fills row b (entries (b, lane) at 128 b + 4 lane: the bf16x2 of the codes
  // b & 15, b >> 4) with 8 x 16 bytes, rotated by b so that a warp's stores spread over the banks (one
  // word per thread and store was 1 us slower at 64 x 2048 x 7168, gemm-decode.md "run 15 rs").
  for (int b = tid; b < 256; b += L::THREADS) {
    const std::uint32_t u = static_cast<std::uint32_t>(b);
    const std::uint32_t v = e2m1_bf16(u & 15u) | (e2m1_bf16(u >> 4) << 16);
#pragma unroll
    for (int k = 0; k < 8; ++k) reinterpret_cast<uint4*>(smem + 128 * b)[(k + b) & 7] = make_uint4(v, v, v, v);
  }
  pdl_wait();  // the kernel before this one (PDL) is done: global memory from here on
  if (g == 0) {  // the accumulator starts at C (or +0)
    const std::int64_t nr = n0 + 16 * (wt >> 5) + (l >> 2), mc = m0 + 2 * (l & 3);
    float acc[R];
#pragma unroll
    for (int i = 0; i < R; ++i) {
      const std::int64_t row = nr + 8 * ((i >> 1) & 1), col = mc + 8 * (i >> 2) + (i & 1);
      acc[i] = (p.c != nullptr && col < p.m && row < p.n) ? p.c[col * p.n + row] : 0.0f;
    }
    if (ntiles == 0) rs_store<C, BF16>(acc, p, m0, n0);
#pragma unroll
    for (int i = 0; i < R; ++i) reinterpret_cast<float*>(smem + L::ACC)[i * L::WT + wt] = acc[i];
  }
  if (ntiles == 0) return;  // K = 0: D = C (all threads leave here, before any barrier)
  if (tid == 0) {
    for (int b = 0; b < 2 * C::W; ++b) mbar_init(hand + b, L::WT);
    mbar_init_fence();
  }
  __syncthreads();
  const std::uint32_t mine = sm + L::STAGES + g * STW * L::STAGE;
#pragma unroll
  for (int s = 0; s < STW - 1; ++s) {
    const std::int64_t t = g + static_cast<std::int64_t>(s) * C::W;
    if (t < ntiles) rs_load<C>(smem + (mine - sm) + s * L::STAGE, p, m0, n0, t, wt);
    cp_async_commit();
  }
  int i = 0;
  for (std::int64_t kt = g; kt < ntiles; kt += C::W, ++i) {
    cp_async_wait<STW - 2>();
    fence_proxy_async();
    // This warpgroup's tile kt landed (every thread's copies); its stage of tile kt - W is free.
    mbar_arrive(hand + C::W + g);
    mbar_wait(hand + C::W + g, static_cast<std::uint32_t>(i) & 1u);
    const std::int64_t next = kt + static_cast<std::int64_t>(STW - 1) * C::W;
    if (next < ntiles) rs_load<C>(smem + (mine - sm) + ((i + STW - 1) % STW) * L::STAGE, p, m0, n0, next, wt);
    cp_async_commit();
    const std::uint32_t st = mine + (i % STW) * L::STAGE;
    const std::int64_t valid = p.k - kt * L::KT;
    if (valid < L::KT)
      rs_tile<C, BF16, true>(st, sm, hand, static_cast<int>(valid), kt, ntiles, p, m0, n0);
    else
      rs_tile<C, BF16, false>(st, sm, hand, L::KT, kt, ntiles, p, m0, n0);
  }
  cp_async_wait_all();
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool BF16>
void rs_launch(RsParams p, cudaStream_t stream) {
  using L = RsLayout<C>;
  p.mt = (p.m + C::NA - 1) / C::NA;
  const std::int64_t blocks = (p.n + 63) / 64 * p.mt;
  if (blocks > 0x7FFFFFFF) throw mx::ShapeError("w4a16 GEMM: too many tiles");
  launch_smem<w4a16_rs_kernel<C, BF16>, L::BYTES, RsParams, true>(blocks, L::THREADS, p, stream,
                                                                   "w4a16_rs_kernel (decode)");
}

template <bool BF16>
void rs_any(const RsParams& p, int cols, bool alt, cudaStream_t s) {
  switch (cols) {
    case 308: return rs_launch<cfg::W4Rs3<8>, BF16>(p, s);
    case 316: return rs_launch<cfg::W4Rs3<16>, BF16>(p, s);
    case 508: return rs_launch<cfg::W4RsLong<8>, BF16>(p, s);
    case 516: return rs_launch<cfg::W4RsLong<16>, BF16>(p, s);
    case 8: return alt ? rs_launch<cfg::W4RsAlt<8>, BF16>(p, s) : rs_launch<cfg::W4Rs<8>, BF16>(p, s);
    case 16: return alt ? rs_launch<cfg::W4RsAlt<16>, BF16>(p, s) : rs_launch<cfg::W4Rs<16>, BF16>(p, s);
    case 32: return alt ? rs_launch<cfg::W4RsAlt<32>, BF16>(p, s) : rs_launch<cfg::W4Rs<32>, BF16>(p, s);
    default: return rs_launch<cfg::W4Rs<64>, BF16>(p, s);
  }
}

}  // namespace

void w4a16_decode_launch(const W4a16GemmArgs& x, int cols, int sms, cudaStream_t stream) {
  if (x.m > 64) throw mx::InvalidArgument("w4a16 GEMM: the decode kernel takes M <= 64");
  bool alt = cols >= 1000;  // cols + 1000: the two-warpgroup form (W4RsAlt)
  cols %= 1000;
  if (cols == 0) {
    cols = cfg::w4_rs_cols(x.m, x.n, sms);
    alt = cfg::w4_rs_two_wg((x.n + 63) / 64 * ((x.m + cols - 1) / cols), sms);
    if (alt && cfg::w4_rs_three_wg(cols)) alt = false, cols += 300;  // W4Rs3
  }
  const bool other = !alt && (cols == 308 || cols == 316 || cols == 508 || cols == 516);
  if (cols != 8 && cols != 16 && cols != 32 && cols != 64 && !other)
    throw mx::InvalidArgument(
        "w4a16 GEMM: decode columns must be 8, 16, 32 or 64 (+ 1000: two warpgroups; 308, 316: three; 508, 516: "
        "two with k-tiles of 512)");
  RsParams p = w4a16_params(x);
  x.out == mx::Fmt::bf16 ? rs_any<true>(p, cols, alt, stream) : rs_any<false>(p, cols, alt, stream);
}

}  // namespace mxk::gemm
