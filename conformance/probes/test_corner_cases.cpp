// test_corner_cases.cpp - the inputs of issue 13's corner probes
// (kernels/probes/corner_cases.cpp; reference/SPEC.md C9 hardware models):
// every generated case meets its class's definition, every class of every
// form is generated, the predicates reject cases outside the class, and the
// validation file format round-trips and reports damage with a byte offset.
#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <set>

#include "mx/hw_model.hpp"
#include "numerics_cases.hpp"
#include "validation_file.hpp"

namespace {

using mx::MmaForm;
namespace pr = mxk::probes;

std::vector<MmaForm> float_forms() {
  std::vector<MmaForm> v;
  for (int i = 0; i < mx::kNumMmaForms; ++i)
    if (pr::has_float_numerics(static_cast<MmaForm>(i))) v.push_back(static_cast<MmaForm>(i));
  return v;
}

TEST(C9_Corners, FormsWithAFittedModelAllHaveCorners) {
  const auto forms = float_forms();
  EXPECT_EQ(forms.size(), 11u);  // mma f16 bf16 tf32 e4m3 e5m2; wgmma bf16, e4m3, e5m2 (ss, rs)
  for (MmaForm f : forms) {
    EXPECT_NO_THROW(mx::h100_fitted_model(f)) << mx::form_info(f).name;
    const auto cl = pr::corner_classes(f);
    const mx::Elem e = mx::form_info(f).a_elem;
    EXPECT_EQ(cl.size(), (e == mx::Elem::bf16 || e == mx::Elem::tf32) ? 13u : 12u) << mx::form_info(f).name;
  }
}

TEST(C9_Corners, FeaturesAreInTheirClassAndCoverEveryClass) {
  for (MmaForm f : float_forms()) {
    const auto feats = pr::corner_features(f);
    std::map<pr::Corner, int> n;
    std::set<std::string> names;
    for (const auto& x : feats) {
      std::string why;
      EXPECT_TRUE(pr::in_corner_class(f, x.cls, x.cs, &why)) << x.name << ": " << why;
      ++n[x.cls];
      EXPECT_TRUE(names.insert(x.name).second) << "duplicate feature name " << x.name;
    }
    for (pr::Corner c : pr::corner_classes(f)) EXPECT_GT(n[c], 0) << mx::form_info(f).name << " " << pr::corner_name(c);
    const bool bf16_k16 = mx::form_info(f).a_elem == mx::Elem::bf16;
    for (const char* row : {"issue13 row A", "issue13 row B", "issue13 row C", "issue13 row D"})
      EXPECT_EQ(names.count(row), bf16_k16 ? 1u : 0u) << mx::form_info(f).name << " " << row;
  }
}

TEST(C9_Corners, RandomTilesAreInTheirClassAndCoverEveryClass) {
  std::size_t cases = 0;
  for (MmaForm f : float_forms()) {
    std::set<pr::Corner> seen;
    const int tiles = mx::form_info(f).threads == 128 ? 60 : 120;
    for (int t = 0; t < tiles; ++t) {
      pr::Corner c{};
      const auto cs = pr::corner_tile_cases(f, 2021, t, &c);
      ASSERT_EQ(cs.size(), static_cast<std::size_t>(mx::form_info(f).m * mx::form_info(f).n));
      seen.insert(c);
      for (std::size_t i = 0; i < cs.size(); ++i) {
        std::string why;
        ASSERT_TRUE(pr::in_corner_class(f, c, cs[i], &why))
            << mx::form_info(f).name << " tile " << t << " case " << i << ": " << why;
      }
      cases += cs.size();
    }
    EXPECT_EQ(seen.size(), pr::corner_classes(f).size()) << mx::form_info(f).name;
  }
  std::cout << "[ cases    ] corner tiles: " << cases << " generated cases checked against their class\n";
}

TEST(C9_Corners, PredicatesRejectOutsiders) {
  const MmaForm f = MmaForm::wgmma_bf16_m64n8k16_ss;
  mx::DotCase cs;
  cs.a.assign(16, 0);
  cs.b.assign(16, 0x3F80);  // b = 1
  cs.c = 0;                 // +0 C, +0 products
  std::string why;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::negzero_c_all, cs, &why));
  cs.c = 0x80000000u;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::negzero_c_all, cs, &why)) << "no -0 product";
  cs.a.assign(16, 0x8000);
  EXPECT_TRUE(pr::in_corner_class(f, pr::Corner::negzero_c_all, cs, &why)) << why;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::negzero_c_one, cs, &why));
  cs.a[0] = 0x3F80;  // a nonzero product
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::negzero_c_allbut1, cs, &why));
  // c = 2^-139 and p0 = 2^-130 (above, not below); p0 = 2^-164 (below).
  mx::DotCase s;
  s.a.assign(16, 0);
  s.b.assign(16, 0);
  s.c = 0x400;
  s.a[0] = 0x1e80;  // 2^-66
  s.b[0] = 0x1e80;  // product 2^-132
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::sub_c_below, s, &why));
  EXPECT_TRUE(pr::in_corner_class(f, pr::Corner::sub_c_above, s, &why)) << why;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::below126_csub, s, &why) && false);
  s.c = 0x00800000u;  // normal C
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::sub_c_above, s, &why));
  EXPECT_TRUE(pr::in_corner_class(f, pr::Corner::below126_cnorm, s, &why)) << why;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::below126_csub, s, &why));
  // Cut to zero: 1 - 1 + 2^-40 is small against 1 and positive; 1 + 2^-40 is not small.
  mx::DotCase z;
  z.a.assign(16, 0);
  z.b.assign(16, 0);
  z.a[0] = 0x3F80; z.b[0] = 0x3F80;
  z.a[1] = 0xBF80; z.b[1] = 0x3F80;
  z.a[4] = 0x2B80; z.b[4] = 0x3F80;  // 2^-40
  EXPECT_TRUE(pr::in_corner_class(f, pr::Corner::cut_zero_pos, z, &why)) << why;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::cut_zero_neg, z, &why));
  z.a[1] = 0;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::cut_zero_pos, z, &why));
  // Exponent fields: 0x0100 has field 2.
  mx::DotCase fl;
  fl.a.assign(16, 0x0080);
  fl.b.assign(16, 0x0001);
  fl.c = 0;
  EXPECT_TRUE(pr::in_corner_class(f, pr::Corner::fields_le1, fl, &why)) << why;
  fl.b[7] = 0x0100;
  EXPECT_FALSE(pr::in_corner_class(f, pr::Corner::fields_le1, fl, &why));
}

