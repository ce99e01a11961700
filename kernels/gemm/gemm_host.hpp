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

// The arguments of the w4a16 kernels that read A and packed B by pointer
// (gemm_w4a16.cu, gemm_w4a16_decode.cu, gemm_w4a16_mma.cu): x's shape,
// pointers and strides, the scale layout, and whether rows allow 16-byte
// loads; mt / nt (blocks along M / N) are set by each launcher for its tiles.
struct W4aParams {
  std::int64_t m, n, k, nkb, mt, nt;
  const std::uint16_t* a;
  std::int64_t lda;
  const std::uint8_t *b, *sb;
  std::int64_t ldb;
  bool tc_b, vec_a, vec_b, vsc_b;
  const float* c;
  void* d;
};

inline W4aParams w4a16_params(const W4a16GemmArgs& x) {
  if (x.lda < x.k || x.b.ld < (x.k + 1) / 2) throw mx::ShapeError("w4a16 GEMM: a row holds fewer than K elements");
  W4aParams p{};
  p.m = x.m;
  p.n = x.n;
  p.k = x.k;
  p.nkb = (x.k + 31) / 32;
  p.a = x.a;
  p.lda = x.lda;
  p.b = x.b.data;
  p.ldb = x.b.ld;
  p.sb = x.b.scales;
  p.tc_b = check_layout(x.b.layout);
  p.vec_a = p.lda % 8 == 0 && reinterpret_cast<std::uintptr_t>(p.a) % 16 == 0;
  p.vec_b = p.ldb % 16 == 0 && reinterpret_cast<std::uintptr_t>(p.b) % 16 == 0;
  p.vsc_b = (p.tc_b || p.nkb % 4 == 0) && reinterpret_cast<std::uintptr_t>(p.sb) % 4 == 0;
  p.c = x.c;
  p.d = x.d;
  return p;
}

}  // namespace mxk::gemm
