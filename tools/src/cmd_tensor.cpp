// cmd_tensor.cpp - `mxconform quantize`, `dequantize` and `check-tensor`
// (C4, C5, C7, C8): run a recipe on tensors in .npy/raw files, write data,
// scales and a JSON side file; compare two results code by code. Inputs are
// mapped and processed in row chunks, outputs written in place under
// temporary names and renamed at the end (tensor_stream.hpp, issue 15).
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "mx/error.hpp"
#include "mapped_file.hpp"
#include "progress.hpp"
#include "tensor_io.hpp"
#include "tensor_stream.hpp"
#include "util.hpp"
#if defined(MX_HAVE_KERNELS)
#include "mxk/api.hpp"
#endif

namespace mxv {
namespace {

std::string base_name(const std::string& p) { return std::filesystem::path(p).filename().string(); }

void check_out_dir(const std::string& out) {
  const std::filesystem::path d = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!d.empty() && !std::filesystem::is_directory(d, ec)) {
    throw mx::Error("cannot write '" + out + "': directory '" + d.string() + "' does not exist");
  }
}

}  // namespace

namespace {

// The .npy header of an output (empty for raw output).
std::string header_for(bool raw, DType d, const std::vector<std::int64_t>& shape) { return raw ? std::string() : npy_header(d, shape); }

void require_kernels() {
#if !defined(MX_HAVE_KERNELS)
  throw mx::InvalidArgument("--device cuda: this mxconform was built without CUDA kernels (configure with MX_CUDA=ON)");
#endif
}

}  // namespace

int run_quantize(const QuantizeCmd& c) {
  const mx::Recipe r = mx::parse_recipe(c.recipe);
  mx::QuantizeOptions o;
  o.axis = mx::parse_axis(c.axis);
  o.data_order = mx::parse_data_order(c.data_order);
  o.scale_layout = mx::parse_scale_layout(c.layout);
  o.packing = mx::parse_packing(c.packing);
  if (r.conv.rounding == mx::Rounding::sr) {
    throw mx::InvalidArgument("quantize: recipes with sr rounding need random bits per element; not supported by the CLI");
  }
  if (c.device != "cpu" && c.device != "cuda") throw mx::UnknownName("unknown device '" + c.device + "' (expected cpu or cuda)");
  if (c.out_format != "npy" && c.out_format != "raw") {
    throw mx::UnknownName("unknown --out-format '" + c.out_format + "' (expected npy or raw)");
  }
  const bool cuda = c.device == "cuda";
  if (cuda) require_kernels();
  check_out_dir(c.out);
  const LoadedTensor t = load_tensor(c.input, c.shape, c.in_type);
  mx::validate(r, t.view(), o);
  mx::Quantized q = mx::quantized_shape(r, t.view(), o, /*with_data=*/false);
  const bool raw = c.out_format == "raw";
  const std::string ext = raw ? ".bin" : ".npy";
  const std::string data_file = c.out + ".data" + ext, scales_file = c.out + ".scales" + ext, meta = c.out + ".json";
  const std::string dh = header_for(raw, DType::u1, {q.batch, q.data_rows, q.row_bytes});
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(mx::checked_mul(q.batch, mx::checked_mul(q.data_rows, q.row_bytes, "data"), "data"));
  OutFile df(data_file, dh.size() + data_bytes);
  df.write(0, dh.data(), dh.size());
  Progress prog("mxconform quantize", static_cast<std::int64_t>(t.map->size() - t.data_offset), "bytes");
  const bool chunked = quantize_chunkable(r, o) && q.batch * q.rows * q.cols > 0;
  if (chunked && !cuda) {
    quantize_cpu(r, t, q, df, dh.size(), prog);
  } else if (chunked) {
#if defined(MX_HAVE_KERNELS)
    quantize_cuda(r, t, q, df, dh.size(), prog);
#endif
  } else {  // one shot: NVFP4 (global amax first), transposed colwise data
#if defined(MX_HAVE_KERNELS)
    q = cuda ? mxk::quantize_device(r, t.view(), o) : mx::quantize(r, t.view(), o);
#else
    q = mx::quantize(r, t.view(), o);
#endif
    df.write(dh.size(), q.data.data(), q.data.size());
    prog.add(static_cast<std::int64_t>(t.map->size() - t.data_offset));
  }
  const std::string sh = header_for(raw, DType::u1, {static_cast<std::int64_t>(q.scales.size())});
  OutFile sf(scales_file, sh.size() + q.scales.size());
  sf.write(0, sh.data(), sh.size());
  sf.write(sh.size(), q.scales.data(), q.scales.size());
  const std::string js = json_dump(quantized_meta(q, c.input, t, base_name(data_file), base_name(scales_file), c.device));
  OutFile jf(meta, js.size());
  jf.write(0, js.data(), js.size());
  OutFile::commit({&df, &sf, &jf});
  std::cout << "quantized " << c.input << " [" << q.batch << ", " << q.rows << ", " << q.cols << "] with " << r.name()
            << " (" << mx::axis_name(o.axis) << ", scales " << mx::scale_layout_name(o.scale_layout) << ") -> "
            << data_file << ", " << scales_file << ", " << meta << "\n";
  return 0;
}

