// tensor_io.cpp - see tensor_io.hpp.
#include "tensor_io.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "mx/error.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace mxv {

mx::TensorView LoadedTensor::view() const {
  mx::TensorView v;
  v.data = arr.data.data();
  v.type = type;
  v.batch = batch;
  v.rows = rows;
  v.cols = cols;
  return v;
}

LoadedTensor load_tensor(const std::string& path, const std::string& shape, const std::string& in_type) {
  const std::string bytes = read_file(path);
  LoadedTensor t;
  if (!in_type.empty() && in_type != "fp32" && in_type != "bf16" && in_type != "fp16") {
    throw mx::UnknownName("unknown input type '" + in_type + "' (expected fp32, bf16 or fp16)");
  }
  if (!shape.empty()) {
    if (bytes.empty()) throw mx::ParseError(path + ": file is empty (0 bytes)");
    t.type = in_type.empty() ? mx::InType::f32 : mx::parse_in_type(in_type);
    const DType d = t.type == mx::InType::f32 ? DType::f4 : (t.type == mx::InType::f16 ? DType::f2 : DType::u2);
    t.arr = raw_array(path, bytes, d, parse_shape(shape));
  } else {
    t.arr = parse_npy(path, bytes);
    switch (t.arr.dtype) {
      case DType::f4: t.type = mx::InType::f32; break;
      case DType::f2: t.type = mx::InType::f16; break;
      case DType::u2: t.type = in_type == "fp16" ? mx::InType::f16 : mx::InType::bf16; break;
      case DType::u1: throw mx::ParseError(path + ": uint8 .npy is not a quantize input (expected float32, float16 or uint16 bf16 bits)");
    }
    if (!in_type.empty() && mx::parse_in_type(in_type) != t.type) {
      throw mx::ParseError(path + ": .npy dtype " + std::string(dtype_descr(t.arr.dtype)) + " does not hold " + in_type);
    }
  }
  const auto& s = t.arr.shape;
  if (s.empty() || s.size() > 3) {
    throw mx::ShapeError(path + ": tensor must have 1 to 3 dimensions ([K], [M, K] or [B, M, K]), got " +
                         std::to_string(s.size()));
  }
  t.cols = s.back();
  t.rows = s.size() >= 2 ? s[s.size() - 2] : 1;
  t.batch = s.size() == 3 ? s[0] : 1;
  if (t.batch < 1) throw mx::ShapeError(path + ": batch dimension must be at least 1");
  return t;
}

Json quantized_meta(const mx::Quantized& q, const std::string& input, const LoadedTensor& t,
                    const std::string& data_file, const std::string& scales_file, const std::string& device) {
  const mx::Recipe& r = q.recipe;
  Json pol = Json::obj();
  pol.set("element", Json::str(std::string(mx::desc(r.elem).name)))
      .set("block", Json::num(r.block))
      .set("scale_format", Json::str(std::string(mx::desc(r.scale_fmt()).name)))
      .set("scale_rule", Json::str(r.is_nvfp4() ? "nvfp4" : std::string(mx::scale_rule_name(r.rule))))
      .set("rounding", Json::str(std::string(mx::rounding_name(r.conv.rounding))))
      .set("overflow", Json::str(std::string(mx::overflow_name(r.conv.overflow))))
      .set("nan", Json::str(std::string(mx::nan_policy_name(r.conv.nan))))
      .set("int8_range", Json::str(r.conv.int8 == mx::Int8Range::int8_full ? "int8_full" : "int8_symmetric"))
      .set("nonfinite_block", Json::str(r.nfb == mx::NonFiniteBlock::nonfinite_block_nan ? "nonfinite_block_nan"
                                                                                          : "nonfinite_block_ignore"))
      .set("flush_input_subnormals", Json::boolean(r.conv.flush_input_subnormals));
  Json shape = Json::arr();
  for (auto d : t.arr.shape) shape.a.push_back(Json::num(d));
  Json in = Json::obj();
  in.set("file", Json::str(input)).set("type", Json::str(std::string(mx::in_type_name(t.type)))).set("shape", shape);
  Json tshape = Json::arr();
  for (auto d : {q.batch, q.rows, q.cols}) tshape.a.push_back(Json::num(d));
  Json dshape = Json::arr();
  for (auto d : {q.batch, q.data_rows, q.row_bytes}) dshape.a.push_back(Json::num(d));
  Json data = Json::obj();
  data.set("file", Json::str(data_file)).set("shape", dshape).set("row_elements", Json::num(q.data_row_elems));
  Json ss = Json::obj();
  ss.set("rows", Json::num(q.scale_shape.rows)).set("blocks", Json::num(q.scale_shape.blocks)).set("batch", Json::num(q.scale_shape.batch));
  Json sc = Json::obj();
  sc.set("file", Json::str(scales_file)).set("layout", Json::str(std::string(mx::scale_layout_name(q.opts.scale_layout))))
      .set("matrix", ss).set("bytes", Json::num(static_cast<std::int64_t>(q.scales.size())));
  Json j = Json::obj();
  j.set("mxconform", Json::str("quantized tensor side file"))
      .set("contract", Json::str(std::string(kContractVersion)))
      .set("recipe", Json::str(r.name()))
      .set("policies", pol)
      .set("input", in)
      .set("tensor_shape", tshape)
      .set("axis", Json::str(std::string(mx::axis_name(q.opts.axis))))
      .set("data_order", Json::str(std::string(mx::data_order_name(q.opts.data_order))))
      .set("packing", Json::str(std::string(mx::packing_name(q.opts.packing))))
      .set("data", data)
      .set("scales", sc)
      .set("global_amax_bits", Json::str(hex(q.global_amax_bits, 8)))
      .set("device", Json::str(device));
  return j;
}

