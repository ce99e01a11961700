// gpu_gate_inputs.cpp - deterministic inputs for the `gpu` gate: random
// bits over several exponent ranges, specials (NaN, Inf, -0, subnormals,
// all-zero blocks) and structured midpoints between adjacent element codes
// (SPEC C2 ties), plus byte comparison with a readable first difference.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "gpu_gate.hpp"
#include "mx/convert.hpp"

namespace gate {

const char* dist_name(Dist d) {
  switch (d) {
    case Dist::uniform: return "uniform";
    case Dist::wide: return "wide";
    case Dist::tiny: return "tiny";
    case Dist::special: return "special";
    case Dist::midpoints: return "midpoints";
  }
  return "?";
}

namespace {

// fp32 bits with the given unbiased exponent (subnormal below -126) and
// random mantissa.
std::uint32_t f32_with_exp(std::mt19937_64& g, int e) {
  const std::uint32_t sign = static_cast<std::uint32_t>(g() & 1u) << 31;
  const std::uint32_t mant = static_cast<std::uint32_t>(g()) & 0x7FFFFFu;
  if (e >= -126) return sign | (static_cast<std::uint32_t>(e + 127) << 23) | mant;
  const int sh = -126 - e;  // subnormal: shift the significand down
  const std::uint32_t m = sh >= 24 ? 1u : ((0x800000u | mant) >> sh);
  return sign | (m ? m : 1u);
}

void store(Input& in, std::int64_t i, std::uint32_t f32) {
  switch (in.type) {
    case mx::InType::f32: std::memcpy(in.bytes.data() + 4 * i, &f32, 4); break;
    case mx::InType::bf16: {
      std::uint16_t h;
      if ((f32 & 0x7FFFFFFFu) > 0x7F800000u) {
        h = static_cast<std::uint16_t>((f32 >> 16) | 0x40u);  // keep sign and NaN-ness
      } else {
        h = mx::f32_to_bf16_rne(mx::bits_f32(f32));
      }
      std::memcpy(in.bytes.data() + 2 * i, &h, 2);
      break;
    }
    case mx::InType::f16: {
      std::uint16_t h;
      if ((f32 & 0x7FFFFFFFu) > 0x7F800000u) {
        h = static_cast<std::uint16_t>(((f32 >> 16) & 0x8000u) | 0x7E01u);
      } else {
        h = mx::f32_to_f16_rne(mx::bits_f32(f32));
      }
      std::memcpy(in.bytes.data() + 2 * i, &h, 2);
      break;
    }
  }
}

}  // namespace

Input make_input(Dist d, mx::InType t, std::int64_t batch, std::int64_t rows, std::int64_t cols, mx::Fmt elem,
                 std::uint64_t seed) {
  Input in;
  in.type = t;
  in.batch = batch;
  in.rows = rows;
  in.cols = cols;
  const std::int64_t n = batch * rows * cols;
  in.bytes.assign(static_cast<std::size_t>(n) * mx::in_type_bytes(t), 0);
  std::mt19937_64 g(seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(d) * 7919u + static_cast<std::uint64_t>(t));
  // exponent ranges the input type can hold
  const int lo = t == mx::InType::f16 ? -24 : (t == mx::InType::bf16 ? -133 : -149);
  const int hi = t == mx::InType::f16 ? 15 : 127;
  // midpoints between adjacent non-negative codes of `elem` (and the codes)
  std::vector<float> mids;
  float maxf = 0.0f;
  if (d == Dist::midpoints) {
    const int ncodes = elem == mx::Fmt::int8 ? 128 : (1 << (mx::desc(elem).bits - 1));
    std::vector<float> vals;
    for (int c = 0; c < ncodes; ++c) {
      const float v = mx::decode(elem, static_cast<std::uint32_t>(c));
      if (v == v && v < 3.0e38f) vals.push_back(v);
    }
    for (std::size_t i = 0; i + 1 < vals.size(); ++i) {
      mids.push_back(vals[i]);
      mids.push_back(0.5f * (vals[i] + vals[i + 1]));
    }
    maxf = vals.back();
    mids.push_back(maxf);
    mids.push_back(maxf * 1.03125f);  // just above max finite (C2 overflow after rounding)
    if (elem == mx::Fmt::e4m3) mids.push_back(464.0f);
  }
  const int k_shift = static_cast<int>(g() % 7) - 3;  // per-tensor power of two for midpoints
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t c = i % cols, r = (i / cols) % rows;
    std::uint32_t v = 0;
    switch (d) {
      case Dist::uniform: v = f32_with_exp(g, static_cast<int>(g() % 21) - 10); break;
      case Dist::wide: v = f32_with_exp(g, lo + static_cast<int>(g() % static_cast<std::uint64_t>(hi - lo + 1))); break;
      case Dist::tiny: v = f32_with_exp(g, lo + static_cast<int>(g() % 24)); break;
      case Dist::special: {
        const std::uint64_t pick = g() % 40;
        const std::int64_t blk = (r / 32) * 1000 + c / 32;
        if ((blk % 5) == 3) {  // all-zero blocks (both signs)
          v = (g() & 1u) ? 0x80000000u : 0u;
        } else if (pick == 0) {
          v = 0x7FC00000u | ((g() & 1u) << 31);  // NaN
        } else if (pick == 1) {
          v = 0x7F800000u | ((g() & 1u) << 31);  // Inf
        } else if (pick == 2) {
          v = 0x80000000u;  // -0
        } else if (pick == 3) {
          v = f32_with_exp(g, lo);  // smallest subnormals of the type
        } else if (pick == 4) {
          v = t == mx::InType::f16 ? 0x477FE000u : 0x7F7F0000u;  // near max of the type
        } else if (pick < 20) {
          v = f32_with_exp(g, static_cast<int>(g() % 41) - 20);
        } else {
          v = f32_with_exp(g, lo + static_cast<int>(g() % 30));  // tiny next to larger ones
        }
        break;
      }
      case Dist::midpoints: {
        float x;
        if (r % 32 == 0 || c % 32 == 0) {
          x = maxf;  // every 32-block along either axis holds max finite: fixes the scale
        } else {
          x = mids[static_cast<std::size_t>(g() % mids.size())];
        }
        x = std::ldexp(x, k_shift);
        std::uint32_t b = mx::f32_bits(x);
        const std::uint64_t nb = g() % 4;  // neighbours one fp32 ulp away
        if (nb == 1 && (b & 0x7FFFFFFFu) != 0) ++b;
        if (nb == 2 && (b & 0x7FFFFFFFu) != 0) --b;
        if (g() & 1u) b |= 0x80000000u;
        v = b;
        break;
      }
    }
    store(in, i, v);
  }
  return in;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

std::string diff_bytes(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want, const char* what) {
  if (got.size() != want.size()) {
    return std::string(what) + ": size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  }
  std::size_t first = got.size(), count = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      if (first == got.size()) first = i;
      ++count;
    }
  }
  if (count == 0) return "";
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: %zu of %zu bytes differ; first at byte %zu: got 0x%02X, expected 0x%02X", what,
                count, got.size(), first, got[first], want[first]);
  return buf;
}

std::string diff_quantized(const mx::Quantized& got, const mx::Quantized& want) {
  std::string s = diff_bytes(got.data, want.data, "data (C2/C6)");
  if (s.empty()) s = diff_bytes(got.scales, want.scales, "scales (C3/C7)");
  if (s.empty() && got.recipe.is_nvfp4() && got.global_amax_bits != want.global_amax_bits) {
    s = "NVFP4 global amax bits differ (C5)";
  }
  if (s.empty() && (got.row_bytes != want.row_bytes || got.data_rows != want.data_rows)) s = "data shape differs";
  return s;
}

}  // namespace gate
