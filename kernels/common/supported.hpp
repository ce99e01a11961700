// supported.hpp - what the device launchers of libmxkernels accept
// (reference/SPEC.md C4-C8, C12), as plain host C++ (no CUDA), so that the
// one definition serves both the launchers (which reject everything else with
// mx::InvalidArgument) and the `cpu`-label test that compares the `gpu`
// gate's enumeration with it (conformance/gpu/gate_enum_test.cpp).
#pragma once

#include "mx/quantize.hpp"

namespace mxk {

// Recipe policies the quantize/dequantize kernels implement: rne,
// saturate, the format's default NaN policy (or its explicit name:
// nan_canonical for fp8, nan_to_max for fp6/fp4/int8), int8_full, no input
// flushing, block 32 (MX) / 16 (NVFP4), every scale rule, both non-finite
// block policies, both NVFP4 orders. Throws mx::InvalidArgument otherwise.
void check_device_recipe(const mx::Recipe& r);
// Options (axis, data order, scale layout, packing) the launchers accept for
// `r`: the same combinations as mx::validate (dense_colwise and transposed
// data are colwise only). Throws mx::InvalidArgument otherwise.
void check_device_options(const mx::QuantizeOptions& o);
// Per-tensor FP8 formats of the device kernels (C12): e4m3, e5m2.
void check_device_per_tensor_format(mx::Fmt f);
// Dequantize output types (C8, C12): fp32, bf16, fp16.
void check_device_dequant_output(mx::Fmt out);

}  // namespace mxk
