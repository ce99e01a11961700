// scale.cpp - the four scale rules of SPEC C3.
#include "mx/scale.hpp"

#include <bit>
#include <string>

#include "mx/error.hpp"

namespace mx {

std::string_view scale_rule_name(ScaleRule r) {
  switch (r) {
    case ScaleRule::floor: return "floor";
    case ScaleRule::ceil: return "ceil";
    case ScaleRule::even: return "even";
    case ScaleRule::rceil: return "rceil";
  }
  return "?";
}

ScaleRule parse_scale_rule(std::string_view s) {
  if (s == "floor") return ScaleRule::floor;
  if (s == "ceil") return ScaleRule::ceil;
  if (s == "even") return ScaleRule::even;
  if (s == "rceil") return ScaleRule::rceil;
  throw UnknownName("unknown scale rule '" + std::string(s) + "' (expected floor, ceil, even or rceil)");
}

int floor_log2_f32(std::uint32_t bits) {
  const std::uint32_t e = (bits >> 23) & 0xFFu;
  const std::uint32_t m = bits & 0x7FFFFFu;
  if (e != 0) return static_cast<int>(e) - 127;
  return (31 - std::countl_zero(m)) - 149;  // subnormal: m * 2^-149
}

namespace {
bool is_pow2_f32(std::uint32_t bits) {
  const std::uint32_t e = (bits >> 23) & 0xFFu;
  const std::uint32_t m = bits & 0x7FFFFFu;
  if (e != 0) return m == 0;
  return std::has_single_bit(m);
}
int ceil_log2_f32(std::uint32_t bits) { return floor_log2_f32(bits) + (is_pow2_f32(bits) ? 0 : 1); }
}  // namespace

int scale_exponent_unclamped(std::uint32_t amax_bits, Fmt elem, ScaleRule rule) {
  const FormatDesc& d = desc(elem);
  const std::uint32_t a = amax_bits & 0x7FFFFFFFu;
  switch (rule) {
    case ScaleRule::floor:
      // OCP MX v1.0 section 6.3 (Algorithm 1): floor(log2(amax)) - emax_elem.
      return floor_log2_f32(a) - emax_elem(d);
    case ScaleRule::ceil:
      return ceil_log2_f32(a) - emax_elem(d);
    case ScaleRule::even: {
      // torchao/prototype/mx_formats/mx_tensor.py (ScaleCalculationMode.EVEN):
      // add half an ulp at mbits(element) and mask the mantissa away, i.e.
      // round amax to mbits+1 significant bits with ties away, then floor(log2).
      // For int8 the element keeps 6 fraction bits (127/64 = 1.111111b).
      const int mb = d.is_int ? 6 : d.mbits;
      const int fl = floor_log2_f32(a);
      // amax rounds up to 2^(fl+1) iff amax >= 2^fl * (2 - 2^-(mb+1)).
      // Work on the significand aligned to 24 bits.
      std::uint32_t sig;
      if (((a >> 23) & 0xFFu) != 0) {
        sig = (a & 0x7FFFFFu) | 0x800000u;
      } else {
        const std::uint32_t m = a & 0x7FFFFFu;
        sig = m << (23 - (31 - std::countl_zero(m)));  // normalise to 1.xxx
      }
      const std::uint32_t threshold = (0x1000000u - (0x800000u >> (mb + 1)));  // 2 - 2^-(mb+1)
      return fl + (sig >= threshold ? 1 : 0) - emax_elem(d);
    }
    case ScaleRule::rceil: {
      // TransformerEngine common/util/ptx.cuh / cast kernels and
      // cvt.rp.satfinite.ue8m0x2.f32: q = amax * fp32(1/max_finite) in fp32
      // (one RNE multiply), then round q up to a power of two.
      const float inv_max = static_cast<float>(1.0 / max_finite(d));  // RNE of 1/max
      const float q = bits_f32(a) * inv_max;
      const std::uint32_t qb = f32_bits(q);
      if ((qb & 0x7FFFFFFFu) == 0) return -1000;  // underflow: clamps to -127
      return ceil_log2_f32(qb);
    }
  }
  return 0;
}

std::uint8_t scale_code_finite(std::uint32_t amax_bits, Fmt elem, ScaleRule rule) {
  if ((amax_bits & 0x7FFFFFFFu) == 0) return 0x00;  // C3: amax == 0 -> 2^-127
  int e = scale_exponent_unclamped(amax_bits, elem, rule);
  if (e < -127) e = -127;
  if (e > 127) e = 127;
  return static_cast<std::uint8_t>(e + 127);
}

BlockScale block_scale(const std::uint32_t* x, std::int64_t n, std::int64_t stride, Fmt elem,
                       ScaleRule rule, NonFiniteBlock nfb) {
  if (n > 0 && x == nullptr) throw InvalidArgument("block_scale: null input pointer");
  BlockScale r;
  std::uint32_t amax = 0;  // |x| compares as unsigned bits for finite values
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t a = x[i * stride] & 0x7FFFFFFFu;
    if (a >= 0x7F800000u) {
      r.nonfinite = true;
      continue;
    }
    if (a > amax) amax = a;
  }
  r.amax_bits = amax;
  const std::uint8_t code = scale_code_finite(amax, elem, rule);
  r.exp = static_cast<int>(code) - 127;
  r.code = (r.nonfinite && nfb == NonFiniteBlock::nonfinite_block_nan) ? 0xFF : code;
  return r;
}

}  // namespace mx
