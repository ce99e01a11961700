// gemm_w4a16_mma.cu - the w4a16 GEMM for decode shapes (M <= 64) on the warp-
// level `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` (PTX ISA 9.0,
// 9.7.14), sm_90a, defined bit for bit by reference/SPEC.md C11 `w4a16`.
//
// Transposed, like gemm_w4a16_decode.cu: D^T = B * A^T. One warp owns 16 rows
// of B (the weights, the mma's M side, widened from MXFP4 in registers) and
// 8 NT rows of A (the activations, NT mmas of n = 8 per k16 step, each on its
// own accumulator). Each element of D is one fp32 chain of m16n8k16 steps in
// increasing k from C (or +0): no split-K, no hand-over. A block = TR weight
// tiles x TG token groups (one warp each), sharing one copy of every k-tile
// of packed B, its scale codes and A in shared memory (cp.async, ST stages,
// one __syncthreads per k-tile of KT = 256).
//
// Numerics: SPEC C9 fits mma.sync m16n8k16 bf16 on the H100 with the same
// parameters as wgmma m64nNk16 bf16 (group 16 with C, 25 bits, cut toward
// zero, h100_fitted_model gives the one parameter set for both), and C11's
// w4a16 model is that group model over K, 16 at a time. Within one group the
// model aligns every nonzero term to the largest exponent of the *set*, cuts
// each term on its own and sums the cut terms exactly; its special values are
// decided per group (any NaN, Inf * 0, Infs of both signs). So a group sum does
// not depend on the order of its 16 products, and the kernel may permute the
// k slots of a step, the same way in both operands: lane l (g = l / 4, t =
// l % 4) puts logical k 4t, 4t + 1 in the fragment slots 2t, 2t + 1 and
// 4t + 2, 4t + 3 in 2t + 8, 2t + 9 (C10's m16n8k16 maps). Then a lane's B
// fragment is 8 contiguous bytes of one row of A (one 64-bit load) and its
// weights are 2 contiguous packed bytes per row (the gate checks the bits).
//
// Widening (C11): one packed byte (k even in the low nibble) becomes one bf16x2
// word by a table lookup (the two e2m1 values, exact in bf16; 32 copies of the
// 256-entry table, one per bank) and one bf16x2 multiply by 2^(e-127) (also a
// table, 8 copies, one per row of the warp: exact in range, +-Inf beyond, NaN
// for 0xff, the subnormal 2^-127 for 0). B past K is +0 (masked after the
// multiply, never a widened value), A past K is zero-filled; the steps past
// ceil(K / 16) add only zero products (no-ops under the model).
#include <cuda_runtime.h>

#include <cstdint>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_w4a16_decode.hpp"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

struct MmaParams {
  std::int64_t m, n, k, nkb, mt;  // mt: blocks along M
  const std::uint16_t* a;
  std::int64_t lda;
  const std::uint8_t *b, *sb;
  std::int64_t ldb;
  bool tc_b, vec_a, vec_b, vsc_b;
  const float* c;
  void* d;
};

constexpr int cmin(int a, int b) { return a < b ? a : b; }

// Shared memory: the widening table (256 bytes x 32 lanes, 32 KB), the scale
// table (256 codes x 8 copies), then ST stages of: packed B [ROWS][KT / 2]
// (rows RS bytes apart: 8 rows of a warp on different banks), its scale codes
// [ROWS][CW words], A [TOK][KT] bf16 (rows RA bytes apart, RA / 4 = 8 mod 32:
// a warp's 64-bit loads of 8 rows x 4 lanes cover every bank twice).
template <class C>
struct MmaLayout {
  static constexpr int KT = C::KT, KB = KT / 32, CW = KB / 4;
  static constexpr int WARPS = C::TR * C::TG, THREADS = 32 * WARPS;
  static constexpr int ROWS = 16 * C::TR, TOK = 8 * C::NT * C::TG;
  static constexpr int RS = KT / 2 + 16, RA = 2 * KT + 32;
  static constexpr int STAB = 256 * 32 * 4, STAGES = STAB + 256 * 8 * 4;  // the tables
  static constexpr int SC = ROWS * RS, ACT = SC + ROWS * CW * 4;
  static constexpr int STAGE = (ACT + TOK * RA + 127) / 128 * 128;
  static constexpr int ST = cmin(8, (C::SMEM - STAGES) / STAGE);
  static constexpr int BYTES = STAGES + ST * STAGE;
  static constexpr int B_PT = ROWS * KB / THREADS, A_PT = TOK * (KT / 8) / THREADS;  // 16-byte chunks per thread
  static_assert(KT % 128 == 0 && CW >= 1, "k-tiles of whole scale words");
  static_assert(B_PT * THREADS == ROWS * KB && A_PT * THREADS == TOK * (KT / 8), "chunks per thread");
  static_assert(ROWS * CW <= THREADS, "one scale word per thread");
  static_assert(ST >= 3 && BYTES <= 227 * 1024 && STAB % 128 == 0, "shared memory");
};

