// gemm_config.hpp - the tuning knobs of the C11 GEMM kernels in one place
// (tile shapes, pipeline depth, the choice by shape). The bits of D never
// depend on them: every element is one warpgroup's k-ordered chain (C11).
#pragma once

#include <cstdint>

namespace mxk::gemm::cfg {

// ---- mxfp8 ------------------------------------------------------------------
// A block = NWG consumer warpgroups, each a 64 x BN tile (one wgmma m64nBNk32
// per k-block into a zero accumulator, then the scale FMAs); k-tiles of
// kFp8Kt = 4 k-blocks, ST cp.async stages (ST - 2 tiles in flight).
constexpr int kFp8Kt = 128;
struct Fp8Large {  // M > 64: 128 x 128 tiles, two warpgroups overlap wgmma and FMAs
  static constexpr int NWG = 2, BN = 128, ST = 5, GROUP = 8;
};
// M > 64 with A and B readable by TMA (16-byte aligned rows): the warp-
// specialized kernel (gemm_mxfp8_ws.cu), 64 NC x 128 tiles, one block per SM:
// a producer warpgroup (TMA, scale factors) and NC consumer warpgroups of 64
// rows, each with acc (64 fp32) and two p buffers of PN / 2; ST stages, RS
// code stages.
template <int NC_, int PN_, int ST_, int CONSUMER_REGS_>
struct Fp8WsT {
  static constexpr int NC = NC_, PN = PN_, ST = ST_, RS = 4, GROUP = 8;
  static constexpr int PRODUCER_REGS = 56, CONSUMER_REGS = CONSUMER_REGS_;  // setmaxnreg
};
// Measured on the H100 (bench/results/gemm-ws.md), 8192^3: NC 2, PN 128 371
// TFLOP/s; NC 2, PN 64 323; NC 3, PN 64 (152 registers) 346.
using Fp8Ws = Fp8WsT<2, 128, 6, 224>;
struct Fp8Small {  // M <= 64 (decode): 64 x 64 tiles, more blocks
  static constexpr int NWG = 1, BN = 64, ST = 6, GROUP = 1;
};

// ---- w4a16 ------------------------------------------------------------------
// A block = NWG warpgroups x MI wgmma row tiles of 64 (BM = 64 NWG MI rows),
// BN columns; per k-tile of KT the block widens its BN x KT slice of B once
// (shared by all BM rows) into shared memory. AR: rows of A stored per stage
// (< 64 only for the decode shapes: rows past M are never read into D).
// MINB: blocks per SM the registers are budgeted for (__launch_bounds__).
template <int NWG_, int MI_, int AR_, int BN_, int KT_, int ST_, int MINB_>
struct W4 {
  static constexpr int NWG = NWG_, MI = MI_, AR = AR_, BN = BN_, KT = KT_, ST = ST_, MINB = MINB_;
  static constexpr int BM = 64 * NWG * MI;
};
// M > 64: 128 x 128 tiles, two per SM (3 stages fit twice in shared memory;
// MI = 2, 256 x 128, spills at 255 registers).
using W4Large = W4<2, 1, 128, 128, 64, 3, 2>;
template <int BN>
using W4Decode16 = W4<1, 1, 16, BN, 256, 4, 1>;  // M <= 16
template <int BN>
using W4Decode64 = W4<1, 1, 64, BN, 128, 4, 1>;  // 16 < M <= 64
constexpr int kW4Group = 8;
// M > 64 with A readable by TMA (16-byte aligned rows): the warp-specialized
// kernel (gemm_w4a16_ws.cu), BM x BN tiles, one block per SM: NP producer
// warpgroups (TMA of A, widening of B) and two consumer warpgroups of BM / 2
// rows; ST stages of A + widened B, RS stages of packed B (cp.async, RS - 1
// ahead). Measured on the H100 (bench/results/gemm-ws.md): 128 x 256 tiles
// (twice the widening per MAC) were 25% slower than 256 x 128; NP = 2 gave
// no measurable change against NP = 1 (490.5 vs 496.3 TFLOP/s, two calls).
struct W4Ws {
  static constexpr int BM = 256, BN = 128, KT = 64, ST = 4, RS = 5, NP = 2, GROUP = 8;
  static constexpr int PRODUCER_REGS = 80, CONSUMER_REGS = 176;  // setmaxnreg
};
// M > 64 with A and packed B readable by TMA (16-byte aligned rows): the
// register-A kernel (gemm_w4a16_rs.cu) computes D^T = B A^T: BN rows of B
// (the wgmma's M side, 64 per consumer warpgroup, widened by the consumers
// straight into the A fragment) x BM rows of A (its N side, <= 256, TMA with
// the 128-byte swizzle); ST stages of A + packed B (TMA) + scale codes
// (cp.async), filled by one producer warpgroup. ON: the M > 64 dispatch takes
// it (else W4Ws; bn = 512 / 256 force one of the two). FB: fragment buffers
// (2 or 4): FB / 2 k-blocks of wgmma stay in flight while the next is widened.
// Measured on the H100 (bench/results/gemm-w4rs.md, one call): FB 2 564.6
// TFLOP/s at 8192^3 and 487.8 at 4096x7168x2048; FB 4 555-565 and 446.8.
struct W4RegA {
  static constexpr int BM = 256, BN = 128, KT = 64, ST = 6, GROUP = 8, FB = 2;
  static constexpr int PRODUCER_REGS = 40, CONSUMER_REGS = 232;  // setmaxnreg
  static constexpr bool ON = true;
};

// Decode tile width: enough blocks for the SMs (no split-K: C11 fixes the
// k order), but few enough that A (re-read by every block) stays cheap.
inline int w4_decode_bn(std::int64_t m, std::int64_t n, int sms) {
  if (m <= 16) return (n + 31) / 32 >= sms ? 32 : 16;
  return (n + 63) / 64 >= (3 * sms) / 4 ? 64 : 16;
}

}  // namespace mxk::gemm::cfg
