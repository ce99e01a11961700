// mx/pack.hpp - packing of element codes into bytes (SPEC C6).
//
// Packing is per row: each row of a quantized tensor starts on a byte
// boundary (an odd-length e2m1 row pads the last high nibble with 0; an fp6
// row pads its last byte with zero bits).
#pragma once

#include <cstdint>
#include <string_view>

#include "mx/format.hpp"

namespace mx {

enum class Packing : std::uint8_t {
  packed,      // default: e2m1 two per byte (low nibble first), fp6 6-bit LE stream, 8-bit one per byte
  container8,  // one code per byte; e2m1 in bits 5..2, e3m2/e2m3 in bits 5..0 (kind::mxf8f6f4)
};

std::string_view packing_name(Packing p);
Packing parse_packing(std::string_view s);  // throws UnknownName

// Bytes of one packed row of n codes.
std::int64_t packed_row_bytes(Fmt f, std::int64_t n, Packing p);
// Pack n codes (one code per input byte, low bits) into packed_row_bytes bytes.
// Every output byte of the row is written (padding bits zero).
void pack_row(Fmt f, const std::uint8_t* codes, std::int64_t n, Packing p, std::uint8_t* out);
// Inverse of pack_row.
void unpack_row(Fmt f, const std::uint8_t* in, std::int64_t n, Packing p, std::uint8_t* codes);

}  // namespace mx
