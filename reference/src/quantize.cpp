// quantize.cpp - tensor quantize/dequantize (SPEC C4, C5, C8).
#include "mx/quantize.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <string>

#include "mx/error.hpp"
#include "mx/scale.hpp"

namespace mx {

std::string_view axis_name(Axis a) { return a == Axis::rowwise ? "rowwise" : "colwise"; }
Axis parse_axis(std::string_view s) {
  if (s == "rowwise") return Axis::rowwise;
  if (s == "colwise") return Axis::colwise;
  throw UnknownName("unknown axis '" + std::string(s) + "' (expected rowwise or colwise)");
}
std::string_view data_order_name(DataOrder d) {
  return d == DataOrder::source ? "source" : "transposed";
}
DataOrder parse_data_order(std::string_view s) {
  if (s == "source") return DataOrder::source;
  if (s == "transposed") return DataOrder::transposed;
  throw UnknownName("unknown data order '" + std::string(s) + "' (expected source or transposed)");
}

void validate(const Recipe& r, const TensorView& t, const QuantizeOptions& o) {
  if (r.block <= 0) throw InvalidArgument("block size must be positive (got " + std::to_string(r.block) + ")");
  if (t.batch < 1 || t.rows < 0 || t.cols < 0) {
    throw ShapeError("tensor shape must have batch >= 1, rows >= 0, cols >= 0 (got [" +
                     std::to_string(t.batch) + ", " + std::to_string(t.rows) + ", " +
                     std::to_string(t.cols) + "])");
  }
  const std::int64_t per = checked_mul(t.rows, t.cols, "tensor shape");
  const std::int64_t n = checked_mul(per, t.batch, "tensor shape");
  checked_mul(n, static_cast<std::int64_t>(in_type_bytes(t.type)), "tensor bytes");
  // Bit offsets of the fp6 stream must fit as well.
  checked_mul(std::max(t.rows, t.cols), 8, "row bit length");
  if (n > 0 && t.data == nullptr) throw InvalidArgument("tensor data pointer is null");
  if (r.conv.rounding == Rounding::sr && n > 0 && o.rbits == nullptr) {
    throw InvalidArgument("stochastic rounding (sr) needs one 32-bit random word per element (rbits is null)");
  }
  if (o.axis == Axis::rowwise && o.scale_layout == ScaleLayout::dense_colwise) {
    throw InvalidArgument("scale layout dense_colwise applies to colwise quantization only");
  }
  if (o.axis == Axis::rowwise && o.data_order == DataOrder::transposed) {
    throw InvalidArgument("data order 'transposed' applies to colwise quantization only");
  }
  validate_policy(r.elem, r.conv);
}

// ---- NVFP4 (C5) -------------------------------------------------------------

Nvfp4Factors nvfp4_factors(Nvfp4Order order, std::uint32_t global_amax_bits) {
  Nvfp4Factors f;
  const float amax = bits_f32(global_amax_bits & 0x7FFFFFFFu);
  if (order == Nvfp4Order::torchao) {
    // torchao/prototype/mx_formats/nvfp4_tensor.py, per_tensor_amax_to_scale:
    // amax.to(float32) / (F8E4M3_MAX * F4_E2M1_MAX).
    f.per_tensor_scale = amax / 2688.0f;
    return f;
  }
  // TransformerEngine NVFP4 recipe (SPEC C5): S_enc = fp32(448 * 6) /
  // global_amax, or 1.0 when global_amax is 0 or not finite; S_dec = 1 / S_enc.
  if (amax == 0.0f || !std::isfinite(amax)) {
    f.s_enc = 1.0f;
  } else {
    f.s_enc = 2688.0f / amax;
  }
  f.s_dec = 1.0f / f.s_enc;
  return f;
}

namespace {
// fmaxf-style amax: every NaN ignored (signaling ones too), Inf included
// (what a NaN-dropping reduction produces; SPEC conventions). Compared as
// |x| bits, not with std::fmax, which returns a NaN for a signaling NaN.
float amax_fmax(const std::uint32_t* x, std::int64_t n, std::int64_t stride) {
  std::uint32_t m = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t a = x[i * stride] & 0x7FFFFFFFu;
    if (a <= 0x7F800000u && a > m) m = a;
  }
  return bits_f32(m);
}
// torch.clamp semantics: NaN propagates.
float clamp_nan(float v, float lo, float hi) {
  if (std::isnan(v)) return v;
  return v < lo ? lo : (v > hi ? hi : v);
}
const ConvPolicy kRneSat{};
}  // namespace

