// oracle_nvfp4.cpp - SPEC C5 (NVFP4: the per-tensor scale, the ue4m3 block
// scale and the e2m1 elements, in the TE and torchao orders) by exact
// arithmetic: every fp32 operation is one exact result rounded once
// (detail::fp32_mul / fp32_div), comparisons are exact. Moved from oracle.cpp
// (which keeps C1, C2, C3 and C8); it shares no code with reference/src.
#include "oracle.hpp"
#include "oracle_internal.hpp"

namespace mxo {
namespace {
using detail::fp32_div;
using detail::fp32_mul;
Value magnitude(Value v) {
  v.neg = false;
  return v;
}
constexpr std::uint32_t kOne = 0x3F800000u;
constexpr std::uint32_t k2688 = 0x45280000u;  // 448 * 6 = 2688 = 0x1.5p+11
constexpr std::uint32_t kFltMax = 0x7F7FFFFFu;
std::uint32_t fabs_bits(std::uint32_t b) { return b & 0x7FFFFFFFu; }
// fmax dropping NaN (what the libraries' reductions do), over |x|
std::uint32_t amax_nan_dropping(const std::uint32_t* x, std::int64_t n, std::int64_t stride) {
  std::uint32_t m = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const Value v = from_f32(x[i * stride]);
    if (v.kind == Value::nan) continue;
    if (v.kind == Value::inf) {
      m = 0x7F800000u;
      continue;
    }
    if (from_f32(m).kind == Value::finite && compare(magnitude(v), from_f32(m)) > 0) m = fabs_bits(x[i * stride]);
  }
  return m;
}
std::uint32_t fmin_bits(std::uint32_t a, std::uint32_t b) {
  const Value x = from_f32(a), y = from_f32(b);
  if (x.kind == Value::nan) return b;
  if (y.kind == Value::nan) return a;
  // order including infinities
  auto key = [](const Value& v) { return v.kind == Value::inf ? (v.neg ? -2 : 2) : 0; };
  if (key(x) != key(y)) return key(x) < key(y) ? a : b;
  if (key(x) != 0) return a;
  return compare(x, y) <= 0 ? a : b;
}
std::uint32_t clamp_bits(std::uint32_t v, std::uint32_t lo, std::uint32_t hi) {
  const Value x = from_f32(v);
  if (x.kind == Value::nan) return v;
  if (x.kind == Value::inf) return x.neg ? lo : hi;
  if (compare(x, from_f32(lo)) < 0) return lo;
  if (compare(x, from_f32(hi)) > 0) return hi;
  return v;
}
std::uint32_t fp32_of_code(Fmt f, std::uint32_t code) { return round_ieee(Fmt::fp32, decode(f, code)); }
}  // namespace

Nvfp4Tensor nvfp4_tensor(bool te, std::uint32_t global_amax_bits) {
  Nvfp4Tensor t;
  const std::uint32_t a = fabs_bits(global_amax_bits);
  if (!te) {
    t.per_tensor_scale = fp32_div(a, k2688);
    return t;
  }
  const Value av = from_f32(a);
  t.s_enc = (av.kind != Value::finite || av.sig == 0) ? kOne : fp32_div(k2688, a);
  t.s_dec = fp32_div(kOne, t.s_enc);
  return t;
}

std::uint8_t nvfp4_block(bool te, const Nvfp4Tensor& t, const std::uint32_t* x, std::int64_t n,
                         std::int64_t stride, std::uint8_t* codes) {
  const Policy rne_sat{};
  const std::uint32_t bamax = amax_nan_dropping(x, n, stride);
  if (te) {
    const std::uint32_t inv6 = fp32_div(kOne, 0x40C00000u);  // fp32(1/6)
    const std::uint32_t s = encode(Fmt::ue4m3, from_f32(fp32_mul(bamax, fp32_mul(t.s_enc, inv6))), rne_sat);
    const std::uint32_t denom = fp32_mul(fp32_of_code(Fmt::ue4m3, s), t.s_dec);
    const std::uint32_t mult = fmin_bits(fp32_div(kOne, denom), kFltMax);
    for (std::int64_t i = 0; i < n; ++i)
      codes[i] = static_cast<std::uint8_t>(encode(Fmt::e2m1, from_f32(fp32_mul(x[i * stride], mult)), rne_sat));
    return static_cast<std::uint8_t>(s);
  }
  // torchao nvfp4_quantize order (library code, see the test file for the citation):
  // block_scale = amax / 6; s = e4m3(clamp(block_scale / pts, 2^-6, 448));
  // total = pts * s; data = clamp(x / total, -6, 6) -> e2m1 rne.
  const std::uint32_t six = 0x40C00000u;
  const std::uint32_t bs = fp32_div(bamax, six);
  const std::uint32_t sc = clamp_bits(fp32_div(bs, t.per_tensor_scale), 0x3C800000u /*2^-6*/, 0x43E00000u /*448*/);
  const std::uint32_t s = encode(Fmt::ue4m3, from_f32(sc), rne_sat);
  const std::uint32_t total = fp32_mul(t.per_tensor_scale, fp32_of_code(Fmt::ue4m3, s));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t v = clamp_bits(fp32_div(x[i * stride], total), 0xC0C00000u, six);
    codes[i] = static_cast<std::uint8_t>(encode(Fmt::e2m1, from_f32(v), rne_sat));
  }
  return static_cast<std::uint8_t>(s);
}

std::uint32_t nvfp4_dequant(bool te, const Nvfp4Tensor& t, std::uint8_t elem, std::uint8_t scale) {
  const std::uint32_t e = fp32_of_code(Fmt::e2m1, elem);
  const std::uint32_t s = fp32_of_code(Fmt::ue4m3, scale);
  if (te) return fp32_mul(fp32_mul(e, s), t.s_dec);
  return fp32_mul(e, fp32_mul(t.per_tensor_scale, s));
}

}  // namespace mxo