mx::Quantized load_quantized(const std::string& json_path, Json* meta) {
  const Json j = json_parse(json_path, read_file(json_path));
  const std::string& f = json_path;
  const std::filesystem::path dir = std::filesystem::path(json_path).parent_path();
  mx::Quantized q;
  q.recipe = mx::parse_recipe(j.as_str(f, "recipe"));
  q.opts.axis = mx::parse_axis(j.as_str(f, "axis"));
  q.opts.data_order = mx::parse_data_order(j.as_str(f, "data_order"));
  q.opts.packing = mx::parse_packing(j.as_str(f, "packing"));
  const Json& ts = j.at(f, "tensor_shape");
  if (ts.t != Json::T::array || ts.a.size() != 3 || ts.a[0].t != Json::T::integer || ts.a[1].t != Json::T::integer ||
      ts.a[2].t != Json::T::integer || ts.a[0].i < 1 || ts.a[1].i < 0 || ts.a[2].i < 0) {
    throw mx::ParseError(f + ": tensor_shape must be [batch >= 1, rows, cols]");
  }
  q.batch = ts.a[0].i;
  q.rows = ts.a[1].i;
  q.cols = ts.a[2].i;
  const Json& sc = j.at(f, "scales");
  q.opts.scale_layout = mx::parse_scale_layout(sc.as_str(f, "layout"));
  const bool col = q.opts.axis == mx::Axis::colwise;
  const bool tr = col && q.opts.data_order == mx::DataOrder::transposed;
  mx::validate(q.recipe, mx::TensorView{reinterpret_cast<const void*>(1), mx::InType::f32, q.batch, q.rows, q.cols},
               mx::QuantizeOptions{q.opts.axis, q.opts.data_order, q.opts.scale_layout, q.opts.packing, nullptr});
  q.data_rows = tr ? q.cols : q.rows;
  q.data_row_elems = tr ? q.rows : q.cols;
  q.row_bytes = mx::packed_row_bytes(q.recipe.elem, q.data_row_elems, q.opts.packing);
  const std::int64_t V = q.recipe.block;
  q.scale_shape = col ? mx::ScaleShape{q.cols, mx::ceil_div(q.rows, V), q.batch}
                      : mx::ScaleShape{q.rows, mx::ceil_div(q.cols, V), q.batch};
  const std::uint64_t g = 0;
  std::uint64_t gv = g;
  if (!parse_hex(j.as_str(f, "global_amax_bits"), 8, &gv)) throw mx::ParseError(f + ": global_amax_bits must be 8 lowercase hex digits");
  q.global_amax_bits = static_cast<std::uint32_t>(gv);
  const auto load = [&](const Json& part, const std::string& key, std::int64_t need) {
    const std::string file = (dir / part.as_str(f, "file")).string();
    const std::string bytes = read_file(file);
    NpyArray a;
    if (file.size() >= 4 && file.compare(file.size() - 4, 4, ".npy") == 0) {
      a = parse_npy(file, bytes);
      if (a.dtype != DType::u1) throw mx::ParseError(file + ": " + key + " must be a uint8 .npy array");
    } else {  // raw bytes
      if (bytes.empty() && need > 0) throw mx::ParseError(file + ": file is empty (0 bytes)");
      a.data = bytes;
    }
    if (static_cast<std::int64_t>(a.data.size()) != need) {
      throw mx::ShapeError(file + ": " + key + " has " + std::to_string(a.data.size()) + " bytes, the side file's shapes need " +
                           std::to_string(need));
    }
    return std::vector<std::uint8_t>(a.data.begin(), a.data.end());
  };
  q.data = load(j.at(f, "data"), "data", mx::checked_mul(mx::checked_mul(q.data_rows, q.row_bytes, "data"), q.batch, "data"));
  q.scales = load(sc, "scales", mx::scale_buffer_bytes(q.opts.scale_layout, q.scale_shape));
  if (meta) *meta = j;
  return q;
}

void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::string> tmps;
  const auto cleanup = [&] {
    for (const auto& t : tmps) std::remove(t.c_str());
  };
  for (const auto& [path, bytes] : files) {
    const std::string tmp = path + ".tmp-mxconform-" + std::to_string(::getpid());
    FILE* fp = std::fopen(tmp.c_str(), "wb");
    if (!fp) {
      const int e = errno;
      cleanup();
      throw mx::Error("cannot write '" + path + "': " + std::strerror(e));
    }
    tmps.push_back(tmp);
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), fp) == bytes.size();
    if (std::fclose(fp) != 0 || !ok) {
      const int e = errno;
      cleanup();
      throw mx::Error("cannot write '" + path + "': " + std::strerror(e));
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(tmps[i].c_str(), files[i].first.c_str()) != 0) {
      const int e = errno;
      for (std::size_t k = 0; k < i; ++k) std::remove(files[k].first.c_str());
      cleanup();
      throw mx::Error("cannot write '" + files[i].first + "': " + std::strerror(e));
    }
  }
}

}  // namespace mxv
