// gemm_gate_w4_test.cpp - the full `gpu` gate of the w4a16 GEMM (reference/
// SPEC.md C11): every kernel path and form against the C11 model, bit for
// bit, outputs poisoned; what each test covers: gemm_gate_test.cpp's head.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "gemm_gate_util.hpp"

namespace {

using namespace mx_gemm_gate;

// ---- the full gate: w4a16 -------------------------------------------------------

TEST(GemmGate, W4a16RaggedShapesAndTiles) {
  REQUIRE_GPU();
  std::uint64_t seed = 400;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 1, 1}, {1, 32, 16}, {2, 33, 17},
                         {64, 128, 64}, {65, 129, 65}, {130, 200, 250}, {17, 300, 1000}})
    for (int bn : {0, 32, 64, 128})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 0, bn}, seed++);
}

TEST(GemmGate, W4a16SmallM) {
  REQUIRE_GPU();
  for (std::int64_t m = 1; m <= 17; ++m)
    run_w4({m, 96, 200 + m, m % 3 ? kDense : kTc, Fmt::fp32, m % 2 == 1, 0, 0}, 500 + static_cast<std::uint64_t>(m));
  for (std::int64_t m = 1; m <= 17; ++m)  // cp.async path (K a multiple of 32), every decode tile width
    run_w4({m, 100, 32 * (5 + m), m % 2 ? kDense : kTc, m % 3 ? Fmt::bf16 : Fmt::fp32, m % 2 == 0, 1,
            16 << (m % 3)}, 520 + static_cast<std::uint64_t>(m));
}

TEST(GemmGate, W4a16DecodeAndLargeTiles) {  // M <= 16, 16 < M <= 64 and M > 64, aligned and not
  REQUIRE_GPU();
  std::uint64_t seed = 700;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{16, 33, 96}, {17, 64, 160}, {33, 130, 288},
                         {64, 72, 1056}, {64, 40, 250}, {65, 129, 96}, {128, 128, 128}, {129, 260, 352}, {257, 136, 64}})
    for (int bn : {0, 16, 64})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 2, bn}, seed++);
}

TEST(GemmGate, W4a16DecodeKernel) {  // bn 0, M <= 64: every width of A rows per block, aligned or not, ragged
  REQUIRE_GPU();
  std::uint64_t seed = 800;
  // + 1000: the two-warpgroup form; 300 +: three warpgroups; 500 +: k-tiles of 512 (K 2080: 5 tiles, rings wrap)
  for (int cols : {8, 16, 32, 64, 1008, 1016, 1032, 308, 316, 508, 516})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 64, 256}, {3, 130, 544},
                           {cols % 100, 72, 1024}, {std::min(cols % 100 + 1, 64), 200, 97}, {64, 64, 2080},
                           {17, 129, 1000}, {9, 40, 33}, {20, 64, 2304}, {cols % 100, 70, 3616}})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 3, 0, cols}, seed++);
  for (std::int64_t m : {1, 16, 64})  // decode shapes of the benchmark, widths chosen by the launcher
    run_w4({m, 2048, 7168, kDense, Fmt::bf16, false, 8, 0, 0}, seed++);
  // PIPE forms (run 16 pipe): whole k-tiles from per-thread pointers (+ 100000; rows of A past M
  // skipped), then the ragged k-tile by mma_load; table addresses by PRMT + multiply-add (+ 200000)
  run_w4({64, 128, 2080, kTc, Fmt::bf16, true, 3, 0, 302418}, 42);     // 8 whole k-tiles over 4 stages, ragged
  run_w4({64, 64, 1024, kDense, Fmt::fp32, false, 3, 0, 302424}, 43);  // 8 warps, whole k-tiles
  run_w4({32, 100, 2304, kDense, Fmt::bf16, true, 3, 0, 132412}, 44);  // 9 whole k-tiles over 3, partial blocks
  run_w4({5, 64, 1312, kTc, Fmt::bf16, false, 3, 0, 332411}, 45);      // 5 of 8 rows of A, 5 whole k-tiles
  run_w4({50, 128, 2080, kTc, Fmt::fp32, true, 3, 0, 302418}, 46);     // 50 of 64 rows of A, ragged k-tile
  run_w4({40, 70, 1000, kTc, Fmt::bf16, false, 3, 0, 102424}, 47);     // byte loads (ldb 500), partial blocks
  run_w4({16, 7168, 2048, kDense, Fmt::bf16, true, 8, 0, 0}, seed++);
}

