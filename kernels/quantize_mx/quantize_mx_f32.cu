// quantize_mx_f32.cu - MX quantize kernels (SPEC C3, C4, C6, C7) for
// f32 inputs: every element format, every scale rule, rowwise, colwise
// (source or transposed data) and fused. Kernels live in common/tiles.cuh.
#include "common/launch_impl.cuh"

namespace mxk::detail {
void launch_mx_f32(const QuantLaunch& q, cudaStream_t s) { launch_mx_type<float>(q, s); }
}  // namespace mxk::detail
