// oracle_per_tensor.cpp - C12 (per-tensor FP8, current scaling) computed
// from the clause's words by exact arithmetic (see oracle_per_tensor.hpp):
// amax by exact comparisons, scale and scale_inv as exact quotients rounded
// once, x * scale as an exact product rounded once, then the oracle's own
// C2 encode; dequantization as an exact product rounded once to fp32, then
// once more to bf16/fp16.
#include "oracle_per_tensor.hpp"

#include <stdexcept>

#include "oracle_internal.hpp"

namespace mxo {
namespace {

constexpr std::uint32_t k1em12 = 0x2B8CBCCCu;  // 1e-12f (fp32 nearest to 10^-12)
constexpr std::uint32_t kOne = 0x3F800000u;

void check(Fmt f) {
  if (f != Fmt::e4m3 && f != Fmt::e5m2) throw std::invalid_argument("mxo: per-tensor format must be e4m3 or e5m2");
}

// fmaxf(a, b) for non-NaN, non-negative a and b (bits): the larger by exact comparison.
std::uint32_t fmax_nonneg(std::uint32_t a, std::uint32_t b) {
  const Value x = from_f32(a), y = from_f32(b);
  if (x.kind == Value::inf) return a;
  if (y.kind == Value::inf) return b;
  return compare(x, y) >= 0 ? a : b;
}

}  // namespace

void per_tensor_scale(Fmt f, std::uint32_t amax_bits, std::uint32_t* scale, std::uint32_t* scale_inv) {
  check(f);
  const std::uint32_t maxf = round_ieee(Fmt::fp32, decode(f, max_finite_code(f)));  // 448 / 57344, exact
  *scale = detail::fp32_div(maxf, fmax_nonneg(amax_bits & 0x7FFFFFFFu, k1em12));
  *scale_inv = detail::fp32_div(kOne, *scale);
}

PerTensor per_tensor(Fmt f, const std::vector<std::uint32_t>& x) {
  check(f);
  PerTensor r;
  // amax: start from +0; NaN passed over; |x| compared exactly; Inf wins.
  for (std::uint32_t b : x) {
    const Value v = from_f32(b);
    if (v.kind == Value::nan) continue;
    r.amax = fmax_nonneg(r.amax, b & 0x7FFFFFFFu);
  }
  per_tensor_scale(f, r.amax, &r.scale, &r.scale_inv);
  const Policy defaults{};  // rne, saturate, default NaN policy (C2)
  r.codes.reserve(x.size());
  for (std::uint32_t b : x) {
    const std::uint32_t p = detail::fp32_mul(b, r.scale);
    r.codes.push_back(static_cast<std::uint8_t>(encode(f, from_f32(p), defaults)));
  }
  return r;
}

std::uint32_t per_tensor_dequant(Fmt f, std::uint8_t code, std::uint32_t scale_inv, Fmt out) {
  check(f);
  if (out != Fmt::fp32 && out != Fmt::bf16 && out != Fmt::fp16) throw std::invalid_argument("mxo: dequant output");
  const Value d = decode(f, code);
  std::uint32_t y;
  if (d.kind == Value::nan) {
    y = 0x7FC00000u;
  } else {
    // decode(f, code) is exact in fp32 (every e4m3/e5m2 value is an fp32 value)
    y = detail::fp32_mul(round_ieee(Fmt::fp32, d), scale_inv);
  }
  if (out == Fmt::fp32) return y;
  return round_ieee(out, from_f32(y));
}

}  // namespace mxo