#ifdef MXK_GEMM_HAVE_WGMMA
__device__ __forceinline__ std::uint32_t e2m1_bf16(std::uint32_t c) { return e2m1_f32_bits(c) >> 16; }

// d += a * b, one m16n8k16 bf16 step with an fp32 accumulator (PTX ISA 9.7.14).
__device__ __forceinline__ void mma_bf16(float (&d)[4], const std::uint32_t (&a)[4], uint2 b) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
}

// The block's copies of k-tile kt into stage st: B chunk c = tid + i THREADS
// is row c / KB, elements 32 (c % KB) ..; A chunk c is row c / 32, elements
// 8 (c % 32) ..; one scale word per thread (row tid / CW, k-blocks 8 kt +
// 4 (tid % CW) ..). Rows past N or M are never loaded. Whole k-tiles with
// aligned rows: cp.async only; otherwise load16 (zero-filled past K).
template <class C>
__device__ __forceinline__ void mma_load(std::uint8_t* st, const MmaParams& p, std::int64_t m0, std::int64_t n0,
                                         std::int64_t kt) {
  using L = MmaLayout<C>;
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t k0 = kt * L::KT;
  if (p.vec_a && p.vec_b && k0 + L::KT <= p.k) {  // whole k-tile, aligned rows: compact cp.async loops
#pragma unroll
    for (int i = 0; i < L::B_PT; ++i) {
      const int c = tid + i * L::THREADS, r = c / L::KB, ch = c % L::KB;
      if (n0 + r < p.n) cp_async16(st + r * L::RS + 16 * ch, p.b + (n0 + r) * p.ldb + (k0 + 32 * ch) / 2);
    }
#pragma unroll
    for (int i = 0; i < L::A_PT; ++i) {
      const int c = tid + i * L::THREADS, r = c / 32, ch = c % 32;
      if (m0 + r < p.m) cp_async16(st + L::ACT + r * L::RA + 16 * ch, p.a + (m0 + r) * p.lda + k0 + 8 * ch);
    }
  } else {  // the last k-tile or unaligned rows: load16 (zero-filled past K), not unrolled
#pragma unroll 1
    for (int i = 0; i < L::B_PT; ++i) {
      const int c = tid + i * L::THREADS, r = c / L::KB, ch = c % L::KB;
      const std::int64_t kc = k0 + 32 * ch;
      if (n0 + r < p.n)
        load16(st + r * L::RS + 16 * ch, p.b + (n0 + r) * p.ldb + kc / 2, (p.k - kc + 1) / 2, p.vec_b, p.b);
    }
#pragma unroll 1
    for (int i = 0; i < L::A_PT; ++i) {
      const int c = tid + i * L::THREADS, r = c / 32, ch = c % 32;
      const std::int64_t kc = k0 + 8 * ch;
      if (m0 + r < p.m)
        load16(st + L::ACT + r * L::RA + 16 * ch, reinterpret_cast<const std::uint8_t*>(p.a + (m0 + r) * p.lda + kc),
               2 * (p.k - kc), p.vec_a, p.a);
    }
  }
  if (tid < L::ROWS * L::CW) {
    const int r = tid / L::CW, wi = tid % L::CW;
    const std::int64_t kb4 = kt * L::KB + 4 * wi;
    if (n0 + r < p.n && kb4 < p.nkb)
      load_codes4(reinterpret_cast<std::uint32_t*>(st + L::SC) + tid, p.sb, p.tc_b, p.vsc_b, n0 + r, kb4, p.nkb);
  }
}

