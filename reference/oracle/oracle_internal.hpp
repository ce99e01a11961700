// oracle_internal.hpp - shared between the oracle's own source files only.
#pragma once

#include <cstdint>

namespace mxo::detail {
// RNE of (-1)^neg * (sig + sticky * eps) * 2^exp into fp32 bits; eps is
// below the last bit of sig (sig must carry at least 2 bits below fp32's
// precision when sticky is set).
__extension__ typedef unsigned __int128 u128;
std::uint32_t round_fp32_parts(bool neg, u128 sig, bool sticky, std::int64_t exp);
}  // namespace mxo::detail
