// oracle.hpp - the slow exact oracle (namespace mxo), in the spirit of
// TestFloat's slowfloat. Tests only.
//
// It computes the functions of SPEC C1-C9 directly from their
// definitions, by exact dyadic/rational arithmetic, and shares no code with
// the fast path (it never includes mx/*.hpp):
//   C1  every code of every format is decoded from the C1 definition into an
//       exact value; the finite values are enumerated into a sorted table.
//   C2  encode picks the neighbours of the exact input among the enumerated
//       values (plus the one value "above" max finite of the format extended
//       by one binade) by exact comparisons, then the rounding rule decides by
//       comparing exact distances; overflow / NaN / Inf policies as written.
//   C3  scale exponents by exact comparison with powers of two; rceil through
//       an exact model of the fp32 product and of fp32(1/max_finite).
//   C5  NVFP4: every fp32 operation is modelled exactly (exact product or
//       quotient, then one correct RNE rounding to fp32).
//   C6  packing from the bit-level definitions.
//   C7  tcgen05 offsets from a 128x4 tile enumerated in storage order.
//   C8  dequantization: exact product, one RNE rounding.
//   C9  exact dot product: a 2048-bit fixed-point sum, one RNE rounding.
//
// The enums below list their members in the same order as the corresponding
// mx:: enums (mx/format.hpp, convert.hpp, scale.hpp, layout.hpp) so that a test
// may static_cast between them; conformance/cpu checks that by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mxo {

enum class Fmt : std::uint8_t { e4m3, e5m2, e3m2, e2m3, e2m1, int8, ue8m0, ue4m3, fp32, bf16, fp16 };
enum class Rounding : std::uint8_t { rne, rtz, rna, sr, ru };
enum class Overflow : std::uint8_t { saturate, propagate };
enum class NanPolicy : std::uint8_t { nan_default, nan_canonical, nan_keep_sign, nan_to_max, nan_to_zero };
enum class Int8Range : std::uint8_t { int8_full, int8_symmetric };
enum class ScaleRule : std::uint8_t { floor, ceil, even, rceil };
enum class NonFiniteBlock : std::uint8_t { nonfinite_block_nan, nonfinite_block_ignore };
enum class Layout : std::uint8_t { dense, dense_colwise, tcgen05 };

const char* fmt_name(Fmt f);
const char* rounding_name(Rounding r);

struct Policy {
  Rounding rounding = Rounding::rne;
  Overflow overflow = Overflow::saturate;
  NanPolicy nan = NanPolicy::nan_default;
  Int8Range int8 = Int8Range::int8_full;
  bool flush_input_subnormals = false;  // applies to fp32 subnormal inputs (encode_f32/encode_scaled)
};

// An exact value: (-1)^neg * sig * 2^exp when kind == finite.
struct Value {
  enum Kind : std::uint8_t { finite, inf, nan } kind = finite;
  bool neg = false;
  std::uint64_t sig = 0;
  std::int64_t exp = 0;
};

// Exact values of IEEE interchange bit patterns (from their definitions).
Value from_f32(std::uint32_t bits);
Value from_bf16(std::uint16_t bits);
Value from_f16(std::uint16_t bits);

// Exact compare of two finite values: -1, 0, +1 (+0 == -0).
int compare(const Value& a, const Value& b);

// C1: exact value of a code (NaN/Inf kinds for the special codes). For
// ue4m3 a code with bit 7 set is not a code of the format and decodes as NaN.
Value decode(Fmt f, std::uint32_t code);
// Number of codes of an element/scale format (2^bits).
std::uint32_t code_count(Fmt f);
// The finite values of a 4/6/8-bit format, as the C1 table defines them:
// max finite magnitude and its code.
std::uint32_t max_finite_code(Fmt f);

// C2: one correct rounding of the exact value x into format f (4/6/8-bit
// formats). sr uses rbits: the carry out of the integer addition of the 32
// random bits to the discarded bits, most significant bits aligned (PTX ISA
// cvt .rs; oracle.cpp sr_carry says how it is read from the text).
// Policy::flush_input_subnormals is ignored here.
std::uint32_t encode(Fmt f, const Value& x, const Policy& p, std::uint32_t rbits = 0);
// encode(f, value of fp32 bits) with flush_input_subnormals applied.
std::uint32_t encode_f32(Fmt f, std::uint32_t bits, const Policy& p, std::uint32_t rbits = 0);
// encode(f, value * 2^-scale_exp), exact scaling (C3).
std::uint32_t encode_scaled(Fmt f, std::uint32_t bits, int scale_exp, const Policy& p,
                            std::uint32_t rbits = 0);

