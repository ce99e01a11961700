// mx/hw_model.hpp - parameterized tensor-core accumulation model (SPEC C9
// "hardware models") and its fitting against measured cases.
//
// One MMA output element is d = c + sum_{i<K} a_i * b_i. The model (after
// Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor
// cores", PeerJ CS 2021, and Khattak, Mikaitis, "Accurate models of NVIDIA
// tensor cores", 2025) computes it as
//
//   acc = c
//   for each group of `group` consecutive products (in k order):
//     terms = {acc, p_j ...}             (c_in_group; else acc is added after)
//     E     = max over nonzero terms of their exponent (the leading-bit
//             exponent, or for products the sum of the operands' exponent
//             fields when `nominal_exp`), raised to `min_align_exp`
//     each term is aligned to E and cut to `frac_bits` bits below 2^E
//             (toward zero: align = rz; toward -inf: align = rd)
//     the cut terms are summed exactly, normalized once and rounded to
//     `out_mbits` fraction bits with `out_round` (fp32 range)
//   d = acc
// with the products taken in `k_order`; `widen_f16`, `overflow_inf`,
// `c_fadd_end` and `min_align_exp` are the further switches the H100 probes
// needed, `ftz` one the grid tries (no fitted form uses it; see the fields).
//
// Products are exact. NaN/Inf are met in k order, group by group (C's
// first): any NaN, Inf*0 or Inf-Inf gives NaN, and a group whose finite sum
// overflows turns the accumulator into that Inf, which a later Inf of the
// other sign makes NaN; the hardware's NaN bits are compared as a class.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mx/mma_map.hpp"

