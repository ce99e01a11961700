// gpu_gate_cases.hpp - what the `gpu` gate enumerates (recipes, options,
// input types, per-tensor formats, dequantize outputs), written out by the
// gate itself. gate_enum_test.cpp (label cpu) checks that this enumeration is
// exactly the set the device launchers accept (kernels/common/supported.hpp),
// so an option the launchers take but the gate never runs fails a test.
#pragma once

#include <string>
#include <vector>

#include "mx/quantize.hpp"

namespace gate {

// Axis, data order and scale layout of one gate configuration (C4, C7).
struct Cfg {
  mx::Axis axis;
  mx::DataOrder order;
  mx::ScaleLayout layout;
  const char* name;
};
inline constexpr Cfg kCfgs[] = {
    {mx::Axis::rowwise, mx::DataOrder::source, mx::ScaleLayout::dense, "rowwise/dense"},
    {mx::Axis::rowwise, mx::DataOrder::source, mx::ScaleLayout::tcgen05, "rowwise/tcgen05"},
    {mx::Axis::colwise, mx::DataOrder::source, mx::ScaleLayout::dense, "colwise/source/dense"},
    {mx::Axis::colwise, mx::DataOrder::source, mx::ScaleLayout::dense_colwise, "colwise/source/dense_colwise"},
    {mx::Axis::colwise, mx::DataOrder::source, mx::ScaleLayout::tcgen05, "colwise/source/tcgen05"},
    {mx::Axis::colwise, mx::DataOrder::transposed, mx::ScaleLayout::dense, "colwise/transposed/dense"},
    {mx::Axis::colwise, mx::DataOrder::transposed, mx::ScaleLayout::dense_colwise, "colwise/transposed/dense_colwise"},
    {mx::Axis::colwise, mx::DataOrder::transposed, mx::ScaleLayout::tcgen05, "colwise/transposed/tcgen05"},
};
inline mx::QuantizeOptions opts_of(const Cfg& c, mx::Packing p = mx::Packing::packed) {
  mx::QuantizeOptions o;
  o.axis = c.axis;
  o.data_order = c.order;
  o.scale_layout = c.layout;
  o.packing = p;
  return o;
}
// C6: both packings; the gate runs every configuration with each.
inline constexpr mx::Packing kPackings[] = {mx::Packing::packed, mx::Packing::container8};
inline constexpr mx::InType kTypes[] = {mx::InType::bf16, mx::InType::f16, mx::InType::f32};
// C12 formats and the C8/C12 dequantize outputs.
inline constexpr mx::Fmt kPerTensorFormats[] = {mx::Fmt::e4m3, mx::Fmt::e5m2};
inline constexpr mx::Fmt kDequantOuts[] = {mx::Fmt::fp32, mx::Fmt::bf16, mx::Fmt::fp16};

// The C4/C5 named recipes (mx::recipe_names(): every base with every scale
// rule, nvfp4, nvfp4:torchao): the full suite runs each.
std::vector<std::string> main_recipes();
// The same recipes under every other policy value the kernels implement:
// the explicit name of the default NaN policy (nan_canonical for fp8,
// nan_to_max for fp6/fp4/int8) and nonfinite_block_ignore, alone and
// together. A lighter suite runs each (every configuration, packing, input
// type; special and structured inputs; quantize, fused and dequantize).
std::vector<std::string> option_recipes();

}  // namespace gate
