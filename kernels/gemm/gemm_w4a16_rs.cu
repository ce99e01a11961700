// gemm_w4a16_rs.cu - the register-A w4a16 GEMM for M > 64 on sm_90a, bit for
// bit reference/SPEC.md C11 `w4a16` (the same widening and the same k-ordered
// chain of bf16 wgmma k16 steps into one fp32 accumulator per element as
// gemm_w4a16.cu and gemm_w4a16_ws.cu, so D does not depend on which ran).
//
// Transposed: a block computes the BN x BM tile of D^T = B * A^T (cfg::W4RegA:
// 128 rows of B, the weights, as the wgmma's M side; 256 rows of A as its N
// side), so the widened weights never pass through shared memory: the
// consumer threads widen packed B straight into the wgmma A fragment
// (gemm_widen.cuh), and shared memory carries only packed B (4 bits an
// element), its scale codes and A. Each element of D is still one fp32 chain
// of k16 steps in increasing k over the same 16 products per step (only which
// operand is the wgmma's "A" changes; the gate confirms the bits).
// Warpgroups (gemm_ws.cuh):
// - warpgroup 0, the producer: thread 0 loads A's k-tile (BM x 64 bf16, TMA,
//   128-byte swizzle) and packed B's (BN x 32 bytes, TMA, no swizzle) into
//   stage s (zero fill past M, N and K); thread t copies row t's scale-code
//   word by cp.async (made to hold back full[s] until it lands) and arrives;
// - warpgroups 1 and 2, the consumers: 64 rows of B each, all BM columns
//   (m64n256k16, 128 fp32 per thread). Per k-block of 32 (two k16 steps) a
//   thread reads its rows' 16 packed bytes (two ld.shared.v4), widens them
//   into 8 fragment registers, and issues the two wgmmas; the fragments have
//   FB buffers (cfg::W4RegA) and FB / 2 k-blocks of wgmma stay in flight while
//   the next is widened (wgmma.wait_group FB / 2 after each issue: the buffer
//   written next is then no longer read). A consumer arrives on empty[s] of
//   the previous k-tile once its wgmmas are complete.
// Every tile issues all its k-steps: the steps past ceil(K / 16) have only
// zero products (A is zero past K by TMA, B's elements past K are masked to
// +0), which leave the accumulator unchanged (C11_W4a16.ExtraZeroStepsAreNoOps).
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "gemm/gemm_common.cuh"
#include "gemm/gemm_config.hpp"
#include "gemm/gemm_launch.cuh"
#include "gemm/gemm_host.hpp"
#include "gemm/gemm_widen.cuh"
#include "gemm/gemm_ws.cuh"
#include "mx/error.hpp"

namespace mxk::gemm {
namespace {

struct RegAParams {
  CUtensorMap a_map;  // A [M][K] bf16, boxes of 64 x BM, 128-byte swizzle
  CUtensorMap b_map;  // packed B [N][ceil(K / 2)] bytes, boxes of 32 x BN, no swizzle
  std::int64_t m, n, k, nkb, mt, nt;
  const std::uint8_t* sb;
  bool tc_b, vsc_b;
  const float* c;
  void* d;
};

template <class C>
struct RegALayout {
  static constexpr int KB = C::KT / 32;               // k-blocks per k-tile
  static constexpr int A_BYTES = C::BM * C::KT * 2;    // per stage, 128-byte rows
  static constexpr int B_BYTES = C::BN * C::KT / 2;    // packed B per stage: [BN][32 bytes]
  static constexpr int CODE_BYTES = C::BN * 4;         // the scale-code word of each row
  static constexpr int B0 = C::ST * A_BYTES, CODES0 = B0 + C::ST * B_BYTES;
  static constexpr int BAR0 = CODES0 + C::ST * CODE_BYTES;
  static constexpr int BYTES = BAR0 + 2 * C::ST * 8;
  static constexpr int THREADS = 128 + 2 * C::BN;  // the producer + BN / 64 consumer warpgroups
  static_assert(C::KT == 64 && KB == 2 && C::BN == 128 && C::BM == 256, "one swizzle span of A per k-tile; 2 x m64n256");
  static_assert(C::FB == 2 || C::FB == 4, "fragment buffers: one or two k-tiles");
  static_assert(128 * C::PRODUCER_REGS + 256 * C::CONSUMER_REGS <= 65536, "register file");
  static_assert(A_BYTES % 1024 == 0 && B_BYTES % 128 == 0 && CODE_BYTES % 128 == 0, "stage alignment");
  static_assert(BYTES <= 227 * 1024, "shared memory");
};

#ifdef MXK_GEMM_HAVE_WGMMA
__device__ __forceinline__ uint4 lds128(std::uint32_t a) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(a));
  return v;
}
__device__ __forceinline__ std::uint32_t lds32(std::uint32_t a) {
  std::uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
  return v;
}