int run_dequantize(const DequantizeCmd& c) {
  const mx::Fmt out = mx::parse_format(c.out_type);
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16 && out != mx::Fmt::fp16) {
    throw mx::UnknownName("--out-type must be fp32, bf16 or fp16 (got '" + c.out_type + "')");
  }
  if (c.out_format != "npy" && c.out_format != "raw") {
    throw mx::UnknownName("unknown --out-format '" + c.out_format + "' (expected npy or raw)");
  }
  if (c.device != "cpu" && c.device != "cuda") throw mx::UnknownName("unknown device '" + c.device + "' (expected cpu or cuda)");
  const bool cuda = c.device == "cuda";
  if (cuda) require_kernels();
  check_out_dir(c.out);
  MappedQuantized m = map_quantized(c.meta);
  const mx::Quantized& q = m.q;
  const DType dt = out == mx::Fmt::fp32 ? DType::f4 : (out == mx::Fmt::fp16 ? DType::f2 : DType::u2);
  std::vector<std::int64_t> shape = {q.batch, q.rows, q.cols};
  if (q.batch == 1) shape = {q.rows, q.cols};
  const std::string h = header_for(c.out_format == "raw", dt, shape);
  const std::int64_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  const std::uint64_t bytes = static_cast<std::uint64_t>(mx::checked_mul(mx::checked_mul(q.batch * q.rows, q.cols, "shape"), ob, "output"));
  OutFile yf(c.out, h.size() + bytes);
  yf.write(0, h.data(), h.size());
  Progress prog("mxconform dequantize", static_cast<std::int64_t>(bytes), "bytes");
  if (dequantize_chunkable(q) && bytes > 0) {
#if defined(MX_HAVE_KERNELS)
    if (cuda) {
      dequantize_cuda(m, out, yf, h.size(), prog);
    } else {
      dequantize_cpu(m, out, yf, h.size(), prog);
    }
#else
    dequantize_cpu(m, out, yf, h.size(), prog);
#endif
  } else {  // one shot: transposed colwise data
    const mx::Quantized full = load_quantized(c.meta);
#if defined(MX_HAVE_KERNELS)
    const auto y = cuda ? mxk::dequantize_device(full, out) : mx::dequantize(full, out);
#else
    const auto y = mx::dequantize(full, out);
#endif
    yf.write(h.size(), y.data(), y.size());
    prog.add(static_cast<std::int64_t>(y.size()));
  }
  OutFile::commit({&yf});
  std::cout << "dequantized " << c.meta << " (" << q.recipe.name() << ") to " << c.out_type << (cuda ? " on cuda" : "")
            << " -> " << c.out << "\n";
  return 0;
}

namespace {

bool ends_with(const std::string& s, const std::string& e) {
  return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
}

int compare_arrays(const CheckTensorCmd& c) {
  const NpyArray e = parse_npy(c.expected, read_file(c.expected));
  const NpyArray a = parse_npy(c.actual, read_file(c.actual));
  if (e.dtype != a.dtype || e.shape != a.shape) {
    throw mx::ShapeError("check-tensor: " + c.actual + " has dtype/shape different from " + c.expected);
  }
  const std::int64_t es = dtype_size(e.dtype), n = e.count();
  std::int64_t diff = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (e.data.compare(static_cast<std::size_t>(i * es), static_cast<std::size_t>(es), a.data, static_cast<std::size_t>(i * es),
                       static_cast<std::size_t>(es)) == 0) {
      continue;
    }
    if (diff++ < c.max_errors) {
      std::string coord;
      std::int64_t rem = i;
      std::vector<std::int64_t> idx(e.shape.size());
      for (std::size_t k = e.shape.size(); k-- > 0;) {
        idx[k] = e.shape[k] ? rem % e.shape[k] : 0;
        rem = e.shape[k] ? rem / e.shape[k] : 0;
      }
      for (std::size_t k = 0; k < idx.size(); ++k) coord += (k ? ", " : "") + std::to_string(idx[k]);
      std::uint64_t ev = 0, av = 0;
      for (std::int64_t b = es - 1; b >= 0; --b) {
        ev = (ev << 8) | static_cast<unsigned char>(e.data[static_cast<std::size_t>(i * es + b)]);
        av = (av << 8) | static_cast<unsigned char>(a.data[static_cast<std::size_t>(i * es + b)]);
      }
      std::cout << "[" << coord << "]: " << hex(av, static_cast<int>(2 * es)) << ", expected: " << hex(ev, static_cast<int>(2 * es)) << "\n";
    }
  }
  if (diff) {
    std::cout << c.actual << ": " << diff << " of " << n << " elements differ from " << c.expected << "\n";
    return 1;
  }
  std::cout << c.actual << ": identical to " << c.expected << " (" << n << " elements)\n";
  return 0;
}

}  // namespace

