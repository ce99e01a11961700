// launch.hpp - device-pointer launchers shared by the host API (api.cpp),
// the benchmark and the tests. Internal to libmxkernels.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "mx/quantize.hpp"

namespace mxk::detail {

// Throws mx::Error naming the CUDA call when it failed.
void check(cudaError_t e, const char* what);

struct ScaleOut {
  std::uint8_t* data = nullptr;    // packed element codes
  std::uint8_t* scales = nullptr;  // scale buffer in `layout`
  mx::ScaleLayout layout = mx::ScaleLayout::dense;
  bool transposed = false;         // colwise only: data is [K, M]
};

// One quantization launch on device buffers (input [batch, M, K] row-major).
struct QuantLaunch {
  mx::Recipe recipe;
  mx::InType in = mx::InType::bf16;
  const void* x = nullptr;
  std::int64_t batch = 1, M = 0, K = 0;
  mx::Packing packing = mx::Packing::packed;
  bool do_row = false, do_col = false;  // both: fused, one read of the input
  ScaleOut row, col;
  std::uint32_t* gamax = nullptr;  // NVFP4: 4-byte device scratch for the global amax
  bool force_software = false;     // software conversion even where a cvt exists
};

// mxk::set_work_split (0 = automatic); defined in launch.cu.
extern std::atomic<int> g_work_split;
// mxk::set_tile_rows (0 = automatic, 32 or 128 forces the general colwise/fused
// tile kernel, tiles.cuh, with those rows instead of the stream kernel).
extern std::atomic<int> g_tile_rows;
// Multiprocessors of the current device (cached per device; 132 if the query fails).
int device_sm_count();
// Peak DRAM bandwidth of the current device per multiprocessor, GB/s (memory
// clock x 2 x bus width / SMs: H100 SXM ~25, H200 ~37); 0 if a query fails.
double device_dram_gbs_per_sm();

// (The accepted recipes and options: common/supported.hpp.)
// Enqueue all kernels of one quantization on `s` (NVFP4: amax pass first).
void launch_quantize(const QuantLaunch& q, cudaStream_t s);

// Per-format entry points (one translation unit per input type / family).
void launch_mx_bf16(const QuantLaunch& q, cudaStream_t s);
void launch_mx_f16(const QuantLaunch& q, cudaStream_t s);
void launch_mx_f32(const QuantLaunch& q, cudaStream_t s);
void launch_nvfp4(const QuantLaunch& q, cudaStream_t s);
void launch_amax(mx::InType in, const void* x, std::int64_t n, std::uint32_t* out, cudaStream_t s);
void launch_zero_tcgen05_padding(std::uint8_t* scales, std::int64_t rows, std::int64_t blocks,
                                 std::int64_t batch, cudaStream_t s);

// Dequantize on device (codes and scales laid out as in mx::Quantized).
struct DequantLaunch {
  mx::Recipe recipe;
  mx::QuantizeOptions opts;
  std::int64_t batch = 1, M = 0, K = 0;
  std::int64_t data_rows = 0, row_bytes = 0;
  mx::ScaleShape scale_shape;
  const std::uint8_t* data = nullptr;
  const std::uint8_t* scales = nullptr;
  std::uint32_t global_amax_bits = 0;
  mx::Fmt out = mx::Fmt::fp32;
  void* y = nullptr;
};
void launch_dequantize(const DequantLaunch& d, cudaStream_t s);

// Per-tensor FP8 (C12, f = e4m3 or e5m2) on device: amax pass; cast (writes
// the codes and the fp32 scale and scale_inv); dequant.
void launch_pt_amax(mx::InType in, const void* x, std::int64_t n, std::uint32_t* amax, cudaStream_t s);
void launch_pt_cast(mx::Fmt f, mx::InType in, const void* x, std::int64_t n, const std::uint32_t* amax,
                    std::uint8_t* q, float* scale, float* scale_inv, cudaStream_t s, bool force_software = false);
void launch_pt_dequant(mx::Fmt f, const std::uint8_t* q, std::int64_t n, const float* scale_inv, mx::Fmt out,
                       void* y, cudaStream_t s);

// bf16 copy used as the bandwidth yardstick is cudaMemcpyAsync D2D.

}  // namespace mxk::detail

namespace mxk::detail {
// Host-only helpers (common/host_util.cpp): the reference's format
// descriptors are constexpr host functions that nvcc will not compile as
// __host__ __device__, so .cu files ask through these.
int elem_bits(mx::Fmt f);
float inv_max_finite(mx::Fmt f);  // fp32(1 / max_finite), RNE: the rceil multiplier (C3)
}  // namespace mxk::detail
