// nvfp4.cu - NVFP4 quantize (SPEC C5): global amax pass, then ue4m3
// block scales and e2m1 elements in both operation orders (TransformerEngine,
// torchao), rowwise through common/rowwise.cuh, colwise/fused through
// common/tiles.cuh; the amax kernel is in amax.cuh. Small rowwise tensors:
// one launch for both (one_pass.cuh; TE order up to 2^23 elements:
// persist.cuh; launch_impl.cuh decides).
#include "common/launch_impl.cuh"
#include "nvfp4/amax.cuh"

namespace mxk::detail {

template <int ORDER>
static void nvfp4_order(const QuantLaunch& q, cudaStream_t s) {
  switch (q.in) {
    case mx::InType::bf16: return launch_family<__nv_bfloat16, dev::Nvfp4Q<ORDER>>(q, 0.0f, s);
    case mx::InType::f16: return launch_family<__half, dev::Nvfp4Q<ORDER>>(q, 0.0f, s);
    case mx::InType::f32: return launch_family<float, dev::Nvfp4Q<ORDER>>(q, 0.0f, s);
  }
}

void launch_nvfp4(const QuantLaunch& q, cudaStream_t s) {
  if (q.gamax == nullptr) throw mx::InvalidArgument("nvfp4 device quantize needs a global-amax scratch buffer");
  // the one-pass and persistent kernels compute the amax themselves
  const bool torchao = q.recipe.nvfp4 == mx::Nvfp4Order::torchao;
  const std::int64_t persist_max = torchao ? dev::kNvfp4PersistMaxElems<dev::Nvfp4Q<1>> : dev::kNvfp4PersistMaxElems<dev::Nvfp4Q<0>>;
  if (!(q.do_row && !q.do_col && nvfp4_one_pass(q.batch * q.M * q.K, persist_max, s))) {
    launch_amax(q.in, q.x, q.batch * q.M * q.K, q.gamax, s);
  }
  if (torchao) {
    nvfp4_order<1>(q, s);
  } else {
    nvfp4_order<0>(q, s);
  }
}

// One wave of k_amax CTAs (grid-stride), fewer for small tensors.
template <class In>
static void amax_typed(const void* x, std::int64_t n, int vec, std::uint32_t* out, cudaStream_t s) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dev::k_amax<In>, 256, 0) != cudaSuccess || per_sm < 1) {
    cudaGetLastError();
    per_sm = 1;
  }
  const int grid = std::max(1, std::min(grid_for((n + 7) / 8, 256), per_sm * device_sm_count()));
  dev::k_amax<In><<<grid, 256, 0, s>>>(static_cast<const In*>(x), n, vec, out);
}

void launch_amax(mx::InType in, const void* x, std::int64_t n, std::uint32_t* out, cudaStream_t s) {
  check(cudaMemsetAsync(out, 0, sizeof(std::uint32_t), s), "cudaMemsetAsync(amax)");
  if (n == 0) return;
  const int vec = (reinterpret_cast<std::uintptr_t>(x) % 16) == 0 ? 1 : 0;
  switch (in) {
    case mx::InType::bf16: amax_typed<__nv_bfloat16>(x, n, vec, out, s); break;
    case mx::InType::f16: amax_typed<__half>(x, n, vec, out, s); break;
    case mx::InType::f32: amax_typed<float>(x, n, vec, out, s); break;
  }
  check(cudaGetLastError(), "amax kernel launch");
}

}  // namespace mxk::detail