std::uint8_t nvfp4_block(Nvfp4Order order, const Nvfp4Factors& f, const std::uint32_t* x,
                         std::int64_t n, std::int64_t stride, std::uint8_t* codes) {
  const float bamax = amax_fmax(x, n, stride);
  if (order == Nvfp4Order::torchao) {
    // torchao/prototype/mx_formats/nvfp4_tensor.py, nvfp4_quantize (two-level):
    //   block_scale = max_abs / F4_E2M1_MAX
    //   scaled = clamp(block_scale / per_tensor_scale, E4M3_EPS, F8E4M3_MAX) -> e4m3
    //   total_scale = per_tensor_scale * scaled_fp32
    //   data = clamp(x / total_scale, -6, 6) -> e2m1 (rne)
    // The contract's "multiplier = (1 / per_tensor_scale) / s" differs from
    // this code; the code wins (see the closing note).
    const float block_scale = bamax / 6.0f;
    const float scaled = clamp_nan(block_scale / f.per_tensor_scale, 0.015625f, 448.0f);
    const auto s = static_cast<std::uint8_t>(encode(Fmt::ue4m3, scaled, kRneSat));
    const float total = f.per_tensor_scale * decode(Fmt::ue4m3, s);
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = clamp_nan(bits_f32(x[i * stride]) / total, -6.0f, 6.0f);
      codes[i] = static_cast<std::uint8_t>(encode(Fmt::e2m1, v, kRneSat));
    }
    return s;
  }
  // TransformerEngine order (SPEC C5).
  const float t = f.s_enc * static_cast<float>(1.0 / 6.0);
  const auto s = static_cast<std::uint8_t>(encode(Fmt::ue4m3, bamax * t, kRneSat));
  const float denom = decode(Fmt::ue4m3, s) * f.s_dec;
  const float mult = std::fmin(1.0f / denom, FLT_MAX);
  for (std::int64_t i = 0; i < n; ++i) {
    codes[i] = static_cast<std::uint8_t>(encode(Fmt::e2m1, bits_f32(x[i * stride]) * mult, kRneSat));
  }
  return s;
}

float nvfp4_dequant(Nvfp4Order order, const Nvfp4Factors& f, std::uint8_t elem, std::uint8_t scale) {
  const float e = decode(Fmt::e2m1, elem);
  const float s = decode(Fmt::ue4m3, scale);
  if (order == Nvfp4Order::torchao) return e * (f.per_tensor_scale * s);
  return (e * s) * f.s_dec;
}

// ---- quantize ------------------------------------------------------------------

Quantized quantized_shape(const Recipe& r, const TensorView& t, const QuantizeOptions& o, bool with_data) {
  Quantized q;
  q.recipe = r;
  q.opts = o;
  q.opts.rbits = nullptr;
  q.batch = t.batch;
  q.rows = t.rows;
  q.cols = t.cols;
  const std::int64_t M = t.rows, K = t.cols, V = r.block;
  const bool col = o.axis == Axis::colwise;
  const bool transposed = col && o.data_order == DataOrder::transposed;
  q.data_rows = transposed ? K : M;
  q.data_row_elems = transposed ? M : K;
  q.row_bytes = packed_row_bytes(r.elem, q.data_row_elems, o.packing);
  if (with_data) {
    const std::int64_t data_per_batch = checked_mul(q.data_rows, q.row_bytes, "data buffer");
    q.data.assign(static_cast<std::size_t>(checked_mul(data_per_batch, t.batch, "data buffer")), 0);
  }
  q.scale_shape = col ? ScaleShape{K, ceil_div(M, V), t.batch} : ScaleShape{M, ceil_div(K, V), t.batch};
  q.scales.assign(static_cast<std::size_t>(scale_buffer_bytes(o.scale_layout, q.scale_shape)), 0);
  return q;
}

