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
// rows, each with acc (64 fp32) and PB p buffers of 64; ST stages, RS code
// stages; PF of the 8 float4 groups of column factors of a k-block loaded
// before the wait for its p (PB 2) or while the wgmma of the k-block before it
// runs (PB 1), the rest in its fold; HINT: barrier waits with a suspend-time
// hint (0 none, 1 the producer's, 2 all).
template <int NC_, int PB_, int PF_, int ST_, int PRODUCER_REGS_, int CONSUMER_REGS_, int HINT_>
struct Fp8WsT {
  static constexpr int NC = NC_, PB = PB_, PF = PF_, ST = ST_, RS = 4, GROUP = 8, HINT = HINT_;
  static constexpr int PRODUCER_REGS = PRODUCER_REGS_, CONSUMER_REGS = CONSUMER_REGS_;  // setmaxnreg
};
// Measured on the H100 (bench/results/gemm-ws.md, gemm-fp8.md), 8192^3, TFLOP/s:
// the earlier non-persistent kernel with the factors read inside the fold
// 370; p in halves of 64 columns 323; NC 3 with halves (152 registers) 346.
// Factors read before the wait (not persistent): PF 2 409, PF 1 403, PF 4
// (20 B spill) 383, PB 1 PF 8 415. Persistent: PB 2 PF 2 HINT 1 418,
// HINT 0 421, HINT 2 411 (one call each), PB 1 PF 8
// 338 (spills). NC 3 spills at any PF. Run 12 f8 (gemm-fp8.md, two calls,
// main's kernel 420.4 / 418.4 in the same calls): PB 1 PF 4 with the next
// k-block's factors loaded during the wgmma 432.3 / 430.9 (this), HINT 1
// 429.7; PB 2 PF 2 HINT 1 with the stepped code pointers 414.0 / 412.0; PB 1
// with s = sa * sb computed during the wgmma (PF 0) 422.2. PB 1 spills at
// PF 2 (40 B) and PF 8 (556-684 B), not at PF 4.
using Fp8Ws = Fp8WsT<2, 1, 4, 6, 56, 224, 0>;
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
using W4Decode16 = W4<1, 1, 16, BN, 256, 4, 1>;  // M <= 16, explicit tile width (bn)
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
// BM = 64 (M <= 64, decode_cols 6000 + BN with NP = 1, 6100 + BN with NP = 2,
// 6300 + BN with NP = 4; BN 16, 32, 64, 128): tokens on the wgmma's M side,
// one consumer warpgroup (m64nBNk16 from shared memory), the block's BN rows of
// B widened once by the producers, in G = 128 NP / GT groups of GT threads where a
// k-tile has fewer 32-element chunks than producer threads (group g widens
// k-tiles g, g + G, ...: RS per group 8, 4 from G = 4, 3 from G = 8); as many
// stages as fit about 200 KB with the raw rings (at most 16, a multiple of G),
// no setmaxnreg (REGS 0), launched as a programmatic dependent (PDL).
// CW: k-tiles of wgmma each consumer keeps in flight (1: it waits for the
// previous k-tile's before it releases a stage and waits for the next, 2: for
// the one before that; decode_cols + 10000000 forces 2).
// TK: k-tiles per consumer round trip (the consumer waits on the full
// barriers of TK k-tiles, issues their 4 TK wgmmas as one commit group, and
// releases the TK stages of the group CW before together; CW then counts
// groups; decode_cols + TK * 100000000 forces TK 2 or 4). ST >= (CW + 1) TK
// stages.
template <int BM_, int BN_, int NP_, int ST_, int RS_, int PRODUCER_REGS_, int CONSUMER_REGS_, int CW_ = 1,
          int TK_ = 1>
