// test_h100_data.cpp - reference/SPEC.md C9 hardware models against the
// H100 data checked in under conformance/probes/h100/, driven by the list
// h100/expected_files.txt: a listed file that is missing FAILS (issue 11
// point 6), every case of every data file must be reproduced bit for bit by
// mx::h100_fitted_model (f64: h100_fitted_f64_model):
//   cases       <form>_cases.csv   features + a random sample of the fit cases
//   fit         <form>_fit_d.bin   d of the 65536 random fit cases (inputs
//                                  regenerated from seed 2021)
//   validation  <form>_validation.bin  issue 13's corner sample (mxprobe
//                                  --corners): cases no fit ever saw
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "mx/error.hpp"
#include "mx/hw_model.hpp"
#include "numerics_cases.hpp"
#include "validation_file.hpp"

namespace {

namespace fs = std::filesystem;
namespace pr = mxk::probes;

const fs::path kDir = MX_PROBES_H100_DIR;

struct Entry {
  std::string role, file;
};

// The list; a missing or malformed list is a failure (ADD_FAILURE).
std::vector<Entry> expected_files() {
  std::vector<Entry> out;
  const fs::path list = kDir / "expected_files.txt";
  std::ifstream in(list);
  if (!in) {
    ADD_FAILURE() << list << ": missing (the list of the H100 data the cpu test requires)";
    return out;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Entry e;
    std::string extra;
    ss >> e.role >> e.file;
    const bool known = e.role == "cases" || e.role == "fit" || e.role == "validation" || e.role == "data";
    if (!known || e.file.empty() || (ss >> extra)) {
      ADD_FAILURE() << list.string() << ":" << n << ": expected '<cases|fit|validation|data> <file>', got '" << line << "'";
      continue;
    }
    out.push_back(e);
  }
  return out;
}

std::vector<std::string> listed(const std::string& role) {
  std::vector<std::string> v;
  for (const Entry& e : expected_files())
    if (e.role == role) v.push_back(e.file);
  return v;
}

// Form whose file stem (name with '.' as '_') starts `file`.
// (the longest such stem).
mx::MmaForm form_of_file(const std::string& file) {
  int best = -1;
  std::size_t len = 0;
  for (int i = 0; i < mx::kNumMmaForms; ++i) {
    std::string stem(mx::form_info(static_cast<mx::MmaForm>(i)).name);
    std::replace(stem.begin(), stem.end(), '.', '_');
    if (file.rfind(stem + "_", 0) == 0 && stem.size() > len) {
      best = i;
      len = stem.size();
    }
  }
  if (best < 0) throw mx::UnknownName("no MMA form for file " + file);
  return static_cast<mx::MmaForm>(best);
}

std::vector<std::uint64_t> split_hex(const std::string& s, std::size_t k) {
  std::vector<std::uint64_t> v;
  const std::size_t w = s.size() / k;
  for (std::size_t i = 0; i < k; ++i) v.push_back(std::stoull(s.substr(i * w, w), nullptr, 16));
  return v;
}

TEST(C9_H100Data, EveryListedFileIsPresent) {
  const auto entries = expected_files();
  EXPECT_GE(entries.size(), 14u) << "the list lost entries";
  for (const Entry& e : entries) EXPECT_TRUE(fs::is_regular_file(kDir / e.file)) << e.role << " file missing: " << kDir / e.file;
  // Every validation sample in the directory is listed (so a sample that
  // disappears later fails EveryListedFileIsPresent).
  std::set<std::string> names;
  for (const Entry& e : entries) names.insert(e.file);
  for (const auto& de : fs::directory_iterator(kDir)) {
    const std::string n = de.path().filename().string();
    if (n.size() > 15 && n.substr(n.size() - 15) == "_validation.bin") {
      EXPECT_TRUE(names.count(n)) << n << " is checked in but not listed in expected_files.txt";
    }
  }
}

TEST(C9_H100Data, CasesReproduced) {
  const auto files = listed("cases");
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    std::ifstream in(kDir / file);
    if (!in) {
      ADD_FAILURE() << "missing " << kDir / file;
      continue;
    }
    const mx::MmaForm f = form_of_file(file);
    const bool f64 = f == mx::MmaForm::mma_f64_m8n8k4;
    const std::size_t k = static_cast<std::size_t>(mx::form_info(f).k);
    std::string line;
    std::getline(in, line);
    std::size_t rows = 0, bad = 0;
    while (std::getline(in, line)) {
      // Every row is a hardware case: features, a random sample, and the
      // "mismatch" rows a run listed against the model it had then.
      std::stringstream ss(line);
      std::string kind, a, b, c, d;
      std::getline(ss, kind, ',');
      std::getline(ss, a, ',');
      std::getline(ss, b, ',');
      std::getline(ss, c, ',');
      std::getline(ss, d, ',');
      ++rows;
      bool ok;
      std::string model;
      if (f64) {
        mx::DotCaseF64 cs;
        const auto av = split_hex(a, 4), bv = split_hex(b, 4);
        std::copy(av.begin(), av.end(), cs.a);
        std::copy(bv.begin(), bv.end(), cs.b);
        cs.c = std::stoull(c, nullptr, 16);
        cs.d = std::stoull(d, nullptr, 16);
        const std::uint64_t m = mx::hw_dot_f64(mx::h100_fitted_f64_model(), cs);
        ok = mx::same_result_f64(m, cs.d);
        model = std::to_string(m);
      } else {
        mx::DotCase cs;
        cs.a = split_hex(a, k);
        cs.b = split_hex(b, k);
        cs.c = static_cast<std::uint32_t>(std::stoul(c, nullptr, 16));
        cs.d = static_cast<std::uint32_t>(std::stoul(d, nullptr, 16));
        const std::uint32_t m = mx::hw_dot(mx::h100_fitted_model(f), mx::form_info(f).a_elem, cs);
        ok = mx::same_result(m, cs.d);
        model = std::to_string(m);
      }
      if (!ok && ++bad < 10) ADD_FAILURE() << file << " " << kind << " c=" << c << " => model " << model << ", hardware: " << d;
    }
    std::cout << "[ cases    ] " << file << ": " << rows << " hardware cases, " << bad << " mismatches\n";
    EXPECT_GT(rows, 1000u) << file;
    EXPECT_EQ(bad, 0u) << file;
  }
}

