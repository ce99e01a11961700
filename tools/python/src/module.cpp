// module.cpp - the `mxconform._core` extension module (issue 8): libmxref
// bound for Python. Typed exceptions mirror mx::Error's hierarchy (every
// bad input raises one, with the library's one-line message); array helpers
// read NumPy buffers in place (the Python layer, mxconform/_arrays.py, turns
// torch tensors into NumPy views without a copy).
#include <string>

#include "common.hpp"
#include "mx/recipe.hpp"

namespace mxpy {

mx::Fmt element_format(const std::string& s) {
  const mx::Fmt f = mx::parse_format(s == "e8m0" ? "ue8m0" : s);
  if (f == mx::Fmt::fp32 || f == mx::Fmt::bf16 || f == mx::Fmt::fp16) {
    throw mx::InvalidArgument("format '" + s + "' is an input type; expected e4m3, e5m2, e3m2, e2m3, e2m1, int8, "
                              "ue8m0 (e8m0) or ue4m3");
  }
  return f;
}

mx::InType in_type(const std::string& s) { return mx::parse_in_type(s); }

std::vector<std::int64_t> shape_of(const py::array& a) {
  std::vector<std::int64_t> s;
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s.push_back(static_cast<std::int64_t>(a.shape(i)));
  return s;
}

void require_contiguous(const py::array& a, std::size_t itemsize, const std::string& what) {
  if (static_cast<std::size_t>(a.itemsize()) != itemsize) {
    throw mx::InvalidArgument(what + ": expected " + std::to_string(itemsize) + "-byte items, got dtype " +
                              std::string(py::str(a.dtype())));
  }
  if (!(a.flags() & py::array::c_style)) throw mx::InvalidArgument(what + ": array is not C-contiguous");
}

const std::uint8_t* u8_data(const py::array& a, const std::string& what) {
  require_contiguous(a, 1, what);
  return static_cast<const std::uint8_t*>(a.data());
}

mx::InType source_type(const py::array& a, const std::string& source) {
  const char kind = a.dtype().kind();
  const auto size = a.itemsize();
  mx::InType t;
  if (kind == 'f' && size == 4) {
    t = mx::InType::f32;
  } else if (kind == 'f' && size == 2) {
    t = mx::InType::f16;
  } else if ((kind == 'u' || kind == 'i') && size == 2) {
    if (source != "bf16") {
      throw mx::InvalidArgument("uint16 array: pass source=\"bf16\" if it holds bf16 bit patterns");
    }
    t = mx::InType::bf16;
  } else {
    throw mx::InvalidArgument("dtype " + std::string(py::str(a.dtype())) +
                              " is not an input type (float32, float16, torch.bfloat16, or uint16 bf16 bits with "
                              "source=\"bf16\")");
  }
  if (!source.empty() && mx::parse_in_type(source) != t) {
    throw mx::InvalidArgument("source=\"" + source + "\" but the array holds " + std::string(mx::in_type_name(t)));
  }
  require_contiguous(a, mx::in_type_bytes(t), "input");
  return t;
}

py::array_t<std::uint8_t> new_u8(const std::vector<std::int64_t>& shape) {
  std::vector<py::ssize_t> s(shape.begin(), shape.end());
  return py::array_t<std::uint8_t>(s);
}

}  // namespace mxpy

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  m.doc() = "mxconform: libmxref (reference/SPEC.md C1-C13) bound for Python";
  // Base first: pybind11 tries the most recently registered translator first,
  // so each subclass is caught as itself.
  static py::exception<mx::Error> error(m, "Error", PyExc_ValueError);
  static py::exception<mx::InvalidArgument> invalid(m, "InvalidArgument", error.ptr());
  static py::exception<mx::UnknownName> unknown(m, "UnknownName", error.ptr());
  static py::exception<mx::ShapeError> shape(m, "ShapeError", error.ptr());
  static py::exception<mx::ParseError> parse(m, "ParseError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mx::ParseError& e) {
      parse(e.what());
    } catch (const mx::ShapeError& e) {
      shape(e.what());
    } catch (const mx::UnknownName& e) {
      unknown(e.what());
    } catch (const mx::InvalidArgument& e) {
      invalid(e.what());
    } catch (const mx::Error& e) {
      error(e.what());
    }
  });
  mxpy::bind_convert(m);
  mxpy::bind_tensor(m);
  mxpy::bind_gemm(m);
  mxpy::bind_vectors(m);
}
