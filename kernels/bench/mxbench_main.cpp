// mxbench_main.cpp - standalone driver of mxk::bench_main (same arguments as
// `mxconform bench`), so the benchmark runs without the CLI.
#include <cstdio>
#include <string>
#include <vector>

#include "mx/error.hpp"
#include "mxk/api.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return mxk::bench_main(args);
  } catch (const mx::Error& e) {
    std::fprintf(stderr, "mxbench: %s\n", e.what());
    return 1;
  }
}
