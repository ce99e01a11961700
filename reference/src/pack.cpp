// pack.cpp - SPEC C6 packing.
#include "mx/pack.hpp"

#include <string>

#include "mx/error.hpp"

namespace mx {

std::string_view packing_name(Packing p) { return p == Packing::packed ? "packed" : "container8"; }

Packing parse_packing(std::string_view s) {
  if (s == "packed") return Packing::packed;
  if (s == "container8") return Packing::container8;
  throw UnknownName("unknown packing '" + std::string(s) + "' (expected packed or container8)");
}

std::int64_t packed_row_bytes(Fmt f, std::int64_t n, Packing p) {
  if (n < 0) throw ShapeError("negative row length");
  const int bits = desc(f).bits;
  if (p == Packing::container8 || bits == 8) return n;
  if (bits == 4) return (n + 1) / 2;
  if (bits == 6) return (n * 6 + 7) / 8;  // n < 2^60 by the callers' shape checks
  throw InvalidArgument("format has no packing");
}

void pack_row(Fmt f, const std::uint8_t* codes, std::int64_t n, Packing p, std::uint8_t* out) {
  const int bits = desc(f).bits;
  if (n > 0 && (codes == nullptr || out == nullptr)) throw InvalidArgument("pack_row: null codes or output pointer");
  if (p == Packing::container8) {
    // C6 container8: e2m1 in bits 5..2, fp6 in bits 5..0, 8-bit unchanged.
    const int sh = bits == 4 ? 2 : 0;
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(codes[i] << sh);
    return;
  }
  if (bits == 8) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = codes[i];
    return;
  }
  const std::int64_t nb = packed_row_bytes(f, n, p);
  for (std::int64_t i = 0; i < nb; ++i) out[i] = 0;
  if (bits == 4) {
    // element 2i in bits 3..0, element 2i+1 in bits 7..4
    for (std::int64_t i = 0; i < n; ++i) {
      out[i / 2] = static_cast<std::uint8_t>(out[i / 2] | ((codes[i] & 0xF) << ((i & 1) * 4)));
    }
    return;
  }
  // bits == 6: element i in bits [6i, 6i+6) of a little-endian bit stream.
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t bit = 6 * i;
    const std::uint32_t v = codes[i] & 0x3Fu;
    const std::int64_t byte = bit / 8;
    const int off = static_cast<int>(bit % 8);
    out[byte] = static_cast<std::uint8_t>(out[byte] | (v << off));
    if (off > 2) out[byte + 1] = static_cast<std::uint8_t>(out[byte + 1] | (v >> (8 - off)));
  }
}

void unpack_row(Fmt f, const std::uint8_t* in, std::int64_t n, Packing p, std::uint8_t* codes) {
  const int bits = desc(f).bits;
  if (n > 0 && (in == nullptr || codes == nullptr)) throw InvalidArgument("unpack_row: null input or codes pointer");
  if (p == Packing::container8) {
    const int sh = bits == 4 ? 2 : 0;
    const std::uint8_t mask = static_cast<std::uint8_t>(bits == 8 ? 0xFF : (1u << bits) - 1u);
    for (std::int64_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint8_t>((in[i] >> sh) & mask);
    return;
  }
  if (bits == 8) {
    for (std::int64_t i = 0; i < n; ++i) codes[i] = in[i];
    return;
  }
  if (bits == 4) {
    for (std::int64_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint8_t>((in[i / 2] >> ((i & 1) * 4)) & 0xF);
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t bit = 6 * i;
    const std::int64_t byte = bit / 8;
    const int off = static_cast<int>(bit % 8);
    std::uint32_t v = static_cast<std::uint32_t>(in[byte]) >> off;
    if (off > 2) v |= static_cast<std::uint32_t>(in[byte + 1]) << (8 - off);
    codes[i] = static_cast<std::uint8_t>(v & 0x3Fu);
  }
}

}  // namespace mx
