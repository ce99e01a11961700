// test_cli_gemm.cpp - `mxconform gemm` (issue 10, label cpu): the command line
// end to end on quantize's side files, the C11 model (--device cpu) and the C9
// exact result (--model exact). Expected values are worked by hand: every
// input is a small power-of-two multiple exactly representable in e4m3 and
// e2m1 with a unit block scale, so each output element is a small integer
// that every model must give exactly (no rounding anywhere, C9/C11). Bad
// input: one line, exit 2, no output file.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "common.hpp"
#include "npy.hpp"

namespace {

using mxt::run;
using mxt::TempDir;

void write_f32(const std::string& path, std::int64_t rows, std::int64_t cols, float (*f)(std::int64_t, std::int64_t)) {
  mxv::NpyArray a;
  a.dtype = mxv::DType::f4;
  a.shape = {rows, cols};
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const float v = f(r, c);
      a.data.append(reinterpret_cast<const char*>(&v), 4);
    }
  mxt::spit(path, mxv::write_npy(a));
}

std::vector<float> read_f32(const std::string& path) {
  const mxv::NpyArray a = mxv::parse_npy(path, mxt::slurp(path));
  EXPECT_EQ(a.dtype, mxv::DType::f4);
  std::vector<float> v(static_cast<std::size_t>(a.count()));
  std::memcpy(v.data(), a.data.data(), v.size() * 4);
  return v;
}

// A [2][64]: row 0 all 1; row 1 alternates 2, -1.
float a_val(std::int64_t r, std::int64_t c) { return r == 0 ? 1.0f : (c % 2 == 0 ? 2.0f : -1.0f); }
// B [3][64]: row 0 all 1; row 1 all 0.5; row 2 is 4 on k < 32, else 0.
float b_val(std::int64_t r, std::int64_t c) { return r == 0 ? 1.0f : r == 1 ? 0.5f : (c < 32 ? 4.0f : 0.0f); }
// D = A B^T by hand: row 0: 64, 32, 128; row 1: 32*2 - 32 = 32, 16, 16*2*4 - 16*4 = 64.
const float kWant[6] = {64, 32, 128, 32, 16, 64};

TEST(CliGemm, Mxfp8AndW4a16EqualTheHandResultUnderBothModels) {
  TempDir d;
  write_f32(d / "a.npy", 2, 64, a_val);
  write_f32(d / "b.npy", 3, 64, b_val);
  for (const char* recipe : {"mxfp8_e4m3", "mxfp8_e5m2"}) {
    ASSERT_EQ(run("quantize --recipe " + std::string(recipe) + " --in " + (d / "a.npy") + " --out " + (d / "qa")).rc, 0);
    ASSERT_EQ(run("quantize --recipe " + std::string(recipe) + " --layout tcgen05 --in " + (d / "b.npy") + " --out " +
                  (d / "qb")).rc, 0);
    for (const char* model : {"c11", "exact"}) {
      const auto r = run("gemm --kind mxfp8 --a " + (d / "qa.json") + " --b " + (d / "qb.json") + " --model " +
                         model + " --out " + (d / "d.npy"));
      ASSERT_EQ(r.rc, 0) << r.out;
      const auto got = read_f32(d / "d.npy");
      ASSERT_EQ(got.size(), 6u);
      for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], kWant[i]) << recipe << " " << model << " element " << i;
    }
  }
  ASSERT_EQ(run("quantize --recipe mxfp4 --in " + (d / "b.npy") + " --out " + (d / "qw")).rc, 0);
  for (const char* model : {"c11", "exact"}) {
    const auto r = run("gemm --kind w4a16 --a " + (d / "a.npy") + " --b " + (d / "qw.json") + " --model " + model +
                       " --out " + (d / "d4.npy"));
    ASSERT_EQ(r.rc, 0) << r.out;
    const auto got = read_f32(d / "d4.npy");
    ASSERT_EQ(got.size(), 6u);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], kWant[i]) << "w4a16 " << model << " element " << i;
  }
}

TEST(CliGemm, BadInputExitsTwoWithOneLineAndNoOutput) {
  TempDir d;
  write_f32(d / "a.npy", 2, 64, a_val);
  write_f32(d / "b.npy", 3, 64, b_val);
  ASSERT_EQ(run("quantize --recipe mxfp8_e4m3 --in " + (d / "a.npy") + " --out " + (d / "qa")).rc, 0);
  ASSERT_EQ(run("quantize --recipe mxfp4 --in " + (d / "b.npy") + " --out " + (d / "qw")).rc, 0);
  const std::string out = d / "d.npy";
  const std::string cases[] = {
      "gemm --kind mxfp8 --a " + (d / "qa.json") + " --b " + (d / "qw.json") + " --out " + out,  // e4m3 x e2m1
      "gemm --kind bogus --a " + (d / "qa.json") + " --b " + (d / "qa.json") + " --out " + out,
      "gemm --kind mxfp8 --a " + (d / "qa.json") + " --b " + (d / "missing.json") + " --out " + out,
      "gemm --kind mxfp8 --a " + (d / "qa.json") + " --b " + (d / "qa.json") + " --out-type fp16 --out " + out,
  };
  for (const auto& c : cases) {
    const auto r = run(c);
    EXPECT_EQ(r.rc, 2) << c << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c << "\n" << r.out;
    EXPECT_FALSE(std::filesystem::exists(out)) << c;
  }
}

}  // namespace