Quantized quantize(const Recipe& r, const TensorView& t, const QuantizeOptions& o) {
  validate(r, t, o);
  Quantized q = quantized_shape(r, t, o);
  const std::int64_t M = t.rows, K = t.cols, V = r.block;
  const bool col = o.axis == Axis::colwise;
  const bool transposed = col && o.data_order == DataOrder::transposed;
  const std::int64_t data_per_batch = q.data_rows * q.row_bytes;  // sizes checked by quantized_shape

  const std::int64_t per = M * K;
  const std::int64_t total = per * t.batch;
  // Widen the input once (exact) to fp32 bit patterns.
  std::vector<std::uint32_t> x(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) x[i] = load_as_f32_bits(t.data, t.type, i);

  Nvfp4Factors nf;
  if (r.is_nvfp4()) {
    q.global_amax_bits = f32_bits(amax_fmax(x.data(), total, 1));
    nf = nvfp4_factors(r.nvfp4, q.global_amax_bits);
  }

  std::vector<std::uint8_t> codes(static_cast<std::size_t>(q.data_rows * q.data_row_elems));
  std::vector<std::uint8_t> blk(static_cast<std::size_t>(V));
  for (std::int64_t b = 0; b < t.batch; ++b) {
    const std::uint32_t* xb = x.data() + b * per;
    const std::uint32_t* rb = o.rbits ? o.rbits + b * per : nullptr;
    const std::int64_t outer = col ? K : M;   // scale-matrix rows
    const std::int64_t inner = col ? M : K;   // quantized axis length
    const std::int64_t stride = col ? K : 1;  // step along the quantized axis
    for (std::int64_t ro = 0; ro < outer; ++ro) {
      for (std::int64_t kb = 0; kb * V < inner; ++kb) {
        const std::int64_t i0 = kb * V;
        const std::int64_t n = std::min(V, inner - i0);
        // source index of element j of this block
        const auto src = [&](std::int64_t j) { return col ? (i0 + j) * K + ro : ro * K + i0 + j; };
        std::uint8_t scode;
        if (r.is_nvfp4()) {
          scode = nvfp4_block(r.nvfp4, nf, xb + src(0), n, stride, blk.data());
        } else {
          const BlockScale bs = block_scale(xb + src(0), n, stride, r.elem, r.rule, r.nfb);
          scode = bs.code;
          for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t s = src(j);
            blk[j] = static_cast<std::uint8_t>(encode_scaled(r.elem, xb[s], bs.exp, r.conv, rb ? rb[s] : 0u));
          }
        }
        q.scales[static_cast<std::size_t>(scale_offset(o.scale_layout, q.scale_shape, b, ro, kb))] = scode;
        for (std::int64_t j = 0; j < n; ++j) {
          // codes matrix in data order: (m, k) or (k, m) when transposed
          const std::int64_t m = col ? i0 + j : ro;
          const std::int64_t k = col ? ro : i0 + j;
          const std::int64_t ci = transposed ? k * M + m : m * K + k;
          codes[static_cast<std::size_t>(ci)] = blk[j];
        }
      }
    }
    std::uint8_t* db = q.data.data() + b * data_per_batch;
    for (std::int64_t row = 0; row < q.data_rows; ++row) {
      pack_row(r.elem, codes.data() + row * q.data_row_elems, q.data_row_elems, o.packing,
               db + row * q.row_bytes);
    }
  }
  return q;
}

// ---- element access and dequantize ---------------------------------------------

