// gemm_gate_test.cpp - the `gpu` gate of the C11 GEMMs (reference/SPEC.md
// C11, issue 10): every output bit of the sm_90a kernels (kernels/gemm)
// equals the C11 model of libmxref (mx/gemm_c11.hpp), for e4m3, e5m2 and
// w4a16, fp32 and bf16 outputs, dense and tcgen05 scales, ragged M, N, K,
// planted special values, random data. Each launch runs twice with the
// output poisoned by two different byte patterns first (an element the
// kernel fails to write shows as a poison in one of the runs).
// GTEST_SKIP without an sm_90 device. GemmGateSanitizer.* is the small
// subset run under compute-sanitizer memcheck/racecheck.
// Kernel paths (kernels/gemm/gemm_config.hpp) and where they are covered:
// mxfp8 M <= 64 (Fp8Small) and M > 64 (Fp8Large); w4a16 M <= 16 (Decode16),
// 16 < M <= 64 (Decode64), each with tile widths 16, 32, 64 (explicit bn), and
// M > 64 (Large); w4a16 M <= 64 with bn 0 (gemm_w4a16_decode.cu, B widened in
// registers) with 8, 16, 32 and 64 rows of A per block, four (8, 16), three
// (32; 8, 16 as decode_cols 308, 316) or two warpgroups, and k-tiles of 512
// (decode_cols 508, 516) (W4a16DecodeKernel, GemmGateSanitizer.W4a16Small);
// every one with 16-byte-aligned rows (cp.async, K a multiple of 16
// for fp8, of 32 for MXFP4) and unaligned rows (byte loads), K ragged
// against the 32-block and against the k-tile (64, 128 or 256). The warp-
// specialized M > 64 kernels (TMA): GemmGate.*WarpSpecialized; the mxfp8 one
// is persistent, so a shape with more tiles than SMs (1100 x 2000) has blocks
// take two tiles through one stage ring. w4a16's register-A M > 64 kernel (bn
// 512, or bn 0 where packed rows of B are 16-byte multiples): W4a16RegisterA.
// w4a16 M <= 64 on mma.sync (gemm_w4a16_mma.cu; decode_cols 2000 + form, and
// bn 0 / decode_cols 0 where cfg::w4_mma_on picks it): every form (TR weight
// tiles x TG token groups x NT n8 tiles; 2, 3 or 4 producer warps + TG
// consumers), aligned (cp.async) and unaligned rows, K ragged against 16, 32 and the k-tile 256, rings that wrap, planted
// specials, in-group cancellation, extreme scales (W4a16MmaKernel,
// W4a16MmaCancellation, GemmGateSanitizer.W4a16Mma).
// w4a16 M <= 64 on the warp-specialized kernel's BM = 64 forms (decode_cols
// 6000 / 6100 / 6300 + BN: TMA of A, so K % 8 == 0 here): W4a16WsDecode,
// GemmGateSanitizer.W4a16WsDecode; A that TMA cannot read: GemmGate.Errors.
#include "gemm_gate_util.hpp"