// The KT / 16 steps of one k-tile for this warp (st: the stage, lut: this
// lane's copy of the widening table, stab: this row group's copy of the scale
// table). `valid`: elements of the tile inside K (RAGGED only).
template <class C, bool RAGGED>
__device__ __forceinline__ void mma_tile(const std::uint8_t* st, const std::uint8_t* lut, const std::uint8_t* stab,
                                         int valid, float (&acc)[C::NT][4]) {
  using L = MmaLayout<C>;
  const int l = static_cast<int>(threadIdx.x) & 31, w = static_cast<int>(threadIdx.x) >> 5, g = l >> 2, t = l & 3;
  const int row = 16 * (w % C::TR) + g, tok = 8 * C::NT * (w / C::TR) + g;
  const std::uint8_t* const b0 = st + row * L::RS + 2 * t;  // row g's bytes 2t, 2t + 1 of each step (+ 8 s)
  const std::uint8_t* const b1 = b0 + 8 * L::RS;           // row g + 8
  const std::uint8_t* const a0 = st + L::ACT + tok * L::RA + 8 * t;  // token g, k 4t .. 4t + 3 (+ 32 s, + 8 RA j)
  std::uint32_t codes[2][L::CW];
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int i = 0; i < L::CW; ++i)
      codes[h][i] = reinterpret_cast<const std::uint32_t*>(st + L::SC)[(row + 8 * h) * L::CW + i];
#pragma unroll
  for (int j = 0; j < L::KB; ++j) {  // k-block j: steps 2j, 2j + 1
    std::uint32_t f[2];  // 2^(e-127) as bf16x2 for rows g and g + 8
#pragma unroll
    for (int h = 0; h < 2; ++h)
      f[h] = *reinterpret_cast<const std::uint32_t*>(stab + 32 * prmt(codes[h][j >> 2], 0u, 0x4440u | (j & 3)));
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      const int s = 2 * j + u;
      const std::uint32_t x0 = *reinterpret_cast<const std::uint16_t*>(b0 + 8 * s);
      const std::uint32_t x1 = *reinterpret_cast<const std::uint16_t*>(b1 + 8 * s);
      auto widen = [&](std::uint32_t byte, std::uint32_t f2) {
        return mul_bf16x2(*reinterpret_cast<const std::uint32_t*>(lut + 128 * byte), f2);
      };
      // slots 2t, 2t + 1 (k 4t, 4t + 1) of rows g, g + 8; slots 2t + 8, 2t + 9 (k 4t + 2, 4t + 3)
      std::uint32_t a[4] = {widen(x0 & 0xFFu, f[0]), widen(x1 & 0xFFu, f[1]), widen(x0 >> 8, f[0]),
                            widen(x1 >> 8, f[1])};
      if constexpr (RAGGED) {
        const int k = 16 * s + 4 * t;
        const std::uint32_t m01 = k + 1 < valid ? 0xFFFFFFFFu : k < valid ? 0x0000FFFFu : 0u;
        const std::uint32_t m23 = k + 3 < valid ? 0xFFFFFFFFu : k + 2 < valid ? 0x0000FFFFu : 0u;
        a[0] &= m01;
        a[1] &= m01;
        a[2] &= m23;
        a[3] &= m23;
      }
#pragma unroll
      for (int jn = 0; jn < C::NT; ++jn)
        mma_bf16(acc[jn], a, *reinterpret_cast<const uint2*>(a0 + jn * 8 * L::RA + 32 * s));
    }
  }
}