struct W4WsT {
  static constexpr int BM = BM_, BN = BN_, KT = 64, ST = ST_, RS = RS_, NP = NP_, GROUP = 8;
  static constexpr int CW = CW_, TK = TK_;
  static constexpr int NC = BM_ == 64 ? 1 : 2;  // consumer warpgroups
  static constexpr int PRODUCER_REGS = PRODUCER_REGS_, CONSUMER_REGS = CONSUMER_REGS_;  // setmaxnreg (0: none)
  static constexpr bool PDL = BM_ == 64;
};
using W4Ws = W4WsT<256, 128, 2, 4, 5, 80, 176>;
// Producer groups (gemm_w4a16_ws.cu): a k-tile has 2 BN chunks of 32; where
// that is fewer than the 128 NP producer threads, groups of GT threads (2 BN
// rounded up to a power of two, whole warps: BN 56 -> 128, 16 of them idle)
// each take every G-th k-tile; else one group of all.
constexpr int w4_ws_group_threads(int bn) {
  int gt = 32;
  while (gt < 2 * bn) gt *= 2;
  return gt;
}
constexpr int w4_ws_groups(int bn, int np) {
  return w4_ws_group_threads(bn) < 128 * np ? 128 * np / w4_ws_group_threads(bn) : 1;
}
// Raw ring stages per group: 3 .. 8 (run 16 tm2's deep rings, ~80 KB of packed
// B in flight per block, were slower in every form and are gone: gemm-decode.md).
constexpr int w4_ws_decode_rs(int bn, int np) {
  const int g = w4_ws_groups(bn, np);
  return g >= 8 ? 3 : g >= 4 ? 4 : 8;
}
constexpr int w4_ws_decode_stages(int bn, int np) {  // A 8 KB + widened B 128 BN per stage; raw stages 40 BN
  const int g = w4_ws_groups(bn, np);
  const int st = (200 * 1024 - g * w4_ws_decode_rs(bn, np) * 40 * bn) / (8192 + 128 * bn);
  return (st < 16 ? st : 16) / g * g;
}
template <int BN, int NP, int CW = 1, int TK = 1>
using W4WsDecode = W4WsT<64, BN, NP, w4_ws_decode_stages(BN, NP), w4_ws_decode_rs(BN, NP), 0, 0, CW, TK>;
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

// M <= 64 with bn == 0 (gemm_w4a16_decode.cu): B widened in registers as the
// wgmma's A operand; a block = 64 rows of B x NA rows of A, W warpgroups
// taking the k-tiles of KT in turn (the accumulator handed from one to the
// next), each with STW cp.async stages of its own (W (STW - 1) k-tiles in
// flight). Registers: W = 4 leaves 128 per thread (64 of them the widened
// k-tile; NA 8 no spills, NA 16 52 bytes), W = 3 168 (NA 32: 60 bytes), W = 2
// 204-251 (no spills).
// KT: 256, or 512 (half the hand-overs per chain; 128 registers of widened
// k-tile, so two warpgroups and NA <= 16 only).
// Run 15 rs (gemm-decode.md, one call on an H200, two rounds, us, 64 x 2048 x
// 7168, 316): the table filled a row per thread 31.46 / 31.64 against a word
// per thread 32.51 / 32.56 (kept); its address in one PRMT (a 64 KB-aligned
// window: 65 fewer SASS instructions per warp and k-tile) 31.53 / 31.57 and
// with the scale's bf16x2 from a table as well 32.21 / 32.20 (not kept: no
// faster than the simpler layout).
template <int NA_, int W_ = (NA_ <= 16 ? 4 : NA_ == 32 ? 3 : 2), int STW_ = (NA_ == 8 ? 3 : 2), int KT_ = 256>
struct W4Rs {
  static constexpr int NA = NA_, KT = KT_, W = W_, STW = STW_;
};
template <int NA_>  // two warpgroups (W4Rs<64> has two already)
using W4RsAlt = W4Rs<NA_, 2, NA_ <= 16 ? 4 : 2>;
template <int NA_>  // decode_cols 500 + NA (8, 16): two warpgroups, k-tiles of 512
using W4RsLong = W4Rs<NA_, 2, NA_ == 8 ? 3 : 2, 512>;
template <int NA_>  // decode_cols 300 + NA (8, 16): three warpgroups
using W4Rs3 = W4Rs<NA_, 3, 3>;
// Activation columns per block: the smallest width holding M, halved (more
// blocks on the same slice of B, a shorter wgmma) while that still leaves an
// SM per block.
inline int w4_rs_cols(std::int64_t m, std::int64_t n, int sms) {
  int na = m <= 8 ? 8 : m <= 16 ? 16 : m <= 32 ? 32 : 64;
  const std::int64_t nt = (n + 63) / 64;
  while (na > 8 && nt * ((m + na / 2 - 1) / (na / 2)) <= sms) na /= 2;
  return na;
}
// The two-warpgroup form (W4RsAlt) once the blocks fill more than half the
// SMs; four warpgroups (more widening in flight per SM) for fewer, longer
// blocks. Measured on the H100 (bench/results/gemm-decode.md, two calls): two
// are 2-11% faster at 1 x 7168 x 2048, 16 x 7168 x 2048 (112 blocks) and
// 64 x 2048 x 7168 (128), four 6-14% faster at 1 x 2048 x 7168 (32 blocks) and
// 16 x 2048 x 7168 (64).
inline bool w4_rs_two_wg(std::int64_t blocks, int sms) { return 2 * blocks > sms; }
// Where that picks two warpgroups for blocks of 16 columns, three (W4Rs3<16>,
// 168 registers) instead: one more k-tile widened in flight per SM. Measured
// on the H100 (bench/results/gemm-decode.md "run 13 m64", one call, two
// rounds, us): 64 x 2048 x 7168 (128 blocks) 32.94 / 33.01 against 33.84 /
// 33.99 with two, 34.37 / 34.60 with two and k-tiles of 512 (W4RsLong<16>).
inline bool w4_rs_three_wg(int cols) { return cols == 16; }

