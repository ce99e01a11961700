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

using RunConst = detail::FastRunConst;  // the constants of the element loops below

// round(sig / 2^sh) for 1 <= sh <= 25 (from 25 on, every covered mode gives 0).
template <Rounding R>
__attribute__((always_inline)) inline std::uint32_t round_v(std::uint32_t sig, std::uint32_t sh) {
  if constexpr (R == Rounding::rtz) {
    return sig >> sh;
  } else if constexpr (R == Rounding::rna) {
    return (sig + (1u << (sh - 1u))) >> sh;
  } else {
    return (sig + (1u << (sh - 1u)) - 1u + ((sig >> sh) & 1u)) >> sh;
  }
}

// encode() for inputs with a normal fp32 exponent field (1..254), without
// branches, so that the compiler vectorises it (variable shifts need AVX2: the
// MX_FAST_CLONES functions are compiled for AVX2 and for the baseline, chosen
// at load time). The scale exponent is k.e, or ev[i] with PerElem. Returns
// non-zero when some x[i] is zero, subnormal, Inf or NaN: the caller then
// encodes those elements with encode().
template <Rounding R, bool Int, bool PerElem>
__attribute__((always_inline)) inline std::uint32_t elem_loop(const RunConst k, const std::uint32_t* __restrict x,
                                                              std::int64_t n, const int* __restrict ev,
                                                              std::uint8_t* __restrict codes) {
  // Locals, not k's members: the uint8_t stores may alias k (char type).
  const std::int32_t m = k.m, emin = k.emin, e0 = k.e, bias = k.bias;
  const std::uint32_t maxmag = k.maxmag, sign = k.sign, under0 = k.under0, over0 = k.over0, lim_neg = k.int_lim_neg;
  const std::uint32_t dover = k.over0 ^ k.over1, dunder = k.under0 ^ k.under1;
  std::uint32_t special = 0;
  for (std::int64_t i = 0; i < n; ++i) {  // masks, not branches: if-converted and vectorised
    const std::int32_t e = PerElem ? ev[i] : e0;
    const std::uint32_t a = x[i] & 0x7FFFFFFFu;
    const std::uint32_t nm = 0u - (x[i] >> 31);  // all ones for a negative x
    const std::uint32_t ef = a >> 23;
    special |= static_cast<std::uint32_t>((ef - 1u) >= 254u);
    const std::uint32_t sig = (a & 0x7FFFFFu) | 0x800000u;
    const std::int32_t es = static_cast<std::int32_t>(ef) - 127 - e;
    std::uint32_t c;
    if constexpr (Int) {
      // int8: n = round(|value| * 2^bias), clamped (C2 "int8"); a shift
      // below 1 means |value| >= 2^(23 - bias - 1) * ..., far beyond 128.
      const std::int32_t shift = 23 - bias - es;
      const std::uint32_t bm = 0u - static_cast<std::uint32_t>(shift < 1);
      std::uint32_t q = round_v<R>(sig, static_cast<std::uint32_t>(std::clamp(shift, 1, 25)));
      q = (q & ~bm) | (1024u & bm);
      const std::uint32_t pos = std::min(q, 127u);
      const std::uint32_t neg = (256u - std::min(q, lim_neg)) & 0xFFu;
      c = (pos & ~nm) | (neg & nm);
    } else {
      const std::int32_t d = std::max(emin - es, 0);  // below the normal range: the subnormal quantum
      const std::uint32_t q = round_v<R>(sig, static_cast<std::uint32_t>(std::min(23 - m + d, 25)));
      const std::uint32_t mag = (static_cast<std::uint32_t>(es + d - emin) << m) + q;
      const std::uint32_t om = 0u - static_cast<std::uint32_t>(mag > maxmag);
      const std::uint32_t zm = 0u - static_cast<std::uint32_t>(q == 0u);
      c = mag | (sign & nm);
      c = (c & ~om) | ((over0 ^ (dover & nm)) & om);
      c = (c & ~zm) | ((under0 ^ (dunder & nm)) & zm);
    }
    codes[i] = static_cast<std::uint8_t>(c);
  }
  return special;
}

