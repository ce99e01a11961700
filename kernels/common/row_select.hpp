// row_select.hpp - which rowwise kernel the launchers use (a benchmark
// probe: mxbench --row-kernel; 0 = automatic, 1 = the cp.async ring
// k_rowwise, bf16 inputs only). Internal to libmxkernels.
#pragma once

#include <atomic>

namespace mxk::detail {
inline std::atomic<int> g_row_kernel{0};
}  // namespace mxk::detail
