// row_select.hpp - which rowwise kernel the launchers use (a benchmark
// probe: mxbench --row-kernel; 0 = by scale layout (rowwise.cuh's knobs),
// 1 = the cp.async ring k_rowwise, 2 = k_rowstream). Internal to
// libmxkernels; the gate reaches both kernels through the layouts.
#pragma once

#include <atomic>

namespace mxk::detail {
inline std::atomic<int> g_row_kernel{0};
}  // namespace mxk::detail