// D = acc (C10 map, transposed: value i is D[m0 + col(i)][n0 + row(i)]), in
// range only. Lanes g and g ^ 1 (rows n, n + 1) trade one value of each pair
// (i, i + 1) so that each stores two adjacent elements of a row of D (even
// g: columns of value i, odd g: of value i + 1) where N is even.
template <bool BF16>
__device__ __forceinline__ void regA_store(const float (&acc)[128], std::int64_t n0, std::int64_t m0,
                                           const RegAParams& p) {
  const FragPos f(n0, m0);  // row = n, col = m
  const bool odd = ((threadIdx.x >> 2) & 1) != 0;
#pragma unroll
  for (int i = 0; i < 128; i += 2) {
    const float give = odd ? acc[i] : acc[i + 1];
    const float got = __shfl_xor_sync(0xFFFFFFFFu, give, 4);
    const std::int64_t m = f.c(odd ? i + 1 : i), n = f.r(i) - (odd ? 1 : 0);  // n even
    const float v0 = odd ? got : acc[i], v1 = odd ? acc[i + 1] : got;       // D[m][n], D[m][n + 1]
    if (m >= p.m) continue;
    const std::int64_t o = m * p.n + n;
    if ((p.n & 1) == 0 && n + 1 < p.n) {
      if constexpr (BF16) {
        *reinterpret_cast<std::uint32_t*>(static_cast<std::uint16_t*>(p.d) + o) =
            out_bf16(v0) | (std::uint32_t{out_bf16(v1)} << 16);
      } else {
        *reinterpret_cast<uint2*>(static_cast<std::uint32_t*>(p.d) + o) = make_uint2(out_f32(v0), out_f32(v1));
      }
      continue;
    }
    const float v[2] = {v0, v1};
#pragma unroll
    for (int e = 0; e < 2; ++e)
      if (n + e < p.n) {
        if constexpr (BF16) {
          static_cast<std::uint16_t*>(p.d)[o + e] = out_bf16(v[e]);
        } else {
          static_cast<std::uint32_t*>(p.d)[o + e] = out_f32(v[e]);
        }
      }
  }
}
#endif

