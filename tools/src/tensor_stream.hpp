// tensor_stream.hpp - quantize and dequantize large tensors in row chunks
// (issue 15; the results are those of mx::quantize / mx::dequantize on the
// whole tensor, C4, C7, C8): the input stays memory-mapped, each chunk is a
// sub-tensor of whole rows (colwise: whole blocks of V rows), its data bytes
// go straight to the output file and its scales to their place in the full
// scale buffer (any layout). The CPU driver runs chunks on every core; the
// device driver (device_stream.cpp) pipelines them through the GPU.
//
// Not chunked (one shot): NVFP4 quantize (its tensor scale needs the global
// amax before any block, C5) and colwise data in transposed order.
#pragma once

#include <cstdint>
#include <vector>

#include "mapped_file.hpp"
#include "mx/quantize.hpp"
#include "progress.hpp"
#include "tensor_io.hpp"

namespace mxv {

struct Chunk {
  std::int64_t b = 0, m0 = 0, m1 = 0;  // batch entry, source rows [m0, m1)
};

// Environment knobs (tests force small chunks and several threads):
// MXCONFORM_CHUNK_BYTES (input bytes per chunk), MXCONFORM_THREADS (default:
// the cores the process may run on), MXCONFORM_DEVICE_SLOTS (device ring).
std::int64_t env_int(const char* name, std::int64_t dflt);
unsigned cpu_threads();

bool quantize_chunkable(const mx::Recipe& r, const mx::QuantizeOptions& o);
bool dequantize_chunkable(const mx::Quantized& q);
// Rows of a chunk are a multiple of this (colwise: the block size V).
std::int64_t chunk_align(const mx::Quantized& full);
// Chunks of about `target_bytes` (rows of `row_bytes` bytes), in order.
std::vector<Chunk> plan_chunks(const mx::Quantized& full, std::int64_t row_bytes, std::int64_t target_bytes);

// A chunk's scale matrix, in the dense layout, and its place in the full one.
mx::ScaleShape chunk_scale_shape(const mx::Quantized& full, const Chunk& c);
void scatter_scales(const mx::Quantized& full, const Chunk& c, const std::uint8_t* chunk_dense, std::uint8_t* full_buf);
void gather_scales(const mx::Quantized& full, const Chunk& c, const std::uint8_t* full_buf, std::uint8_t* chunk_dense);

// Byte offset and size of a chunk's data rows (source data order).
std::uint64_t chunk_data_offset(const mx::Quantized& full, const Chunk& c);
std::uint64_t chunk_data_bytes(const mx::Quantized& full, const Chunk& c);
// Byte offset and size of a chunk's rows in an input/output tensor of `elem` bytes.
std::uint64_t chunk_elem_offset(const mx::Quantized& full, const Chunk& c, std::int64_t elem);
std::uint64_t chunk_elem_bytes(const mx::Quantized& full, const Chunk& c, std::int64_t elem);

// The options of a chunk's quantization (dense scales, no random bits).
mx::QuantizeOptions chunk_options(const mx::Quantized& full);
// A chunk as a quantized tensor of its own (data copied, dense scales gathered).
mx::Quantized chunk_quantized(const MappedQuantized& m, const Chunk& c);

// CPU drivers. `full` holds the result's shapes and its scale buffer; data
// bytes are written to `data` at `data_at` + their offset.
void quantize_cpu(const mx::Recipe& r, const LoadedTensor& t, mx::Quantized& full, OutFile& data,
                  std::uint64_t data_at, Progress& p);
void dequantize_cpu(const MappedQuantized& m, mx::Fmt out, OutFile& y, std::uint64_t y_at, Progress& p);

#if defined(MX_HAVE_KERNELS)
// Device drivers (device_stream.cpp): a ring of pinned staging slots, a thread and a stream each.
void quantize_cuda(const mx::Recipe& r, const LoadedTensor& t, mx::Quantized& full, OutFile& data,
                   std::uint64_t data_at, Progress& p);
void dequantize_cuda(const MappedQuantized& m, mx::Fmt out, OutFile& y, std::uint64_t y_at, Progress& p);
#endif

}  // namespace mxv
