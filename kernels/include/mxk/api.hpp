// mxk/api.hpp - what the command line and the tests call in libmxkernels.
//
// Every GPU kernel has a host launcher here that takes the reference's own
// types (mx::Recipe, mx::TensorView, mx::QuantizeOptions) and returns the
// reference's result type, so the gate can compare bytes directly.
#pragma once

#include <string>
#include <vector>

#include "mx/per_tensor.hpp"
#include "mx/quantize.hpp"

namespace mxk {

// True when a CUDA device can run the kernels; otherwise false with the reason.
bool device_available(std::string* why);

// Quantize on the GPU (host buffers in and out; copies included). Throws
// mx::Error for an unsupported combination, with a one-line message.
mx::Quantized quantize_device(const mx::Recipe& r, const mx::TensorView& t,
                              const mx::QuantizeOptions& o);

// Dequantize on the GPU to fp32/bf16/fp16; same bytes as mx::dequantize.
std::vector<std::uint8_t> dequantize_device(const mx::Quantized& q, mx::Fmt out);

// `mxconform bench ...` and `mxconform probe ...`: each parses its own
// arguments (args excludes the program and subcommand names) and returns the
// process exit code.
int bench_main(const std::vector<std::string>& args);
int probe_main(const std::vector<std::string>& args);

// ---- additions (helper D, issue 4) -------------------------------------------

// Fused rowwise + colwise quantization in one read of the input (C4): the
// two results equal mx::quantize with `row` and with `col` options.
struct FusedQuantized {
  mx::Quantized rowwise, colwise;
};
FusedQuantized quantize_device_fused(const mx::Recipe& r, const mx::TensorView& t,
                                     const mx::QuantizeOptions& row, const mx::QuantizeOptions& col);

// Per-tensor FP8 with current scaling (reference/SPEC.md C12), f = e4m3 or
// e5m2: the codes and the fp32 bits of amax, scale and scale_inv exactly as
// the device wrote them (nothing recomputed on the host), so the gate
// compares all four with mx::quantize_per_tensor.
mx::PerTensorQuantized per_tensor_fp8_device(mx::Fmt f, const mx::TensorView& t);
// C12 step 4 on the device; same bytes as mx::dequantize_per_tensor.
std::vector<std::uint8_t> per_tensor_fp8_dequant_device(const mx::PerTensorQuantized& q, mx::Fmt out);

// Conversion path: by default the kernels use the hardware cvt instructions
// where one exists and matches the contract (fp8 on sm_89+, e2m1 on
// sm_100a/sm_120a) and software conversions elsewhere. With `on` the
// launchers run the software conversions everywhere (the gate tests both).
void set_force_software(bool on);
bool force_software();

// Work split of the quantize kernels: rowwise, the 1024-element chunks one
// warp converts (pipelined: the next chunk's loads overlap this one's
// conversion), and for the rowwise tile kernel (8-bit MX codes of 16-bit
// inputs with tcgen05 scales) the 128x64 sub-tiles one CTA converts (1, or
// 2 for any n >= 2 where the shape allows 128x128); colwise/fused, the 128x64
// tiles one CTA converts. 0 (the default) picks from the tensor size; n in
// 1..4 forces n, so that the gate covers the pipelined paths on small shapes.
// Same bytes either way.
void set_work_split(int n);
int work_split();

// Tile rows of the colwise/fused kernels: 0 (the default) takes the stream
// kernel where it applies (16-bit MX inputs of full 128x64 tiles), else the
// general tile kernel with 128 rows, or 32 where 128-row tiles would leave
// fewer than ~2 waves of CTAs (small tensors); 32 or 128 forces the general
// kernel with those rows (any other value means 0), so that the gate covers
// every kernel on any shape. Same bytes either way.
void set_tile_rows(int rows);
int tile_rows();

// Bytes every device output buffer is filled with before a launch (the gate
// checks that none survives where the contract defines a value). One poison
// hides an unwritten byte whose right value is that poison, so with the
// poison check on (set_poison_check(true); the gate turns it on for every
// case) each host launcher runs its kernels twice, over kPoison and then over
// kPoison2, and throws mx::Error naming the buffer and the byte where the two
// results differ (a byte the kernels did not write). Off by default: one
// launch, over kPoison.
inline constexpr std::uint8_t kPoison = 0xA5;
inline constexpr std::uint8_t kPoison2 = 0x5A;
void set_poison_check(bool on);
bool poison_check();
// Test hook (the gate's own check of the poison check): when on, the host
// launchers re-poison the last byte of the first output buffer after the
// kernels ran, as a kernel that forgot to write it would leave it.
void set_test_unwrite_last_byte(bool on);

}  // namespace mxk