template <class C, bool BF16>
__global__ void __launch_bounds__(RegALayout<C>::THREADS, 1) w4a16_rega_kernel(const __grid_constant__ RegAParams p) {
#ifdef MXK_GEMM_HAVE_WGMMA
  using L = RegALayout<C>;
  extern __shared__ __align__(1024) std::uint8_t smem[];
  auto* full = reinterpret_cast<std::uint64_t*>(smem + L::BAR0);
  auto* empty = full + C::ST;
  const int tid = static_cast<int>(threadIdx.x), wg = tid >> 7;
  std::int64_t tm, tn;
  tile_of_block(p.mt, p.nt, C::GROUP, tm, tn);
  const std::int64_t m0 = tm * C::BM, n0 = tn * C::BN;
  const std::int64_t ntiles = (p.k + C::KT - 1) / C::KT;
  if (tid == 0) {
    for (int s = 0; s < C::ST; ++s) {
      mbar_init(&full[s], 128 + 1);  // the producer threads + the TMA's expect_tx arrival
      mbar_init(&empty[s], 256);     // every consumer thread
    }
    mbar_init_fence();
    tma_prefetch_map(&p.a_map);
    tma_prefetch_map(&p.b_map);
  }
  __syncthreads();

  if (wg == 0) {  // ---- producer: TMA of A and packed B, cp.async of the codes of row tid ----
    regs_dec<C::PRODUCER_REGS>();
    const std::int64_t n = n0 + tid;
    for (std::int64_t kt = 0; kt < ntiles; ++kt) {
      const int s = static_cast<int>(kt % C::ST);
      if (kt >= C::ST) mbar_wait(&empty[s], static_cast<std::uint32_t>(kt / C::ST - 1) & 1u);
      if (tid == 0) {
        mbar_arrive_tx(&full[s], L::A_BYTES + L::B_BYTES);
        tma_load_2d(smem + s * L::A_BYTES, &p.a_map, static_cast<std::int32_t>(kt * C::KT),
                    static_cast<std::int32_t>(m0), &full[s]);
        tma_load_2d(smem + L::B0 + s * L::B_BYTES, &p.b_map, static_cast<std::int32_t>(kt * C::KT / 2),
                    static_cast<std::int32_t>(n0), &full[s]);
      }
      auto* code = reinterpret_cast<std::uint32_t*>(smem + L::CODES0 + s * L::CODE_BYTES) + tid;
      const std::int64_t kb4 = (kt * L::KB) & ~std::int64_t{3};
      if (n < p.n && kb4 < p.nkb) {
        load_codes4(code, p.sb, p.tc_b, p.vsc_b, n, kb4, p.nkb);
        if (p.vsc_b) cp_async_mbar_arrive(&full[s]);
      } else {
        *code = 0;  // rows past N: defined codes (they reach no stored element)
      }
      mbar_arrive(&full[s]);
    }
    cp_async_wait_all();
    return;
  }

  // ---- consumers: rows 64 cw .. 64 cw + 63 of the tile of B ----
  regs_inc<C::CONSUMER_REGS>();
  const int cw = wg - 1, wt = tid & 127, l = tid & 31, c = l & 3;
  const int r = 64 * cw + 16 * (wt >> 5) + (l >> 2);  // rows r and r + 8 of the tile of B
  const std::uint32_t sel = static_cast<std::uint32_t>(c | (c << 4) | ((4 + c) << 8) | ((4 + c) << 12));
  const std::uint32_t sm = smem_u32(smem);
  float acc[128];
  // acc = C^T's fragment (or +0): value i is D[m0 + col(i)][n0 + 64 cw + row(i)].
  {
    const FragPos f(n0 + 64 * cw, m0);
#pragma unroll
    for (int i = 0; i < 128; ++i) {
      const std::int64_t n = f.r(i), m = f.c(i);
      const float* src = (p.c != nullptr && m < p.m && n < p.n) ? p.c + m * p.n + n : &kZeroF32;
      asm volatile("ld.global.f32 %0, [%1];" : "=f"(acc[i]) : "l"(src));
    }
#pragma unroll
    for (int i = 0; i < 128; ++i) pin(acc[i]);
  }
  // k-block g = 2 kt + j widens into frag[g % FB]; PEND = FB / 2 k-blocks of
  // wgmma stay in flight while the next one is widened (wgmma.wait_group PEND
  // after each issue: the buffer written next, last read by k-block g - FB + 1
  // or earlier, is then free; PTX ISA 9.7.15.7).
  constexpr int FB = C::FB, PEND = FB / 2;
  std::uint32_t frag[FB][8];
  // k-block j of k-tile kt (stage s) into buffer BUF: widen, two wgmmas, commit, wait.
  auto kblock = [&](std::int64_t kt, int s, int j, auto buf, std::uint32_t codes0, std::uint32_t codes1,
                    auto pending) {
    constexpr int BUF = decltype(buf)::value;
    const std::uint32_t bs = sm + L::B0 + s * L::B_BYTES + 16 * j;
    const uint4 x0 = lds128(bs + r * 32), x1 = lds128(bs + (r + 8) * 32);
    const int sh = 8 * (2 * static_cast<int>(kt & 1) + j);  // byte of k-block 2 kt + j in the code word
    const std::uint32_t f0 = ue8m0_bf16x2((codes0 >> sh) & 0xFFu), f1 = ue8m0_bf16x2((codes1 >> sh) & 0xFFu);
    const std::int64_t valid = p.k - (kt * C::KT + 32 * j);
    widen_frag(x0, x1, f0, f1, sel, c, valid < 32 ? static_cast<int>(valid) : 32, frag[BUF]);
    const std::uint32_t a = sm + s * L::A_BYTES;
    wgmma_fence();
#pragma unroll
    for (int t = 0; t < 2; ++t)
      WgmmaRs<C::BM>::bf16(acc, *reinterpret_cast<const std::uint32_t(*)[4]>(&frag[BUF][4 * t]),
                             smem_desc_sw128(smem + (a - sm) + 32 * (2 * j + t)));
    wgmma_commit();
    wgmma_wait<decltype(pending)::value>();
  };
  // k-tile kt in stage s (phase ph), buffers 2 P and 2 P + 1 (P = kt % PEND).
  // The stage of tile kt - 1 is released once its wgmmas are complete: after
  // the wait of k-block PEND - 1 of this tile.
  auto tile = [&](std::int64_t kt, int s, std::uint32_t ph, auto first, auto par) {
    constexpr int P = decltype(par)::value;
    constexpr bool FIRST = decltype(first)::value;
    using Pend = std::integral_constant<int, FIRST ? 0 : PEND>;
    mbar_wait(&full[s], ph);
    __syncwarp();  // the wait is a per-thread loop: converge before the .aligned wgmma instructions
    const std::uint32_t cs = sm + L::CODES0 + s * L::CODE_BYTES;
    const std::uint32_t codes0 = lds32(cs + 4 * r), codes1 = lds32(cs + 4 * (r + 8));
    std::uint64_t* const prev = &empty[s == 0 ? C::ST - 1 : s - 1];
    kblock(kt, s, 0, std::integral_constant<int, 2 * P>{}, codes0, codes1, Pend{});
    if (!FIRST && PEND == 1) mbar_arrive(prev);
    kblock(kt, s, 1, std::integral_constant<int, 2 * P + 1>{}, codes0, codes1, Pend{});
    if (!FIRST && PEND == 2) mbar_arrive(prev);
  };
  // Stage and phase of the k-tile, in 32-bit registers (no 64-bit modulo in the loop).
  int s = 0;
  std::uint32_t ph = 0;
  auto advance = [&] {
    if (++s == C::ST) {
      s = 0;
      ph ^= 1u;
    }
  };
  using P0 = std::integral_constant<int, 0>;
  using P1 = std::integral_constant<int, PEND - 1>;
  // The first k-tile is peeled (its wgmmas retire before the loop), so that
  // ptxas sees no non-wgmma definition of the accumulators reaching an open
  // wgmma (it would serialize every wgmma: C7515).
  if (ntiles > 0) {
    tile(0, s, ph, std::true_type{}, P0{});
    advance();
  }
  std::int64_t kt = 1;
  if constexpr (PEND == 1) {
    for (; kt < ntiles; ++kt) {
      tile(kt, s, ph, std::false_type{}, P0{});
      advance();
    }
  } else {  // two k-tiles per iteration: buffers 2, 3 (kt odd), then 0, 1
    for (; kt + 1 < ntiles; kt += 2) {
      tile(kt, s, ph, std::false_type{}, P1{});
      advance();
      tile(kt + 1, s, ph, std::false_type{}, P0{});
      advance();
    }
    if (kt < ntiles) tile(kt, s, ph, std::false_type{}, P1{});
  }
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < 128; ++i) pin(acc[i]);
  regA_store<BF16>(acc, n0 + 64 * cw, m0, p);
