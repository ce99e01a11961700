// fast_quantize.cpp - see mx/fast_quantize.hpp. The rounding below is that
// of encode_exact (convert.cpp) specialised to an fp32 input, a signed element
// format with a zero, and the three deterministic rounding modes; everything
// else (specials, the sign-only codes, block scales, packing, the dequantize
// table) is computed by the reference functions themselves.
#include "mx/fast_quantize.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "mx/error.hpp"
#include "mx/scale.hpp"

namespace mx {

namespace {

bool element_format(Fmt f) {
  const FormatDesc& d = desc(f);
  return d.bits <= 8 && d.is_signed && d.has_zero;  // e4m3, e5m2, e3m2, e2m3, e2m1, int8
}

// round(sig / 2^shift) under rne, rna or rtz (0 < shift <= 24, sig < 2^24):
// round_magnitude of convert.cpp for these modes.
inline std::uint32_t round_shift(std::uint32_t sig, int shift, Rounding r) {
  const std::uint32_t half = std::uint32_t{1} << (shift - 1);
  switch (r) {
    case Rounding::rna: return (sig + half) >> shift;
    case Rounding::rtz: return sig >> shift;
    default: return (sig + half - 1 + ((sig >> shift) & 1u)) >> shift;  // rne
  }
}

}  // namespace

bool FastQuantizer::supports(const Recipe& r) {
  const Rounding m = r.conv.rounding;
  return !r.is_nvfp4() && element_format(r.elem) && (m == Rounding::rne || m == Rounding::rna || m == Rounding::rtz);
}

bool FastQuantizer::supports(const Recipe& r, const QuantizeOptions& o) {
  return supports(r) && !(o.axis == Axis::colwise && o.data_order == DataOrder::transposed);
}

FastQuantizer::FastQuantizer(const Recipe& r) : r_(r) {
  if (!supports(r)) throw InvalidArgument("fast quantize: recipe " + r.name() + " is not covered (sr, nvfp4 or a scale format)");
  validate_policy(r.elem, r.conv);
  const FormatDesc& d = desc(r.elem);
  m_ = d.mbits;
  emin_ = mx::emin(d);
  bias_ = d.bias;
  int_ = d.is_int;
  flush_ = r.conv.flush_input_subnormals;
  rnd_ = r.conv.rounding;
  maxmag_ = max_finite_code(d);
  sign_ = sign_mask(d);
  int_lim_neg_ = r.conv.int8 == Int8Range::int8_full ? 128u : 127u;
  for (int s = 0; s < 2; ++s) {
    const bool neg = s != 0;
    zero_[s] = encode_exact(r.elem, Exact{neg, 0, 0}, r.conv);
    under_[s] = encode_exact(r.elem, Exact{neg, -1000, 1}, r.conv);  // far below the smallest subnormal
    over_[s] = encode_exact(r.elem, Exact{neg, 1000, 1}, r.conv);    // far above the largest finite
  }
  static const std::vector<std::uint32_t> widened = [] {
    std::vector<std::uint32_t> v(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) v[h] = f16_to_f32_bits(static_cast<std::uint16_t>(h));
    return v;
  }();
  f16_ = widened.data();
}

std::uint32_t FastQuantizer::encode(std::uint32_t x, int scale_exp) const {
  const std::uint32_t a = x & 0x7FFFFFFFu;
  const std::uint32_t neg = x >> 31;
  if (a >= 0x7F800000u) return encode_scaled(r_.elem, x, scale_exp, r_.conv);  // NaN, Inf: C2 step 1
  std::uint32_t sig;
  int E;  // floor(log2 |x|)
  if (a >= 0x800000u) {
    sig = (a & 0x7FFFFFu) | 0x800000u;
    E = static_cast<int>(a >> 23) - 127;
  } else {
    if (a == 0 || flush_) return zero_[neg];
    const int lz = std::countl_zero(a) - 8;  // normalise the subnormal to 24 bits
    sig = a << lz;
    E = -126 - lz;
  }
  const int es = E - scale_exp;  // floor(log2 |x * 2^-scale_exp|): |value| = sig * 2^(es - 23)
  if (int_) {
    // int8: n = round(|value| * 2^bias), clamped (C2 "int8").
    const int shift = 23 - bias_ - es;
    std::uint32_t n;
    if (shift < 1) {
      n = 1024;  // |value| >= 2^(23 - bias) / 2^... far beyond 128: clamps
    } else if (shift >= 25) {
      n = 0;  // below 2^-(bias + 2): rounds to zero in every covered mode
    } else {
      n = round_shift(sig, shift, rnd_);
    }
    if (!neg) return n > 127u ? 127u : n;
    if (n > int_lim_neg_) n = int_lim_neg_;
    return (256u - n) & 0xFFu;
  }
  // The quantum is that of |value|'s binade, or of the subnormals (C2 step 4).
  const int eq = es > emin_ ? es : emin_;
  const int shift = 23 - m_ + (eq - es);
  const std::uint32_t n = shift >= 25 ? 0u : round_shift(sig, shift, rnd_);
  if (n == 0) return under_[neg];
  // exponent field and mantissa in one: a carry out of the mantissa moves
  // into the exponent, a subnormal that rounds up becomes the smallest normal.
  const std::int64_t mag = (static_cast<std::int64_t>(eq - emin_) << m_) + n;
  if (mag > static_cast<std::int64_t>(maxmag_)) return over_[neg];  // C2 step 5, by the policy
  return static_cast<std::uint32_t>(mag) | (neg ? sign_ : 0u);
}

void FastQuantizer::widen(const void* in, InType t, std::int64_t i0, std::int64_t n, std::uint32_t* out) const {
  const auto* p = static_cast<const unsigned char*>(in);
  if (t == InType::f32) {
    std::memcpy(out, p + i0 * 4, static_cast<std::size_t>(n) * 4);
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint16_t h;
    std::memcpy(&h, p + (i0 + i) * 2, 2);
    out[i] = t == InType::bf16 ? bf16_to_f32_bits(h) : f16_[h];
  }
}

namespace {

// The constants of the float-format loop below.
struct RunConst {
  int m, emin, e;
  std::uint32_t maxmag, sign, under0, under1, over0, over1;
};

// encode() for inputs with a normal fp32 exponent field (1..254), without
// branches, so that the compiler can vectorise it (variable shifts need AVX2:
// encode_normal_run is compiled for AVX2 and for the baseline, chosen at load
// time). Returns non-zero when some x[i] is zero, subnormal, Inf or NaN: the
// caller then encodes those elements with encode().
template <Rounding R>
__attribute__((always_inline)) inline std::uint32_t normal_loop(const RunConst k, const std::uint32_t* __restrict x,
                                                                std::int64_t n, std::uint8_t* __restrict codes) {
  // Locals, not k's members: the uint8_t stores may alias k (char type).
  const std::int32_t m = k.m, emin = k.emin, e = k.e;
  const std::uint32_t maxmag = k.maxmag, sign = k.sign, under0 = k.under0, under1 = k.under1, over0 = k.over0,
                      over1 = k.over1;
  std::uint32_t special = 0;
  const std::uint32_t dover = over0 ^ over1, dunder = under0 ^ under1;
  for (std::int64_t i = 0; i < n; ++i) {  // masks, not branches: if-converted and vectorised
    const std::uint32_t a = x[i] & 0x7FFFFFFFu;
    const std::uint32_t nm = 0u - (x[i] >> 31);  // all ones for a negative x
    const std::uint32_t ef = a >> 23;
    special |= static_cast<std::uint32_t>((ef - 1u) >= 254u);
    const std::uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
    const std::int32_t es = static_cast<std::int32_t>(ef) - 127 - e;
    const std::int32_t d = std::max(emin - es, 0);  // below the normal range: the subnormal quantum
    const std::uint32_t ush = static_cast<std::uint32_t>(std::min(23 - m + d, 25));  // from 25 on every mode gives 0
    std::uint32_t q;
    if constexpr (R == Rounding::rtz) {
      q = sig >> ush;
    } else if constexpr (R == Rounding::rna) {
      q = (sig + (1u << (ush - 1u))) >> ush;
    } else {
      q = (sig + (1u << (ush - 1u)) - 1u + ((sig >> ush) & 1u)) >> ush;
    }
    const std::uint32_t mag = (static_cast<std::uint32_t>(es + d - emin) << m) + q;
    const std::uint32_t om = 0u - static_cast<std::uint32_t>(mag > maxmag);
    const std::uint32_t zm = 0u - static_cast<std::uint32_t>(q == 0u);
    std::uint32_t c = mag | (sign & nm);
    c = (c & ~om) | ((over0 ^ (dover & nm)) & om);
    c = (c & ~zm) | ((under0 ^ (dunder & nm)) & zm);
    codes[i] = static_cast<std::uint8_t>(c);
  }
  return special;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define MX_FAST_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MX_FAST_CLONES
#endif

MX_FAST_CLONES std::uint32_t encode_normal_run(Rounding r, const RunConst& k, const std::uint32_t* x, std::int64_t n,
                                               std::uint8_t* codes) {
  switch (r) {
    case Rounding::rna: return normal_loop<Rounding::rna>(k, x, n, codes);
    case Rounding::rtz: return normal_loop<Rounding::rtz>(k, x, n, codes);
    default: return normal_loop<Rounding::rne>(k, x, n, codes);
  }
}

// The same over a row of blocks of V, block kb at scale exponent e[kb]: one
// call (and one dispatch) per row.
MX_FAST_CLONES std::uint32_t encode_normal_row(Rounding r, RunConst k, const std::uint32_t* x, std::int64_t n, std::int64_t v,
                                               const int* e, std::uint8_t* codes) {
  std::uint32_t special = 0;
  for (std::int64_t i0 = 0, kb = 0; i0 < n; i0 += v, ++kb) {
    k.e = e[kb];
    const std::int64_t len = std::min(v, n - i0);
    switch (r) {
      case Rounding::rna: special |= normal_loop<Rounding::rna>(k, x + i0, len, codes + i0); break;
      case Rounding::rtz: special |= normal_loop<Rounding::rtz>(k, x + i0, len, codes + i0); break;
      default: special |= normal_loop<Rounding::rne>(k, x + i0, len, codes + i0); break;
    }
  }
  return special;
}

// The first pass of block_scale (scale.cpp) over a row of blocks of V: the
// largest finite |x| and whether a NaN or Inf occurs, per block; compared as
// |x| bits, branch-free.
MX_FAST_CLONES void row_amax(const std::uint32_t* __restrict x, std::int64_t n, std::int64_t v, std::uint32_t* __restrict amax,
                             std::uint32_t* __restrict nonfinite) {
  for (std::int64_t i0 = 0, kb = 0; i0 < n; i0 += v, ++kb) {
    const std::int64_t end = std::min(n, i0 + v);
    std::uint32_t m = 0, nf = 0;
    for (std::int64_t i = i0; i < end; ++i) {
      const std::uint32_t a = x[i] & 0x7FFFFFFFu;
      const std::uint32_t fin = static_cast<std::uint32_t>(a < 0x7F800000u);
      nf |= fin ^ 1u;
      m = std::max(m, a & (0u - fin));
    }
    amax[kb] = m;
    nonfinite[kb] = nf;
  }
}

}  // namespace

void FastQuantizer::encode_many(const std::uint32_t* x, std::int64_t n, int scale_exp, std::uint8_t* codes) const {
  if (!int_) {
    const RunConst k{m_, emin_, scale_exp, maxmag_, sign_, under_[0], under_[1], over_[0], over_[1]};
    if (encode_normal_run(rnd_, k, x, n, codes) == 0) return;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint32_t ef = (x[i] >> 23) & 0xFFu;
      if (ef == 0 || ef == 0xFFu) codes[i] = static_cast<std::uint8_t>(encode(x[i], scale_exp));
    }
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint8_t>(encode(x[i], scale_exp));
}

void FastQuantizer::rows(const void* in, InType t, std::int64_t rows, std::int64_t cols, Axis axis, Packing packing,
                         std::uint8_t* data, std::uint8_t* scales) const {
  if (rows < 0 || cols < 0) throw ShapeError("fast quantize: negative shape");
  if (rows == 0 || cols == 0) return;
  if (in == nullptr || data == nullptr || scales == nullptr) throw InvalidArgument("fast quantize: null pointer");
  const std::int64_t V = r_.block;
  const std::int64_t rb = packed_row_bytes(r_.elem, cols, packing);
  // 8-bit codes are stored unchanged by both packings (C6): encode in place.
  const bool direct = desc(r_.elem).bits == 8;
  std::vector<std::uint8_t> codes(direct ? 0 : static_cast<std::size_t>(cols));
  if (axis == Axis::rowwise) {
    const std::int64_t nb = ceil_div(cols, V);
    std::vector<std::uint32_t> x(static_cast<std::size_t>(cols)), amax(static_cast<std::size_t>(nb)), nonfinite(amax.size());
    std::vector<int> exps(amax.size());
    const bool nan_blocks = r_.nfb == NonFiniteBlock::nonfinite_block_nan;
    for (std::int64_t m = 0; m < rows; ++m) {
      widen(in, t, m * cols, cols, x.data());
      std::uint8_t* c = direct ? data + m * rb : codes.data();
      // block_scale (C3) per block: its amax pass vectorised, its rule itself.
      row_amax(x.data(), cols, V, amax.data(), nonfinite.data());
      for (std::int64_t kb = 0; kb < nb; ++kb) {
        const auto k = static_cast<std::size_t>(kb);
        const std::uint8_t code = scale_code_finite(amax[k], r_.elem, r_.rule);
        exps[k] = static_cast<int>(code) - 127;
        scales[m * nb + kb] = (nonfinite[k] != 0 && nan_blocks) ? std::uint8_t{0xFF} : code;
      }
      if (int_) {
        for (std::int64_t kb = 0; kb < nb; ++kb) {
          const std::int64_t i0 = kb * V;
          encode_many(x.data() + i0, std::min(V, cols - i0), exps[static_cast<std::size_t>(kb)], c + i0);
        }
      } else {
        const RunConst k{m_, emin_, 0, maxmag_, sign_, under_[0], under_[1], over_[0], over_[1]};
        if (encode_normal_row(rnd_, k, x.data(), cols, V, exps.data(), c) != 0) {
          for (std::int64_t i = 0; i < cols; ++i) {
            const std::uint32_t ef = (x[static_cast<std::size_t>(i)] >> 23) & 0xFFu;
            if (ef == 0 || ef == 0xFFu) c[i] = static_cast<std::uint8_t>(encode(x[static_cast<std::size_t>(i)], exps[static_cast<std::size_t>(i / V)]));
          }
        }
      }
      if (!direct) pack_row(r_.elem, codes.data(), cols, packing, data + m * rb);
    }
    return;
  }
  // colwise: blocks of V rows of one column; scales [cols][ceil(rows / V)].
  const std::int64_t nbr = ceil_div(rows, V);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(std::min(V, rows) * cols));
  std::vector<int> exps(static_cast<std::size_t>(cols));
  for (std::int64_t g = 0; g < nbr; ++g) {
    const std::int64_t m0 = g * V, n = std::min(V, rows - m0);
    widen(in, t, m0 * cols, n * cols, x.data());
    for (std::int64_t k = 0; k < cols; ++k) {
      const BlockScale bs = block_scale(x.data() + k, n, cols, r_.elem, r_.rule, r_.nfb);
      scales[k * nbr + g] = bs.code;
      exps[static_cast<std::size_t>(k)] = bs.exp;
    }
    for (std::int64_t j = 0; j < n; ++j) {
      std::uint8_t* c = direct ? data + (m0 + j) * rb : codes.data();
      const std::uint32_t* xr = x.data() + j * cols;
      for (std::int64_t k = 0; k < cols; ++k) c[k] = static_cast<std::uint8_t>(encode(xr[k], exps[static_cast<std::size_t>(k)]));
      if (!direct) pack_row(r_.elem, codes.data(), cols, packing, data + (m0 + j) * rb);
    }
  }
}

Quantized quantize_fast(const Recipe& r, const TensorView& t, const QuantizeOptions& o) {
  if (!FastQuantizer::supports(r, o) || o.rbits != nullptr) return quantize(r, t, o);
  validate(r, t, o);
  Quantized q = quantized_shape(r, t, o);
  const FastQuantizer fq(r);
  const bool col = o.axis == Axis::colwise;
  const std::int64_t per = t.rows * t.cols;
  const std::int64_t nb = col ? ceil_div(t.rows, r.block) : ceil_div(t.cols, r.block);
  const std::int64_t srows = col ? t.cols : t.rows;
  std::vector<std::uint8_t> dense(static_cast<std::size_t>(srows * nb));
  const auto* base = static_cast<const unsigned char*>(t.data);
  for (std::int64_t b = 0; b < t.batch; ++b) {
    fq.rows(base + b * per * static_cast<std::int64_t>(in_type_bytes(t.type)), t.type, t.rows, t.cols, o.axis, o.packing,
            q.data.data() + b * q.data_rows * q.row_bytes, dense.data());
    for (std::int64_t sr = 0; sr < srows; ++sr) {
      for (std::int64_t kb = 0; kb < nb; ++kb) {
        q.scales[static_cast<std::size_t>(scale_offset(o.scale_layout, q.scale_shape, b, sr, kb))] =
            dense[static_cast<std::size_t>(sr * nb + kb)];
      }
    }
  }
  return q;
}

// ---- dequantize ------------------------------------------------------------

FastDequantizer::FastDequantizer(const Recipe& r, std::uint32_t global_amax_bits, Fmt out) : r_(r) {
  if (out != Fmt::fp32 && out != Fmt::bf16 && out != Fmt::fp16) {
    throw InvalidArgument("dequantize output must be fp32, bf16 or fp16");
  }
  ob_ = desc(out).bits / 8;
  // Row s of this tensor holds every element code once, in blocks of scale s:
  // mx::dequantize of it is the table.
  const std::int64_t nc = std::int64_t{1} << desc(r.elem).bits;
  Quantized t;
  t.recipe = r;
  t.batch = 1;
  t.rows = 256;
  t.cols = nc;
  t.data_rows = 256;
  t.data_row_elems = nc;
  t.row_bytes = packed_row_bytes(r.elem, nc, Packing::packed);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(nc));
  for (std::int64_t c = 0; c < nc; ++c) codes[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c);
  t.data.resize(static_cast<std::size_t>(256 * t.row_bytes));
  for (std::int64_t s = 0; s < 256; ++s) pack_row(r.elem, codes.data(), nc, Packing::packed, t.data.data() + s * t.row_bytes);
  t.scale_shape = ScaleShape{256, ceil_div(nc, r.block), 1};
  t.scales.resize(static_cast<std::size_t>(256 * t.scale_shape.blocks));
  for (std::int64_t s = 0; s < 256; ++s) {
    for (std::int64_t kb = 0; kb < t.scale_shape.blocks; ++kb) t.scales[static_cast<std::size_t>(s * t.scale_shape.blocks + kb)] = static_cast<std::uint8_t>(s);
  }
  t.global_amax_bits = global_amax_bits;
  const std::vector<std::uint8_t> y = dequantize(t, out);
  table_.assign(65536, 0);
  for (std::int64_t s = 0; s < 256; ++s) {
    for (std::int64_t c = 0; c < nc; ++c) {
      std::uint32_t v = 0;
      std::memcpy(&v, y.data() + (s * nc + c) * ob_, static_cast<std::size_t>(ob_));
      table_[static_cast<std::size_t>(s << 8 | c)] = v;
    }
  }
}