// One RNE rounding of x into fp32 / bf16 / fp16 (overflow gives Inf, NaN gives
// the canonical quiet NaN 0x7FC00000 / 0x7FC0 / 0x7E00). Returns the bits.
std::uint32_t round_ieee(Fmt out, const Value& x);

// C3: the scale exponent before clamping for a finite amax > 0 (fp32 bits,
// sign ignored). rceil returns -100000 when the fp32 product is zero.
int scale_exponent(std::uint32_t amax_bits, Fmt elem, ScaleRule rule);
// The ue8m0 code for a finite amax (0 -> 0x00, clamped to [-127, 127]).
std::uint8_t scale_code(std::uint32_t amax_bits, Fmt elem, ScaleRule rule);

struct Block {
  std::uint8_t scale = 0;     // code written (0xFF for a non-finite block under _nan)
  int exp = -127;             // exponent the elements were scaled by
  std::vector<std::uint8_t> codes;
};
// C3/C4: one block of n fp32 values (stride apart). rbits: n words (sr), may be null otherwise.
Block quantize_block(const std::uint32_t* x, std::int64_t n, std::int64_t stride, Fmt elem,
                     ScaleRule rule, const Policy& p, NonFiniteBlock nfb,
                     const std::uint32_t* rbits = nullptr);

// C5: NVFP4. te = TransformerEngine order, otherwise torchao order.
struct Nvfp4Tensor {
  std::uint32_t s_enc = 0x3F800000u, s_dec = 0x3F800000u;  // TE factors (fp32 bits)
  std::uint32_t per_tensor_scale = 0;                        // torchao (fp32 bits)
};
Nvfp4Tensor nvfp4_tensor(bool te, std::uint32_t global_amax_bits);
// One block: returns the ue4m3 scale code, writes n e2m1 codes.
std::uint8_t nvfp4_block(bool te, const Nvfp4Tensor& t, const std::uint32_t* x, std::int64_t n,
                         std::int64_t stride, std::uint8_t* codes);
// fp32 bits of one dequantized NVFP4 element.
std::uint32_t nvfp4_dequant(bool te, const Nvfp4Tensor& t, std::uint8_t elem, std::uint8_t scale);

// C8: one MX element dequantized to out (fp32/bf16/fp16 bits).
std::uint32_t dequant(Fmt elem, std::uint8_t code, std::uint8_t scale, Fmt out);

// C6: packing of one row of codes. container8 selects the mma container.
std::vector<std::uint8_t> pack_row(Fmt f, const std::vector<std::uint8_t>& codes, bool container8);

// C7: bytes of one matrix / of the batch, offset of S[l][r][b], and the inverse
// (-1 row for a padding byte).
std::int64_t layout_matrix_bytes(Layout l, std::int64_t rows, std::int64_t blocks);
std::int64_t layout_offset(Layout l, std::int64_t rows, std::int64_t blocks, std::int64_t batch,
                           std::int64_t r, std::int64_t b);
struct Coord {
  std::int64_t batch = 0, row = -1, block = -1;  // row == -1: padding
};
Coord layout_coord(Layout l, std::int64_t rows, std::int64_t blocks, std::int64_t offset);

// C9: exact dot of one row of A with one row of B (k codes each, one per
// byte; scales one per block of V; global scales are fp32 bits, 1.0f =
// 0x3F800000 for MX) plus c (fp32 bits), rounded once to fp32 with RNE.
struct Row {
  Fmt elem = Fmt::e4m3;
  Fmt scale_fmt = Fmt::ue8m0;
  const std::uint8_t* codes = nullptr;
  const std::uint8_t* scales = nullptr;
  std::uint32_t global_scale = 0x3F800000u;
};
std::uint32_t exact_dot(const Row& a, const Row& b, std::int64_t k, int block, std::uint32_t c_bits);

// Human-readable exact value (for failure messages), e.g. "-0x1.8p+3".
std::string to_string(const Value& v);

}  // namespace mxo