#else
  (void)p;
  __trap();
#endif
}

template <class C, bool BF16>
void launch(const RegAParams& p0, cudaStream_t stream) {
  using L = RegALayout<C>;
  RegAParams p = p0;
  p.mt = (p.m + C::BM - 1) / C::BM;
  p.nt = (p.n + C::BN - 1) / C::BN;
  if (p.mt * p.nt > 0x7FFFFFFF) throw mx::ShapeError("w4a16 GEMM: too many tiles");
  launch_smem<w4a16_rega_kernel<C, BF16>, L::BYTES>(p.mt * p.nt, L::THREADS, p, stream, "w4a16_rega_kernel");
}

template <class C>
bool launch_cfg(const W4a16GemmArgs& x, cudaStream_t stream) {
  RegAParams p{};
  if (!make_tma_map_2d(&p.a_map, x.a, 2, x.m, x.k, x.lda * 2, C::KT, C::BM)) return false;
  if (x.k > 0 && !make_tma_map_2d(&p.b_map, x.b.data, 1, x.n, (x.k + 1) / 2, x.b.ld, C::KT / 2, C::BN, false)) return false;
  p.m = x.m;
  p.n = x.n;
  p.k = x.k;
  p.nkb = (x.k + 31) / 32;
  p.sb = x.b.scales;
  p.tc_b = check_layout(x.b.layout);
  p.vsc_b = (p.tc_b || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sb) % 4 == 0;
  p.c = x.c;
  p.d = x.d;
  x.out == mx::Fmt::bf16 ? launch<C, true>(p, stream) : launch<C, false>(p, stream);
  return true;
}

}  // namespace

bool w4a16_rega_launch(const W4a16GemmArgs& x, cudaStream_t stream) { return launch_cfg<cfg::W4RegA>(x, stream); }

}  // namespace mxk::gemm
