// util.hpp - small helpers shared by the mxconform tools: whole-file I/O with
// atomic writes (temp name + rename, so a failed command never leaves a partial
// output), fixed-width lowercase hex, SHA-256 (OpenSSL EVP), a seeded PRNG.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mxv {

// Reads a whole file; throws mx::ParseError("FILE: cannot read: reason").
std::string read_file(const std::string& path);
// Writes bytes to `path` through a temporary file in the same directory and a
// rename; on any failure the temporary is removed and mx::Error is thrown.
void write_file_atomic(const std::string& path, std::string_view bytes);
// Creates a directory and its parents; throws mx::Error naming the directory.
void make_dirs(const std::string& path);

// Fixed-width lowercase hex of the low `digits` nibbles of v.
std::string hex(std::uint64_t v, int digits);
void append_hex(std::string& s, std::uint64_t v, int digits);
// Parses exactly `digits` lowercase hex digits; false if anything else.
bool parse_hex(std::string_view s, int digits, std::uint64_t* out);
// Parses a decimal integer without sign or leading zeros (except "0").
bool parse_dec(std::string_view s, std::int64_t* out);

// SHA-256 of bytes as 64 lowercase hex digits (OpenSSL EVP).
std::string sha256_hex(std::string_view bytes);

// splitmix64: deterministic on every platform, no distributions involved.
__extension__ typedef unsigned __int128 RngU128;  // GCC/Clang extension

struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint32_t u32() { return static_cast<std::uint32_t>(next() >> 32); }
  // Uniform in [0, n) (n > 0), by rejection-free multiply-shift.
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<RngU128>(next()) * n) >> 64);
  }
};

}  // namespace mxv
