// cmd_tensor.cpp - `mxconform quantize`, `dequantize` and `check-tensor`
// (CONTRACT C4, C5, C7, C8): run a recipe on tensors in .npy/raw files, write
// data, scales and a JSON side file; compare two results code by code.
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "mx/error.hpp"
#include "tensor_io.hpp"
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
  check_out_dir(c.out);
  const LoadedTensor t = load_tensor(c.input, c.shape, c.in_type);
  mx::Quantized q;
  if (c.device == "cuda") {
#if defined(MX_HAVE_KERNELS)
    q = mxk::quantize_device(r, t.view(), o);
#else
    throw mx::InvalidArgument("--device cuda: this mxconform was built without CUDA kernels (configure with MX_CUDA=ON)");
#endif
  } else {
    q = mx::quantize(r, t.view(), o);
  }
  if (c.out_format != "npy" && c.out_format != "raw") {
    throw mx::UnknownName("unknown --out-format '" + c.out_format + "' (expected npy or raw)");
  }
  const bool raw = c.out_format == "raw";
  const std::string ext = raw ? ".bin" : ".npy";
  const std::string data_file = c.out + ".data" + ext, scales_file = c.out + ".scales" + ext, meta = c.out + ".json";
  NpyArray d;
  d.dtype = DType::u1;
  d.shape = {q.batch, q.data_rows, q.row_bytes};
  d.data.assign(q.data.begin(), q.data.end());
  NpyArray s;
  s.dtype = DType::u1;
  s.shape = {static_cast<std::int64_t>(q.scales.size())};
  s.data.assign(q.scales.begin(), q.scales.end());
  const Json j = quantized_meta(q, c.input, t, base_name(data_file), base_name(scales_file), c.device);
  write_files_atomic({{data_file, raw ? d.data : write_npy(d)}, {scales_file, raw ? s.data : write_npy(s)},
                      {meta, json_dump(j)}});
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
  check_out_dir(c.out);
  const mx::Quantized q = load_quantized(c.meta);
  NpyArray a;
  a.dtype = out == mx::Fmt::fp32 ? DType::f4 : (out == mx::Fmt::fp16 ? DType::f2 : DType::u2);
  a.shape = {q.batch, q.rows, q.cols};
  if (q.batch == 1) a.shape = {q.rows, q.cols};
  if (c.out_format != "npy" && c.out_format != "raw") {
    throw mx::UnknownName("unknown --out-format '" + c.out_format + "' (expected npy or raw)");
  }
  const auto bytes = mx::dequantize(q, out);
  a.data.assign(bytes.begin(), bytes.end());
  write_files_atomic({{c.out, c.out_format == "raw" ? a.data : write_npy(a)}});
  std::cout << "dequantized " << c.meta << " (" << q.recipe.name() << ") to " << c.out_type << " -> " << c.out << "\n";
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
  Json meta;
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
    const std::string f = meta.at(c.expected, "input").as_str(c.expected, "file");
    std::error_code ec;
    if (std::filesystem::exists(f, ec)) in_path = f;
  }
  std::vector<std::uint32_t> x;
  if (!in_path.empty()) {
    try {
      const LoadedTensor t = load_tensor(in_path, "", "");
      if (t.batch == e.batch && t.rows == e.rows && t.cols == e.cols) {
        for (std::int64_t i = 0; i < t.batch * t.rows * t.cols; ++i) x.push_back(mx::load_as_f32_bits(t.arr.data.data(), t.type, i));
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
