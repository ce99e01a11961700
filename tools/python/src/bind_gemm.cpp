// bind_gemm.cpp - the GEMM models for Python: C9's `exact` (mx/gemm.hpp)
// now; the C11 sm_90 models (`mxfp8`, `w4a16`) are added in bind_c11 below,
// one m.def line each, when they land in libmxref (reference/include/mx/gemm*.hpp).
#include <pybind11/stl.h>

#include <optional>

#include "common.hpp"
#include "mx/gemm.hpp"

namespace mxpy {
namespace {

// One operand: codes [rows, K] (one code per byte), dense scales [rows, ceil(K/V)].
mx::ScaledOperand operand(const py::array& codes, const py::array& scales, const std::string& elem,
                          const std::string& scale_fmt, int block, float global_scale, const char* name) {
  mx::ScaledOperand o;
  o.elem = element_format(elem);
  o.scale_fmt = element_format(scale_fmt);
  if (o.scale_fmt != mx::Fmt::ue8m0 && o.scale_fmt != mx::Fmt::ue4m3) {
    throw mx::InvalidArgument(std::string(name) + ": scale format must be ue8m0 or ue4m3");
  }
  if (block < 1) throw mx::InvalidArgument(std::string(name) + ": block must be at least 1");
  o.block = block;
  const auto cs = shape_of(codes), ss = shape_of(scales);
  if (cs.size() != 2) throw mx::ShapeError(std::string(name) + ": codes must be 2-D [rows, K]");
  o.rows = cs[0];
  o.k = cs[1];
  const std::int64_t nb = (o.k + block - 1) / block;
  if (ss.size() != 2 || ss[0] != o.rows || ss[1] != nb) {
    throw mx::ShapeError(std::string(name) + ": scales must be [" + std::to_string(o.rows) + ", " + std::to_string(nb) +
                         "] (dense, one per block of " + std::to_string(block) + ")");
  }
  o.codes = u8_data(codes, std::string(name) + " codes");
  o.scales = u8_data(scales, std::string(name) + " scales");
  o.global_scale = global_scale;
  return o;
}

py::array_t<float> exact_gemm(const py::array& a_codes, const py::array& a_scales, const py::array& b_codes,
                              const py::array& b_scales, const std::string& a_elem, const std::optional<std::string>& b_elem,
                              const std::string& scale_fmt, int block, const std::optional<py::array>& c,
                              float a_global_scale, float b_global_scale) {
  const mx::ScaledOperand a = operand(a_codes, a_scales, a_elem, scale_fmt, block, a_global_scale, "A");
  const mx::ScaledOperand b = operand(b_codes, b_scales, b_elem.value_or(a_elem), scale_fmt, block, b_global_scale, "B");
  if (a.k != b.k) throw mx::ShapeError("A has K = " + std::to_string(a.k) + ", B has K = " + std::to_string(b.k));
  const float* cp = nullptr;
  if (c) {
    if (c->dtype().kind() != 'f' || c->itemsize() != 4) throw mx::InvalidArgument("C: expected a float32 array");
    require_contiguous(*c, 4, "C");
    const auto cs = shape_of(*c);
    if (cs.size() != 2 || cs[0] != a.rows || cs[1] != b.rows) throw mx::ShapeError("C must be [M, N]");
    cp = static_cast<const float*>(c->data());
  }
  std::vector<float> d;
  {
    py::gil_scoped_release nogil;
    d = mx::exact_gemm(a, b, cp);
  }
  py::array_t<float> out(std::vector<py::ssize_t>{a.rows, b.rows});
  std::copy(d.begin(), d.end(), out.mutable_data());
  return out;
}

// C11 hook: bind each sm_90 model here with one line when the libmxref
// functions exist, e.g.
//   m.def("gemm_mxfp8", &mx::gemm_mxfp8, ...);   // C11 `mxfp8`
// and add its name to mxconform.GEMM_MODELS (mxconform/__init__.py).
void bind_c11(py::module_& m) { (void)m; }

}  // namespace

void bind_gemm(py::module_& m) {
  m.def("exact_gemm", &exact_gemm, py::arg("a_codes"), py::arg("a_scales"), py::arg("b_codes"), py::arg("b_scales"),
        py::arg("elem") = "e4m3", py::arg("b_elem") = py::none(), py::arg("scale_fmt") = "ue8m0", py::arg("block") = 32,
        py::arg("c") = py::none(), py::arg("a_global_scale") = 1.0f, py::arg("b_global_scale") = 1.0f,
        "C9 `exact`: D = C + A B^T, exact sum rounded once to fp32 (rne)");
  bind_c11(m);
}

}  // namespace mxpy