TEST(GemmGate, W4a16MmaKernel) {  // bn 0, M <= 64, decode_cols 2000 + form: every form of the mma.sync kernel
  REQUIRE_GPU();
  std::uint64_t seed = 1000;
  for (int form : {111, 411, 412, 418, 224, 711, 712, 724, 811, 812, 814, 821, 911, 912, 1011, 1012, 1111, 4811,
                   4812, 4912, 5111, 30411, 30412, 100418, 300418, 100424, 300424, 130411, 130412, 330411, 330412}) {
    const std::int64_t tok = 8 * (form % 10) * (form / 10 % 10);  // rows of A per block
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 64, 256}, {3, 130, 544},
                           {tok, 72, 1024}, {std::min<std::int64_t>(tok + 1, 64), 200, 97}, {64, 64, 2080},
                           {17, 129, 1000}, {9, 40, 33}, {20, 64, 2335}, {2, 16, 4096}})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0,
              static_cast<int>(seed % 4 == 0 ? 40 : 3), 0, 2000 + form},
             seed++);
  }
  // M = 1..17, 33, 64 with the kernel's own form; K not a multiple of 16; many specials
  for (std::int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 33, 64})
    run_w4({m, 80 + m, 16 * m + 7, m % 3 ? kDense : kTc, m % 2 ? Fmt::bf16 : Fmt::fp32, m % 2 == 0, 40, 0, 2000},
           seed++);
  // the other two benchmark shapes on the launcher's path (W4a16DecodeKernel has four)
  run_w4({1, 7168, 2048, kDense, Fmt::bf16, false, 8, 0, 0}, seed++);
  run_w4({64, 7168, 2048, kTc, Fmt::bf16, true, 8, 0, 0}, seed++);
}

// The warp-specialized kernel's BM = 64 forms (decode_cols 6000 / 6100 / 6300 + BN):
// M = 1, 3, 17, 63, 64 and others, N ragged against BN, K ragged against the
// k-tile of 64 and below it (K % 8 == 0: A by TMA), rings that wrap, dense and
// tcgen05 scales, planted specials (NaN/Inf A; 0xFF/0x00/0xFE/0x01 scales),
// with and without C, fp32 and bf16 out; TK 2 / 4 forms (k-tile counts 1 .. 51: every partial last group); the
// launcher's choice of them.
TEST(GemmGate, W4a16WsDecode) {
  REQUIRE_GPU();
  std::uint64_t seed = 1300;
  for (int form : {6016, 6032, 6064, 6128, 6116, 6132, 6164, 6228, 6316, 6332, 6364, 6428, 6056, 6156, 6356,
                   10006356, 200006016, 400006016, 200006356, 200006116, 400006116, 200006316})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 64, 256}, {3, 130, 520},
                           {17, 129, 1000}, {63, 200, 40}, {64, 64, 2080}, {64, 72, 8}, {9, 40, 1224},
                           {33, 257, 136}, {64, 150, 1096}, {5, 40, 3208}})
      run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0,
              static_cast<int>(seed % 4 == 0 ? 40 : 3), 0, form},
             seed++);
  // the launcher (decode_cols 0) at 16 < M <= 64 (cfg::w4_ws_decode_code): 200006116 where N / 16 blocks fit the
  // SMs, 10006356 where N / 56 do, 6364 (M > 32) where N / 64 do (N = 8000 on 132 SMs), the decode kernels where
  // TMA cannot read A (K % 8 != 0) or M <= 16
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{33, 200, 520}, {48, 2200, 136},
                         {64, 3000, 72}, {40, 100, 77}, {64, 2200, 100}, {33, 8000, 72}, {17, 300, 1096},
                         {32, 2100, 264}, {24, 5000, 200}, {17, 8000, 72}, {16, 200, 520}})
    run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 3, 0, 0}, seed++);
}

