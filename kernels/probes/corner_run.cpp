// corner_run.cpp - `mxprobe --corners` (issue 13; reference/SPEC.md C9
// hardware models): runs the corner classes of numerics_cases.hpp on the
// hardware (named features one per tile, then random tiles of one class
// each), checks mx::h100_fitted_model on every case, prints per class the
// number of cases and mismatches with examples, and writes the validation
// sample <stem>_validation.bin (validation_file.hpp).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "mx/error.hpp"
#include "probe_lib.hpp"
#include "validation_file.hpp"

namespace mxk::probes {

ValidationFile run_corner_cases(mx::MmaForm f, std::size_t random_cases, std::uint64_t seed, const std::string& device) {
  const auto& fi = mx::form_info(f);
  ValidationFile vf;
  vf.k = fi.k;
  vf.elem_bits = mx::elem_bits(fi.a_elem);
  std::string classes;
  for (int i = 0; i < kNumCorners; ++i) classes += (i ? "," : "") + corner_name(static_cast<Corner>(i));
  vf.header = {{"form", std::string(fi.name)}, {"k", std::to_string(fi.k)}, {"elem_bits", std::to_string(vf.elem_bits)},
               {"classes", classes}, {"device", device}, {"seed", std::to_string(seed)}};
  for (int i = 0; i < kNumCorners; ++i) vf.classes.push_back(corner_name(static_cast<Corner>(i)));
  // Named features, each alone in its tile.
  const std::vector<CornerFeature> feats = corner_features(f);
  std::vector<mx::DotCase> fc;
  for (const auto& x : feats) fc.push_back(x.cs);
  if (!fc.empty()) run_cases(f, fc, false);
  for (std::size_t i = 0; i < feats.size(); ++i) {
    ValidationRecord r;
    r.kind = 0;
    r.cls = static_cast<std::uint8_t>(feats[i].cls);
    r.name = feats[i].name;
    r.rows = r.cols = 1;
    r.a = fc[i].a;
    r.b = fc[i].b;
    r.c = {fc[i].c};
    r.d = {fc[i].d};
    vf.records.push_back(std::move(r));
  }
  // Random tiles (M*N cases each, rows shared), 256 tiles per launch.
  const std::size_t M = static_cast<std::size_t>(fi.m), N = static_cast<std::size_t>(fi.n), per = M * N;
  const int ntiles = static_cast<int>((random_cases + per - 1) / per);
  for (int t0 = 0; t0 < ntiles; t0 += 256) {
    std::vector<mx::DotCase> cs;
    std::vector<Corner> cls;
    for (int t = t0; t < std::min(ntiles, t0 + 256); ++t) {
      Corner c{};
      auto tc = corner_tile_cases(f, seed, t, &c);
      cs.insert(cs.end(), tc.begin(), tc.end());
      cls.push_back(c);
    }
    run_cases(f, cs, true);
    for (std::size_t ti = 0; ti < cls.size(); ++ti) {
      ValidationRecord r;
      r.kind = 1;
      r.cls = static_cast<std::uint8_t>(cls[ti]);
      r.rows = fi.m;
      r.cols = fi.n;
      const mx::DotCase* base = &cs[ti * per];
      for (std::size_t m = 0; m < M; ++m) r.a.insert(r.a.end(), base[m * N].a.begin(), base[m * N].a.end());
      for (std::size_t n = 0; n < N; ++n) r.b.insert(r.b.end(), base[n].b.begin(), base[n].b.end());
      for (std::size_t i = 0; i < per; ++i) {
        r.c.push_back(base[i].c);
        r.d.push_back(base[i].d);
      }
      vf.records.push_back(std::move(r));
    }
  }
  return vf;
}

std::size_t report_corners(mx::MmaForm f, const ValidationFile& vf, std::ostream& os) {
  const auto& fi = mx::form_info(f);
  const mx::HwModelParams p = mx::h100_fitted_model(f);
  const auto st = check_validation(vf, p, fi.a_elem, 3);
  std::size_t total = 0, bad = 0;
  os << "== corners " << fi.name << ": h100_fitted_model (" << mx::to_string(p) << ")\n";
  char line[160];
  for (std::size_t c = 0; c < st.size(); ++c) {
    if (st[c].cases == 0) continue;
    std::snprintf(line, sizeof line, "   %-20s %8zu cases %8zu mismatches\n", vf.classes[c].c_str(), st[c].cases,
                  st[c].mismatches);
    os << line;
    for (const auto& ex : st[c].examples) os << "     e.g. " << ex << "\n";
    total += st[c].cases;
    bad += st[c].mismatches;
  }
  os << "CORNERS " << fi.name << ": " << total << " cases (" << vf.records.size() << " records), " << bad
     << " mismatches\n";
  return bad;
}

}  // namespace mxk::probes