// Value i of n8 tile jn: D[token tok0 + 8 jn + 2t + (i & 1)][row row0 + g + 8 (i >> 1)].
struct MmaPos {
  std::int64_t row, tok;
  template <class C>
  __device__ __forceinline__ static MmaPos of(std::int64_t m0, std::int64_t n0) {
    const int l = static_cast<int>(threadIdx.x) & 31, w = static_cast<int>(threadIdx.x) >> 5;
    return {n0 + 16 * (w % C::TR) + (l >> 2), m0 + 8 * C::NT * (w / C::TR) + 2 * (l & 3)};
  }
};

template <class C, bool BF16>
__device__ __forceinline__ void mma_store(const float (&acc)[C::NT][4], const MmaParams& p, const MmaPos& q) {
#pragma unroll
  for (int jn = 0; jn < C::NT; ++jn)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t row = q.row + 8 * (i >> 1), tok = q.tok + 8 * jn + (i & 1);
      if (tok >= p.m || row >= p.n) continue;
      if constexpr (BF16)
        static_cast<std::uint16_t*>(p.d)[tok * p.n + row] = out_bf16(acc[jn][i]);
      else
        static_cast<std::uint32_t*>(p.d)[tok * p.n + row] = out_f32(acc[jn][i]);
    }
}
#endif  // MXK_GEMM_HAVE_WGMMA

template <class C, bool BF16>
__global__ void __launch_bounds__(32 * C::TR * C::TG, 1) w4a16_mma_kernel(const MmaParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = MmaLayout<C>;
  extern __shared__ __align__(128) std::uint8_t smem[];
  const int tid = static_cast<int>(threadIdx.x), l = tid & 31;
  const std::int64_t n0 = static_cast<std::int64_t>(blockIdx.x / p.mt) * L::ROWS;
  const std::int64_t m0 = static_cast<std::int64_t>(blockIdx.x % p.mt) * L::TOK;
  const std::int64_t ntiles = (p.k + L::KT - 1) / L::KT;
  std::uint8_t* const stages = smem + L::STAGES;
#pragma unroll
  for (int s = 0; s < L::ST - 1; ++s) {
    if (s < ntiles) mma_load<C>(stages + s * L::STAGE, p, m0, n0, s);
    cp_async_commit();
  }
  // Tables (entry (byte b, lane l) at 128 b + 4 l; (code e, copy c) at 32 e + 4 c).
  for (int i = tid; i < 256 * 32; i += L::THREADS)
    reinterpret_cast<std::uint32_t*>(smem)[i] = e2m1_bf16((i >> 5) & 15u) | (e2m1_bf16(i >> 9) << 16);
  for (int i = tid; i < 256 * 8; i += L::THREADS)
    reinterpret_cast<std::uint32_t*>(smem + L::STAB)[i] = ue8m0_bf16x2(static_cast<std::uint32_t>(i >> 3));
  // Rows of A past M and of B past N are never loaded: zero them once in every
  // stage (they reach only elements of D that are not stored).
  const int va = static_cast<int>(p.m - m0 < L::TOK ? p.m - m0 : L::TOK);
  const int vb = static_cast<int>(p.n - n0 < L::ROWS ? p.n - n0 : L::ROWS);
  for (int s = 0; s < L::ST; ++s) {
    std::uint8_t* const st = stages + s * L::STAGE;
    for (int i = tid; i < (L::TOK - va) * L::RA / 16; i += L::THREADS)
      reinterpret_cast<uint4*>(st + L::ACT + va * L::RA)[i] = make_uint4(0, 0, 0, 0);
    for (int i = tid; i < (L::ROWS - vb) * L::RS / 16; i += L::THREADS)
      reinterpret_cast<uint4*>(st + vb * L::RS)[i] = make_uint4(0, 0, 0, 0);
    for (int i = tid; i < (L::ROWS - vb) * L::CW; i += L::THREADS)
      reinterpret_cast<std::uint32_t*>(st + L::SC + vb * L::CW * 4)[i] = 0u;
  }
  const MmaPos q = MmaPos::of<C>(m0, n0);
  float acc[C::NT][4];
#pragma unroll
  for (int jn = 0; jn < C::NT; ++jn)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t row = q.row + 8 * (i >> 1), tok = q.tok + 8 * jn + (i & 1);
      acc[jn][i] = (p.c != nullptr && tok < p.m && row < p.n) ? p.c[tok * p.n + row] : 0.0f;
    }
  const std::uint8_t* const lut = smem + 4 * l;
  const std::uint8_t* const stab = smem + L::STAB + 4 * (l >> 2);
  for (std::int64_t kt = 0; kt < ntiles; ++kt) {
    cp_async_wait<L::ST - 2>();
    __syncthreads();  // tile kt landed (every thread's copies); every warp is done with stage (kt - 1) % ST
    const std::int64_t next = kt + L::ST - 1;
    if (next < ntiles) mma_load<C>(stages + (next % L::ST) * L::STAGE, p, m0, n0, next);
    cp_async_commit();
    const std::uint8_t* const st = stages + (kt % L::ST) * L::STAGE;
    const std::int64_t valid = p.k - kt * L::KT;
    if (valid < L::KT)
      mma_tile<C, true>(st, lut, stab, static_cast<int>(valid), acc);
    else
      mma_tile<C, false>(st, lut, stab, L::KT, acc);
  }
  cp_async_wait_all();
  mma_store<C, BF16>(acc, p, q);
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool BF16>
void mma_launch(MmaParams p, cudaStream_t stream) {
  using L = MmaLayout<C>;
  p.mt = (p.m + L::TOK - 1) / L::TOK;
  const std::int64_t blocks = (p.n + L::ROWS - 1) / L::ROWS * p.mt;
  if (blocks > 0x7FFFFFFF) throw mx::ShapeError("w4a16 GEMM: too many tiles");
  launch_smem<w4a16_mma_kernel<C, BF16>, L::BYTES>(blocks, L::THREADS, p, stream, "w4a16_mma_kernel");
}