namespace {

using namespace mx_gemm_gate;

// ---- the sanitizer subset (small, every code path) ---------------------------

TEST(GemmGateSanitizer, Mxfp8Small) {
  REQUIRE_GPU();
  run_fp8({"mxfp8_e4m3", 17, 33, 70, kDense, Fmt::fp32, true, 3}, 1);
  run_fp8({"mxfp8_e5m2", 5, 130, 33, kTc, Fmt::bf16, false, 3}, 2);
  run_fp8({"mxfp8_e4m3", 70, 136, 208, kTc, Fmt::bf16, true, 3}, 5);   // large tiles, cp.async, ragged k-tile
  run_fp8({"mxfp8_e5m2", 9, 72, 256, kDense, Fmt::fp32, false, 3}, 6);  // small tiles, cp.async (scales too)
  run_fp8({"mxfp8_e5m2", 70, 136, 200, kDense, Fmt::fp32, true, 3}, 11);  // large tiles (K % 16 != 0: no TMA)
  run_fp8({"mxfp8_e4m3", 130, 130, 1040, kDense, Fmt::bf16, false, 3}, 12);  // warp-specialized, ring wraps
  run_fp8({"mxfp8_e5m2", 1100, 2000, 160, kTc, Fmt::fp32, true, 3}, 14);  // warp-specialized, 144 tiles (two per block)
}

TEST(GemmGateSanitizer, W4a16Small) {
  REQUIRE_GPU();
  run_w4({3, 40, 77, kDense, Fmt::fp32, true, 3, 32}, 3);
  run_w4({66, 130, 64, kTc, Fmt::bf16, false, 3, 128}, 4);
  run_w4({5, 50, 256, kDense, Fmt::bf16, true, 3, 16}, 7);   // decode (AR 16), cp.async (scales too)
  run_w4({6, 40, 352, kTc, Fmt::fp32, false, 3, 32}, 10);    // decode (AR 16), ragged k-tile
  run_w4({40, 70, 96, kTc, Fmt::fp32, false, 3, 64}, 8);     // decode (AR 64)
  run_w4({130, 136, 224, kDense, Fmt::fp32, true, 3, 0}, 9);  // warp-specialized (TMA), ring wraps
  run_w4({70, 200, 72, kTc, Fmt::bf16, false, 3, 0}, 13);      // warp-specialized, ragged k-tile
  run_w4({5, 70, 300, kDense, Fmt::bf16, true, 3, 0, 8}, 11);    // decode kernel, byte loads, ragged k-tile
  run_w4({20, 64, 544, kTc, Fmt::fp32, false, 3, 0, 16}, 12);    // decode kernel, cp.async, ragged k-tile
  run_w4({40, 65, 512, kDense, Fmt::fp32, false, 3, 0, 32}, 13);  // decode kernel, cp.async, whole k-tiles
  run_w4({64, 72, 256, kTc, Fmt::bf16, true, 3, 0, 64}, 14);     // decode kernel, one k-tile
  run_w4({9, 64, 1312, kDense, Fmt::bf16, false, 3, 0, 0}, 15);   // decode kernel, each warpgroup 1-2 k-tiles
  run_w4({12, 70, 800, kTc, Fmt::fp32, true, 3, 0, 1016}, 16);   // decode kernel, two-warpgroup form
  run_w4({20, 64, 2600, kTc, Fmt::fp32, true, 3, 0, 316}, 18);   // three warpgroups, rings wrap, ragged k-tile
  run_w4({16, 70, 2592, kDense, Fmt::bf16, false, 3, 0, 516}, 19);  // k-tiles of 512, cp.async, rings wrap, ragged
  run_w4({5, 70, 1300, kTc, Fmt::bf16, true, 3, 0, 508}, 20);     // k-tiles of 512, byte loads, ragged
  run_w4({7, 66, 1824, kDense, Fmt::bf16, true, 3, 0, 308}, 30);  // three warpgroups, byte loads, ragged k-tile
  run_w4({40, 64, 3104, kTc, Fmt::fp32, false, 3, 0, 1016}, 31);  // two warpgroups of 16 columns, rings wrap
  run_w4({17, 64, 2048, kTc, Fmt::fp32, false, 3, 0, 316}, 33);   // three warpgroups, whole k-tiles, M = 17
  run_w4({130, 136, 712, kDense, Fmt::bf16, false, 3, 0}, 17);  // warp-specialized, both rings wrap
}

// The mma.sync decode kernel (decode_cols 2000 + form; cfg::W4Mma::FORM):
// every form once; byte loads with K ragged against 16 and the k-tile; cp.async
// with a ragged last k-tile; whole k-tiles; partial blocks in M and N; stage
// rings that wrap (flat: ST 8 for 16-row blocks of 8 tokens, 4 for 64 tokens;
// producer forms: ST 12 / 9 / 6 / 4 for 8 / 16 / 32 / 64 tokens (3 producers),
// 12 / 8 / 4 (2 producers), 12 / 8 (4 producers), 10 (5; with 16 tokens and 4 scale-table
// copies: 3012), 12 (6), every producer warp's own
// ring wrapping),
// producer warps without any k-tile (K <= 256); flat forms with at most 3
// stages (+ 10000 STX: 8 k-tiles over 3, byte loads) and with two token
// groups (224).
TEST(GemmGateSanitizer, W4a16Mma) {
  REQUIRE_GPU();
  run_w4({1, 40, 77, kDense, Fmt::fp32, true, 3, 0, 2111}, 21);     // byte loads, one ragged k-tile
  run_w4({3, 20, 2337, kTc, Fmt::bf16, false, 3, 0, 2111}, 22);     // 10 k-tiles over 8 stages, byte loads
  run_w4({5, 70, 300, kTc, Fmt::bf16, false, 3, 0, 2411}, 23);      // partial block of 4 tiles, ragged k-tile
  run_w4({12, 64, 544, kDense, Fmt::fp32, true, 3, 0, 2812}, 24);   // producers/consumer, cp.async, ragged last k-tile
  run_w4({16, 100, 512, kTc, Fmt::bf16, true, 3, 0, 2412}, 25);     // cp.async, whole k-tiles
  run_w4({33, 40, 256, kDense, Fmt::fp32, false, 3, 0, 2224}, 26);  // 64-token block, 33 rows of A
  run_w4({64, 72, 1312, kTc, Fmt::bf16, true, 3, 0, 2418}, 27);     // 6 k-tiles over 4 stages
  run_w4({40, 33, 1056, kDense, Fmt::fp32, false, 3, 0, 2724}, 28);  // 5 k-tiles over 4 stages, ragged
  run_w4({1, 20, 4001, kTc, Fmt::bf16, true, 3, 0, 2811}, 29);     // 16 k-tiles over 12 stages, byte loads
  run_w4({9, 40, 77, kDense, Fmt::fp32, false, 3, 0, 2821}, 30);     // two consumers, one ragged k-tile, byte loads
  run_w4({16, 130, 4608, kTc, Fmt::bf16, false, 3, 0, 2812}, 31);   // 18 whole k-tiles over 9 stages
  run_w4({30, 50, 2080, kTc, Fmt::bf16, true, 3, 0, 2814}, 32);     // 9 k-tiles over 6 stages, ragged
  run_w4({1, 16, 6000, kDense, Fmt::bf16, false, 3, 0, 2711}, 33);  // 24 k-tiles over 12 stages, ragged
  run_w4({13, 24, 2300, kTc, Fmt::fp32, true, 3, 0, 2712}, 34);     // 9 k-tiles over 8 stages, byte loads
  run_w4({2, 24, 3400, kDense, Fmt::bf16, true, 3, 0, 2911}, 35);   // 4 producers: 14 k-tiles over 12 stages, ragged
  run_w4({16, 40, 2560, kTc, Fmt::fp32, false, 3, 0, 2912}, 36);   // 10 whole k-tiles over 8 stages
  run_w4({3, 40, 6880, kTc, Fmt::bf16, true, 3, 0, 3111}, 37);     // 6 producers: 27 k-tiles over 12, cp.async, ragged
  run_w4({1, 24, 1100, kDense, Fmt::fp32, false, 3, 0, 3111}, 38);  // 6 producers, one without a k-tile, byte loads
  run_w4({8, 30, 5120, kDense, Fmt::bf16, false, 3, 0, 3011}, 39);  // 5 producers, 20 whole k-tiles over 10 stages
  run_w4({5, 40, 4100, kTc, Fmt::fp32, true, 3, 0, 6811}, 40);      // consumer ring of 4 chunks: 17 k-tiles, byte loads
  run_w4({16, 24, 2848, kDense, Fmt::bf16, false, 3, 0, 6912}, 41);  // the same, NT 2: 12 k-tiles over 8, ragged
  run_w4({2, 20, 300, kTc, Fmt::bf16, true, 3, 0, 7111}, 42);       // the same, 6 producers, two k-tiles
  run_w4({16, 90, 2000, kTc, Fmt::bf16, false, 3, 0, 32412}, 43);   // flat, 3 stages: 8 k-tiles, ragged, cp.async
  run_w4({7, 50, 1500, kDense, Fmt::fp32, true, 3, 0, 32411}, 44);  // 4 tiles, 3 stages, byte loads
  run_w4({13, 70, 1100, kTc, Fmt::bf16, true, 3, 0, 2224}, 45);     // two token groups of 32, 13 rows of A
  run_w4({50, 40, 800, kDense, Fmt::fp32, false, 3, 0, 2724}, 46);  // two consumers of 32 tokens, 50 rows of A
  run_w4({16, 40, 5408, kTc, Fmt::bf16, true, 3, 0, 3012}, 47);     // 5 producers, 16 tokens, 4 scale copies:
                                                                     // 22 k-tiles over 10, cp.async, ragged
  run_w4({13, 33, 2600, kDense, Fmt::fp32, false, 3, 0, 3012}, 48);  // the same, 13 rows: 11 k-tiles, byte loads
}

// The register-A kernel (gemm_w4a16_rs.cu, bn 512 forces it; packed rows of
// B a multiple of 16 bytes: K = 32 j or 32 j - 1): the ring wraps (8 k-tiles
// over 6 stages), K odd (the last element's byte is masked), scale codes by
// cp.async (nkb % 4 == 0) and by byte loads (nkb = 3, dense).
TEST(GemmGateSanitizer, W4a16RegisterA) {
  REQUIRE_GPU();
  run_w4({130, 136, 511, kDense, Fmt::fp32, true, 3, 512}, 14);
  run_w4({70, 200, 95, kDense, Fmt::bf16, false, 3, 512}, 15);
  run_w4({300, 70, 128, kTc, Fmt::bf16, true, 3, 512}, 16);
  run_w4({130, 136, 224, kDense, Fmt::fp32, true, 3, 256}, 17);  // the warp-specialized kernel (bn 256) there
}

// The warp-specialized kernel's BM = 64 forms (decode_cols 6000 + BN with one
// producer warpgroup, 6100 + BN with two, 6300 + BN with four), one case each:
// stage rings that wrap (ST and RS per form: cfg::W4WsDecode), producer groups
// (G = 128 NP / GT > 1, each with its own raw ring: 6016 G 4, 6116 G 8,
// 6132 G 4, 6316 G 16, 6332 G 8, 6364 G 4, 6428 G 2, 6156 G 2, 6356 G 4) with
// raw rings that wrap
// and groups without a k-tile, ragged last k-tile, K below one k-tile, whole
// k-tiles, partial tiles in N; two k-tiles of wgmma in flight (10006356).
TEST(GemmGateSanitizer, W4a16WsDecode) {
  REQUIRE_GPU();
  run_w4({3, 40, 1224, kDense, Fmt::fp32, true, 3, 0, 6016}, 61);  // 20 k-tiles over 16 stages, ragged
  run_w4({17, 70, 1032, kTc, Fmt::bf16, false, 3, 0, 6032}, 62);   // 17 over 15, ragged
  run_w4({64, 130, 776, kDense, Fmt::fp32, false, 3, 0, 6064}, 63);  // 13 over 11, ragged
  run_w4({40, 200, 520, kTc, Fmt::bf16, true, 3, 0, 6128}, 64);    // 9 over 7, ragged
  run_w4({1, 24, 1096, kTc, Fmt::fp32, false, 3, 0, 6116}, 65);    // two producer warpgroups: 18 over 16
  run_w4({63, 33, 40, kDense, Fmt::bf16, true, 3, 0, 6132}, 66);   // K below one k-tile
  run_w4({5, 64, 2048, kDense, Fmt::bf16, false, 3, 0, 6164}, 67);  // 32 whole k-tiles over 11
  run_w4({64, 129, 512, kTc, Fmt::fp32, true, 3, 0, 6228}, 68);    // 8 whole k-tiles over 6
  run_w4({2, 24, 3208, kDense, Fmt::bf16, false, 3, 0, 6316}, 69);  // 51 k-tiles: 16 groups' raw rings of 3 wrap
  run_w4({33, 40, 2632, kTc, Fmt::fp32, true, 3, 0, 6332}, 70);    // 42 over 8 stages, 8 groups, ragged
  run_w4({64, 70, 1480, kDense, Fmt::fp32, false, 3, 0, 6364}, 71);  // 24 over 8, 4 groups (rings of 4 wrap)
  run_w4({17, 130, 72, kTc, Fmt::bf16, true, 3, 0, 6428}, 72);     // 2 k-tiles, one per group, ragged
  // BN 56 (m64n56; 2 BN = 112 chunks: groups of 128 threads, 16 idle): 6056 G 1, 6156 G 2, 6356 G 4
  run_w4({64, 120, 1480, kTc, Fmt::bf16, true, 3, 0, 6056}, 73);    // 24 over 12, ragged N (56 + 56 + 8)
  run_w4({29, 57, 2120, kDense, Fmt::fp32, false, 3, 0, 6156}, 74);  // 34 over 10, 2 groups, ragged
  run_w4({64, 113, 2632, kTc, Fmt::fp32, true, 3, 0, 6356}, 75);    // 42 over 8, 4 groups (rings of 4 wrap)
  // two k-tiles of wgmma in flight (10006356: 6356 with CW 2, the launcher's form where N / 56 blocks fit)
  run_w4({64, 113, 2632, kDense, Fmt::bf16, false, 3, 0, 10006356}, 77);  // 42 over 8, ragged N
  run_w4({33, 57, 136, kTc, Fmt::fp32, true, 3, 0, 10006356}, 78);        // 3 k-tiles: fewer than CW + 1 releases
  // TK k-tiles per consumer round trip (+ TK * 100000000): partial last groups, fewer k-tiles than stages, and
  // the first group partial (fewer k-tiles than TK)
  run_w4({64, 40, 1160, kDense, Fmt::fp32, true, 3, 0, 200006016}, 79);    // 19 over 16, TK 2: last group 1
  run_w4({33, 24, 136, kTc, Fmt::bf16, false, 3, 0, 400006016}, 80);       // 3 < TK 4: one partial group
  run_w4({48, 40, 1096, kDense, Fmt::bf16, true, 3, 0, 400006116}, 81);    // 18 over 16, TK 4: last group 2
  run_w4({40, 33, 392, kTc, Fmt::fp32, false, 3, 0, 200006316}, 82);       // 7 < 16, TK 2: last group 1
  run_w4({64, 20, 1480, kDense, Fmt::bf16, true, 3, 0, 400006116}, 83);    // 24 over 16, TK 4
  run_w4({35, 57, 320, kDense, Fmt::fp32, false, 3, 0, 200006356}, 86);    // 5 < 8, TK 2: last group 1
  run_w4({50, 24, 904, kTc, Fmt::fp32, true, 3, 0, 200006116}, 87);       // 15 over 16, 8 groups, TK 2
}

// ---- the full gate ------------------------------------------------------------

TEST(GemmGate, Mxfp8RaggedShapes) {
  REQUIRE_GPU();
  std::uint64_t seed = 100;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 1, 1}, {1, 8, 32}, {2, 7, 31},
                           {64, 128, 64}, {65, 129, 96}, {130, 257, 100}, {33, 300, 513}, {128, 128, 1024}})
      for (Fmt out : {Fmt::fp32, Fmt::bf16})
        run_fp8({r, m, n, k, (seed % 2) ? kTc : kDense, out, (seed % 3) != 0, 0}, seed++);
}

