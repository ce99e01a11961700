// tensor_io.hpp - tensors in files for `mxconform quantize/dequantize/
// check-tensor`: loading .npy or raw input, the JSON side file that records
// recipe, policies, shapes and layouts, and rebuilding an mx::Quantized from
// a side file and its data/scales .npy files.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "json.hpp"
#include "mapped_file.hpp"
#include "mx/quantize.hpp"
#include "npy.hpp"

namespace mxv {

// An input tensor mapped from its file (no copy): `data` points into `map`.
struct LoadedTensor {
  std::shared_ptr<MappedFile> map;
  const char* data = nullptr;
  std::size_t data_offset = 0;  // of `data` in the file
  DType dtype = DType::f4;
  std::vector<std::int64_t> shape;  // as in the file
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
// A quantized tensor described by a side file, its data and scale files
// mapped (paths in the side file are relative to its directory). `q` has
// every shape and option, and empty data/scales vectors. Checks every size.
struct MappedQuantized {
  mx::Quantized q;
  MappedFile data_map, scales_map;
  const std::uint8_t* data = nullptr;
  const std::uint8_t* scales = nullptr;
};
MappedQuantized map_quantized(const std::string& json_path, JsonDoc* meta = nullptr);
// The same with data and scales copied into q.data and q.scales.
mx::Quantized load_quantized(const std::string& json_path, JsonDoc* meta = nullptr);

}  // namespace mxv
