// supported.cpp - the accepted set of the device launchers (supported.hpp).
// Host C++ only: libmxkernels calls it before every launch, and the `cpu`
// test of conformance/gpu compiles it directly to compare the gate's
// enumeration with it.
#include "common/supported.hpp"

#include <string>

#include "mx/error.hpp"

namespace mxk {

void check_device_recipe(const mx::Recipe& r) {
  const mx::ConvPolicy& c = r.conv;
  if (c.rounding != mx::Rounding::rne) {
    throw mx::InvalidArgument("device quantize implements rounding rne only (recipe '" + r.name() + "')");
  }
  if (c.overflow != mx::Overflow::saturate) {
    throw mx::InvalidArgument("device quantize implements overflow saturate only (recipe '" + r.name() + "')");
  }
  const bool fp8 = r.elem == mx::Fmt::e4m3 || r.elem == mx::Fmt::e5m2;
  const bool nan_ok = c.nan == mx::NanPolicy::nan_default || (fp8 && c.nan == mx::NanPolicy::nan_canonical) ||
                      (!fp8 && c.nan == mx::NanPolicy::nan_to_max);
  if (!nan_ok) {
    throw mx::InvalidArgument("device quantize implements the default NaN policy only (recipe '" + r.name() + "')");
  }
  if (c.int8 != mx::Int8Range::int8_full || c.flush_input_subnormals) {
    throw mx::InvalidArgument("device quantize implements int8_full without input flushing only (recipe '" +
                              r.name() + "')");
  }
  if (r.is_nvfp4() ? r.block != 16 : r.block != 32) {
    throw mx::InvalidArgument("device quantize implements block size 32 (MX) and 16 (NVFP4) only");
  }
}

void check_device_options(const mx::QuantizeOptions& o) {
  if (o.axis == mx::Axis::rowwise && o.scale_layout == mx::ScaleLayout::dense_colwise) {
    throw mx::InvalidArgument("scale layout dense_colwise applies to colwise quantization only");
  }
  if (o.axis == mx::Axis::rowwise && o.data_order == mx::DataOrder::transposed) {
    throw mx::InvalidArgument("data order 'transposed' applies to colwise quantization only");
  }
}

void check_device_per_tensor_format(mx::Fmt f) {
  if (f != mx::Fmt::e4m3 && f != mx::Fmt::e5m2) {
    throw mx::InvalidArgument("per-tensor FP8 format must be e4m3 or e5m2 (got " + std::string(mx::desc(f).name) + ")");
  }
}

void check_device_dequant_output(mx::Fmt out) {
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16 && out != mx::Fmt::fp16) {
    throw mx::InvalidArgument("dequantize output must be fp32, bf16 or fp16 (got " + std::string(mx::desc(out).name) + ")");
  }
}

}  // namespace mxk
