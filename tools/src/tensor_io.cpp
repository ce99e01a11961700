// tensor_io.cpp - see tensor_io.hpp. Inputs are memory-mapped, never read
// into copies (issue 15); the side file is nlohmann JSON (json.hpp).
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
  v.data = data;
  v.type = type;
  v.batch = batch;
  v.rows = rows;
  v.cols = cols;
  return v;
}

LoadedTensor load_tensor(const std::string& path, const std::string& shape, const std::string& in_type) {
  LoadedTensor t;
  if (!in_type.empty() && in_type != "fp32" && in_type != "bf16" && in_type != "fp16") {
    throw mx::UnknownName("unknown input type '" + in_type + "' (expected fp32, bf16 or fp16)");
  }
  t.map = std::make_shared<MappedFile>(path);
  const std::string_view bytes = t.map->view();
  if (!shape.empty()) {
    if (bytes.empty()) throw mx::ParseError(path + ": file is empty (0 bytes)");
    t.type = in_type.empty() ? mx::InType::f32 : mx::parse_in_type(in_type);
    t.dtype = t.type == mx::InType::f32 ? DType::f4 : (t.type == mx::InType::f16 ? DType::f2 : DType::u2);
    t.shape = parse_shape(shape);
    std::int64_t count = 1;
    for (auto d : t.shape) count = mx::checked_mul(count, d, "raw data size");
    const std::int64_t need = mx::checked_mul(count, dtype_size(t.dtype), "raw data size");
    if (static_cast<std::int64_t>(bytes.size()) != need) {
      std::string sh;
      for (std::size_t i = 0; i < t.shape.size(); ++i) sh += (i ? "x" : "") + std::to_string(t.shape[i]);
      throw mx::ShapeError(path + ": file has " + std::to_string(bytes.size()) + " bytes but shape " + sh + " of " +
                           std::to_string(dtype_size(t.dtype)) + "-byte elements needs " + std::to_string(need));
    }
  } else {
    const NpyHeader h = parse_npy_header(path, bytes);
    t.dtype = h.dtype;
    t.shape = h.shape;
    t.data_offset = h.data_offset;
    switch (t.dtype) {
      case DType::f4: t.type = mx::InType::f32; break;
      case DType::f2: t.type = mx::InType::f16; break;
      case DType::u2: t.type = in_type == "fp16" ? mx::InType::f16 : mx::InType::bf16; break;
      case DType::u1: throw mx::ParseError(path + ": uint8 .npy is not a quantize input (expected float32, float16 or uint16 bf16 bits)");
    }
    if (!in_type.empty() && mx::parse_in_type(in_type) != t.type) {
      throw mx::ParseError(path + ": .npy dtype " + std::string(dtype_descr(t.dtype)) + " does not hold " + in_type);
    }
  }
  t.data = t.map->data() ? t.map->data() + t.data_offset : nullptr;
  const auto& s = t.shape;
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
  Json pol = Json::object();
  pol["element"] = std::string(mx::desc(r.elem).name);
  pol["block"] = r.block;
  pol["scale_format"] = std::string(mx::desc(r.scale_fmt()).name);
  pol["scale_rule"] = r.is_nvfp4() ? "nvfp4" : std::string(mx::scale_rule_name(r.rule));
  pol["rounding"] = std::string(mx::rounding_name(r.conv.rounding));
  pol["overflow"] = std::string(mx::overflow_name(r.conv.overflow));
  pol["nan"] = std::string(mx::nan_policy_name(r.conv.nan));
  pol["int8_range"] = r.conv.int8 == mx::Int8Range::int8_full ? "int8_full" : "int8_symmetric";
  pol["nonfinite_block"] = r.nfb == mx::NonFiniteBlock::nonfinite_block_nan ? "nonfinite_block_nan" : "nonfinite_block_ignore";
  pol["flush_input_subnormals"] = r.conv.flush_input_subnormals;
  Json in = Json::object();
  in["file"] = input;
  in["type"] = std::string(mx::in_type_name(t.type));
  in["shape"] = t.shape;
  Json data = Json::object();
  data["file"] = data_file;
  data["shape"] = {q.batch, q.data_rows, q.row_bytes};
  data["row_elements"] = q.data_row_elems;
  Json ss = Json::object();
  ss["rows"] = q.scale_shape.rows;
  ss["blocks"] = q.scale_shape.blocks;
  ss["batch"] = q.scale_shape.batch;
  Json sc = Json::object();
  sc["file"] = scales_file;
  sc["layout"] = std::string(mx::scale_layout_name(q.opts.scale_layout));
  sc["matrix"] = ss;
  sc["bytes"] = static_cast<std::int64_t>(q.scales.size());
  Json j = Json::object();
  j["mxconform"] = "quantized tensor side file";
  j["contract"] = std::string(kContractVersion);
  j["recipe"] = r.name();
  j["policies"] = pol;
  j["input"] = in;
  j["tensor_shape"] = {q.batch, q.rows, q.cols};
  j["axis"] = std::string(mx::axis_name(q.opts.axis));
  j["data_order"] = std::string(mx::data_order_name(q.opts.data_order));
  j["packing"] = std::string(mx::packing_name(q.opts.packing));
  j["data"] = data;
  j["scales"] = sc;
  j["global_amax_bits"] = hex(q.global_amax_bits, 8);
  j["device"] = device;
  return j;
}