// The forms (cfg::W4Mma codes 100 TR + 10 TG + NT).
template <bool BF16>
void mma_any(const MmaParams& p, int code, cudaStream_t s) {
  switch (code) {
    case 111: return mma_launch<cfg::W4Mma<1, 1, 1>, BF16>(p, s);
    case 411: return mma_launch<cfg::W4Mma<4, 1, 1>, BF16>(p, s);
    case 112: return mma_launch<cfg::W4Mma<1, 1, 2>, BF16>(p, s);
    case 412: return mma_launch<cfg::W4Mma<4, 1, 2>, BF16>(p, s);
    case 224: return mma_launch<cfg::W4Mma<2, 2, 4>, BF16>(p, s);
    case 142: return mma_launch<cfg::W4Mma<1, 4, 2>, BF16>(p, s);
    case 418: return mma_launch<cfg::W4Mma<4, 1, 8>, BF16>(p, s);
    default:
      throw mx::InvalidArgument("w4a16 GEMM: mma.sync decode form must be one of 111, 411, 112, 412, 224, 142, 418 "
                                "(decode_cols 2000 + form)");
  }
}

}  // namespace

void w4a16_mma_launch(const W4a16GemmArgs& x, int form, int sms, cudaStream_t stream) {
  if (x.m > 64) throw mx::InvalidArgument("w4a16 GEMM: the mma.sync decode kernel takes M <= 64");
  if (form == 0) form = cfg::w4_mma_form(x.m, x.n, sms);
  MmaParams p{};
  p.m = x.m;
  p.n = x.n;
  p.k = x.k;
  p.nkb = (x.k + 31) / 32;
  p.a = x.a;
  p.lda = x.lda;
  p.b = x.b.data;
  p.ldb = x.b.ld;
  p.sb = x.b.scales;
  p.tc_b = check_layout(x.b.layout);
  p.vec_a = p.lda % 8 == 0 && reinterpret_cast<std::uintptr_t>(p.a) % 16 == 0;
  p.vec_b = p.ldb % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.b) % 16 == 0;
  p.vsc_b = (p.tc_b || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sb) % 4 == 0;
  p.c = x.c;
  p.d = x.d;
  x.out == mx::Fmt::bf16 ? mma_any<true>(p, form, stream) : mma_any<false>(p, form, stream);
}

}  // namespace mxk::gemm