void FastDequantizer::rows(const std::uint8_t* data, std::int64_t row_bytes, Packing p, const std::uint8_t* scales,
                           std::int64_t rows, std::int64_t cols, Axis axis, std::uint8_t* out) const {
  if (rows <= 0 || cols <= 0) return;
  if (data == nullptr || scales == nullptr || out == nullptr) throw InvalidArgument("fast dequantize: null pointer");
  const std::int64_t V = r_.block;
  const bool direct = desc(r_.elem).bits == 8;  // codes are the bytes in both packings (C6)
  std::vector<std::uint8_t> codes(direct ? 0 : static_cast<std::size_t>(cols));
  std::vector<std::uint8_t> srow(axis == Axis::colwise ? static_cast<std::size_t>(cols) : 0);
  const std::int64_t nb = axis == Axis::rowwise ? ceil_div(cols, V) : ceil_div(rows, V);
  for (std::int64_t m = 0; m < rows; ++m) {
    const std::uint8_t* c = data + m * row_bytes;
    if (!direct) {
      unpack_row(r_.elem, c, cols, p, codes.data());
      c = codes.data();
    }
    std::uint8_t* o = out + m * cols * ob_;
    const auto put = [&](std::int64_t k, std::uint8_t s) {
      const std::uint32_t v = table_[std::size_t{s} << 8 | c[k]];
      if (ob_ == 4) {
        std::memcpy(o + k * 4, &v, 4);
      } else {
        const auto h = static_cast<std::uint16_t>(v);
        std::memcpy(o + k * 2, &h, 2);
      }
    };
    if (axis == Axis::rowwise) {
      const std::uint8_t* s = scales + m * nb;
      for (std::int64_t kb = 0; kb < nb; ++kb) {
        const std::int64_t k1 = std::min(cols, (kb + 1) * V);
        for (std::int64_t k = kb * V; k < k1; ++k) put(k, s[kb]);
      }
    } else {
      if (m % V == 0) {
        for (std::int64_t k = 0; k < cols; ++k) srow[static_cast<std::size_t>(k)] = scales[k * nb + m / V];
      }
      for (std::int64_t k = 0; k < cols; ++k) put(k, srow[static_cast<std::size_t>(k)]);
    }
  }
}

