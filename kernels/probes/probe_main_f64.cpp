// probe_main_f64.cpp - the numerics probe of mma.sync.m8n8k4.f64 (see
// probe_driver.hpp): every candidate of mx::hw_f64_candidates() on features,
// fit and fresh validation cases (the data decide the model), and its
// --refit. Moved from probe_main.cpp.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "mx/hw_model.hpp"
#include "mx/mma_map.hpp"
#include "probe_driver.hpp"
#include "probe_lib.hpp"

namespace mxk::driver {
namespace {

using mx::MmaForm;
namespace pr = mxk::probes;

std::string case_row64(const std::string& kind, const mx::DotCaseF64& c, std::uint64_t model) {
  std::string a, b;
  for (auto v : c.a) a += hex(v, 16);
  for (auto v : c.b) b += hex(v, 16);
  return kind + "," + a + "," + b + "," + hex(c.c, 16) + "," + hex(c.d, 16) + "," + hex(model, 16) + "\n";
}

// Mismatches of every candidate on the cases (threads over candidates).
std::vector<std::size_t> f64_counts(const std::vector<mx::HwModelF64>& cands, const std::vector<mx::DotCaseF64>& cs,
                                    int threads) {
  std::vector<std::size_t> miss(cands.size(), 0);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < cands.size();) {
      std::size_t m = 0;
      for (const auto& c : cs) m += !mx::same_result_f64(mx::hw_dot_f64(cands[i], c), c.d);
      miss[i] = m;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  return miss;
}

std::string raw64(const std::vector<mx::DotCaseF64>& cs, const mx::HwModelF64* xor_model) {
  std::string raw;
  raw.reserve(cs.size() * 8);
  for (const auto& c : cs) {
    const std::uint64_t v = xor_model ? (c.d ^ mx::hw_dot_f64(*xor_model, c)) : c.d;
    raw.append(reinterpret_cast<const char*>(&v), 8);
  }
  return raw;
}

std::vector<mx::DotCaseF64> f64_tiles(std::uint64_t seed, int first, std::size_t n) {
  std::vector<mx::DotCaseF64> cs;
  cs.reserve(n + 64);
  for (int t = first; cs.size() < n; ++t) {
    auto tc = pr::random_tile_cases_f64(seed, t);
    cs.insert(cs.end(), tc.begin(), tc.end());
  }
  cs.resize(n);
  return cs;
}

void print_counts(const char* what, const std::vector<mx::HwModelF64>& cands, const std::vector<std::size_t>& miss,
                  std::size_t n) {
  for (std::size_t i = 0; i < cands.size(); ++i)
    std::printf("   %s %-48s %zu/%zu mismatches%s\n", what, mx::to_string(cands[i]).c_str(), miss[i], n,
                miss[i] == 0 ? "  <- exact" : "");
  std::fflush(stdout);
}

}  // namespace

std::size_t run_numerics_f64(const Opts& o, int threads) {
  const MmaForm f = MmaForm::mma_f64_m8n8k4;
  const std::string stem = file_stem(f);
  std::cout << "== numerics " << mx::form_info(f).name << " (binary64; candidates of mx::hw_f64_candidates)\n";
  const auto cands = mx::hw_f64_candidates();
  const mx::HwModelF64 fitted = mx::h100_fitted_f64_model();
  // Features, each alone in its tile.
  const auto feats = pr::feature_cases_f64();
  std::vector<mx::DotCaseF64> fc;
  for (const auto& ft : feats) fc.push_back(ft.cs);
  pr::run_cases_f64(fc, false);
  // Fit cases.
  const int per = 64;
  std::vector<mx::DotCaseF64> fitc = f64_tiles(o.seed, 0, o.fit);
  pr::run_cases_f64(fitc);
  std::vector<mx::DotCaseF64> all_fit = fitc;
  all_fit.insert(all_fit.end(), fc.begin(), fc.end());
  const auto fmiss = f64_counts(cands, all_fit, threads);
  std::cout << "   fit set: " << fitc.size() << " random + " << fc.size() << " feature cases\n";
  print_counts("fit", cands, fmiss, all_fit.size());
  // Feature table: hardware against the main candidates.
  const mx::HwModelF64 fma_n{mx::HwModelF64::Kind::fma_chain, false, 0, false, mx::HwRound::rne},
      fma_r{mx::HwModelF64::Kind::fma_chain, true, 0, false, mx::HwRound::rne},
      ex{mx::HwModelF64::Kind::fused, false, 0, false, mx::HwRound::rne};
  std::cout << "     feature                                            hw d              fma k=0..3        fma k=3..0        exact-RNE\n";
  for (std::size_t i = 0; i < feats.size(); ++i) {
    const auto& c = fc[i];
    const std::uint64_t m1 = mx::hw_dot_f64(fma_n, c), m2 = mx::hw_dot_f64(fma_r, c), m3 = mx::hw_dot_f64(ex, c);
    std::printf("     %-50s %016llx %016llx%s %016llx%s %016llx%s\n", feats[i].name.c_str(),
                static_cast<unsigned long long>(c.d), static_cast<unsigned long long>(m1),
                mx::same_result_f64(m1, c.d) ? " " : "*", static_cast<unsigned long long>(m2),
                mx::same_result_f64(m2, c.d) ? " " : "*", static_cast<unsigned long long>(m3),
                mx::same_result_f64(m3, c.d) ? " " : "*");
  }
  std::fflush(stdout);
  // Fresh validation cases (tiles after the fit's).
  const int first_tile = static_cast<int>((o.fit + per - 1) / per);
  std::vector<mx::DotCaseF64> val = f64_tiles(o.seed, first_tile, o.cases);
  for (std::size_t s0 = 0; s0 < val.size(); s0 += 16384) {
    std::vector<mx::DotCaseF64> part(val.begin() + static_cast<std::ptrdiff_t>(s0),
                                     val.begin() + static_cast<std::ptrdiff_t>(std::min(val.size(), s0 + 16384)));
    pr::run_cases_f64(part);
    std::copy(part.begin(), part.end(), val.begin() + static_cast<std::ptrdiff_t>(s0));
  }
  const auto vmiss = f64_counts(cands, val, threads);
  std::cout << "   validation: " << val.size() << " fresh random cases (tiles " << first_tile << "..)\n";
  print_counts("validation", cands, vmiss, val.size());
  std::size_t fitted_bad = 0;
  std::string exact_names;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    if (cands[i] == fitted) fitted_bad = vmiss[i] + fmiss[i];
    if (vmiss[i] == 0 && fmiss[i] == 0) exact_names += (exact_names.empty() ? "" : "; ") + mx::to_string(cands[i]);
  }
  // Data: features and a sample of the fit cases (d_model: the fitted model),
  // mismatches of the fitted model; raw d of fit and feature cases; validation
  // d XOR the fitted model's d (zeros where it agrees: small once packed).
  std::string csv = "kind,a,b,c,d_hw,d_model\n";
  for (std::size_t i = 0; i < feats.size(); ++i)
    csv += case_row64("feature:" + feats[i].name.substr(0, feats[i].name.find(':')), fc[i], mx::hw_dot_f64(fitted, fc[i]));
  for (std::size_t i = 0; i < fitc.size() && i < 1536; ++i)
    csv += case_row64("random", fitc[i], mx::hw_dot_f64(fitted, fitc[i]));
  std::size_t rows = 0;
  for (const auto& c : val) {
    const std::uint64_t m = mx::hw_dot_f64(fitted, c);
    if (!mx::same_result_f64(m, c.d) && rows++ < 200) csv += case_row64("mismatch", c, m);
  }
  write_file(o.out, stem + "_cases.csv", csv);
  write_file(o.out, stem + "_fit_d.bin", raw64(fitc, nullptr));
  write_file(o.out, stem + "_feat_d.bin", raw64(fc, nullptr));
  write_file(o.out, stem + "_val_dx.bin", raw64(val, &fitted));
  std::cout << "NUMERICS " << mx::form_info(f).name << ": exact on all " << all_fit.size() + val.size()
            << " hardware cases: " << (exact_names.empty() ? "none" : exact_names) << "; h100_fitted_f64_model ("
            << mx::to_string(fitted) << "): " << fitted_bad << " mismatches\n";
  return fitted_bad;
}

