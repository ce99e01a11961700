// common.hpp - helpers for the vector and CLI tests: run mxconform, temp dirs,
// the checked-in vector files.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mxt {

inline std::string src(const std::string& rel) { return std::string(MX_SOURCE_DIR) + "/" + rel; }

struct RunResult {
  int rc = -1;
  std::string out;  // stdout and stderr together
};

// The mxconform under test: $MXCONFORM_EXE when set (binaries moved to
// another machine), else the one this build made.
inline std::string exe() {
  const char* e = std::getenv("MXCONFORM_EXE");
  return e && *e ? std::string(e) : std::string(MXCONFORM_EXE);
}

// Runs `mxconform ARGS` through the shell (args are trusted test strings).
inline RunResult run(const std::string& args) {
  RunResult r;
  const std::string cmd = exe() + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void spit(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
}

// A fresh temporary directory, removed at the end of the test.
struct TempDir {
  std::string path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "mxconform-test.XXXXXX").string();
    path = mkdtemp(t.data()) ? t : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& rel) const { return path + "/" + rel; }
};

// Relative paths of the checked-in vector files (sorted).
inline std::vector<std::string> checked_in_csv() {
  std::vector<std::string> v;
  const std::filesystem::path root = src("vectors");
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == ".csv") {
      v.push_back(std::filesystem::relative(e.path(), root).string());
    }
  }
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace mxt
