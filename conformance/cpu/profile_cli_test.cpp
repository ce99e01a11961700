// profile_cli_test.cpp - `mxconform encode`, `decode`, `diff-profiles` and
// `profiles` (issue 14, C13) run as a user would: codes checked by hand where
// the library rule gives them, every bad input exits 2 with one line and no
// output file, and diff-profiles' counts derived by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/profile.hpp"
#include "npy.hpp"
#include "util.hpp"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int rc;
  std::string out;  // stdout + stderr
};

CliRun run(const std::string& args) {
  const std::string cmd = std::string(MXCONFORM_EXE) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

class ProfileCli : public ::testing::Test {
 protected:
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("mx_profile_cli_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string path(const std::string& n) const { return (dir / n).string(); }
  void save(const std::string& n, mxv::DType t, const std::vector<std::uint32_t>& v) {
    mxv::NpyArray a;
    a.dtype = t;
    a.shape = {static_cast<std::int64_t>(v.size())};
    const std::size_t w = static_cast<std::size_t>(mxv::dtype_size(t));
    a.data.resize(v.size() * w);
    for (std::size_t i = 0; i < v.size(); ++i) std::memcpy(&a.data[i * w], &v[i], w);
    mxv::write_file_atomic(path(n), mxv::write_npy(a));
  }
  std::vector<std::uint32_t> load(const std::string& n) {
    const mxv::NpyArray a = mxv::parse_npy(n, mxv::read_file(path(n)));
    std::vector<std::uint32_t> v(static_cast<std::size_t>(a.count()));
    const std::size_t w = static_cast<std::size_t>(mxv::dtype_size(a.dtype));
    for (std::size_t i = 0; i < v.size(); ++i) std::memcpy(&v[i], &a.data[i * w], w);
    return v;
  }
};

std::vector<std::uint32_t> all16() {
  std::vector<std::uint32_t> v(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) v[i] = i;
  return v;
}

TEST_F(ProfileCli, EncodeTorchE5m2FromEveryHalf) {
  save("x.npy", mxv::DType::f2, all16());
  const CliRun r = run("encode --format e5m2 --profile torch-cpu --in " + path("x.npy") + " --out " + path("c.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto c = load("c.npy");
  ASSERT_EQ(c.size(), 65536u);
  // c10 fp8e5m2_from_fp32_value: NaN -> 0x7F | sign, Inf -> 0x7C | sign.
  EXPECT_EQ(c[0x7E00], 0x7Fu);
  EXPECT_EQ(c[0xFE00], 0xFFu);
  EXPECT_EQ(c[0xFC01], 0xFFu);
  EXPECT_EQ(c[0xFC00], 0xFCu);
  EXPECT_EQ(c[0x3C00], 0x3Cu);  // 1.0
  EXPECT_EQ(c[0x7BFF], 0x7Cu);  // 65504 rounds to Inf
  EXPECT_EQ(c[0x0001], 0x00u);  // 2^-24 is below half of e5m2's 2^-16
  // the CLI agrees with the library call on every pattern
  const mx::ConvPolicy p = mx::resolve_policy("torch-cpu", mx::InType::f16, mx::Fmt::e5m2);
  for (std::uint32_t h = 0; h < 65536; ++h) {
    ASSERT_EQ(c[h], mx::encode_f32_bits(mx::Fmt::e5m2, mx::f16_to_f32_bits(static_cast<std::uint16_t>(h)), p)) << h;
  }
}

TEST_F(ProfileCli, EncodeBf16BitsAndApiModes) {
  save("b.npy", mxv::DType::u2, {0x3F80, 0xBF80, 0x0000, 0x7FC0, 0x7F40});
  CliRun r = run("encode --format e8m0 --source bf16 --profile ml_dtypes --in " + path("b.npy") + " --out " + path("c.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  // ml_dtypes e8m0: 1 -> 0x7F, -1 -> NaN, 0 -> NaN, NaN -> NaN, 1.5*2^127 overflows -> NaN
  EXPECT_EQ(load("c.npy"), (std::vector<std::uint32_t>{0x7F, 0xFF, 0xFF, 0xFF, 0xFF}));
  r = run("encode --format ue8m0 --source bf16 --profile cuda --overflow saturate --rounding rtz --in " +
          path("b.npy") + " --out " + path("d.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  // CUDA e8m0 rz satfinite: |x|; 0 -> 0x00; 1.5*2^127 truncates to 2^127
  EXPECT_EQ(load("d.npy"), (std::vector<std::uint32_t>{0x7F, 0x7F, 0x00, 0xFF, 0xFE}));
  r = run("encode --format ue8m0 --source bf16 --profile cuda:nosat-rp --in " + path("b.npy") + " --out " + path("e.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(load("e.npy"), (std::vector<std::uint32_t>{0x7F, 0x7F, 0x00, 0xFF, 0xFF}));
}

TEST_F(ProfileCli, DecodeIsExact) {
  std::vector<std::uint32_t> codes(256);
  for (std::uint32_t i = 0; i < 256; ++i) codes[i] = i;
  save("c.npy", mxv::DType::u1, codes);
  const CliRun r = run("decode --format e4m3 --in " + path("c.npy") + " --out " + path("y.npy"));
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto y = load("y.npy");
  EXPECT_EQ(y[0x7E], 0x43E00000u);  // 448
  EXPECT_EQ(y[0x01], 0x3B000000u);  // 2^-9
  EXPECT_EQ(y[0x80], 0x80000000u);  // -0
  EXPECT_TRUE((y[0x7F] & 0x7FFFFFFFu) > 0x7F800000u) << std::hex << y[0x7F];  // NaN
  for (std::uint32_t i = 0; i < 256; ++i) {
    if ((i & 0x7F) == 0x7F) continue;
    EXPECT_EQ(mx::encode_f32_bits(mx::Fmt::e4m3, y[i], {}), i) << "decode/encode round trip of 0x" << std::hex << i;
  }
}

TEST_F(ProfileCli, BadInputExitsTwoWithOneLineAndNoOutput) {
  save("x.npy", mxv::DType::f4, {0x3F800000});
  save("u.npy", mxv::DType::u2, {0x3F80});
  save("c.npy", mxv::DType::u1, {0x1, 0x10});
  {
    std::ofstream(path("bad.npy")) << "not numpy";
  }
  const std::string x = path("x.npy"), out = path("o.npy");
  struct Case {
    std::string args, needle;
  };
  const std::vector<Case> cases = {
      {"encode --format e4m3 --profile torchy --in " + x + " --out " + out, "unknown profile 'torchy'"},
      {"encode --format e4m3 --profile torch-cpu --rounding rtz --in " + x + " --out " + out, "fixed by the library"},
      {"encode --format e2m1 --profile torch-cuda --in " + x + " --out " + out, "no such cast"},
      {"encode --format ue8m0 --profile cuda --rounding rne --in " + x + " --out " + out, "the API offers"},
      {"encode --format e4m3 --profile ml_dtypes --nan nan_canonical --in " + x + " --out " + out, "fixes the NaN"},
      {"encode --format e4m3 --in " + path("u.npy") + " --out " + out, "pass --source bf16"},
      {"encode --format e4m3 --source fp16 --in " + x + " --out " + out, "--source fp16 but the array holds fp32"},
      {"encode --format e4m3 --policy lowest_as_zero --in " + x + " --out " + out, "does not apply to format e4m3"},
      {"encode --format e4m3 --policy sideways --in " + x + " --out " + out, "unknown policy value 'sideways'"},
      {"encode --format bf16 --in " + x + " --out " + out, "is an input type"},
      {"encode --format e4m3 --in " + path("missing.npy") + " --out " + out, "missing.npy"},
      {"encode --format e4m3 --in " + path("bad.npy") + " --out " + out, "not a .npy file"},
      {"decode --format e2m1 --in " + path("c.npy") + " --out " + out, "element 1 is 0x10, not a 4-bit e2m1 code"},
      {"decode --format e2m1 --in " + x + " --out " + out, "codes must be uint8"},
      {"diff-profiles cuda:bogus --format ue8m0", "has no mode 'bogus'"},
      {"diff-profiles ocp:x --format ue8m0", "profile ocp has no modes"},
  };
  for (const auto& c : cases) {
    const CliRun r = run(c.args);
    EXPECT_EQ(r.rc, 2) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.needle), std::string::npos) << c.args << "\n" << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << "\n" << r.out;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}

TEST_F(ProfileCli, DiffProfilesCountsByHand) {
  // fp16 -> e5m2 NaNs: ml_dtypes 0.6.0 gives 0x7E with the NaN's sign, torch
  // 0x7F with it: they differ on every fp16 NaN, 1023 per sign.
  CliRun r = run("diff-profiles ml_dtypes torch-cpu --format e5m2 --source fp16 --check");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("differ on 2046 of 65536 inputs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NaN, negative"), std::string::npos) << r.out;
  // torch e8m0 vs OCP over bf16: every negative finite non-zero bf16 (0x8001..0xFF7F
  // = 32639) is NaN 0xFF for OCP and |x| for torch, except the 64 whose |x| is at
  // or above 1.5*2^127 (torch rounds them to 0xFF too); +Inf gives 0xFF vs 0xFE;
  // -Inf 0xFF both; positive bf16 at or above 1.5*2^127 (0x7F40..0x7F7F = 64)
  // overflow to 0xFF vs 0xFE; bf16 subnormals above 2^-127 and below
  // 1.5*2^-127 (0x0041..0x005F = 31) round up on the 2^-126 grid.
  r = run("diff-profiles torch-cpu ocp --format ue8m0 --source bf16");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("differ on " + std::to_string((32639 - 64) + 1 + 64 + 31) + " of 65536"), std::string::npos)
      << r.out;
  // identical profiles agree
  r = run("diff-profiles cuda:satfinite ocp --format e4m3 --source bf16 --check");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("agree on all 65536 inputs"), std::string::npos) << r.out;
}

TEST_F(ProfileCli, ProfilesAndHelpTeach) {
  CliRun r = run("profiles");
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const auto& i : mx::profile_infos()) EXPECT_NE(r.out.find(std::string(i.name)), std::string::npos) << i.name;
  r = run("encode --help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("mxconform encode --format e5m2 --profile torch-cpu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lowest_as_zero"), std::string::npos) << r.out;
  r = run("diff-profiles --help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("--exhaustive"), std::string::npos) << r.out;
}

}  // namespace