TEST(GemmGate, Mxfp8AlignedRaggedKTiles) {  // the cp.async path; K past the last k-tile's 4 blocks
  REQUIRE_GPU();
  std::uint64_t seed = 150;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{1, 16, 16}, {16, 64, 48}, {64, 200, 208},
                           {65, 128, 336}, {200, 136, 400}, {129, 257, 1040}})
      run_fp8({r, m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0, 2}, seed++);
}

TEST(GemmGate, Mxfp8SmallM) {
  REQUIRE_GPU();
  for (std::int64_t m = 1; m <= 17; ++m)
    run_fp8({m % 2 ? "mxfp8_e4m3" : "mxfp8_e5m2", m, 72, 160 + m, m % 3 ? kDense : kTc, Fmt::fp32, m % 2 == 0, 0},
            200 + static_cast<std::uint64_t>(m));
}

TEST(GemmGate, Mxfp8Specials) {
  REQUIRE_GPU();
  std::uint64_t seed = 300;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (int planted : {4, 40})
      for (Fmt out : {Fmt::fp32, Fmt::bf16}) run_fp8({r, 70, 140, 200, kDense, out, true, planted}, seed++);
}

TEST(GemmGate, Mxfp8ExtremeScalesZeroBlocksCancellation) {
  REQUIRE_GPU();
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"}) {
    SCOPED_TRACE(r);
    const std::int64_t m = 64, n = 64, k = 128;
    auto xa = random_matrix(m, k, 7), xb = random_matrix(n, k, 8);
    for (std::int64_t i = 0; i < k; ++i) {
      xa[static_cast<std::size_t>(5 * k + i)] = 0.0f;  // all-zero row of A
      xb[static_cast<std::size_t>(9 * k + i)] = (i % 2 ? -1.0f : 1.0f) * xb[static_cast<std::size_t>(9 * k + i - i % 2)];
      xa[static_cast<std::size_t>(9 * k + i)] = 3.0f;   // A row 9 . B row 9 cancels pairwise
    }
    mx::Quantized a = quantize(r, xa, m, k, kDense), b = quantize(r, xb, n, k, kDense);
    for (std::int64_t row = 0; row < 16; ++row)  // scales at both ends of the range
      for (std::int64_t kb = 0; kb < 4; ++kb) {
        a.scales[static_cast<std::size_t>(row * 4 + kb)] = static_cast<std::uint8_t>(row % 2 ? 0xFE : 0x00);
        b.scales[static_cast<std::size_t>(row * 4 + kb)] = static_cast<std::uint8_t>(kb % 2 ? 0xFE : 0x01);
      }
    const auto want = mx::c11_mxfp8_gemm(mx::c11_unpack(a), mx::c11_unpack(b), nullptr, Fmt::fp32, 4);
    for (std::uint8_t poison : {std::uint8_t{0x7F}, std::uint8_t{0xA5}})
      ASSERT_EQ(first_diffs(mxk::mxfp8_gemm_device(a, b, nullptr, Fmt::fp32, poison), want, n), "");
  }
}

