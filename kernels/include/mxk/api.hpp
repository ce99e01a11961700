// mxk/api.hpp - what the command line and the tests call in libmxkernels.
//
// Every GPU kernel has a host launcher here that takes the reference's own
// types (mx::Recipe, mx::TensorView, mx::QuantizeOptions) and returns the
// reference's result type, so the gate can compare bytes directly.
#pragma once

#include <string>
#include <vector>

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

}  // namespace mxk