TEST(C9_H100Data, FitCasesReproduced) {
  const auto files = listed("fit");
  ASSERT_FALSE(files.empty());
  for (const std::string& file : files) {
    const mx::MmaForm f = form_of_file(file);
    std::ifstream bin(kDir / file, std::ios::binary);
    if (!bin) {
      ADD_FAILURE() << "missing " << kDir / file;
      continue;
    }
    std::vector<std::uint32_t> d;
    for (std::uint32_t v; bin.read(reinterpret_cast<char*>(&v), 4);) d.push_back(v);
    ASSERT_EQ(d.size(), 65536u) << file;
    std::vector<mx::DotCase> cs;
    for (int t = 0; cs.size() < d.size(); ++t) {
      auto tc = pr::random_tile_cases(f, 2021, t);  // the seed of the fitting run
      cs.insert(cs.end(), tc.begin(), tc.end());
    }
    const mx::HwModelParams p = mx::h100_fitted_model(f);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      cs[i].d = d[i];
      if (!mx::same_result(mx::hw_dot(p, mx::form_info(f).a_elem, cs[i]), d[i]) && ++bad < 5)
        ADD_FAILURE() << file << " case " << i << ": hardware " << std::hex << d[i];
    }
    std::cout << "[ cases    ] " << file << ": " << d.size() << " hardware fit cases, " << bad << " mismatches\n";
    EXPECT_EQ(bad, 0u) << file << ": " << mx::to_string(p);
  }
}

// Issue 13's validation sample: every listed file is read (a missing one
// fails), its header names the form of its file name, it holds the corner
// features and at least 10^5 random corner cases, and the fitted model
// reproduces every case; per-class counts are printed.
TEST(C9_H100Data, ValidationSamplesReproduced) {
  const auto files = listed("validation");
  if (files.empty())
    GTEST_SKIP() << "no validation sample listed in " << kDir / "expected_files.txt"
                 << " yet (run kernels/probes/run-corners.sh on an H100, see conformance/probes/h100/README.md)";
  for (const std::string& file : files) {
    pr::ValidationFile vf;
    try {
      vf = pr::read_validation((kDir / file).string());
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    const mx::MmaForm f = form_of_file(file);
    EXPECT_EQ(vf.header["form"], std::string(mx::form_info(f).name)) << file;
    EXPECT_EQ(vf.k, mx::form_info(f).k) << file;
    std::size_t features = 0, random = 0;
    for (const auto& r : vf.records) (r.kind == 0 ? features : random) += static_cast<std::size_t>(r.rows * r.cols);
    EXPECT_GE(features, 20u) << file;
    EXPECT_GE(random, 100000u) << file;
    const mx::HwModelParams p = mx::h100_fitted_model(f);
    const auto st = pr::check_validation(vf, p, mx::form_info(f).a_elem, 3);
    for (std::size_t c = 0; c < st.size(); ++c) {
      if (st[c].cases == 0) continue;
      std::cout << "[ cases    ] " << file << " " << vf.classes[c] << ": " << st[c].cases << " hardware cases, "
                << st[c].mismatches << " mismatches\n";
      EXPECT_EQ(st[c].mismatches, 0u) << file << " class " << vf.classes[c] << " (" << mx::to_string(p) << ")";
      for (const auto& ex : st[c].examples) ADD_FAILURE() << file << ": " << ex;
    }
  }
}

}  // namespace