// The warp-specialized M > 64 kernels (TMA: rows of A, and of B for mxfp8,
// 16-byte aligned, i.e. K % 16 == 0 for mxfp8 and K % 8 == 0 for w4a16 here):
// ragged M, N and K against the tiles, rings that wrap, specials.
TEST(GemmGate, Mxfp8WarpSpecialized) {
  REQUIRE_GPU();
  std::uint64_t seed = 700;
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e5m2"})
    for (auto [m, n, k] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{65, 129, 16}, {65, 129, 96},
                           {130, 257, 528}, {257, 300, 1040}, {128, 128, 2048}, {200, 64, 48},
                           {192, 136, 1088},   // 8 whole k-tiles, then a last one of 2 k-blocks
                           {1100, 2000, 160}})  // 144 tiles: blocks of the persistent kernel take two
      run_fp8({r, m, n, k, (seed % 2) ? kTc : kDense, (seed % 3) ? Fmt::fp32 : Fmt::bf16, seed % 2 == 0,
               static_cast<int>(seed % 4 == 0 ? 40 : seed % 4)},
              seed++);
}

TEST(GemmGate, Errors) {
  REQUIRE_GPU();
  const auto x = random_matrix(4, 64, 1);
  const mx::Quantized a = quantize("mxfp8_e4m3", x, 4, 64, kDense);
  const mx::Quantized b5 = quantize("mxfp8_e5m2", x, 4, 64, kDense);
  const mx::Quantized b32 = quantize("mxfp8_e4m3", random_matrix(4, 32, 2), 4, 32, kDense);
  EXPECT_THROW(mxk::mxfp8_gemm_device(a, b5, nullptr, Fmt::fp32), mx::InvalidArgument);
  EXPECT_THROW(mxk::mxfp8_gemm_device(a, b32, nullptr, Fmt::fp32), mx::ShapeError);
  EXPECT_THROW(mxk::mxfp8_gemm_device(a, a, nullptr, Fmt::fp16), mx::InvalidArgument);
  EXPECT_THROW(mxk::w4a16_gemm_device(nullptr, 0, a, nullptr, Fmt::fp32), mx::InvalidArgument);
  const mx::Quantized b4 = quantize("mxfp4", x, 4, 64, kDense);
  const std::vector<std::uint16_t> a16(4 * 64, 0x3F80);
  EXPECT_THROW(mxk::w4a16_gemm_device(a16.data(), 4, b4, nullptr, Fmt::fp32, 0x7F, 0, 2999), mx::InvalidArgument);
  EXPECT_THROW(mxk::w4a16_gemm_device(a16.data(), 4, b4, nullptr, Fmt::fp32, 0x7F, 0, 2112), mx::InvalidArgument);
  EXPECT_THROW(mxk::w4a16_gemm_device(a16.data(), 4, b4, nullptr, Fmt::fp32, 0x7F, 0, 6048), mx::InvalidArgument);
  // the warp-specialized M <= 64 forms read A by TMA: rows of 2 K bytes, K = 60 is not a multiple of 16 bytes
  const mx::Quantized b60 = quantize("mxfp4", random_matrix(4, 60, 3), 4, 60, kDense);
  const std::vector<std::uint16_t> a60(4 * 60, 0x3F80);
  EXPECT_THROW(mxk::w4a16_gemm_device(a60.data(), 4, b60, nullptr, Fmt::fp32, 0x7F, 0, 6032), mx::InvalidArgument);
}

}  // namespace
