// gemm_host.cu - host entry points of the C11 GEMMs (kernels/gemm): device
// check, and the copy-in / run / copy-out wrappers that take the reference's
// mx::Quantized operands (as `quantize` writes them) for the CLI and the gate.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "gemm/gemm_host.hpp"
#include "mx/error.hpp"
#include "mxk/gemm.hpp"

namespace mxk {
namespace {

using gemm::check_cuda;

template <typename T>
struct Dev {
  T* p = nullptr;
  explicit Dev(std::size_t n) {
    if (n) check_cuda(cudaMalloc(&p, n * sizeof(T)), "cudaMalloc");
  }
  Dev(const T* h, std::size_t n) : Dev(n) {
    if (n) check_cuda(cudaMemcpy(p, h, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  ~Dev() {
    if (p) cudaFree(p);
  }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
};

void check_operand(const mx::Quantized& q, bool fp4, const char* what) {
  const std::string w(what);
  if (q.recipe.is_nvfp4() || q.recipe.block != 32)
    throw mx::InvalidArgument(w + ": recipe '" + q.recipe.name() + "' is not an MX recipe with 32-blocks");
  if (fp4 ? q.recipe.elem != mx::Fmt::e2m1 : (q.recipe.elem != mx::Fmt::e4m3 && q.recipe.elem != mx::Fmt::e5m2))
    throw mx::InvalidArgument(w + (fp4 ? ": must be MXFP4 (e2m1)" : ": must be MXFP8 (e4m3 or e5m2)"));
  if (q.opts.axis != mx::Axis::rowwise) throw mx::InvalidArgument(w + ": must be quantized rowwise (along K)");
  if (q.batch != 1) throw mx::InvalidArgument(w + ": batched operands are not supported");
  if (fp4 && q.opts.packing != mx::Packing::packed)
    throw mx::InvalidArgument(w + ": e2m1 must be packed two per byte");
  gemm::check_layout(q.opts.scale_layout);
}

std::vector<std::uint32_t> fetch(const void* d, std::int64_t count, mx::Fmt out) {
  std::vector<std::uint32_t> r(static_cast<std::size_t>(count));
  if (out == mx::Fmt::bf16) {
    std::vector<std::uint16_t> h(static_cast<std::size_t>(count));
    if (count) check_cuda(cudaMemcpy(h.data(), d, h.size() * 2, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    for (std::size_t i = 0; i < h.size(); ++i) r[i] = h[i];
  } else if (count) {
    check_cuda(cudaMemcpy(r.data(), d, r.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }
  return r;
}

}  // namespace

bool gemm_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    if (why) *why = e != cudaSuccess ? std::string("no CUDA device: ") + cudaGetErrorString(e) : "no CUDA device";
    return false;
  }
  int dev = 0, ma = 0, mi = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&ma, cudaDevAttrComputeCapabilityMajor, dev), "cudaDeviceGetAttribute");
  check_cuda(cudaDeviceGetAttribute(&mi, cudaDevAttrComputeCapabilityMinor, dev), "cudaDeviceGetAttribute");
  if (ma != 9 || mi != 0) {
    if (why)
      *why = "the C11 GEMMs use wgmma and run only on sm_90 (H100/H200, built for sm_90a); this device is sm_" +
             std::to_string(ma * 10 + mi);
    return false;
  }
  return true;
}

std::vector<std::uint32_t> mxfp8_gemm_device(const mx::Quantized& a, const mx::Quantized& b, const float* c,
                                             mx::Fmt out, std::uint8_t poison) {
  check_operand(a, false, "mxfp8 GEMM operand A");
  check_operand(b, false, "mxfp8 GEMM operand B");
  if (a.recipe.elem != b.recipe.elem) throw mx::InvalidArgument("mxfp8 GEMM: A and B must have the same element format");
  if (a.cols != b.cols)
    throw mx::ShapeError("mxfp8 GEMM: A has K = " + std::to_string(a.cols) + ", B has K = " + std::to_string(b.cols));
  gemm::check_out_fmt(out);
  gemm::require_gemm_device();
  const std::int64_t m = a.rows, n = b.rows, count = m * n;
  const std::size_t osz = out == mx::Fmt::bf16 ? 2 : 4;
  Dev<std::uint8_t> da(a.data.data(), a.data.size()), db(b.data.data(), b.data.size());
  Dev<std::uint8_t> sa(a.scales.data(), a.scales.size()), sb(b.scales.data(), b.scales.size());
  Dev<float> dc(c, c ? static_cast<std::size_t>(count) : 0);
  Dev<std::uint8_t> dd(static_cast<std::size_t>(count) * osz);
  if (count) check_cuda(cudaMemset(dd.p, poison, static_cast<std::size_t>(count) * osz), "cudaMemset poison");
  Mxfp8GemmArgs x;
  x.m = m;
  x.n = n;
  x.k = a.cols;
  x.elem = a.recipe.elem;
  x.a = {da.p, a.row_bytes, sa.p, a.opts.scale_layout};
  x.b = {db.p, b.row_bytes, sb.p, b.opts.scale_layout};
  x.c = c ? dc.p : nullptr;
  x.d = dd.p;
  x.out = out;
  mxfp8_gemm_launch(x);
  check_cuda(cudaDeviceSynchronize(), "mxfp8 GEMM");
  return fetch(dd.p, count, out);
}

std::vector<std::uint32_t> w4a16_gemm_device(const std::uint16_t* a_bf16, std::int64_t m, const mx::Quantized& b,
                                             const float* c, mx::Fmt out, std::uint8_t poison, int bn,
                                             int decode_cols) {
  check_operand(b, true, "w4a16 GEMM operand B");
  gemm::check_out_fmt(out);
  if (m < 0) throw mx::ShapeError("w4a16 GEMM: negative M");
  gemm::require_gemm_device();
  const std::int64_t n = b.rows, k = b.cols, count = m * n;
  const std::size_t osz = out == mx::Fmt::bf16 ? 2 : 4;
  Dev<std::uint16_t> da(a_bf16, static_cast<std::size_t>(m * k));
  Dev<std::uint8_t> db(b.data.data(), b.data.size()), sb(b.scales.data(), b.scales.size());
  Dev<float> dc(c, c ? static_cast<std::size_t>(count) : 0);
  Dev<std::uint8_t> dd(static_cast<std::size_t>(count) * osz);
  if (count) check_cuda(cudaMemset(dd.p, poison, static_cast<std::size_t>(count) * osz), "cudaMemset poison");
  W4a16GemmArgs x;
  x.m = m;
  x.n = n;
  x.k = k;
  x.a = da.p;
  x.lda = k;
  x.b = {db.p, b.row_bytes, sb.p, b.opts.scale_layout};
  x.c = c ? dc.p : nullptr;
  x.d = dd.p;
  x.out = out;
  x.bn = bn;
  x.decode_cols = decode_cols;
  w4a16_gemm_launch(x);
  check_cuda(cudaDeviceSynchronize(), "w4a16 GEMM");
  return fetch(dd.p, count, out);
}

}  // namespace mxk