// --refit for f64: the inputs are regenerated from the seed, d read back.
void refit_f64(const std::string& dir, const Opts& o, int threads) {
  const MmaForm f = MmaForm::mma_f64_m8n8k4;
  const std::string stem = file_stem(f);
  auto read = [&](const std::string& name) {
    std::vector<std::uint64_t> d;
    std::ifstream bin(std::filesystem::path(dir) / name, std::ios::binary);
    for (std::uint64_t v; bin.read(reinterpret_cast<char*>(&v), 8);) d.push_back(v);
    return d;
  };
  const auto fd = read(stem + "_fit_d.bin"), ftd = read(stem + "_feat_d.bin"), vx = read(stem + "_val_dx.bin");
  if (fd.empty()) return;
  const mx::HwModelF64 fitted = mx::h100_fitted_f64_model();
  std::vector<mx::DotCaseF64> cs = f64_tiles(o.seed, 0, fd.size());
  for (std::size_t i = 0; i < fd.size(); ++i) cs[i].d = fd[i];
  auto feats = pr::feature_cases_f64();
  for (std::size_t i = 0; i < feats.size() && i < ftd.size(); ++i) {
    feats[i].cs.d = ftd[i];
    cs.push_back(feats[i].cs);
  }
  // The validation d were stored XOR the model that was fitted at the time
  // of the run: --xor-model is not needed while that is fma_chain k=0..3.
  const mx::HwModelF64 run_model{mx::HwModelF64::Kind::fma_chain, false, 0, false, mx::HwRound::rne};
  const int first_tile = static_cast<int>((fd.size() + 63) / 64);
  std::vector<mx::DotCaseF64> val = f64_tiles(o.seed, first_tile, vx.size());
  for (std::size_t i = 0; i < vx.size(); ++i) val[i].d = vx[i] ^ mx::hw_dot_f64(run_model, val[i]);
  auto cands = mx::hw_f64_candidates();
  for (mx::HwRound r : {mx::HwRound::rne, mx::HwRound::rz})
    for (bool nom : {false, true})
      for (int n = 53; n <= 120; ++n) {
        const mx::HwModelF64 p{mx::HwModelF64::Kind::fused, false, n, nom, r};
        if (std::find(cands.begin(), cands.end(), p) == cands.end()) cands.push_back(p);
      }
  const auto fm = f64_counts(cands, cs, threads);
  const auto vm = f64_counts(cands, val, threads);
  std::cout << "REFIT " << mx::form_info(f).name << ": " << fd.size() << " fit + " << ftd.size() << " feature + "
            << vx.size() << " validation hardware cases\n";
  for (std::size_t i = 0; i < cands.size(); ++i)
    if (fm[i] + vm[i] == 0 || i < mx::hw_f64_candidates().size())
      std::printf("   %-48s fit+features %zu, validation %zu%s%s\n", mx::to_string(cands[i]).c_str(), fm[i], vm[i],
                  fm[i] + vm[i] == 0 ? "  <- exact" : "", cands[i] == fitted ? "  (h100_fitted_f64_model)" : "");
  std::size_t bad = 0;
  for (std::size_t i = 0; i < cs.size(); ++i)
    if (!mx::same_result_f64(mx::hw_dot_f64(fitted, cs[i]), cs[i].d) && bad++ < 5)
      std::cout << "   " << case_row64("bad", cs[i], mx::hw_dot_f64(fitted, cs[i]));
}

}  // namespace mxk::driver
