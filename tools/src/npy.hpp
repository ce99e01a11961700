// npy.hpp - NumPy .npy reader/writer (format versions 1.0, 2.0, 3.0) and raw
// little-endian tensors with an explicit shape. Supported dtypes: float32
// ('<f4'), float16 ('<f2'), uint8 ('|u1'), uint16 ('<u2', bf16 bits).
// Fortran order, big-endian data, other dtypes and a data size that does not
// match the shape are refused with mx::ParseError / mx::ShapeError.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxv {

enum class DType : std::uint8_t { f4, f2, u1, u2 };

struct NpyArray {
  DType dtype = DType::u1;
  std::vector<std::int64_t> shape;
  std::string data;  // little-endian element bytes, C order
  std::int64_t count() const;
};

std::string_view dtype_descr(DType d);  // "<f4", "<f2", "|u1", "<u2"
std::int64_t dtype_size(DType d);
// The header of a .npy file: dtype, shape and where the data starts. Checks
// that the file holds exactly the data the shape needs.
struct NpyHeader {
  DType dtype = DType::u1;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;
};
NpyHeader parse_npy_header(const std::string& name, std::string_view bytes);
// Parses .npy bytes (a copy of the data); `name` is used in error messages.
NpyArray parse_npy(const std::string& name, std::string_view bytes);
// The header bytes of a version 1.0 .npy (padded so the data starts at a
// multiple of 64 bytes), and header + data.
std::string npy_header(DType d, const std::vector<std::int64_t>& shape);
std::string write_npy(const NpyArray& a);
// "2x3", "4,8" or "2x3x4" -> dims (each >= 0); throws mx::ShapeError.
std::vector<std::int64_t> parse_shape(std::string_view s);
// A raw little-endian file as an array of the given dtype and shape.
NpyArray raw_array(const std::string& name, std::string_view bytes, DType d, const std::vector<std::int64_t>& shape);

}  // namespace mxv
