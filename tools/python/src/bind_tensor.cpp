// bind_tensor.cpp - tensor quantize/dequantize (C4, C5, C8), packing (C6),
// scale layouts (C7) and the first-difference diagnostics of
// mx/testing/diff.hpp, for Python. A quantized tensor is the class
// `Quantized`; its data and scales are NumPy views of its own buffers.
#include <pybind11/stl.h>

#include <optional>

#include "common.hpp"
#include "mx/layout.hpp"
#include "mx/pack.hpp"
#include "mx/quantize.hpp"
#include "mx/testing/diff.hpp"

namespace mxpy {
namespace {

// [K], [M, K] or [B, M, K] as the CLI reads a tensor (tools/src/tensor_io.cpp).
mx::TensorView view_of(const py::array& x, const std::string& source) {
  mx::TensorView v;
  v.type = source_type(x, source);
  v.data = x.data();
  const auto s = shape_of(x);
  if (s.empty() || s.size() > 3) {
    throw mx::ShapeError("tensor must have 1 to 3 dimensions ([K], [M, K] or [B, M, K]), got " + std::to_string(s.size()));
  }
  v.cols = s.back();
  v.rows = s.size() >= 2 ? s[s.size() - 2] : 1;
  v.batch = s.size() == 3 ? s[0] : 1;
  if (v.batch < 1) throw mx::ShapeError("batch dimension must be at least 1");
  return v;
}

mx::QuantizeOptions options(const std::string& axis, const std::string& order, const std::string& layout,
                            const std::string& packing) {
  mx::QuantizeOptions o;
  o.axis = mx::parse_axis(axis);
  o.data_order = mx::parse_data_order(order);
  o.scale_layout = mx::parse_scale_layout(layout);
  o.packing = mx::parse_packing(packing);
  return o;
}

mx::Quantized quantize(const py::array& x, const std::string& recipe, const std::string& axis, const std::string& order,
                       const std::string& layout, const std::string& packing, const std::string& source,
                       const std::optional<py::array>& rbits) {
  const mx::Recipe r = mx::parse_recipe(recipe);
  mx::QuantizeOptions o = options(axis, order, layout, packing);
  const mx::TensorView v = view_of(x, source);
  if (rbits) {
    if (rbits->dtype().kind() != 'u' || rbits->itemsize() != 4) throw mx::InvalidArgument("rbits: expected a uint32 array");
    require_contiguous(*rbits, 4, "rbits");
    if (rbits->size() != x.size()) throw mx::ShapeError("rbits: " + std::to_string(rbits->size()) + " words for " + std::to_string(x.size()) + " elements");
    o.rbits = static_cast<const std::uint32_t*>(rbits->data());
  } else if (r.conv.rounding == mx::Rounding::sr) {
    throw mx::InvalidArgument("recipe " + r.name() + ": sr rounding needs rbits= (one uint32 per element)");
  }
  py::gil_scoped_release nogil;
  return mx::quantize(r, v, o);
}

// The geometry of the reference's answer for (recipe, shape, options), from a
// zero tensor (so sizes and offsets come from the library, not re-derived).
mx::Quantized like(const std::string& recipe, const std::vector<std::int64_t>& shape, const std::string& axis,
                   const std::string& order, const std::string& layout, const std::string& packing) {
  if (shape.empty() || shape.size() > 3) throw mx::ShapeError("shape must have 1 to 3 dimensions");
  mx::TensorView v;
  v.cols = shape.back();
  v.rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  v.batch = shape.size() == 3 ? shape[0] : 1;
  for (auto d : shape) {
    if (d < 0) throw mx::ShapeError("negative dimension in shape");
  }
  const std::int64_t n = mx::checked_mul(mx::checked_mul(v.batch, v.rows, "shape"), v.cols, "shape");
  std::vector<float> zeros(static_cast<std::size_t>(n), 0.0f);
  std::vector<std::uint32_t> rb(static_cast<std::size_t>(n), 0u);
  v.data = zeros.data();
  mx::QuantizeOptions o = options(axis, order, layout, packing);
  o.rbits = rb.data();
  mx::Quantized q = mx::quantize(mx::parse_recipe(recipe), v, o);
  q.opts.rbits = nullptr;
  return q;
}

py::array view_u8(const std::vector<std::uint8_t>& v, std::vector<py::ssize_t> shape, py::handle owner) {
  return py::array(py::dtype("uint8"), shape, {}, v.data(), owner);
}

py::array_t<std::uint8_t> convert_layout(const py::array& scales, std::int64_t rows, std::int64_t blocks,
                                         std::int64_t batch, const std::string& from, const std::string& to) {
  const mx::ScaleLayout lf = mx::parse_scale_layout(from), lt = mx::parse_scale_layout(to);
  const mx::ScaleShape s{rows, blocks, batch};
  const std::uint8_t* in = u8_data(scales, "scales");
  const std::int64_t nin = mx::scale_buffer_bytes(lf, s), nout = mx::scale_buffer_bytes(lt, s);
  if (static_cast<std::int64_t>(scales.size()) != nin) {
    throw mx::ShapeError("scales have " + std::to_string(scales.size()) + " bytes, layout " + from + " of [" +
                         std::to_string(batch) + ", " + std::to_string(rows) + ", " + std::to_string(blocks) + "] has " +
                         std::to_string(nin));
  }
  auto out = new_u8({nout});
  std::uint8_t* o = out.mutable_data();
  std::fill(o, o + nout, std::uint8_t{0});
  for (std::int64_t l = 0; l < batch; ++l) {
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t b = 0; b < blocks; ++b) o[mx::scale_offset(lt, s, l, r, b)] = in[mx::scale_offset(lf, s, l, r, b)];
    }
  }
  return out;
}

