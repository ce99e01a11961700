// probe_driver.hpp - what the probe driver's files share (probe_main.cpp:
// the command line, fragments, numerics and scale lanes; probe_main_f64.cpp:
// the numerics of mma.sync.m8n8k4.f64): the options and the output helpers.
// Internal to mxprobes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mx/mma_map.hpp"

namespace mxk::driver {

struct Opts {
  bool list = false, fragments = true, numerics = true, grid = true, corners = false;
  std::size_t corner_cases = 100000;
  std::vector<std::string> names;
  std::string out, refit;
  std::size_t cases = 1000000, fit = 65536;
  std::uint64_t seed = 2021;
  int threads = 0;
};

// v as `digits` lowercase hex digits.
std::string hex(std::uint64_t v, int digits);
// Writes text to dir/name (nothing where dir is empty); mx::Error if it cannot.
void write_file(const std::string& dir, const std::string& name, const std::string& text);
// The form's name with '.' as '_' (the stem of its files).
std::string file_stem(mx::MmaForm f);

// mma.sync.m8n8k4.f64 (probe_main_f64.cpp): every candidate of
// mx::hw_f64_candidates() on features, fit and fresh validation cases; the
// fitted model's mismatches. refit_f64: the same from the files of an
// earlier run in dir (inputs regenerated from the seed).
std::size_t run_numerics_f64(const Opts& o, int threads);
void refit_f64(const std::string& dir, const Opts& o, int threads);

}  // namespace mxk::driver
