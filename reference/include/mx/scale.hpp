// mx/scale.hpp - ue8m0 block scale from a block's amax (SPEC C3).
#pragma once

#include <cstdint>
#include <string_view>

#include "mx/convert.hpp"
#include "mx/format.hpp"

namespace mx {

enum class ScaleRule : std::uint8_t { floor, ceil, even, rceil };
enum class NonFiniteBlock : std::uint8_t { nonfinite_block_nan, nonfinite_block_ignore };

std::string_view scale_rule_name(ScaleRule r);
ScaleRule parse_scale_rule(std::string_view s);  // throws UnknownName

// Unbiased scale exponent e for a finite amax > 0 (before clamping), per rule.
// amax is an fp32 bit pattern (sign ignored).
int scale_exponent_unclamped(std::uint32_t amax_bits, Fmt elem, ScaleRule rule);

// The ue8m0 code for a finite amax (amax == 0 -> 0x00, clamping to
// [-127, 127], code = e + 127).
std::uint8_t scale_code_finite(std::uint32_t amax_bits, Fmt elem, ScaleRule rule);

// Scale of one block of fp32 bit patterns.
struct BlockScale {
  std::uint8_t code = 0;  // what is written (0xFF for a non-finite block under _nan)
  int exp = -127;         // exponent the elements are scaled by: V_i * 2^-exp
  bool nonfinite = false; // some element was NaN or +-Inf
  std::uint32_t amax_bits = 0;  // amax over finite elements (fp32 bits)
};
BlockScale block_scale(const std::uint32_t* x, std::int64_t n, std::int64_t stride, Fmt elem,
                       ScaleRule rule, NonFiniteBlock nfb);

// floor(log2 |x|) of a finite nonzero fp32 bit pattern, exactly from the bits
// (subnormals included).
int floor_log2_f32(std::uint32_t bits);

}  // namespace mx