std::vector<std::uint8_t> dequantize_fast(const Quantized& q, Fmt out) {
  if (q.opts.axis == Axis::colwise && q.opts.data_order == DataOrder::transposed) return dequantize(q, out);
  const FastDequantizer d(q.recipe, q.global_amax_bits, out);
  const std::int64_t total = checked_mul(checked_mul(q.rows, q.cols, "shape"), q.batch, "shape");
  std::vector<std::uint8_t> y(static_cast<std::size_t>(checked_mul(total, d.out_bytes(), "output bytes")));
  const bool col = q.opts.axis == Axis::colwise;
  const std::int64_t srows = q.scale_shape.rows, nb = q.scale_shape.blocks;
  std::vector<std::uint8_t> dense(static_cast<std::size_t>(srows * nb));
  for (std::int64_t b = 0; b < q.batch; ++b) {
    for (std::int64_t sr = 0; sr < srows; ++sr) {
      for (std::int64_t kb = 0; kb < nb; ++kb) {
        dense[static_cast<std::size_t>(sr * nb + kb)] =
            q.scales[static_cast<std::size_t>(scale_offset(q.opts.scale_layout, q.scale_shape, b, sr, kb))];
      }
    }
    d.rows(q.data.data() + b * q.data_rows * q.row_bytes, q.row_bytes, q.opts.packing, dense.data(), q.rows, q.cols,
           col ? Axis::colwise : Axis::rowwise, y.data() + b * q.rows * q.cols * d.out_bytes());
  }
  return y;
}

}  // namespace mx
