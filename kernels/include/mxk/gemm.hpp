// mxk/gemm.hpp - the block-scaled GEMM kernels for sm_90a (reference/SPEC.md
// C11), gated bit for bit against the C11 models of mx/gemm_c11.hpp.
//
//   mxfp8  D[M][N] = A[M][K] * B[N][K]^T (+ C), A and B MXFP8 (e4m3 or e5m2,
//          both the same), rowwise along K, ue8m0 scales dense or tcgen05.
//   w4a16  D[M][N] = A[M][K] (bf16) * B[N][K]^T (+ C), B MXFP4 (packed e2m1,
//          two per byte, ue8m0 scales dense or tcgen05).
// D is fp32 or bf16; C (optional) is fp32 [M][N]. The kernels use wgmma and
// run only on sm_90 devices (binaries built for sm_90a); elsewhere every
// launcher throws mx::InvalidArgument with the reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mx/format.hpp"
#include "mx/layout.hpp"
#include "mx/quantize.hpp"

namespace mxk {

// True on an sm_90 device with kernels built for sm_90a; otherwise false
// with the reason.
bool gemm_available(std::string* why);

// ---- device-pointer launchers (no copies, no synchronization) -------------

struct GemmMxOperand {           // one block-scaled operand in device memory
  const std::uint8_t* data = nullptr;  // [rows][ld] bytes (e2m1: packed, 2 per byte)
  std::int64_t ld = 0;                 // bytes per row
  const std::uint8_t* scales = nullptr;
  mx::ScaleLayout layout = mx::ScaleLayout::dense;  // dense or tcgen05
};

struct Mxfp8GemmArgs {
  std::int64_t m = 0, n = 0, k = 0;
  mx::Fmt elem = mx::Fmt::e4m3;  // e4m3 or e5m2 (A and B)
  GemmMxOperand a, b;
  const float* c = nullptr;      // [m][n] fp32 or null
  void* d = nullptr;             // [m][n] fp32 or bf16
  mx::Fmt out = mx::Fmt::fp32;
};
void mxfp8_gemm_launch(const Mxfp8GemmArgs& args, void* stream = nullptr);

struct W4a16GemmArgs {
  std::int64_t m = 0, n = 0, k = 0;
  const std::uint16_t* a = nullptr;  // [m][lda] bf16 bits
  std::int64_t lda = 0;              // elements per row of A
  GemmMxOperand b;                   // e2m1 packed
  const float* c = nullptr;
  void* d = nullptr;
  mx::Fmt out = mx::Fmt::fp32;
  int bn = 0;  // M <= 64: tile width 16, 32 or 64 (128 = 64) of the shared-memory kernel; 0 = the decode kernel;
              // M > 64: 0 = the register-A kernel where TMA can read A and packed B, else the
              // warp-specialized kernel where TMA can read A, else (and for any other bn) the
              // 128 x 128 kernel without TMA; 256 / 512 force the warp-specialized / the register-A
              // kernel where TMA can read the operands (the benchmark's comparison).
  // M <= 64, bn == 0: 0 = choose the kernel and its form (16 < M <= 64 with A
  // readable by TMA: the warp-specialized forms below, cfg::w4_ws_decode_code); the wgmma decode
  // kernel with rows of A per block 8, 16, 32 or 64, plus 1000 for the
  // two-warpgroup form (1000 alone: that kernel, its own choice); 2000 + form:
  // the mma.sync kernel (form 100 TR + 10 TG + NT, kernels/gemm/gemm_config.hpp
  // cfg::W4Mma; 2000 alone: its own choice); 6000 / 6100 / 6300 + BN (BN 16,
  // 32, 56, 64, 128): the warp-specialized kernel's 64 x BN tiles with one / two /
  // four producer warpgroups, 10006356 the 64 x 56 form with two k-tiles of
  // wgmma in flight, + TK x 100000000 (TK 2 or 4) the forms that take TK
  // k-tiles per consumer barrier round trip (200006016, 400006016, 200006116,
  // 400006116, 200006316, 200006356) (A by TMA: InvalidArgument where TMA
  // cannot read it).
  // The bits never depend on bn or decode_cols.
  int decode_cols = 0;
};
void w4a16_gemm_launch(const W4a16GemmArgs& args, void* stream = nullptr);

// ---- host convenience (copies in, runs, copies out; for the CLI and gate) --
// Outputs are the raw bits per element (fp32 bits, or bf16 bits in the low
// 16 bits), as mx::c11_*_gemm return them. The device output buffer is filled
// with `poison` bytes before the launch, so an unwritten element shows.

std::vector<std::uint32_t> mxfp8_gemm_device(const mx::Quantized& a, const mx::Quantized& b, const float* c,
                                             mx::Fmt out, std::uint8_t poison = 0x7F);
std::vector<std::uint32_t> w4a16_gemm_device(const std::uint16_t* a_bf16, std::int64_t m, const mx::Quantized& b,
                                             const float* c, mx::Fmt out, std::uint8_t poison = 0x7F, int bn = 0,
                                             int decode_cols = 0);

}  // namespace mxk
