// launch.cu - dispatch of one quantization (SPEC C4, C5, C7): checks the
// recipe and options are ones the kernels implement (common/supported.hpp), runs the MX or NVFP4 kernels, and
// zeroes the padding of tcgen05 scale buffers (C7: padding is 0x00).
#include <cuda_runtime.h>

#include <atomic>
#include <string>

#include "common/launch.hpp"
#include "common/supported.hpp"
#include "common/tiles.cuh"
#include "mx/error.hpp"

namespace mxk::detail {

std::atomic<int> g_work_split{0};
std::atomic<int> g_tile_rows{0};

namespace {
// What `query(dev, v)` gives for the current device, cached per device (the
// device facts below are performance heuristics only: they never change the
// bytes); `fallback` where the device or the query fails or gives v <= 0.
template <class T, class Query>
T per_device(std::atomic<T> (&cache)[16], T fallback, Query query) {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) {
    cudaGetLastError();
    return fallback;
  }
  const bool cached = dev >= 0 && dev < 16;
  if (cached) {
    const T c = cache[dev].load(std::memory_order_relaxed);
    if (c > 0) return c;
  }
  T v{};
  if (!query(dev, v) || !(v > 0)) {
    cudaGetLastError();
    return fallback;
  }
  if (cached) cache[dev].store(v, std::memory_order_relaxed);
  return v;
}
}  // namespace

int device_sm_count() {
  static std::atomic<int> cache[16] = {};
  return per_device(cache, 132, [](int dev, int& n) {
    return cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess;
  });
}

double device_dram_gbs_per_sm() {  // 0 where a query fails: the callers then keep their defaults
  static std::atomic<double> cache[16] = {};
  return per_device(cache, 0.0, [](int dev, double& gbs) {
    int khz = 0, bits = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess) {
      return false;
    }
    // double data rate: 2 transfers per memory clock, bits / 8 bytes each
    gbs = 2.0 * khz * 1e3 * (bits / 8.0) / 1e9 / device_sm_count();
    return true;
  });
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw mx::Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
  }
}

namespace {
__global__ void k_zero_tcgen05_padding(std::uint8_t* s, std::int64_t rows, std::int64_t blocks, std::int64_t nkt,
                                       std::int64_t mat, std::int64_t total) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t off = i % mat;
    const std::int64_t rt = off / (nkt * 512);
    const std::int64_t rem = off - rt * nkt * 512;
    const std::int64_t kt = rem / 512;
    const std::int64_t w = rem - kt * 512;
    const std::int64_t r = rt * 128 + ((w % 16) / 4) * 32 + w / 16;
    const std::int64_t kb = kt * 4 + w % 4;
    if (r >= rows || kb >= blocks) s[i] = 0;
  }
}
}  // namespace

void launch_zero_tcgen05_padding(std::uint8_t* scales, std::int64_t rows, std::int64_t blocks, std::int64_t batch,
                                 cudaStream_t s) {
  if (rows % 128 == 0 && blocks % 4 == 0) return;  // no padding
  const std::int64_t nkt = (blocks + 3) / 4;
  const std::int64_t mat = ((rows + 127) / 128) * 128 * nkt * 4;
  const std::int64_t total = mat * batch;
  if (total == 0) return;
  const std::int64_t g = std::min<std::int64_t>((total + 255) / 256, 65536);
  k_zero_tcgen05_padding<<<static_cast<int>(g), 256, 0, s>>>(scales, rows, blocks, nkt, mat, total);
  check(cudaGetLastError(), "tcgen05 padding kernel launch");
}

void launch_quantize(const QuantLaunch& q, cudaStream_t s) {
  check_device_recipe(q.recipe);
  if (!q.do_row && !q.do_col) throw mx::InvalidArgument("device quantize: nothing to do (neither rowwise nor colwise)");
  if (q.do_row) check_device_options({mx::Axis::rowwise, mx::DataOrder::source, q.row.layout, q.packing});
  if (q.do_col) check_device_options({mx::Axis::colwise, q.col.transposed ? mx::DataOrder::transposed : mx::DataOrder::source,
                                      q.col.layout, q.packing});
  if (q.batch < 1 || q.M < 0 || q.K < 0) throw mx::ShapeError("device quantize: bad shape");
  const std::int64_t V = q.recipe.block;
  if (q.recipe.is_nvfp4()) {
    launch_nvfp4(q, s);
  } else {
    switch (q.in) {
      case mx::InType::bf16: launch_mx_bf16(q, s); break;
      case mx::InType::f16: launch_mx_f16(q, s); break;
      case mx::InType::f32: launch_mx_f32(q, s); break;
    }
  }
  if (q.do_row && q.row.layout == mx::ScaleLayout::tcgen05) {
    launch_zero_tcgen05_padding(q.row.scales, q.M, (q.K + V - 1) / V, q.batch, s);
  }
  if (q.do_col && q.col.layout == mx::ScaleLayout::tcgen05) {
    launch_zero_tcgen05_padding(q.col.scales, q.K, (q.M + V - 1) / V, q.batch, s);
  }
}

}  // namespace mxk::detail
