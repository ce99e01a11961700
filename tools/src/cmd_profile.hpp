// cmd_profile.hpp - registers `encode`, `decode`, `diff-profiles` and
// `profiles` (issue 14, C13) on the mxconform command line.
#pragma once

#include <CLI/CLI.hpp>

namespace mxv {

struct ProfileCommands {
  CLI::App* encode = nullptr;
  CLI::App* decode = nullptr;
  CLI::App* diff = nullptr;
  CLI::App* list = nullptr;
};

ProfileCommands add_profile_commands(CLI::App& app);
// Runs the selected one; -1 when none of them was selected. Throws mx::Error
// for bad input (main prints it and exits 2).
int run_profile_commands(const ProfileCommands& c);

}  // namespace mxv
