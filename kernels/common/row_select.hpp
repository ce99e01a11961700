// row_select.hpp - benchmark probes of the rowwise launchers (internal to
// libmxkernels; the gate reaches the automatic choices through the layouts
// and shapes):
//   g_row_kernel (mxbench --row-kernel): 0 = by scale layout (rowwise.cuh's
//     knobs), 1 = the cp.async ring k_rowwise, 2 = k_rowstream, 3 =
//     k_rowtile where it applies (16-bit inputs, 8-bit MX codes, packed,
//     whole 128 x 64 tiles; else by layout);
//   g_ring_order (mxbench --ring-order): k_rowwise's grid order, 0 = the knob
//     kRingChunksFast, 1 = rows fastest, 2 = chunks fastest;
//   g_stream_warps (probes only, e.g. bench/results/h100-tail/stamps.cu):
//     k_rowstream's warps per CTA, 0 = automatic (kStreamWarpsQ, or
//     kStreamWarpsSmall on small grids), else 1..8;
//   g_nvfp4_pass (mxbench --nvfp4-pass): NVFP4 rowwise, 0 = by size
//     (kNvfp4OnePassMaxElems, kNvfp4PersistMaxElems<Q>: nvfp4/one_pass.cuh), 1 = always amax pass + quantize pass, 2 = always
//     the one-pass kernel, 3 = always the persistent kernel (nvfp4/persist.cuh);
//     a quantize captured into a graph takes the two passes whatever this says;
//   g_persist_prefetch (mxbench --persist-prefetch): the persistent kernel's
//     L2 prefetch distance in items, -1 = the knob kPersistPrefetch, 0 = none.
#pragma once

#include <atomic>

namespace mxk::detail {
inline std::atomic<int> g_row_kernel{0};
inline std::atomic<int> g_ring_order{0};
inline std::atomic<int> g_nvfp4_pass{0};
inline std::atomic<int> g_stream_warps{0};
inline std::atomic<int> g_persist_prefetch{-1};
}  // namespace mxk::detail