template <bool PerElem>
__attribute__((always_inline)) inline std::uint32_t elem_dispatch(Rounding r, bool is_int, const RunConst& k,
                                                                  const std::uint32_t* x, std::int64_t n, const int* ev,
                                                                  std::uint8_t* codes) {
  if (is_int) {
    switch (r) {
      case Rounding::rna: return elem_loop<Rounding::rna, true, PerElem>(k, x, n, ev, codes);
      case Rounding::rtz: return elem_loop<Rounding::rtz, true, PerElem>(k, x, n, ev, codes);
      default: return elem_loop<Rounding::rne, true, PerElem>(k, x, n, ev, codes);
    }
  }
  switch (r) {
    case Rounding::rna: return elem_loop<Rounding::rna, false, PerElem>(k, x, n, ev, codes);
    case Rounding::rtz: return elem_loop<Rounding::rtz, false, PerElem>(k, x, n, ev, codes);
    default: return elem_loop<Rounding::rne, false, PerElem>(k, x, n, ev, codes);
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define MX_FAST_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MX_FAST_CLONES
#endif

// n elements at one scale exponent k.e.
MX_FAST_CLONES std::uint32_t encode_run(Rounding r, bool is_int, const RunConst& k, const std::uint32_t* x, std::int64_t n,
                                        std::uint8_t* codes) {
  return elem_dispatch<false>(r, is_int, k, x, n, nullptr, codes);
}

// A row of blocks of v, block kb at scale exponent eb[kb] (one dispatch per row).
MX_FAST_CLONES std::uint32_t encode_blocks(Rounding r, bool is_int, RunConst k, const std::uint32_t* x, std::int64_t n,
                                           std::int64_t v, const int* eb, std::uint8_t* codes) {
  std::uint32_t special = 0;
  for (std::int64_t i0 = 0, kb = 0; i0 < n; i0 += v, ++kb) {
    k.e = eb[kb];
    special |= elem_dispatch<false>(r, is_int, k, x + i0, std::min(v, n - i0), nullptr, codes + i0);
  }
  return special;
}

// n elements, element i at scale exponent ev[i] (a colwise row).
MX_FAST_CLONES std::uint32_t encode_elems(Rounding r, bool is_int, const RunConst& k, const std::uint32_t* x, std::int64_t n,
                                          const int* ev, std::uint8_t* codes) {
  return elem_dispatch<true>(r, is_int, k, x, n, ev, codes);
}

// The first pass of block_scale (scale.cpp): the largest finite |x| and
// whether a NaN or Inf occurs, compared as |x| bits, branch-free; per block of
// v of a row (row_amax) or per column over `rows` rows (col_amax).
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

MX_FAST_CLONES void col_amax(const std::uint32_t* __restrict x, std::int64_t rows, std::int64_t cols,
                             std::uint32_t* __restrict amax, std::uint32_t* __restrict nonfinite) {
  for (std::int64_t k = 0; k < cols; ++k) amax[k] = nonfinite[k] = 0;
  for (std::int64_t j = 0; j < rows; ++j) {
    const std::uint32_t* __restrict xr = x + j * cols;
    for (std::int64_t k = 0; k < cols; ++k) {
      const std::uint32_t a = xr[k] & 0x7FFFFFFFu;
      const std::uint32_t fin = static_cast<std::uint32_t>(a < 0x7F800000u);
      nonfinite[k] |= fin ^ 1u;
      amax[k] = std::max(amax[k], a & (0u - fin));
    }
  }
}

}  // namespace

RunConst FastQuantizer::run_const(int scale_exp) const {
  return RunConst{m_,       emin_,     scale_exp, bias_,    maxmag_,     sign_,
                  under_[0], under_[1], over_[0],  over_[1], int_lim_neg_};
}

void FastQuantizer::encode_many(const std::uint32_t* x, std::int64_t n, int scale_exp, std::uint8_t* codes) const {
  if (encode_run(rnd_, int_, run_const(scale_exp), x, n, codes) == 0) return;
  fix_specials(x, n, codes, [&](std::int64_t) { return scale_exp; });
}

void FastQuantizer::block_codes(const std::uint32_t* amax, const std::uint32_t* nonfinite, std::int64_t n, std::uint8_t* scales,
                                std::int64_t scale_stride, int* exps) const {
  const bool nan_blocks = r_.nfb == NonFiniteBlock::nonfinite_block_nan;
  for (std::int64_t i = 0; i < n; ++i) {  // block_scale (C3) from its first pass: the rule itself
    const std::uint8_t code = scale_code_finite(amax[i], r_.elem, r_.rule);
    exps[i] = static_cast<int>(code) - 127;
    scales[i * scale_stride] = (nonfinite[i] != 0 && nan_blocks) ? std::uint8_t{0xFF} : code;
  }
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
  const RunConst k = run_const(0);
  if (axis == Axis::rowwise) {
    const std::int64_t nb = ceil_div(cols, V);
    std::vector<std::uint32_t> x(static_cast<std::size_t>(cols)), amax(static_cast<std::size_t>(nb)), nonfinite(amax.size());
    std::vector<int> exps(amax.size());
    for (std::int64_t m = 0; m < rows; ++m) {
      widen(in, t, m * cols, cols, x.data());
      std::uint8_t* c = direct ? data + m * rb : codes.data();
      row_amax(x.data(), cols, V, amax.data(), nonfinite.data());
      block_codes(amax.data(), nonfinite.data(), nb, scales + m * nb, 1, exps.data());
      if (encode_blocks(rnd_, int_, k, x.data(), cols, V, exps.data(), c) != 0) {
        fix_specials(x.data(), cols, c, [&](std::int64_t i) { return exps[static_cast<std::size_t>(i / V)]; });
      }
      if (!direct) pack_row(r_.elem, codes.data(), cols, packing, data + m * rb);
    }
    return;
  }
  // colwise: blocks of V rows of one column; scales [cols][ceil(rows / V)].
  const std::int64_t nbr = ceil_div(rows, V);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(std::min(V, rows) * cols)), amax(static_cast<std::size_t>(cols)),
      nonfinite(amax.size());
  std::vector<int> exps(amax.size());
  for (std::int64_t g = 0; g < nbr; ++g) {
    const std::int64_t m0 = g * V, n = std::min(V, rows - m0);
    widen(in, t, m0 * cols, n * cols, x.data());
    col_amax(x.data(), n, cols, amax.data(), nonfinite.data());
    block_codes(amax.data(), nonfinite.data(), cols, scales + g, nbr, exps.data());
    for (std::int64_t j = 0; j < n; ++j) {
      std::uint8_t* c = direct ? data + (m0 + j) * rb : codes.data();
      const std::uint32_t* xr = x.data() + j * cols;
      if (encode_elems(rnd_, int_, k, xr, cols, exps.data(), c) != 0) {
        fix_specials(xr, cols, c, [&](std::int64_t i) { return exps[static_cast<std::size_t>(i)]; });
      }
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