// M <= 64 on the warp-level mma.sync (gemm_w4a16_mma.cu): D^T = B A^T, 16 rows
// of B (widened in registers) x 8 NT rows of A per warp (NT m16n8k16 mmas per
// k16 step), k-tiles of KT = 256 staged in shared memory (as many stages as
// fit in SMEM bytes: <= 8 flat, <= 12 and a multiple of P with producers).
// P = 0, the flat form: a block = TR weight tiles x TG token groups, every
// warp widens its own tile; P > 0: one weight tile, P producer warps (each
// owning every P-th k-tile: copy, widen, mbarrier hand-over) for TG consumer
// warps that only run the mmas (with one consumer and P >= 4 it runs alone on
// an SM sub-partition, the producers two to each of the others). FORM names
// it (decode_cols 2000 + FORM; P = 5, 6: 1011 / 1012, 1111; DEEP + 4000; flat
// with at most STX stages + 10000 STX).
// PIPE (flat forms only, bits, FORM + 100000 PIPE; run 16 pipe): 1 the copies of whole k-tiles from
// per-thread pointers and 32-bit shared addresses where a block's rows of B are all inside N (no bounds
// tests but the rows of A against M, no 64-bit index products: 87 instead of ~290 instructions per
// thread and k-tile for 418); 2 each widening-table address by one PRMT and one multiply-add.
template <int TR_, int TG_, int NT_, int P_ = 0, bool DEEP_ = false, int STX_ = 0, int PIPE_ = 0>
struct W4Mma {
  static constexpr int TR = TR_, TG = TG_, NT = NT_, P = P_, KT = 256, PIPE = PIPE_;
  static constexpr bool DEEP = DEEP_;  // P > 0: the consumer's loads 3 chunks of steps ahead (FORM + 4000)
  // P = 0: at most STX stages (0: as many as fit, <= 8): fewer k-tiles in flight at the start, and a block
  // small enough for two per SM (the kernel asks for the bytes of its ST stages only)
  static constexpr int STX = STX_;
  static constexpr int SMEM = (P_ > 0 ? 227 : 220) * 1024;  // one block per SM
  static constexpr int FORM =
      (P_ > 0 ? 500 + 100 * P_ + 10 * TG_ + NT_ : 100 * TR_ + 10 * TG_ + NT_) + (DEEP_ ? 4000 : 0) + 10000 * STX_ +
      100000 * PIPE_;
};
// Blocks of 4 weight tiles give half the SMs a block (N = 7168: 112 blocks).
inline bool w4_mma_wide(std::int64_t n, int sms) { return ((n + 15) / 16 + 3) / 4 >= sms / 2; }
// The form for bn == 0 (decode_cols 0 or 2000). Wide N (h100-mma/call2, us per
// call, bf16 out, N = 7168, K = 2048): M = 1 411 12.09; M = 16 412 13.22;
// M = 64 418 18.40. Narrow N (run 11 pc call 2, h100-pc/call2, N = 2048, K =
// 7168): M = 1 811 17.07 (911 17.46, 821 18.87, 711 20.74); M = 8 811 16.51;
// M = 16 812 17.96 (821 18.60, 912 18.86, 712 22.28); M = 32 814 21.19; M = 64
// 724 34.40 (814 37.57, 224 38.57; the wgmma kernel 34.16 is taken there).
// Run 13 dec (h100-dec/call2, us per call, two rounds, cuBLAS bf16 15.32 /
// 15.32 and 15.27 / 15.06 in the same call): N = 2048, M <= 8: 5111 (6
// producers two to an SM sub-partition, the consumer alone with its loads 3
// chunks ahead) 14.95 / 14.93 at M = 1 (1111 17.07 / 16.97, 811 17.32 /
// 17.15, 4811 17.82 / 17.88); M = 16 stays 812: 18.05 / 18.07 (4812 18.18 /
// 18.03, 912 18.22 / 18.28, 4912 19.38 / 19.67; 6 producers do not fit 16
// tokens' stages). Run 13 d16 (h100-d16/call1, one call, rounds 1 / 2,
// cuBLAS bf16 15.25 / 15.19): with A apart from the stages (one A tile per
// producer, branch wip/d16 commit 8505ed9, not kept) 6 producers fit 16
// tokens but are slower: 5112 19.30 / 19.16, 1112 18.44 / 18.34, against
// 812 18.08 / 18.06; M = 16 stays 812. Run 14 w16 (h100-w16/call2, one call,
// rounds 1 / 2, cuBLAS bf16 in the same call): with the block's one-time code
// compact (copy prologue and zeroing not unrolled, ncu: 412 spent 47% of its
// warp samples before the k-loop, mostly no-instruction stalls) and at most 3
// stages (STX, + 10000), wide N: M = 1 30411 10.77 / 10.70 (411 11.44 /
// 11.27; cuBLAS 13.34 / 13.50), M = 16 30412 12.25 / 12.23 (412 12.04 /
// 12.07, 40412 12.08 / 12.07, 30421 12.81 / 12.71; cuBLAS 12.83 / 12.88;
// main's 412 13.12 / 13.23), M = 64 stays 418: 17.62 / 17.54 (30418 17.71 /
// 17.72; cuBLAS 13.20 / 13.20). Call 1 (the old code): 421 13.50, 424 18.30,
// 442 22.96, 30212 13.59, 30221 13.12, 30211 11.75 (two tiles per block, two
// blocks per SM) - more warps per SM did not pay (run 15: those forms, 30418,
// 40412 and 5012 below removed from the kernel's switch and the gate). Run 14 w16b (h100-w16b,
// one call, rounds 1 / 2, main's binary and cuBLAS bf16 in the same call):
// with the producer's copy prologue not unrolled and the one-time start /
// store code compact, N = 2048, M = 16: five producers (1012, 10 stages of
// 16 tokens with 4 scale-table copies, the consumer alone on its SM
// sub-partition) 15.92 / 15.91 against 812 16.91 / 16.93 (main's 812 18.45 /
// 18.33; cuBLAS 15.14 / 15.14); with the consumer's loads 3 chunks ahead
// (5012) 17.61 / 17.57. M <= 8 stays 5111 (8 x 2048 x 7168: 13.86 / 14.08,
// main 14.83 / 14.83). Run 14 w16c (h100-w16c, one call, same binary pair
// alternated, cuBLAS bf16 15.05 at 16 x 2048 x 7168): the producers' whole
// k-tiles of whole blocks copied without bounds tests, one pointer per
// operand and lane (a lane per 32 bytes of 16 rows per cp.async: 16 cache
// lines per warp instruction, not 4) was slower and is not kept: 1012 19.93 /
// 20.04 / 20.05 against 16.08 / 15.90 / 16.04; 814 at M = 32 46.75 against
// 20.06; 5111 at M = 1, 8 15.02, 14.06 against 14.84, 14.02. Run 15 mc
// (h100-mc/call1, on an H200, one round; branch wip/mc, not kept): clusters
// of CL blocks on consecutive weight tiles copying A once per cluster (bulk
// copies multicast into every block, commit 0018fcf) were slower: 64 x 2048 x
// 7168 724 32.72 us against CL 2 40.13, CL 4 63.53 (742 40.01; CL 2 41.18,
// CL 4 65.25); 16 x 2048 x 7168 1012 17.24 against CL 2 28.58, CL 4 49.95.
// ncu of 724 there: L2 throughput 34.6%, SM 20.1% - latency, not L2 bandwidth.
// Run 16 pipe (h100-pipe/call2, H100, one binary, rounds 1 / 2, us, cuBLAS bf16 in the same call), wide N,
// PIPE 3 (fast copies + table addresses by PRMT): M = 1 330411 9.87 / 10.06 (30411 10.53 / 10.72, 130411
// 10.15 / 10.07; cuBLAS 13.54 / 13.28); M = 16 330412 10.43 / 10.26 (30412 11.89 / 12.04, 130412 10.97 /
// 10.99; cuBLAS 12.92 / 12.74); M = 64 300418 13.80 / 13.79 (418 14.66 / 14.75, 100418 13.97 / 13.87;
// 8 warps 100424 15.74 / 15.66, 300424 15.54 / 15.60; cuBLAS 13.46 / 13.22: still missed). M = 32 stays
// 418: 14.67 / 14.69 against 100418 15.17 / 15.11 and 300418 14.99 / 14.96 (the fast copies with rows of A
// past M; M = 33 .. 63 not measured, so 418 there too).
inline int w4_mma_form(std::int64_t m, std::int64_t n, int sms) {
  const bool wide = w4_mma_wide(n, sms);
  if (m <= 8) return wide ? 330411 : 5111;
  if (m <= 16) return wide ? 330412 : 1012;
  if (m <= 32) return wide ? 418 : 814;
  return wide ? (m == 64 ? 300418 : 418) : 724;
}
// bn == 0, decode_cols == 0, M <= 64: the mma.sync kernel where its 4-tile
// blocks fill half the SMs, or M <= 32 (producer forms), else the wgmma
// decode kernel (gemm_w4a16_decode.cu). Run 11 pc call 2 (same call, us, N =
// 2048, K = 7168, mma / wgmma): M = 1 17.07 / 20.91, M = 8 16.51 / 23.05,
// M = 16 17.96 / 23.70, M = 32 21.19 / 27.72, M = 64 34.40 / 34.16.
inline bool w4_mma_on(std::int64_t m, std::int64_t n, std::int64_t k, int sms) {
  (void)k;
  return w4_mma_wide(n, sms) || m <= 32;
}
// bn == 0, decode_cols == 0, 16 < M <= 64, A readable by TMA: the warp-
// specialized kernel's BM = 64 form (cfg::W4WsDecode, decode_cols code; 0 =
// none, the kernels above) with one wave of blocks: 64 x 16 tiles with two
// producer warpgroups (G 8) and two k-tiles per consumer round trip (TK 2,
// 200006116) where N / 16 blocks fit the SMs, else 64 x 56 with
// four (G 4) and two k-tiles of wgmma in flight (CW 2, 10006356) where N / 56
// do, else (M > 32) 64 x 64 with four where N / 64 do.
// Run 19 (gemm-decode.md "run 19", H200, two calls, two rounds each, us):
// with A's TMA box cut to M rows (no zero fill past M) 200006116 takes
// 14.5-14.7 at every M from 1 to 64 at N x K = 2048 x 7168 (64-row box: 16.2
// at M = 48, 21.9 at 40, 24.3 at 33). Against the mma.sync kernel (the
// launcher's choice for M <= 32 before): M = 17 / 24 at 2048 x 7168 14.64 /
// 14.64 against 16.72 / 17.34, 7168 x 2048 (10006356) 11.97 / 11.96 against
// 14.92 / 14.90, 2048 x 2048 5.86 / 5.82 against 7.90 / 7.82, 4096 x 4096
// (10006356) 21.3 / 21.4 against 22.8 / 22.8, 1024 x 8192 16.7 / 16.7
// against 17.4 / 17.7; M = 32 18.1 -> 14.5 and 14.8 -> 11.8. At M <= 16 the
// mma.sync kernel stays: 8 x 7168 x 2048 9.8 against 10006356's 11.7, 16 x
// 7168 x 2048 10.3 against 12.0, 8 x 2048 x 7168 14.16 against 200006116's
// 14.55 (16 x 2048 x 7168 14.85 against 14.5-14.6 and 16 x 2048 x 2048 6.75
// against 5.85 favour the ws form, but run 16 below on the H100 did not).
// Widening into registers before the empty wait (EW, removed) was slower:
// 64 x 2048 x 7168 15.06 against 14.65, 64 x 7168 x 2048 12.70 against 12.02.
// Run 18 final (gemm-decode.md "run 18 final", run18-final/call1, H200, the
// same call, three rounds, us): 64 x 2048 x 7168 200006116 14.52-14.63,
// 400006116 14.52-14.61, 200006316 15.17-15.35, 6016 18.66-18.73; 48 x 2048
// x 7168 200006116 16.27-16.30, 400006116 17.19-17.27, 200006316 17.35-17.37.
// Not measured: M = 33 .. 47 against 6016 (200006116 took 24.4 us at M = 33).
// Run 18 k128 (bench/results/gemm-decode.md, h200-k128, H200, call 2, three
// rounds, us, main c01053c's binary and cuBLAS bf16 in the same call):
// 64 x 2048 x 7168 200006116 14.64 / 14.60 / 14.60 against main's 6016 18.67-
// 18.76 (-22%; cuBLAS 13.29-13.48: 0.91x, still missed), 200006016 18.10-18.18,
// 400006016 18.48-18.60; 48 x 2048 x 7168 200006116 16.34 / 16.40 / 16.34
// against 19.23-19.31. IW (each k-tile's full wait between the wgmmas, removed: ptxas
// injects warpgroup.arrive) 24.1-25.4; call 1: the next group's full waits
// before the wgmma wait 19.0. 64 x 7168 x 2048: TK 2 (200006356) 12.06-12.17
// against 10006356 12.04-12.11 (kept 10006356).
// Run 17 p64 (bench/results/gemm-decode.md, h200-p64, H200, two calls, three
// rounds each, us, cuBLAS bf16 in the same call): 64 x 7168 x 2048 10006356
// 12.72 / 12.75 / 12.73 and 12.61 / 12.65 / 12.63 against 6356 12.96 / 12.96 /
// 12.97 and 12.87 / 12.85 / 12.93 (-2%; cuBLAS 10.35-10.59: 0.82x, missed);
// 48 x 7168 x 2048 12.58 / 12.58 / 12.64 against 12.84 / 12.85 / 12.86. CW 2
// at 64 x 2048 x 7168 (6016) was slower: 20.67 / 20.76 / 20.70 against 20.06.
// Run 16 tm2 (bench/results/gemm-decode.md, h100-tm2, H100, one call, rounds
// 1 / 2, us, cuBLAS bf16 in the same call): 64 x 7168 x 2048 6356 13.05 / 13.06
// (6364 14.43 / 13.55, cuBLAS 12.77 / 13.44; deep raw rings 6456 14.88 / 14.94,
// 6464 15.06 / 14.92); 64 x 2048 x 7168 6016 19.89 / 20.05 (cuBLAS 15.77 /
// 15.80). Run 16 tm (h100-tm/call2): 6364 13.52 against the decode kernels'
// 418 14.75; 6016 19.89 against 724 29.74. At M = 16 the mma.sync forms stay
// faster (16 x 7168 x 2048: 6364 14.73 against 30412 12.07; 16 x 2048 x 7168:
// 6332 25.58 against 1012 14.94).
inline int w4_ws_decode_code(std::int64_t m, std::int64_t n, int sms) {
  if (m <= 16 || m > 64) return 0;
  if ((n + 15) / 16 <= sms) return 200006116;
  if ((n + 55) / 56 <= sms) return 10006356;
  if (m > 32 && (n + 63) / 64 <= sms) return 6364;
  return 0;
}

}  // namespace mxk::gemm::cfg
