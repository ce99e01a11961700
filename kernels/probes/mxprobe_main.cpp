// mxprobe_main.cpp - stand-alone `mxprobe [--list] [NAME...] [--out DIR]`,
// the same as `mxconform probe ...` (calls mxk::probe_main).
#include <string>
#include <vector>

#include "mxk/api.hpp"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return mxk::probe_main(args);
}