// In-group cancellation (A row pairs against B pairs of opposite sign: each
// k16 group sums to zero exactly, or to what C and the cut leave), huge and
// tiny terms in one group (A from 2^-100 to 2^100), a large C, extreme scales
// (0xFE, 0x00, 0x01) and 0xFF on a few rows, on every form of the mma.sync
// kernel and the wgmma decode kernel.
TEST(GemmGate, W4a16MmaCancellation) {
  REQUIRE_GPU();
  const std::int64_t m = 16, n = 48, k = 544;
  std::mt19937_64 rng(77);
  std::vector<float> xb = random_matrix(n, k, 78);
  for (std::int64_t r = 0; r < n; r += 2)  // rows 0, 2, 4 ..: +x, -x pairs along k
    for (std::int64_t i = 1; i < k; i += 2)
      xb[static_cast<std::size_t>(r * k + i)] = -xb[static_cast<std::size_t>(r * k + i - 1)];
  mx::Quantized b = quantize("mxfp4", xb, n, k, kDense);
  for (std::int64_t r = 0; r < 12; ++r)
    for (std::int64_t kb = 0; kb < b.scale_shape.blocks; ++kb) {
      const std::uint8_t sc[] = {0xFE, 0x00, 0x01, 0xFE, 0x7F, 0x01};
      b.scales[static_cast<std::size_t>(r * b.scale_shape.blocks + kb)] = sc[(r + kb) % 6];
    }
  b.scales[static_cast<std::size_t>(40 * b.scale_shape.blocks + 3)] = 0xFF;
  std::vector<std::uint16_t> a(static_cast<std::size_t>(m * k));
  for (std::int64_t r = 0; r < m; ++r)
    for (std::int64_t i = 0; i < k; ++i) {
      const double v = (r % 4 == 0) ? 3.0 : std::ldexp(1.0 + static_cast<double>(rng() % 128) / 128.0,
                                                         static_cast<int>(rng() % 201) - 100);
      a[static_cast<std::size_t>(r * k + i)] = mx::f32_to_bf16_rne(static_cast<float>((i / 2 + r) % 3 ? v : -v));
    }
  for (std::int64_t r = 1; r < m; r += 4)  // rows 1, 5 ..: equal neighbours (cancel against B's pairs)
    for (std::int64_t i = 1; i < k; i += 2)
      a[static_cast<std::size_t>(r * k + i)] = a[static_cast<std::size_t>(r * k + i - 1)];
  std::vector<float> c(static_cast<std::size_t>(m * n));
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = i % 3 == 0 ? 16777216.0f : i % 3 == 1 ? -1e30f : 0.5f;
  for (int cols : {2111, 2411, 2412, 2224, 2418, 32411, 32412, 102418, 302418, 302424, 132412, 332411, 2711, 2712, 2724, 2811, 2812, 2814, 2821, 2911, 2912,
                   3011, 3012, 3111, 6811, 6812, 6912, 7111, 0, 16})
    for (Fmt out : {Fmt::fp32, Fmt::bf16}) {
      SCOPED_TRACE("cols " + std::to_string(cols));
      check_w4(a, m, b, cols % 2 ? c.data() : nullptr, out, 0, cols);
    }
}

TEST(GemmGate, W4a16Specials) {
  REQUIRE_GPU();
  std::uint64_t seed = 600;
  for (int planted : {4, 40})
    for (Fmt out : {Fmt::fp32, Fmt::bf16}) run_w4({70, 140, 200, kDense, out, true, planted, 0}, seed++);
}

TEST(GemmGate, W4a16WarpSpecialized) {
  REQUIRE_GPU();
  std::uint64_t seed = 800;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{65, 129, 8}, {65, 129, 72},
                         {130, 257, 520}, {257, 300, 1000}, {300, 130, 2048}, {512, 64, 96},
                         // 3, 4, 5, 7 k-tiles: around the ring depths of cfg::W4Ws (SA, SB, RS)
                         {70, 136, 136}, {200, 250, 256}, {260, 140, 320}, {129, 131, 392}})
    for (int planted : {0, 4, 40})
      for (int bn : {0, 128})  // the warp-specialized kernel and the one without TMA
        run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, planted, bn},
               seed++);
}

// The register-A kernel (bn 512; bn 0 takes it too where cfg::W4RegA::ON)
// and the warp-specialized one (bn 256) on the same shapes:
// ragged M and N against the 256 x 128 tile, K = 31 / 32 (one partial
// k-tile), 95 (a ragged k-tile and k-block, nkb % 4 != 0), 1023 (16 k-tiles
// over 6 stages, K odd), whole k-tiles; planted NaN/Inf/-0/subnormal A values
// and 0xFF/0x00/0xFE/0x01 scales; dense and tcgen05 scales, with and without C.
TEST(GemmGate, W4a16RegisterA) {
  REQUIRE_GPU();
  std::uint64_t seed = 900;
  for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{65, 129, 32}, {65, 129, 31},
                         {130, 257, 95}, {257, 300, 1023}, {300, 130, 2048}, {512, 64, 96}, {600, 260, 448},
                         {97, 513, 160}})
    for (int planted : {0, 4, 40})
      for (int bn : {512, 256})
        run_w4({m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, planted, bn},
               seed++);
}

}  // namespace
