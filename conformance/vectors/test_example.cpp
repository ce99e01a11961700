// test_example.cpp - the README's worked example (issue 3): an independent
// NumPy implementation (tools/examples/fill_vectors.py, written from SPEC
// C1/C2, sharing no code with the reference) fills the observed column of
// convert files, and `mxconform check` passes them; the same script with a
// simulated ties-away bug is caught, naming the tie rows. Skipped, with the
// reason, when /usr/bin/python3 or NumPy is missing (tools/setup.sh installs
// python3-numpy).
#include <gtest/gtest.h>

#include <cstdlib>

#include "common.hpp"

namespace {

using mxt::src;

std::string python_missing() {
  if (!std::filesystem::exists("/usr/bin/python3")) return "/usr/bin/python3 is not installed";
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    return "NumPy is not installed for /usr/bin/python3 (apt-get install python3-numpy)";
  }
  return "";
}

mxt::RunResult py(const std::string& args) {
  mxt::RunResult r;
  const std::string cmd = "/usr/bin/python3 " + src("tools/examples/fill_vectors.py") + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(WorkedExample, NumpyFillPassesCheck) {
  const std::string why = python_missing();
  if (!why.empty()) GTEST_SKIP() << why;
  mxt::TempDir t;
  for (const char* f : {"e2m1_from_fp32", "e4m3_from_fp32", "e4m3_from_bf16", "e2m3_from_fp16", "e3m2_from_fp32"}) {
    const std::string out = t / (std::string(f) + ".csv");
    const auto p = py(src("vectors/convert/") + f + ".csv " + out);
    ASSERT_EQ(p.rc, 0) << p.out;
    const auto c = mxt::run("check " + out);
    EXPECT_EQ(c.rc, 0) << f << ": the NumPy encoder disagrees with the reference:\n" << c.out;
    EXPECT_EQ(c.out.find(" 0 filled"), std::string::npos) << f << ": nothing was filled:\n" << c.out;
  }
}

TEST(WorkedExample, SimulatedTiesAwayBugIsCaught) {
  const std::string why = python_missing();
  if (!why.empty()) GTEST_SKIP() << why;
  mxt::TempDir t;
  const auto p = py(src("vectors/convert/e2m1_from_fp32.csv ") + (t / "bug.csv") + " --ties-away");
  ASSERT_EQ(p.rc, 0) << p.out;
  const auto c = mxt::run("check " + (t / "bug.csv"));
  EXPECT_EQ(c.rc, 1) << c.out;
  EXPECT_NE(c.out.find("[C2 rne tie]"), std::string::npos) << c.out;
}

}  // namespace
