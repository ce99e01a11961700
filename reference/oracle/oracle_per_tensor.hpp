// oracle_per_tensor.hpp - the slow exact oracle for per-tensor FP8 with
// current scaling (reference/SPEC.md C12). Tests only; shares no code with
// libmxref (includes no mx/*.hpp). Every fp32 operation of C12 is modelled
// exactly: the exact product or quotient, then one RNE rounding to fp32.
#pragma once

#include <cstdint>
#include <vector>

#include "oracle.hpp"

namespace mxo {

struct PerTensor {
  std::uint32_t amax = 0, scale = 0, scale_inv = 0;  // fp32 bits
  std::vector<std::uint8_t> codes;
};

// C12 steps 1-3 over fp32 bit patterns (bf16/fp16 inputs widened exactly
// first); f is Fmt::e4m3 or Fmt::e5m2.
PerTensor per_tensor(Fmt f, const std::vector<std::uint32_t>& x);
// C12 step 2 alone.
void per_tensor_scale(Fmt f, std::uint32_t amax_bits, std::uint32_t* scale, std::uint32_t* scale_inv);
// C12 step 4: bits of `out` (fp32, bf16 or fp16) for one code.
std::uint32_t per_tensor_dequant(Fmt f, std::uint8_t code, std::uint32_t scale_inv, Fmt out);

}  // namespace mxo
