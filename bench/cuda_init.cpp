// cuda_init.cpp - the fixed cost every CUDA process pays (issue 15): create
// the primary context with cudaFree(0), then exit. bench/cli-io.sh times it
// (wall, maximum resident memory) beside the device path of mxconform.
// Built by `bench/cli-io.sh --prepare` (nvcc, sm_90a machine or not: no kernels).
#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  const cudaError_t e = cudaFree(nullptr);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cuda_init: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
