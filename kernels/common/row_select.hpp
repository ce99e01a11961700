// row_select.hpp - which rowwise kernel the launchers use (a benchmark
// probe: mxbench --row-kernel; 0 = automatic; the values: launch_rowwise in
// launch_impl.cuh). Internal to libmxkernels.
#pragma once

#include <atomic>

namespace mxk::detail {
inline std::atomic<int> g_row_kernel{0};
}  // namespace mxk::detail