py::array_t<std::uint8_t> pack(const py::array& codes, const std::string& fmt, const std::string& packing) {
  const mx::Fmt f = element_format(fmt);
  const mx::Packing p = mx::parse_packing(packing);
  const std::uint8_t* c = u8_data(codes, "codes");
  auto s = shape_of(codes);
  if (s.empty()) throw mx::ShapeError("pack: codes must have at least one dimension");
  const std::int64_t n = s.back(), rows = n ? static_cast<std::int64_t>(codes.size()) / n : 0;
  const int bits = mx::desc(f).bits;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(codes.size()); ++i) {
    if (bits < 8 && (c[i] >> bits) != 0) {
      throw mx::InvalidArgument("codes: element " + std::to_string(i) + " is 0x" + mx::testing::hex_of(c[i], 2) +
                                ", not a " + std::to_string(bits) + "-bit code");
    }
  }
  const std::int64_t rb = mx::packed_row_bytes(f, n, p);
  s.back() = rb;
  auto out = new_u8(s);
  for (std::int64_t r = 0; r < rows; ++r) mx::pack_row(f, c + r * n, n, p, out.mutable_data() + r * rb);
  return out;
}

py::array_t<std::uint8_t> unpack(const py::array& bytes, const std::string& fmt, std::int64_t n, const std::string& packing) {
  const mx::Fmt f = element_format(fmt);
  const mx::Packing p = mx::parse_packing(packing);
  const std::uint8_t* c = u8_data(bytes, "packed bytes");
  auto s = shape_of(bytes);
  if (s.empty()) throw mx::ShapeError("unpack: bytes must have at least one dimension");
  if (n < 0) throw mx::InvalidArgument("unpack: n must be non-negative");
  const std::int64_t rb = mx::packed_row_bytes(f, n, p);
  if (s.back() != rb) {
    throw mx::ShapeError("unpack: rows of " + std::to_string(s.back()) + " bytes, " + std::to_string(n) + " " +
                         std::string(mx::desc(f).name) + " codes take " + std::to_string(rb));
  }
  const std::int64_t rows = rb ? static_cast<std::int64_t>(bytes.size()) / rb : 0;
  s.back() = n;
  auto out = new_u8(s);
  for (std::int64_t r = 0; r < rows; ++r) mx::unpack_row(f, c + r * rb, n, p, out.mutable_data() + r * n);
  return out;
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<mx::Quantized>(m, "Quantized", "A quantized tensor (C4/C5): data and scale bytes plus their geometry")
      .def_property_readonly("recipe", [](const mx::Quantized& q) { return q.recipe.name(); })
      .def_property_readonly("element_format", [](const mx::Quantized& q) { return std::string(mx::desc(q.recipe.elem).name); })
      .def_property_readonly("scale_format", [](const mx::Quantized& q) { return std::string(mx::desc(q.recipe.scale_fmt()).name); })
      .def_property_readonly("block", [](const mx::Quantized& q) { return q.recipe.block; })
      .def_property_readonly("shape", [](const mx::Quantized& q) { return std::vector<std::int64_t>{q.batch, q.rows, q.cols}; })
      .def_property_readonly("axis", [](const mx::Quantized& q) { return std::string(mx::axis_name(q.opts.axis)); })
      .def_property_readonly("data_order", [](const mx::Quantized& q) { return std::string(mx::data_order_name(q.opts.data_order)); })
      .def_property_readonly("layout", [](const mx::Quantized& q) { return std::string(mx::scale_layout_name(q.opts.scale_layout)); })
      .def_property_readonly("packing", [](const mx::Quantized& q) { return std::string(mx::packing_name(q.opts.packing)); })
      .def_property_readonly("row_elements", [](const mx::Quantized& q) { return q.data_row_elems; })
      .def_property_readonly("scale_matrix_shape", [](const mx::Quantized& q) {
        return std::vector<std::int64_t>{q.scale_shape.batch, q.scale_shape.rows, q.scale_shape.blocks};
      })
      .def_property_readonly("global_amax_bits", [](const mx::Quantized& q) { return q.global_amax_bits; })
      .def_property_readonly("tensor_factor", [](const mx::Quantized& q) {
        // C5/C9: the fp32 factor X multiplies the ue4m3 block scale by (1 for MX).
        if (!q.recipe.is_nvfp4()) return 1.0f;
        const mx::Nvfp4Factors f = mx::nvfp4_factors(q.recipe.nvfp4, q.global_amax_bits);
        return q.recipe.nvfp4 == mx::Nvfp4Order::torchao ? f.per_tensor_scale : f.s_dec;
      }, "NVFP4 tensor factor (S_dec, or torchao's per_tensor_scale); 1.0 for MX recipes")
      .def_property_readonly("data", [](py::object self) {
        const auto& q = self.cast<const mx::Quantized&>();
        return view_u8(q.data, {q.batch, q.data_rows, q.row_bytes}, self);
      }, "uint8 [batch, data_rows, row_bytes] (the CLI's P.data.npy); a view")
      .def_property_readonly("scales", [](py::object self) {
        const auto& q = self.cast<const mx::Quantized&>();
        return view_u8(q.scales, {static_cast<py::ssize_t>(q.scales.size())}, self);
      }, "uint8 scale bytes in the layout (the CLI's P.scales.npy); a view")
      .def("codes", [](const mx::Quantized& q) {
        auto out = new_u8({q.batch, q.rows, q.cols});
        std::uint8_t* o = out.mutable_data();
        for (std::int64_t b = 0; b < q.batch; ++b)
          for (std::int64_t r = 0; r < q.rows; ++r)
            for (std::int64_t k = 0; k < q.cols; ++k) o[(b * q.rows + r) * q.cols + k] = mx::element_code_at(q, b, r, k);
        return out;
      }, "element codes unpacked, one per byte, in the source shape [batch, rows, cols]")
      .def("scale_matrix", [](const mx::Quantized& q) {
        const auto& s = q.scale_shape;
        auto out = new_u8({s.batch, s.rows, s.blocks});
        std::uint8_t* o = out.mutable_data();
        for (std::int64_t l = 0; l < s.batch; ++l)
          for (std::int64_t r = 0; r < s.rows; ++r)
            for (std::int64_t b = 0; b < s.blocks; ++b)
              o[(l * s.rows + r) * s.blocks + b] = q.scales[static_cast<std::size_t>(mx::scale_offset(q.opts.scale_layout, s, l, r, b))];
        return out;
      }, "scale codes as the logical matrix [batch, rows, blocks] (C7 rows/blocks)")
      .def("dequantize", [](const mx::Quantized& q, const std::string& out) {
        const mx::Fmt f = mx::parse_format(out);
        if (f != mx::Fmt::fp32 && f != mx::Fmt::bf16 && f != mx::Fmt::fp16) {
          throw mx::UnknownName("out must be fp32, bf16 or fp16 (got '" + out + "')");
        }
        const auto bytes = mx::dequantize(q, f);
        std::vector<py::ssize_t> shape{q.batch, q.rows, q.cols};
        py::array y(f == mx::Fmt::fp32 ? py::dtype("float32") : f == mx::Fmt::fp16 ? py::dtype("float16") : py::dtype("uint16"), shape);
        std::memcpy(y.mutable_data(), bytes.data(), bytes.size());
        return y;
      }, py::arg("out") = "fp32", "C8 dequantization in the source shape [batch, rows, cols] (bf16 as uint16 bits)")
      .def("__repr__", [](const mx::Quantized& q) {
        return "<mxconform.Quantized " + q.recipe.name() + " [" + std::to_string(q.batch) + ", " + std::to_string(q.rows) + ", " +
               std::to_string(q.cols) + "] " + std::string(mx::axis_name(q.opts.axis)) + ", scales " +
               std::string(mx::scale_layout_name(q.opts.scale_layout)) + ">";
      });
  m.def("quantize", &quantize, py::arg("x"), py::arg("recipe"), py::arg("axis") = "rowwise",
        py::arg("data_order") = "source", py::arg("layout") = "dense", py::arg("packing") = "packed",
        py::arg("source") = "", py::arg("rbits") = py::none());
  m.def(
      "from_buffers",
      [](const py::array& data, const py::array& scales, const std::string& recipe, const std::vector<std::int64_t>& shape,
         const std::string& axis, const std::string& order, const std::string& layout, const std::string& packing,
         std::uint32_t global_amax_bits) {
        mx::Quantized q = like(recipe, shape, axis, order, layout, packing);
        mx::Quantized o = mx::testing::with_bytes(q, u8_data(data, "data"), static_cast<std::int64_t>(data.size()),
                                                  u8_data(scales, "scales"), static_cast<std::int64_t>(scales.size()));
        o.global_amax_bits = global_amax_bits;
        return o;
      },
      py::arg("data"), py::arg("scales"), py::arg("recipe"), py::arg("shape"), py::arg("axis") = "rowwise",
      py::arg("data_order") = "source", py::arg("layout") = "dense", py::arg("packing") = "packed",
      py::arg("global_amax_bits") = 0u, "a Quantized from another implementation's data and scale bytes");
  m.def(
      "describe_difference",
      [](const mx::Quantized& expected, const mx::Quantized& observed, const std::optional<py::array>& x,
         const std::string& source) {
        if (!x) return mx::testing::describe_quantized_difference(expected, observed, nullptr);
        const mx::TensorView v = view_of(*x, source);
        if (v.batch != expected.batch || v.rows != expected.rows || v.cols != expected.cols) {
          throw mx::ShapeError("x has a different shape from the quantized tensor");
        }
        return mx::testing::describe_quantized_difference(expected, observed, &v);
      },
      py::arg("expected"), py::arg("observed"), py::arg("x") = py::none(), py::arg("source") = "",
      "'' when equal, else the first-difference report (mx/testing/diff.hpp)");
  m.def(
      "describe_bytes_difference",
      [](const py::array& e, const py::array& o) {
        return mx::testing::describe_bytes_difference(u8_data(e, "expected"), static_cast<std::int64_t>(e.size()),
                                                      u8_data(o, "observed"), static_cast<std::int64_t>(o.size()));
      },
      py::arg("expected"), py::arg("observed"));
  m.def("convert_layout", &convert_layout, py::arg("scales"), py::arg("rows"), py::arg("blocks"), py::arg("batch") = 1,
        py::arg("src") = "dense", py::arg("dst") = "tcgen05", "C7: scale bytes from one layout to another");
  m.def(
      "scale_offset",
      [](const std::string& layout, std::int64_t rows, std::int64_t blocks, std::int64_t batch, std::int64_t l,
         std::int64_t r, std::int64_t b) {
        return mx::scale_offset(mx::parse_scale_layout(layout), mx::ScaleShape{rows, blocks, batch}, l, r, b);
      },
      py::arg("layout"), py::arg("rows"), py::arg("blocks"), py::arg("batch"), py::arg("l"), py::arg("r"), py::arg("b"));
  m.def(
      "scale_buffer_bytes",
      [](const std::string& layout, std::int64_t rows, std::int64_t blocks, std::int64_t batch) {
        return mx::scale_buffer_bytes(mx::parse_scale_layout(layout), mx::ScaleShape{rows, blocks, batch});
      },
      py::arg("layout"), py::arg("rows"), py::arg("blocks"), py::arg("batch") = 1);
  m.def("pack", &pack, py::arg("codes"), py::arg("fmt"), py::arg("packing") = "packed", "C6: pack each row of codes");
  m.def("unpack", &unpack, py::arg("data"), py::arg("fmt"), py::arg("n"), py::arg("packing") = "packed",
        "C6: n codes per row from packed rows");
}

}  // namespace mxpy
