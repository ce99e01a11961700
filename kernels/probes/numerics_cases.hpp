// numerics_cases.hpp - the inputs of the numerics probes (reference/SPEC.md
// C9 hardware models), in plain C++ (no CUDA): random tiles, the Fasi-style
// feature cases, the corner classes of issue 13 (corner_cases.cpp), element
// code helpers. Used by the probe driver on the GPU and by the cpu tests,
// which regenerate the inputs of checked-in hardware data from their seeds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mx/hw_model.hpp"
#include "mx/mma_map.hpp"

namespace mxk::probes {

// splitmix64: the generator every probe input comes from (the checked-in
// fit data regenerate from it, so it must not change).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

// Element kind used for the numerics of a form (its A/B element).
mx::Elem numerics_elem(mx::MmaForm f);
bool has_float_numerics(mx::MmaForm f);  // float accumulate forms on sm_90

// Deterministic random inputs: tile t of form f from seed (inputs only; d = 0).
// Each case is one (row, col) of D: M*N cases per tile.
std::vector<mx::DotCase> random_tile_cases(mx::MmaForm f, std::uint64_t seed, int tile);

// Feature cases in the style of Fasi et al. 2021 (name + case).
struct Feature {
  std::string name;
  mx::DotCase cs;
};
std::vector<Feature> feature_cases(mx::MmaForm f);

// Integer forms: exact wrap-around int32 dot product (C = s32).
std::uint32_t exact_int_dot(const mx::DotCase& cs);

// Value of one element code as a double (for printing).
double elem_value(mx::Elem e, std::uint64_t code);

// Code of an exactly representable value; false if there is none.
bool code_of(mx::Elem e, double v, std::uint64_t* out);

// ---- corner classes (issue 13; corner_cases.cpp) -----------------------------
// Every case of a class satisfies its definition (in_corner_class says so, and
// the cpu tests check it on every generated case):
//   cut_zero_pos/neg  the exact sum is nonzero with that sign, and below 2^-26 of
//                     the largest term or below 2^-149 (cut or rounded to zero)
//   sub_c_below       C subnormal, every nonzero product smaller than |C| (>= 1)
//   sub_c_above       C subnormal, every nonzero product larger than |C| (>= 1)
//   negzero_c_{all,one,two,allbut1}  C = -0, every product a zero, that many -0
//   poszero_c_all_neg C = +0, every product -0
//   fields_le1        every exponent field of a, b and C is 0 or 1
//   below126_c{norm,sub,zero}  every product below 2^-126 in magnitude, C normal,
//                     subnormal or zero (forms whose elements cannot make a nonzero
//                     product that small use zero products)
// sub_c_below needs products below 2^-149 and exists only for bf16 and tf32.
enum class Corner : std::uint8_t {
  cut_zero_pos,
  cut_zero_neg,
  sub_c_below,
  sub_c_above,
  negzero_c_all,
  negzero_c_one,
  negzero_c_two,
  negzero_c_allbut1,
  poszero_c_all_neg,
  fields_le1,
  below126_cnorm,
  below126_csub,
  below126_czero,
};
inline constexpr int kNumCorners = 13;
std::string corner_name(Corner c);
std::vector<Corner> corner_classes(mx::MmaForm f);

struct CornerFeature {
  std::string name;
  Corner cls;
  mx::DotCase cs;
};
// Named cases, each run alone in its tile (issue 13's rows A-D for the bf16 forms).
std::vector<CornerFeature> corner_features(mx::MmaForm f);

// Random tile t (seed): M*N cases sharing rows like random_tile_cases, all of
// one class (drawn uniformly from corner_classes(f)), returned in *cls.
std::vector<mx::DotCase> corner_tile_cases(mx::MmaForm f, std::uint64_t seed, int tile, Corner* cls);

// Whether cs meets the definition of class c (why: the first failed condition).
bool in_corner_class(mx::MmaForm f, Corner c, const mx::DotCase& cs, std::string* why);

}  // namespace mxk::probes