namespace mx {

enum class HwRound : std::uint8_t { rz, rne, rd };

// Order in which products enter the groups. `natural`: k = 0, 1, 2, ...
// `pairs_split`: first every k with (k & 2) == 0 in increasing order, then
// every k with (k & 2) != 0 (what two chained m16n8k16 f16 steps do when a
// 32-bit register of four 8-bit elements is widened into two registers of
// two f16 each: found on the H100 for mma.sync e4m3/e5m2).
enum class KOrder : std::uint8_t { natural, pairs_split };

struct HwModelParams {
  int group = 32;          // products fused per step
  int frac_bits = 24;      // bits kept below the alignment exponent
  HwRound align = HwRound::rz;
  bool nominal_exp = false;
  int out_mbits = 23;      // fraction bits of each normalized group result
  HwRound out_round = HwRound::rz;
  bool c_in_group = true;
  KOrder k_order = KOrder::natural;
  // Operands are widened to f16 first: the exponent-field alignment
  // (nominal_exp) then sees e4m3 subnormals as the f16 normals they become.
  bool widen_f16 = false;
  // A finite sum beyond fp32 range gives Inf even under rz (H100 behaviour).
  bool overflow_inf = true;
  // Subnormal C inputs and subnormal results are flushed to (signed) zero.
  bool ftz = false;
  // C is not aligned with the products: the groups accumulate from +0 and C
  // is added at the end by one IEEE fp32 addition (RNE). This is what ptxas
  // emits for mma.sync e4m3/e5m2 on sm_90 (seen in the SASS on the H100:
  // F2FP.F16.E4M3.UNPACK_B, HMMA.16816.F32 from RZ, HMMA.16816.F32, FADD).
  bool c_fadd_end = false;
  // The alignment exponent E never lies below 2^min_align_exp: a group whose
  // terms all lie below it (C zero, every product tiny) is aligned at
  // 2^min_align_exp and cut to frac_bits below that. The H100 bf16/tf32 forms
  // need -133 (the cut at 2^-158; issue 13's below126_czero corner); the
  // default leaves E unclamped.
  int min_align_exp = kNoAlignFloor;
  static constexpr int kNoAlignFloor = -(1 << 30);
  friend bool operator==(const HwModelParams&, const HwModelParams&) = default;
};

std::string to_string(const HwModelParams& p);

// One dot-product case: K element codes of a row of A and of a column of B
// (raw bits of `Elem`), c and the hardware's d as fp32 bits.
struct DotCase {
  std::vector<std::uint64_t> a, b;
  std::uint32_t c = 0;
  std::uint32_t d = 0;
};

// The model's d for one case (fp32 bits; NaN as 0x7FFFFFFF).
std::uint32_t hw_dot(const HwModelParams& p, Elem e, const DotCase& cs);

// The exact dot product c + sum a_i b_i rounded once to fp32 with RNE (C9
// `exact`), for comparison in feature tables.
std::uint32_t exact_dot_rne(Elem e, const DotCase& cs);

// Bit-exact comparison of two fp32 results (any NaN equals any NaN).
bool same_result(std::uint32_t model, std::uint32_t hw);

// Candidate parameter sets for a form with reduction length K.
std::vector<HwModelParams> hw_candidate_grid(int k);

struct HwFit {
  std::vector<HwModelParams> exact;  // candidates reproducing every case
  HwModelParams best;                // fewest mismatches (== exact[0] if any)
  std::size_t best_mismatches = 0;   // on all cases
};

// Keep every candidate that reproduces all cases; if none does, report the
// one with the fewest mismatches. Uses up to `threads` threads.
HwFit fit_hw_model(Elem e, int k, const std::vector<DotCase>& cases, int threads = 1);

// Indices of the cases `p` gets wrong (at most `limit`).
std::vector<std::size_t> hw_mismatches(const HwModelParams& p, Elem e, const std::vector<DotCase>& cases,
                                       std::size_t limit = ~std::size_t{0});

// ---- mma.sync.m8n8k4.f64 (DMMA): d = c + a0 b0 + a1 b1 + a2 b2 + a3 b3 in
// binary64. Its own small model family (the C9 group model above is fp32
// out): every candidate the H100 f64 probe (kernels/probes) compares.
//   fma_chain : sequential IEEE fp64 FMAs, acc = c; acc = fma(a_k, b_k, acc)
//               for k in `reverse` ? 3,2,1,0 : 0,1,2,3 (each step RNE)
//   mul_add   : the same with each product rounded first (fmul then fadd)
//   fused     : the C9 group model with a 53-bit significand: products
//               exact, the 4 products and c aligned to the largest exponent
//               (the leading bit, or the exponent-field sum when
//               `nominal_exp`), cut toward zero to `frac_bits` bits below it
//               (0: nothing cut, the exact sum), summed, rounded once to
//               binary64 with `out_round` (gradual underflow; overflow: Inf
//               under rne, max finite under rz)
// NaN/Inf follow IEEE (NaN compared as a class); an exactly zero fused sum
// is -0 only if every term is -0.
struct HwModelF64 {
  enum class Kind : std::uint8_t { fma_chain, mul_add, fused };
  Kind kind = Kind::fma_chain;
  bool reverse = false;
  int frac_bits = 0;
  bool nominal_exp = false;
  HwRound out_round = HwRound::rne;
  // fused with nothing cut only: products per rounding step (4: one step;
  // 2: (c + p0 + p1) rounded, then + p2 + p3 rounded), and C left out of the
  // steps and added at the end by one IEEE fp64 addition (`c_end`).
  int group = 4;
  bool c_end = false;
  friend bool operator==(const HwModelF64&, const HwModelF64&) = default;
};

std::string to_string(const HwModelF64& p);

// One f64 case: binary64 bits of a row of A, a column of B (k = 0 first), c, d.
struct DotCaseF64 {
  std::uint64_t a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
  std::uint64_t c = 0, d = 0;
};

// The model's d (binary64 bits).
std::uint64_t hw_dot_f64(const HwModelF64& p, const DotCaseF64& cs);

// Bit-exact comparison of two binary64 results (any NaN equals any NaN).
bool same_result_f64(std::uint64_t model, std::uint64_t hw);

// The candidates the H100 probe evaluates: both fma chains, both mul_add
// chains, fused exact (rne, rz; groups of 4 and 2; C at the end) and fused
// cut to 53..64, 106, 108 bits.
std::vector<HwModelF64> hw_f64_candidates();

// The f64 model fitted on an H100 (conformance/probes/h100/, run 4):
// fma_chain in k order 0,1,2,3 (d = fma(a3,b3, fma(a2,b2, fma(a1,b1,
// fma(a0,b0,c))))), bit-exact on 2 x 10^6 random hardware cases.
HwModelF64 h100_fitted_f64_model();

// Parameters fitted on an H100 (see conformance/probes/h100/), by form name;
// throws UnknownName for a form with no fitted model (f64 included: its
// binary64 model is h100_fitted_f64_model()).
HwModelParams h100_fitted_model(MmaForm f);

}  // namespace mx
