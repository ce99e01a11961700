// oracle_internal.hpp - shared between the oracle's own source files only.
#pragma once

#include <cstdint>

namespace mxo::detail {
// RNE of (-1)^neg * (sig + sticky * eps) * 2^exp into fp32 bits; eps is
// below the last bit of sig (sig must carry at least 2 bits below fp32's
// precision when sticky is set).
__extension__ typedef unsigned __int128 u128;
std::uint32_t round_fp32_parts(bool neg, u128 sig, bool sticky, std::int64_t exp);
// One fp32 multiplication / division of fp32 bits: the exact result rounded
// once with RNE; a NaN result (NaN operand, Inf * 0, 0 / 0, Inf / Inf) is
// the canonical quiet NaN 0x7FC00000.
std::uint32_t fp32_mul(std::uint32_t a, std::uint32_t b);
std::uint32_t fp32_div(std::uint32_t a, std::uint32_t b);
}  // namespace mxo::detail
