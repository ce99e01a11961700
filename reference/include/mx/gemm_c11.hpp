// mx/gemm_c11.hpp - the block-scaled GEMM models for sm_90 (SPEC C11).
//
// Hopper has no block-scaled MMA, so an MX GEMM there is built from plain
// wgmma instructions plus scale arithmetic. C11 fixes the result bit for bit:
//
//   mxfp8  per 32-wide k-block b (increasing): p = the H100 fp8 wgmma model
//          (mx::hw_dot, group 32, 13 bits) over the block from +0;
//          s = 2^(ea + eb - 254) in fp32 (0 below 2^-149, +Inf above 2^127,
//          NaN if either code is 0xff); acc = fmaf(p, s, acc), acc = C or +0.
//   w4a16  B (e2m1, ue8m0) widened to bf16 exactly (+-Inf beyond bf16, NaN
//          for a 0xff scale); D = the H100 bf16 wgmma model (group 16 with
//          the accumulator) over K, acc = C or +0.
//
// Both: a ragged last k-block / k-step is zero-padded (zero products change
// nothing), D is acc rounded with RNE to fp32 or bf16, and a NaN result is
// written as the canonical quiet NaN (fp32 0x7fc00000, bf16 0x7fc0).
// No CUDA here; the kernels in kernels/gemm are gated against these.
#pragma once

#include <cstdint>
#include <vector>

#include "mx/format.hpp"
#include "mx/gemm.hpp"
#include "mx/hw_model.hpp"
#include "mx/quantize.hpp"

namespace mx {

// C11 s: 2^(ea + eb - 254) as fp32 (the ldexpf of C11), NaN for a 0xff code.
float c11_block_scale(std::uint8_t ea, std::uint8_t eb);

// C11 w4a16 widening of one e2m1 code (low 4 bits) under ue8m0 scale `e`:
// bf16 bits of decode(e2m1) * 2^(e - 127) (exact; +-Inf beyond bf16 range;
// 0x7fc0 for e = 0xff).
std::uint16_t c11_widen_e2m1(std::uint8_t code, std::uint8_t e);

// Output bits of a final accumulator: fp32 bits, or bf16 bits (RNE) in the
// low 16 bits; NaN canonical. `out` is Fmt::fp32 or Fmt::bf16.
std::uint32_t c11_output_bits(float acc, Fmt out);

// The fitted fp8 wgmma model of the element format (h100_fitted_model of the
// e4m3 or e5m2 m64n8k32 form: group 32, 13 bits).
HwModelParams c11_fp8_params(Fmt elem = Fmt::e4m3);
// The bf16 wgmma model (group 16 with the accumulator, 25 bits).
HwModelParams c11_bf16_params();

// An operand unpacked from a quantize result: one element code per byte
// ([rows][k] row-major, e2m1 codes in the low nibble) and dense
// [rows][ceil(k/32)] ue8m0 scales, whatever layout/packing the source had.
struct C11Operand {
  Fmt elem = Fmt::e4m3;
  std::int64_t rows = 0, k = 0, nkb = 0;
  std::vector<std::uint8_t> codes;
  std::vector<std::uint8_t> scales;
  ScaledOperand view() const;  // for mx::exact_gemm
};
// Requires a rowwise MX recipe with V = 32 and batch 1; throws InvalidArgument.
C11Operand c11_unpack(const Quantized& q);

// mxfp8 model: A [M][K], B [N][K] (same element format, e4m3 or e5m2); C
// [M][N] fp32 or null. Returns [M][N] output bits (see c11_output_bits).
std::vector<std::uint32_t> c11_mxfp8_gemm(const C11Operand& a, const C11Operand& b, const float* c, Fmt out,
                                          int threads = 1);
// One fp32 accumulator of the mxfp8 model (before output rounding).
float c11_mxfp8_acc(const C11Operand& a, std::int64_t m, const C11Operand& b, std::int64_t n, float c);

// w4a16 model: A bf16 bits [M][K], B e2m1 [N][K]; C [M][N] fp32 or null.
std::vector<std::uint32_t> c11_w4a16_gemm(const std::uint16_t* a_bf16, std::int64_t m, const C11Operand& b,
                                          const float* c, Fmt out, int threads = 1);
float c11_w4a16_acc(const std::uint16_t* a_row, const C11Operand& b, std::int64_t n, float c);

// C9 `exact` of the w4a16 product (A bf16 times the widened B, exactly,
// rounded once to fp32 RNE), for the distance report. fp32 bits [M][N].
std::vector<std::uint32_t> c11_w4a16_exact(const std::uint16_t* a_bf16, std::int64_t m, const C11Operand& b,
                                           const float* c, int threads = 1);

// Distance between two fp32 results: |ordered(a) - ordered(b)| in units in
// the last place (the fp32 bit patterns as a monotone integer line; NaN or
// Inf on either side counts as differing and is reported in `special`).
struct UlpStats {
  std::int64_t count = 0, differ = 0, special = 0;
  double max_ulp = 0, mean_ulp = 0;  // over the finite pairs
};
UlpStats c11_ulp_stats(const std::vector<std::uint32_t>& model, const std::vector<std::uint32_t>& exact);

}  // namespace mx
