// mx/fast_quantize.hpp - fast quantize and dequantize for large tensors
// (issue 15): the same bytes as mx::quantize and mx::dequantize (C3, C4, C6,
// C7, C8), several times faster per element, for the command line's CPU path.
//
// Quantize: block scales come from mx::block_scale (C3) itself; each finite
// element is rounded by integer bit manipulation of its fp32 pattern at the
// scaled exponent (value * 2^-e is never formed, so nothing underflows or
// overflows on the way: C3 "scaling is exact"); the codes that depend only on
// the sign (zero, underflow to zero, overflow under the policy) are taken
// once from mx::encode_exact, and NaN/Inf inputs go to mx::encode_scaled.
// Covered: the element formats (e4m3, e5m2, e3m2, e2m3, e2m1, int8) under
// rne, rna and rtz with every other policy field; not covered (callers fall
// back to mx::quantize): sr rounding, NVFP4 (C5), transposed colwise data.
// conformance/fast/fast_quantize_test.cpp proves equality with
// mx::encode_scaled exhaustively over every bf16 and fp16 input at every scale
// exponent, on sampled fp32 inputs, and tensor by tensor.
//
// Dequantize: an element's output depends only on its code, its block's scale
// code and (NVFP4) the global amax, so a 256 x 256 table of outputs is filled
// once by mx::dequantize itself and each element is one lookup. Every recipe
// is covered; only transposed colwise data falls back.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "mx/quantize.hpp"

namespace mx {

namespace detail {
// The per-recipe constants of FastQuantizer's vectorised element loops.
struct FastRunConst {
  int m, emin, e, bias;
  std::uint32_t maxmag, sign, under0, under1, over0, over1, int_lim_neg;
};
}  // namespace detail

class FastQuantizer {
 public:
  // Does the fast path cover this recipe (element-wise) / recipe and options?
  static bool supports(const Recipe& r);
  static bool supports(const Recipe& r, const QuantizeOptions& o);
  // Throws InvalidArgument when !supports(r).
  explicit FastQuantizer(const Recipe& r);

  // encode_scaled(r.elem, x, scale_exp, r.conv), the same code.
  std::uint32_t encode(std::uint32_t x, int scale_exp) const;
  // The same for n codes at one scale exponent (the vectorised loop that
  // rows() runs: AVX2 where the processor has it).
  void encode_many(const std::uint32_t* x, std::int64_t n, int scale_exp, std::uint8_t* codes) const;

  // Quantizes `rows` x `cols` elements of `in` (type t, row-major, source
  // order) as one tensor of its own: data rows (packed_row_bytes(elem, cols,
  // packing) bytes each) to `data`, scales in the dense layout of its scale
  // matrix to `scales` (rowwise [rows][ceil(cols/V)], colwise
  // [cols][ceil(rows/V)]). Equals quantize(r, {in, t, 1, rows, cols},
  // {axis, source, dense, packing}).
  void rows(const void* in, InType t, std::int64_t rows, std::int64_t cols, Axis axis, Packing packing,
            std::uint8_t* data, std::uint8_t* scales) const;

 private:
  Recipe r_;
  int m_ = 0, emin_ = 0, bias_ = 0;
  bool int_ = false, flush_ = false;
  Rounding rnd_ = Rounding::rne;
  std::uint32_t maxmag_ = 0, sign_ = 0, int_lim_neg_ = 128;
  std::uint32_t zero_[2]{}, under_[2]{}, over_[2]{};  // by sign: exact zero, underflow, overflow
  const std::uint32_t* f16_ = nullptr;                // fp16 -> fp32 bits (mx::f16_to_f32_bits), 2^16 entries
  void widen(const void* in, InType t, std::int64_t i0, std::int64_t n, std::uint32_t* out) const;
  detail::FastRunConst run_const(int scale_exp) const;
  // Scale codes (to scales[i * stride]) and exponents of n blocks from their
  // amax pass, as block_scale computes them.
  void block_codes(const std::uint32_t* amax, const std::uint32_t* nonfinite, std::int64_t n, std::uint8_t* scales,
                   std::int64_t stride, int* exps) const;
  // Re-encodes the zero, subnormal, Inf and NaN elements with encode().
  template <class ExpOf>
  void fix_specials(const std::uint32_t* x, std::int64_t n, std::uint8_t* codes, ExpOf&& exp_of) const {
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint32_t ef = (x[i] >> 23) & 0xFFu;
      if (ef == 0 || ef == 0xFFu) codes[i] = static_cast<std::uint8_t>(encode(x[i], exp_of(i)));
    }
  }
};

// quantize(r, t, o), through FastQuantizer when it supports r and o.
Quantized quantize_fast(const Recipe& r, const TensorView& t, const QuantizeOptions& o = {});

class FastDequantizer {
 public:
  // Throws as dequantize does for an output that is not fp32, bf16 or fp16.
  FastDequantizer(const Recipe& r, std::uint32_t global_amax_bits, Fmt out);
  // The output bits of element code `e` in a block of scale code `s`.
  std::uint32_t at(std::uint8_t e, std::uint8_t s) const { return table_[std::size_t{s} << 8 | e]; }
  int out_bytes() const { return ob_; }

  // Dequantizes `rows` x `cols` elements stored as source-order data rows of
  // `row_bytes` bytes (packing `p`) with dense scales laid out as
  // FastQuantizer::rows writes them, to `out` (rows * cols * out_bytes()).
  void rows(const std::uint8_t* data, std::int64_t row_bytes, Packing p, const std::uint8_t* scales,
            std::int64_t rows, std::int64_t cols, Axis axis, std::uint8_t* out) const;

 private:
  Recipe r_;
  int ob_ = 4;
  std::vector<std::uint32_t> table_;  // [scale code][element code]
};

// dequantize(q, out), through FastDequantizer unless the data is transposed.
std::vector<std::uint8_t> dequantize_fast(const Quantized& q, Fmt out);

}  // namespace mx