MappedQuantized map_quantized(const std::string& json_path, JsonDoc* meta) {
  const MappedFile jf(json_path);
  JsonDoc doc(json_path, jf.view());
  const Json& j = doc.root();
  const std::filesystem::path dir = std::filesystem::path(json_path).parent_path();
  MappedQuantized m;
  mx::Quantized& q = m.q;
  q.recipe = doc.parsed(j, "recipe", [](const std::string& s) { return mx::parse_recipe(s); });
  q.opts.axis = doc.parsed(j, "axis", [](const std::string& s) { return mx::parse_axis(s); });
  q.opts.data_order = doc.parsed(j, "data_order", [](const std::string& s) { return mx::parse_data_order(s); });
  q.opts.packing = doc.parsed(j, "packing", [](const std::string& s) { return mx::parse_packing(s); });
  const Json& ts = doc.at(j, "tensor_shape");
  const auto dim = [&](std::size_t i, std::int64_t lo) {
    return ts[i].is_number_integer() && !(ts[i].is_number_unsigned() && ts[i].get<std::uint64_t>() > (std::uint64_t{1} << 62)) &&
           ts[i].get<std::int64_t>() >= lo;
  };
  if (!ts.is_array() || ts.size() != 3 || !dim(0, 1) || !dim(1, 0) || !dim(2, 0)) {
    doc.fail(ts, "tensor_shape must be [batch >= 1, rows, cols]");
  }
  q.batch = ts[0].get<std::int64_t>();
  q.rows = ts[1].get<std::int64_t>();
  q.cols = ts[2].get<std::int64_t>();
  const Json& sc = doc.at(j, "scales");
  q.opts.scale_layout = doc.parsed(sc, "layout", [](const std::string& s) { return mx::parse_scale_layout(s); });
  const bool col = q.opts.axis == mx::Axis::colwise;
  const bool tr = col && q.opts.data_order == mx::DataOrder::transposed;
  try {
    mx::validate(q.recipe, mx::TensorView{reinterpret_cast<const void*>(1), mx::InType::f32, q.batch, q.rows, q.cols},
                 mx::QuantizeOptions{q.opts.axis, q.opts.data_order, q.opts.scale_layout, q.opts.packing, nullptr});
  } catch (const mx::Error& e) {  // the shape or the options the side file names
    doc.fail(j, e.what());
  }
  q.data_rows = tr ? q.cols : q.rows;
  q.data_row_elems = tr ? q.rows : q.cols;
  q.row_bytes = mx::packed_row_bytes(q.recipe.elem, q.data_row_elems, q.opts.packing);
  const std::int64_t V = q.recipe.block;
  q.scale_shape = col ? mx::ScaleShape{q.cols, mx::ceil_div(q.rows, V), q.batch}
                      : mx::ScaleShape{q.rows, mx::ceil_div(q.cols, V), q.batch};
  std::uint64_t gv = 0;
  if (!parse_hex(doc.str(j, "global_amax_bits"), 8, &gv)) doc.fail(doc.at(j, "global_amax_bits"), "global_amax_bits must be 8 lowercase hex digits");
  q.global_amax_bits = static_cast<std::uint32_t>(gv);
  const auto map = [&](const Json& part, const std::string& key, std::int64_t need, MappedFile& mf) {
    const std::string file = (dir / doc.str(part, "file")).string();
    try {
      mf = MappedFile(file);
    } catch (const mx::Error& e) {  // the file the side file names
      doc.fail(doc.at(part, "file"), e.what());
    }
    std::size_t off = 0, have = mf.size();
    if (file.size() >= 4 && file.compare(file.size() - 4, 4, ".npy") == 0) {
      const NpyHeader h = parse_npy_header(file, mf.view());
      if (h.dtype != DType::u1) throw mx::ParseError(file + ": " + key + " must be a uint8 .npy array");
      off = h.data_offset;
      have -= off;
    } else if (have == 0 && need > 0) {  // raw bytes
      throw mx::ParseError(file + ": file is empty (0 bytes)");
    }
    if (static_cast<std::int64_t>(have) != need) {
      throw mx::ShapeError(file + ": " + key + " has " + std::to_string(have) + " bytes, the side file's shapes need " +
                           std::to_string(need));
    }
    return reinterpret_cast<const std::uint8_t*>(mf.data() ? mf.data() + off : nullptr);
  };
  m.data = map(doc.at(j, "data"), "data",
               mx::checked_mul(mx::checked_mul(q.data_rows, q.row_bytes, "data"), q.batch, "data"), m.data_map);
  m.scales = map(sc, "scales", mx::scale_buffer_bytes(q.opts.scale_layout, q.scale_shape), m.scales_map);
  if (meta) *meta = std::move(doc);
  return m;
}

mx::Quantized load_quantized(const std::string& json_path, JsonDoc* meta) {
  MappedQuantized m = map_quantized(json_path, meta);
  const std::size_t nd = static_cast<std::size_t>(m.q.batch * m.q.data_rows * m.q.row_bytes);
  const std::size_t ns = static_cast<std::size_t>(mx::scale_buffer_bytes(m.q.opts.scale_layout, m.q.scale_shape));
  if (nd) m.q.data.assign(m.data, m.data + nd);
  if (ns) m.q.scales.assign(m.scales, m.scales + ns);
  return std::move(m.q);
}

}  // namespace mxv