TEST(C9_Validation, FormatRoundTripsAndReportsDamage) {
  const MmaForm f = MmaForm::mma_tf32_m16n8k8;
  pr::ValidationFile vf;
  vf.k = 8;
  vf.elem_bits = 32;
  vf.header = {{"form", "mma.m16n8k8.tf32"}, {"k", "8"}, {"elem_bits", "32"}, {"classes", "x,y"}, {"seed", "1"}};
  vf.classes = {"x", "y"};
  pr::Corner c{};
  const auto cs = pr::corner_tile_cases(f, 7, 3, &c);
  pr::ValidationRecord r;
  r.kind = 1;
  r.cls = 1;
  r.rows = 16;
  r.cols = 8;
  for (int m = 0; m < 16; ++m) r.a.insert(r.a.end(), cs[static_cast<std::size_t>(m * 8)].a.begin(), cs[static_cast<std::size_t>(m * 8)].a.end());
  for (int n = 0; n < 8; ++n) r.b.insert(r.b.end(), cs[static_cast<std::size_t>(n)].b.begin(), cs[static_cast<std::size_t>(n)].b.end());
  for (const auto& x : cs) {
    r.c.push_back(x.c);
    r.d.push_back(mx::hw_dot(mx::h100_fitted_model(f), mx::Elem::tf32, x));
  }
  vf.records.push_back(r);
  const std::string bytes = pr::validation_bytes(vf);
  const pr::ValidationFile back = pr::parse_validation(bytes, "mem");
  ASSERT_EQ(back.records.size(), 1u);
  EXPECT_EQ(back.cases(), 128u);
  EXPECT_EQ(back.classes, vf.classes);
  const mx::DotCase x = back.records[0].at(5, 3, 8);
  EXPECT_EQ(x.a, cs[5 * 8 + 3].a);
  EXPECT_EQ(x.b, cs[5 * 8 + 3].b);
  EXPECT_EQ(x.c, cs[5 * 8 + 3].c);
  auto st = pr::check_validation(back, mx::h100_fitted_model(f), mx::Elem::tf32);
  EXPECT_EQ(st[1].cases, 128u);
  EXPECT_EQ(st[1].mismatches, 0u);
  // One flipped d bit is one mismatch, listed as an example.
  std::string bad = bytes;
  bad[bad.size() - 4 * 17] ^= 1;
  st = pr::check_validation(pr::parse_validation(bad, "mem"), mx::h100_fitted_model(f), mx::Elem::tf32);
  EXPECT_EQ(st[1].mismatches, 1u);
  EXPECT_EQ(st[1].examples.size(), 1u);
  // Truncation, bad magic and a class id beyond the list are errors with the byte offset.
  try {
    pr::parse_validation(bytes.substr(0, bytes.size() - 3), "t.bin");
    ADD_FAILURE() << "truncated file accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("t.bin: byte "), std::string::npos) << e.what();
  }
  EXPECT_THROW(pr::parse_validation("MXPVAL02" + bytes.substr(8), "m"), std::runtime_error);
  std::string cls = bytes;
  cls[12 + static_cast<std::size_t>(bytes[8]) + 1] = 9;  // record 0's class id
  EXPECT_THROW(pr::parse_validation(cls, "m"), std::runtime_error);
}

}  // namespace
