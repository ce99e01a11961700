// gemm_launch.cuh - the launch step the C11 GEMM launchers share: raise a
// kernel's dynamic shared-memory limit (once per kernel), launch it, check
// the launch; and the device's SM count for the grids that depend on it.
// Only CUDA translation units include this (it launches with <<< >>>).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

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

// Kern<<<blocks, threads, Bytes, stream>>>(p), after setting Kern's dynamic
// shared-memory limit to Bytes (the attribute call is made once: a static of
// this instantiation). `name` names the kernel in error messages. The caller
// has checked that `blocks` fits the grid's x dimension.
template <auto Kern, int Bytes, class P>
void launch_smem(std::int64_t blocks, int threads, const P& p, cudaStream_t stream, const char* name) {
  static const cudaError_t attr = cudaFuncSetAttribute(Kern, cudaFuncAttributeMaxDynamicSharedMemorySize, Bytes);
  if (attr != cudaSuccess) check_cuda(attr, (std::string(name) + " smem attribute").c_str());
  Kern<<<static_cast<unsigned>(blocks), threads, Bytes, stream>>>(p);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) check_cuda(e, (std::string(name) + " launch").c_str());
}

}  // namespace mxk::gemm
