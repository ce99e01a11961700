// launch_ex.cuh - one kernel launch through cudaLaunchKernelEx with a single
// launch attribute: a programmatic dependent launch (PDL) or a cooperative
// one. Shared by the quantize launchers (common/launch_impl.cuh) and the GEMM
// launchers (gemm/gemm_launch.cuh). Only CUDA translation units include this.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace mxk::detail {

enum class LaunchAttr {
  // cudaLaunchAttributeProgrammaticStreamSerialization: the kernel's blocks may
  // be scheduled before the kernel ahead of it in the stream has finished; the
  // kernel must wait for it (griddepcontrol.wait, PTX ISA 9.7.13.13) before it
  // touches global memory.
  programmatic,
  // cudaLaunchAttributeCooperative: every block resident at once (grid-wide
  // barriers); the launch fails where the grid does not fit.
  cooperative,
};

// Launches k<<<grid, block, smem, s>>>(args...) with attribute `a` and returns
// cudaLaunchKernelEx's status (the caller checks it and names the kernel).
template <class... KArgs, class... Args>
cudaError_t launch_ex(LaunchAttr a, void (*k)(KArgs...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t s,
                      Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = s;
  cudaLaunchAttribute at[1];
  if (a == LaunchAttr::programmatic) {
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
  } else {
    at[0].id = cudaLaunchAttributeCooperative;
    at[0].val.cooperative = 1;
  }
  cfg.attrs = at;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, static_cast<KArgs>(args)...);
}

}  // namespace mxk::detail
