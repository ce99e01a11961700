// mx/gemm.hpp - the exact block-scaled dot product and GEMM (SPEC C9).
//
// D[m][n] = C[m][n] + sum_b XA[m][b] * XB[n][b] * sum_{i in b} PA[m][i] * PB[n][i]
// computed without any intermediate rounding (a 832-bit fixed-point
// accumulator holds every term exactly) and rounded once to fp32 with RNE.
// NaN scales and NaN/Inf elements propagate as IEEE arithmetic would.
#pragma once

#include <cstdint>
#include <vector>

#include "mx/format.hpp"

namespace mx {

// One block-scaled operand: rows x K element codes (one code per byte,
// unpacked), and a dense [rows][ceil(K/V)] matrix of scale codes.
struct ScaledOperand {
  Fmt elem = Fmt::e4m3;
  Fmt scale_fmt = Fmt::ue8m0;  // ue8m0 (MX) or ue4m3 (NVFP4)
  int block = 32;
  std::int64_t rows = 0, k = 0;
  const std::uint8_t* codes = nullptr;
  const std::uint8_t* scales = nullptr;
  float global_scale = 1.0f;  // NVFP4 tensor factor (S_dec); 1 for MX
};

// Exact dot product of row m of A and row n of B plus c, rounded once.
float exact_dot(const ScaledOperand& a, std::int64_t m, const ScaledOperand& b, std::int64_t n,
                float c = 0.0f);

// D = C + A * B^T (A: [M, K], B: [N, K]); C may be null (zero). Returns D
// [M][N] row-major.
std::vector<float> exact_gemm(const ScaledOperand& a, const ScaledOperand& b, const float* c = nullptr);

}  // namespace mx