std::uint8_t element_code_at(const Quantized& q, std::int64_t b, std::int64_t m, std::int64_t k) {
  if (b < 0 || b >= q.batch || m < 0 || m >= q.rows || k < 0 || k >= q.cols) {
    throw ShapeError("element index outside the tensor");
  }
  const bool transposed = q.opts.axis == Axis::colwise && q.opts.data_order == DataOrder::transposed;
  const std::int64_t row = transposed ? k : m;
  const std::int64_t j = transposed ? m : k;
  const std::uint8_t* base = q.data.data() + (b * q.data_rows + row) * q.row_bytes;
  const FormatDesc& d = desc(q.recipe.elem);
  if (q.opts.packing == Packing::container8) {
    return static_cast<std::uint8_t>(d.bits == 4 ? (base[j] >> 2) & 0xF : base[j]);
  }
  if (d.bits == 8) return base[j];
  if (d.bits == 4) return static_cast<std::uint8_t>((base[j / 2] >> ((j & 1) * 4)) & 0xF);
  const std::int64_t bit = 6 * j;
  const int off = static_cast<int>(bit % 8);
  std::uint32_t v = static_cast<std::uint32_t>(base[bit / 8]) >> off;
  if (off > 2) v |= static_cast<std::uint32_t>(base[bit / 8 + 1]) << (8 - off);
  return static_cast<std::uint8_t>(v & 0x3F);
}

std::uint8_t scale_code_at(const Quantized& q, std::int64_t b, std::int64_t m, std::int64_t k) {
  const bool col = q.opts.axis == Axis::colwise;
  const std::int64_t r = col ? k : m;
  const std::int64_t kb = (col ? m : k) / q.recipe.block;
  return q.scales[static_cast<std::size_t>(scale_offset(q.opts.scale_layout, q.scale_shape, b, r, kb))];
}

std::vector<std::uint8_t> dequantize(const Quantized& q, Fmt out) {
  if (out != Fmt::fp32 && out != Fmt::bf16 && out != Fmt::fp16) {
    throw InvalidArgument("dequantize output must be fp32, bf16 or fp16");
  }
  const int ob = desc(out).bits / 8;
  const std::int64_t total = checked_mul(checked_mul(q.rows, q.cols, "shape"), q.batch, "shape");
  std::vector<std::uint8_t> res(static_cast<std::size_t>(checked_mul(total, ob, "output bytes")));
  const ConvPolicy rne_inf{Rounding::rne, Overflow::propagate};
  Nvfp4Factors nf;
  if (q.recipe.is_nvfp4()) nf = nvfp4_factors(q.recipe.nvfp4, q.global_amax_bits);
  std::int64_t idx = 0;
  for (std::int64_t b = 0; b < q.batch; ++b) {
    for (std::int64_t m = 0; m < q.rows; ++m) {
      for (std::int64_t k = 0; k < q.cols; ++k, ++idx) {
        const std::uint8_t e = element_code_at(q, b, m, k);
        const std::uint8_t s = scale_code_at(q, b, m, k);
        std::uint32_t bits;
        if (q.recipe.is_nvfp4()) {
          const float v = nvfp4_dequant(q.recipe.nvfp4, nf, e, s);
          bits = out == Fmt::fp32 ? f32_bits(v) : encode_f32_bits(out, f32_bits(v), rne_inf);
        } else if (s == 0xFF) {
          bits = static_cast<std::uint32_t>(desc(out).canonical_nan_code);  // C8: NaN block
        } else {
          Exact v;
          const Class c = decode_exact(q.recipe.elem, e, &v);
          const bool neg = (e & sign_mask(desc(q.recipe.elem))) != 0;
          if (c == Class::nan) {
            bits = static_cast<std::uint32_t>(desc(out).canonical_nan_code);
          } else if (c == Class::inf) {
            bits = static_cast<std::uint32_t>(desc(out).propagate_code) | (neg ? sign_mask(desc(out)) : 0u);
          } else {
            v.exp += static_cast<int>(s) - 127;  // exact product with 2^(scale-127)
            bits = encode_exact(out, v, rne_inf);  // one RNE rounding (C8)
          }
        }
        std::memcpy(res.data() + idx * ob, &bits, static_cast<std::size_t>(ob));
      }
    }
  }
  return res;
}

}  // namespace mx
