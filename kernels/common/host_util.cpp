// host_util.cpp - host-only format queries for the .cu launchers.
#include "mx/format.hpp"
#include "common/launch.hpp"

namespace mxk::detail {
int elem_bits(mx::Fmt f) { return mx::desc(f).bits; }
float inv_max_finite(mx::Fmt f) { return static_cast<float>(1.0 / mx::max_finite(mx::desc(f))); }
}  // namespace mxk::detail
