// xcheck/inputs.hpp - input sets for the sampled cross-checks (STYLE 5:
// structured inputs beat uniform random ones).
//
// structured_f32(): every fp32 exponent (all 256, both signs) times a table
// of significand patterns: 16 leading-bit prefixes OR'd with single bits,
// runs of ones and their neighbours at every position, which puts every
// rounding boundary of every format (midpoints, midpoint +- 1 ulp of fp32,
// values just below/above each code) in the set. random_f32(i): uniform bits
// from splitmix64, deterministic in i.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace xcheck {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline std::uint32_t random_f32(std::uint64_t i, std::uint64_t seed = 0x6D78636F6E666F72ull) {
  return static_cast<std::uint32_t>(splitmix64(seed ^ (i * 0x2545F4914F6CDD1Dull)) >> 16);
}

inline std::vector<std::uint32_t> significand_patterns() {
  std::vector<std::uint32_t> low = {0u, 0x7FFFFFu};
  for (int k = 0; k < 23; ++k) {
    const std::uint32_t b = 1u << k;
    for (std::uint32_t v : {b, b - 1u, b + 1u, (b << 1) - 1u, 0x7FFFFFu ^ b, 0x7FFFFFu ^ (b - 1u)}) {
      low.push_back(v & 0x7FFFFFu);
    }
  }
  std::vector<std::uint32_t> out;
  for (std::uint32_t hi = 0; hi < 16; ++hi) {
    for (std::uint32_t l : low) {
      out.push_back(((hi << 19) | l) & 0x7FFFFFu);
      out.push_back(((hi << 19) ^ l) & 0x7FFFFFu);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

inline std::vector<std::uint32_t> structured_f32() {
  const auto sig = significand_patterns();
  std::vector<std::uint32_t> out;
  out.reserve(2 * 256 * sig.size());
  for (std::uint32_t s = 0; s < 2; ++s) {
    for (std::uint32_t e = 0; e < 256; ++e) {
      for (std::uint32_t m : sig) out.push_back((s << 31) | (e << 23) | m);
    }
  }
  return out;
}

// Case i of a sampled set: the structured inputs first, then uniform bits.
struct SampledF32 {
  std::vector<std::uint32_t> structured = structured_f32();
  std::uint64_t n_random = 0;
  std::uint64_t size() const { return structured.size() + n_random; }
  std::uint32_t operator()(std::uint64_t i) const {
    return i < structured.size() ? structured[i] : random_f32(i);
  }
};

}  // namespace xcheck
