// one_pass.cuh - NVFP4 rowwise quantize of a small tensor in one launch
// (SPEC C5): the global amax and the quantize of two passes (amax.cuh, then
// rowwise.cuh) in one cooperative kernel, with two grid-wide barriers
// between them. For small tensors (decode shapes) the launches, not the
// bytes, are most of the time: memset + k_amax + quantize become one
// launch, and the second read of the input hits L2.
#pragma once

#include <cooperative_groups.h>

#include "common/rowwise.cuh"
#include "nvfp4/amax.cuh"

namespace mxk::dev {

// ---- tuning knobs (one pass) -------------------------------------------------------
// Tensors of at most this many elements take the one-pass kernel (rowwise
// only); larger ones the amax pass and the quantize pass (programmatic
// dependent launch between them). The tensor must stay in L2 between the
// phases: 2^21 elements are 4 MB in bf16, 8 MB in fp32.
constexpr int64_t kNvfp4OnePassMaxElems = int64_t{1} << 21;
// launch bound: 2 CTAs of 256 threads per SM (up to 128 registers: with 64,
// the 16-bit instantiations spilled 56-64 bytes); the grid is small
constexpr int kOnePassCtasPerSm = 2;

// Cooperative launch (every CTA resident: the launcher caps the grid by the
// occupancy). Phase 1: CTA 0 zeroes the amax, every CTA reduces its part
// (cta_amax); barrier; one atomicMax per CTA; barrier (CUDA cooperative
// groups: grid.sync() orders the memory accesses around it). Phase 2: the
// warps walk the (row, chunk) items of k_rowstream, warp w of the grid
// items w, w + (all warps), ...
template <class In, class Q>
__global__ void __launch_bounds__(256, kOnePassCtasPerSm) k_nvfp4_one_pass(const In* __restrict__ x, Params p,
                                                                         int64_t nch, int vec_flat,
                                                                         uint32_t* gamax) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  const int64_t n = p.batch * p.M * p.K;
  if (blockIdx.x == 0 && threadIdx.x == 0) *gamax = 0u;
  const float m = cta_amax<In, kAmaxLoadsOnePass>(x, n, vec_flat, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                               static_cast<int64_t>(gridDim.x) * blockDim.x);
  grid.sync();
  if (threadIdx.x == 0 && m > 0.0f) atomicMax(gamax, __float_as_uint(m));
  grid.sync();
  const typename Q::State st = Q::prepare(p);  // p.gamax == gamax
  const int lane = threadIdx.x & 31;
  const int64_t nw = blockDim.x >> 5;
  const int64_t items = p.batch * p.M * nch;
  for (int64_t it = static_cast<int64_t>(blockIdx.x) * nw + (threadIdx.x >> 5); it < items;
       it += static_cast<int64_t>(gridDim.x) * nw) {  // warp-uniform
    int64_t row, c;
    item_rc(it, items, nch, row, c);
    row_item<In, Q>(x, p, st, row, c, lane);
  }
}

}  // namespace mxk::dev
