// gemm_launch.cuh - the launch step the C11 GEMM launchers share: raise a
// kernel's dynamic shared-memory limit (once per kernel), launch it, check
// the launch; and the device's SM count for the grids that depend on it.
// Only CUDA translation units include this (it launches with <<< >>>).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/launch_ex.cuh"
#include "gemm/gemm_host.hpp"

namespace mxk::gemm {

// The current device's SM count, read once per process.
inline int sm_count() {
  static const int n = [] {
    int dev = 0, v = 0;
    check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev), "SM count");
    return v;
  }();
  return n;
}

// Whether the kernels that support it are launched as programmatic dependents
// (PDL): on unless the environment sets MXK_GEMM_PDL=0 (read once per process;
// for timing both ways in one binary, mxgemmbench).
inline bool pdl_on() {
  static const bool on = [] {
    const char* v = std::getenv("MXK_GEMM_PDL");
    return !(v != nullptr && v[0] == '0' && v[1] == '\0');
  }();
  return on;
}

// Kern<<<blocks, threads, Bytes, stream>>>(p), after setting Kern's dynamic
// shared-memory limit to Bytes (the attribute call is made once: a static of
// this instantiation). `name` names the kernel in error messages. The caller
// has checked that `blocks` fits the grid's x dimension. PDL: Kern calls
// pdl_wait before any global memory access (gemm_common.cuh), so it may be
// launched with the programmatic stream serialization attribute (pdl_on()):
// its blocks may start, and set up shared memory, while the kernel before it
// in the stream finishes.
template <auto Kern, int Bytes, class P, bool PDL = false>
void launch_smem(std::int64_t blocks, int threads, const P& p, cudaStream_t stream, const char* name) {
  static const cudaError_t attr = cudaFuncSetAttribute(Kern, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes);
  if (attr != cudaSuccess) check_cuda(attr, (std::string(name) + " smem attribute").c_str());
  if (PDL && pdl_on()) {
    const cudaError_t e = detail::launch_ex(detail::LaunchAttr::programmatic, Kern, dim3(static_cast<unsigned>(blocks)),
                                            dim3(static_cast<unsigned>(threads)), Bytes, stream, p);
    if (e != cudaSuccess) check_cuda(e, (std::string(name) + " launch").c_str());
    return;
  }
  Kern<<<static_cast<unsigned>(blocks), threads, Bytes, stream>>>(p);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) check_cuda(e, (std::string(name) + " launch").c_str());
}

}  // namespace mxk::gemm
