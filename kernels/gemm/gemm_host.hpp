// gemm_host.hpp - host-side checks shared by the C11 GEMM launchers
// (kernels/gemm): device capability, argument validation, CUDA errors.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "mx/error.hpp"
#include "mx/format.hpp"
#include "mx/layout.hpp"
#include "mxk/gemm.hpp"

namespace mxk::gemm {

inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw mx::Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Throws mx::InvalidArgument unless the current device can run the kernels.
inline void require_gemm_device() {
  std::string why;
  if (!mxk::gemm_available(&why)) throw mx::InvalidArgument("C11 GEMM kernels: " + why);
}

inline void check_out_fmt(mx::Fmt out) {
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16)
    throw mx::InvalidArgument("C11 GEMM: output type must be fp32 or bf16");
}

inline void check_shape(std::int64_t m, std::int64_t n, std::int64_t k, const char* what) {
  if (m < 0 || n < 0 || k < 0) throw mx::ShapeError(std::string(what) + ": negative dimension");
  if ((m + 63) / 64 > 65535) throw mx::ShapeError(std::string(what) + ": M above 64 * 65535");
  if ((n + 31) / 32 > 0x7FFFFFFF) throw mx::ShapeError(std::string(what) + ": N too large");
}

// True for tcgen05; throws for layouts the kernels do not read.
inline bool check_layout(mx::ScaleLayout l) {
  if (l == mx::ScaleLayout::dense) return false;
  if (l == mx::ScaleLayout::tcgen05) return true;
  throw mx::InvalidArgument("C11 GEMM: scale layout must be dense or tcgen05 (rowwise)");
}

}  // namespace mxk::gemm
