// probe_lib.hpp - the probes themselves (host logic over probe_kernels.hpp):
// fragment-map probes and the hardware runs of numerics cases (the cases
// themselves: numerics_cases.hpp).
// Used by `mxconform probe` (probe_main), the mxprobe executable and the gpu
// tests in conformance/probes/.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "mx/hw_model.hpp"
#include "mx/mma_map.hpp"
#include "numerics_cases.hpp"
#include "probe_kernels.hpp"
#include "validation_file.hpp"

namespace mxk::probes {

// Measured map of one operand (same order as mx::documented_map) and notes
// on entries that could not be decoded.
struct OperandProbe {
  mx::Operand op = mx::Operand::A;
  mx::FragmentMap measured;
  std::vector<mx::MapEntry> differences;  // entries where measured != documented
  std::vector<std::string> notes;         // undecodable entries, poison seen, ...
};

struct FragmentProbe {
  mx::MmaForm form{};
  std::vector<OperandProbe> operands;  // those held in registers (A, B, C/D)
  std::string method;                  // what is anchored, what is measured
  int tiles = 0;
  std::size_t total_differences() const;
};

// Runs every one-hot experiment of the form on the GPU and decodes the maps.
// Hypothesis (STYLE 8): the documented map of C10 / PTX ISA.
FragmentProbe probe_fragments(mx::MmaForm f);


// Runs cases through the hardware: every case's d is filled in. With
// shared_rows, cases come M*N per tile in (m, n) order and all cases of one
// row m share a (as random_tile_cases makes them), all of one column n share
// b; otherwise each case runs alone at (0, 0) of its own tile (zeros around).
void run_cases(mx::MmaForm f, std::vector<mx::DotCase>& cases, bool shared_rows = true);

// mma.sync.m8n8k4.f64 (binary64 c and d; see mx::HwModelF64). Random
// tiles in six kinds by tile % 6: 0 wide exponents (|e| <= 600), 1 near 1,
// 2 near 1 with c = -(a.b) perturbed in its low bits (cancellation against
// c), 3 near 1 with pairs a1 b1 ~ -a0 b0, a3 b3 ~ -a2 b2 (cancellation among
// products), 4 tiny (products and c near and below 2^-1022: subnormal
// results, subnormal operands), 5 huge (products near 2^1024: overflow);
// signed zeros (~3%), NaN/Inf operands and c (~0.4% each) throughout.
std::vector<mx::DotCaseF64> random_tile_cases_f64(std::uint64_t seed, int tile);
void run_cases_f64(std::vector<mx::DotCaseF64>& cases, bool shared_rows = true);
struct FeatureF64 {
  std::string name;
  mx::DotCaseF64 cs;
};
std::vector<FeatureF64> feature_cases_f64();


// Issue 13 corner classes on the hardware (corner_run.cpp): the named corner
// features and `random_cases` cases in random tiles of one class each, with
// the hardware's d, as a validation sample; and the per-class report of the
// fitted model on it (returns the mismatches).
ValidationFile run_corner_cases(mx::MmaForm f, std::size_t random_cases, std::uint64_t seed, const std::string& device);
std::size_t report_corners(mx::MmaForm f, const ValidationFile& vf, std::ostream& os);

// CPU emulation of the GPU by the documented maps and model p (nullptr: off).
// For tests of the decoding and fitting logic on machines without a GPU.
void set_emulation(const mx::HwModelParams* p);
bool emulating();
// Block-scale probe tile: run_scale_batch(), or its emulation.
void exec_scale(mx::MmaForm f, const ScaleSel& s, TileBatch& b, const std::vector<std::uint32_t>& sfa,
                const std::vector<std::uint32_t>& sfb);
// form_runnable(), or true for every form under emulation.
bool runnable(mx::MmaForm f, std::string* why);

}  // namespace mxk::probes