int run_check_tensor(const CheckTensorCmd& c) {
  if (!(ends_with(c.expected, ".json") && ends_with(c.actual, ".json"))) {
    if (ends_with(c.expected, ".json") || ends_with(c.actual, ".json")) {
      throw mx::InvalidArgument("check-tensor: give two .json side files or two .npy arrays");
    }
    return compare_arrays(c);
  }
  JsonDoc meta;
  const mx::Quantized e = load_quantized(c.expected, &meta);
  const mx::Quantized a = load_quantized(c.actual);
  if (e.recipe.name() != a.recipe.name() || e.batch != a.batch || e.rows != a.rows || e.cols != a.cols ||
      e.opts.axis != a.opts.axis) {
    throw mx::InvalidArgument("check-tensor: " + c.actual + " is not comparable with " + c.expected +
                              " (recipe, shape or axis differ: " + a.recipe.name() + " vs " + e.recipe.name() + ")");
  }
  // Inputs for the report: --input, else the file named in the side file.
  std::string in_path = c.input;
  if (in_path.empty()) {
    const std::string f = meta.str(meta.at(meta.root(), "input"), "file");
    std::error_code ec;
    if (std::filesystem::exists(f, ec)) in_path = f;
  }
  std::vector<std::uint32_t> x;
  if (!in_path.empty()) {
    try {
      const LoadedTensor t = load_tensor(in_path, "", "");
      if (t.batch == e.batch && t.rows == e.rows && t.cols == e.cols) {
        for (std::int64_t i = 0; i < t.batch * t.rows * t.cols; ++i) x.push_back(mx::load_as_f32_bits(t.data, t.type, i));
      }
    } catch (const mx::Error&) {
      x.clear();
    }
  }
  const bool col = e.opts.axis == mx::Axis::colwise;
  const std::int64_t V = e.recipe.block;
  std::int64_t ediff = 0, sdiff = 0, pad_bad = 0;
  bool first = true;
  for (std::int64_t b = 0; b < e.batch; ++b) {
    for (std::int64_t m = 0; m < e.rows; ++m) {
      for (std::int64_t k = 0; k < e.cols; ++k) {
        const auto ec = mx::element_code_at(e, b, m, k), ac = mx::element_code_at(a, b, m, k);
        const bool blk_start = (col ? m : k) % V == 0;
        const auto es = mx::scale_code_at(e, b, m, k), as = mx::scale_code_at(a, b, m, k);
        if (blk_start && es != as) ++sdiff;
        if (ec == ac && es == as) continue;
        if (ec != ac) ++ediff;
        if (!first) continue;
        first = false;
        const std::int64_t i0 = ((col ? m : k) / V) * V;
        const std::int64_t i1 = std::min((col ? e.rows : e.cols), i0 + V) - 1;
        std::cout << "first difference at [b " << b << ", m " << m << ", k " << k << "]: element " << hex(ac, 2)
                  << ", expected: " << hex(ec, 2) << "; block " << (col ? "rows " : "cols ") << i0 << ".." << i1 << " of "
                  << (col ? "column " : "row ") << (col ? k : m) << ": scale " << hex(as, 2) << ", expected: " << hex(es, 2)
                  << "  [" << (e.recipe.is_nvfp4() ? "C5 " : "C4 ") << e.recipe.name() << "]\n";
        if (!x.empty()) {
          std::cout << "block inputs (fp32 bits):";
          for (std::int64_t j = i0; j <= i1; ++j) {
            const std::int64_t mm = col ? j : m, kk = col ? k : j;
            std::cout << " " << hex(x[static_cast<std::size_t>((b * e.rows + mm) * e.cols + kk)], 8);
          }
          std::cout << "\n";
        }
      }
    }
  }
  // tcgen05 padding must be 0x00 (C7).
  if (a.opts.scale_layout == mx::ScaleLayout::tcgen05) {
    for (std::int64_t off = 0; off < static_cast<std::int64_t>(a.scales.size()); ++off) {
      if (mx::scale_coord(a.opts.scale_layout, a.scale_shape, off).padding && a.scales[static_cast<std::size_t>(off)] != 0) {
        if (pad_bad++ == 0) std::cout << c.actual << ": tcgen05 padding byte " << off << " is " << hex(a.scales[static_cast<std::size_t>(off)], 2) << ", expected 00  [C7]\n";
      }
    }
  }
  const std::int64_t n = e.batch * e.rows * e.cols;
  if (ediff || sdiff || pad_bad) {
    std::cout << c.actual << ": " << ediff << " of " << n << " element codes and " << sdiff << " block scales differ, "
              << pad_bad << " bad padding bytes\n";
    return 1;
  }
  std::cout << c.actual << ": identical codes and scales to " << c.expected << " (" << n << " elements)\n";
  return 0;
}

}  // namespace mxv
