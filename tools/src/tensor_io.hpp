// tensor_io.hpp - tensors in files for `mxconform quantize/dequantize/
// check-tensor`: loading .npy or raw input, the JSON side file that records
// recipe, policies, shapes and layouts, and rebuilding an mx::Quantized from
// a side file and its data/scales .npy files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "json.hpp"
#include "mx/quantize.hpp"
#include "npy.hpp"

namespace mxv {

struct LoadedTensor {
  NpyArray arr;
  mx::InType type = mx::InType::f32;
  std::int64_t batch = 1, rows = 0, cols = 0;
  mx::TensorView view() const;
};
// Loads a tensor: a .npy file (float32, float16, or uint16 = bf16 bits unless
// in_type says fp16), or, when `shape` is non-empty, raw little-endian
// elements of `in_type` (fp32 default). 1-D is [1, K], 2-D [M, K], 3-D [B, M, K].
LoadedTensor load_tensor(const std::string& path, const std::string& shape, const std::string& in_type);

Json quantized_meta(const mx::Quantized& q, const std::string& input, const LoadedTensor& t,
                    const std::string& data_file, const std::string& scales_file, const std::string& device);
// Rebuilds the quantized tensor described by a side file (paths in it are
// relative to the side file's directory). Checks every size.
mx::Quantized load_quantized(const std::string& json_path, Json* meta = nullptr);

// Writes every file through a temporary name and renames them only when all
// were written, so a failure leaves none of them behind.
void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace mxv
