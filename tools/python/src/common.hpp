// common.hpp - shared helpers of the mxconform Python binding (tools/python):
// NumPy array checks (no copy: the binding reads the caller's buffer in
// place), name parsing, and the declarations of each binding file.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/format.hpp"

namespace mxpy {
namespace py = pybind11;

// An element or scale format name of C1 ("e8m0" is accepted for ue8m0);
// the IEEE input types are refused (InvalidArgument).
mx::Fmt element_format(const std::string& s);
// "fp32" | "bf16" | "fp16" (UnknownName otherwise).
mx::InType in_type(const std::string& s);

// The array must be C-contiguous with items of `itemsize` bytes; `what`
// names it in the message (InvalidArgument / ShapeError).
void require_contiguous(const py::array& a, std::size_t itemsize, const std::string& what);
// A uint8 array (any 1-byte dtype is read as its bits).
const std::uint8_t* u8_data(const py::array& a, const std::string& what);
// The input type of an array by dtype: float32 -> fp32, float16 -> fp16,
// uint16/int16 -> bf16 bits (only when `source` says bf16).
mx::InType source_type(const py::array& a, const std::string& source);
// Shape as 64-bit dims.
std::vector<std::int64_t> shape_of(const py::array& a);
// A new uint8 / float32 / uint16 array of the given shape.
py::array_t<std::uint8_t> new_u8(const std::vector<std::int64_t>& shape);

void bind_convert(py::module_& m);
void bind_tensor(py::module_& m);
void bind_gemm(py::module_& m);
void bind_vectors(py::module_& m);

}  // namespace mxpy
