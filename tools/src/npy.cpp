// npy.cpp - see npy.hpp. The .npy format: magic "\x93NUMPY", version bytes,
// a little-endian header length (2 bytes for 1.0, 4 for 2.0/3.0), then a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), }.
#include "npy.hpp"

#include <cstring>
#include <utility>

#include "mx/error.hpp"
#include "mx/layout.hpp"
#include "util.hpp"

namespace mxv {

std::int64_t NpyArray::count() const {
  std::int64_t n = 1;
  for (auto d : shape) n = mx::checked_mul(n, d, "array shape");
  return n;
}

std::string_view dtype_descr(DType d) {
  switch (d) {
    case DType::f4: return "<f4";
    case DType::f2: return "<f2";
    case DType::u1: return "|u1";
    case DType::u2: return "<u2";
  }
  return "?";
}
std::int64_t dtype_size(DType d) { return d == DType::f4 ? 4 : (d == DType::u1 ? 1 : 2); }

namespace {

struct DictParser {
  const std::string& name;
  std::string_view s;
  std::size_t i = 0;
  [[noreturn]] void bad(const std::string& why) const {
    throw mx::ParseError(name + ": bad .npy header at byte " + std::to_string(i) + ": " + why);
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  std::string str() {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) bad("expected a quoted string");
    const char q = s[i++];
    const std::size_t e = s.find(q, i);
    if (e == std::string_view::npos) bad("unterminated string");
    std::string r(s.substr(i, e - i));
    i = e + 1;
    return r;
  }
  std::int64_t integer() {
    ws();
    std::int64_t v = 0;
    std::size_t st = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v > (std::int64_t{1} << 50)) bad("dimension too large");
      v = v * 10 + (s[i] - '0');
      ++i;
    }
    if (i == st) bad("expected a non-negative integer");
    if (i < s.size() && s[i] == 'L') ++i;  // Python 2 long suffix
    return v;
  }
};

}  // namespace

NpyHeader parse_npy_header(const std::string& name, std::string_view b) {
  if (b.empty()) throw mx::ParseError(name + ": file is empty (0 bytes); expected a .npy file");
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) {
    throw mx::ParseError(name + ": not a .npy file (no \\x93NUMPY magic)");
  }
  const auto major = static_cast<unsigned char>(b[6]);
  std::size_t hlen = 0, hstart = 0;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(b[9])) << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw mx::ParseError(name + ": truncated .npy header");
    for (int k = 3; k >= 0; --k) hlen = (hlen << 8) | static_cast<unsigned char>(b[8 + static_cast<std::size_t>(k)]);
    hstart = 12;
  } else {
    throw mx::ParseError(name + ": unsupported .npy format version " + std::to_string(major) + " (expected 1, 2 or 3)");
  }
  if (hlen > b.size() - hstart) throw mx::ParseError(name + ": truncated .npy header");
  DictParser p{name, b.substr(hstart, hlen)};
  std::string descr;
  bool have_descr = false, have_fo = false, have_shape = false, fortran = false;
  NpyHeader a;
  if (!p.eat('{')) p.bad("expected '{'");
  while (!p.eat('}')) {
    const std::string key = p.str();
    if (!p.eat(':')) p.bad("expected ':'");
    if (key == "descr") {
      descr = p.str();
      have_descr = true;
    } else if (key == "fortran_order") {
      p.ws();
      if (p.s.substr(p.i, 4) == "True") {
        fortran = true;
        p.i += 4;
      } else if (p.s.substr(p.i, 5) == "False") {
        p.i += 5;
      } else {
        p.bad("fortran_order must be True or False");
      }
      have_fo = true;
    } else if (key == "shape") {
      if (!p.eat('(')) p.bad("shape must be a tuple");
      while (!p.eat(')')) {
        if (a.shape.size() >= 8) p.bad("more than 8 dimensions");
        a.shape.push_back(p.integer());
        if (!p.eat(',')) {
          if (!p.eat(')')) p.bad("expected ',' or ')' in shape");
          break;
        }
      }
      have_shape = true;
    } else {
      p.bad("unknown key '" + key + "'");
    }
    if (!p.eat(',')) {
      if (!p.eat('}')) p.bad("expected ',' or '}'");
      break;
    }
  }
  if (!have_descr || !have_fo || !have_shape) p.bad("header needs descr, fortran_order and shape");
  if (fortran) {
    throw mx::ParseError(name + ": Fortran-order .npy arrays are not supported (save np.ascontiguousarray(x))");
  }
  if (descr == "<f4") {
    a.dtype = DType::f4;
  } else if (descr == "<f2") {
    a.dtype = DType::f2;
  } else if (descr == "|u1" || descr == "<u1") {
    a.dtype = DType::u1;
  } else if (descr == "<u2") {
    a.dtype = DType::u2;
  } else {
    throw mx::ParseError(name + ": unsupported .npy dtype '" + descr +
                         "' (expected <f4 float32, <f2 float16, |u1 uint8 or <u2 uint16 holding bf16 bits)");
  }
  const std::size_t data_at = hstart + hlen;
  std::int64_t count = 1;
  for (auto d : a.shape) count = mx::checked_mul(count, d, "array shape");
  const std::int64_t need = mx::checked_mul(count, dtype_size(a.dtype), ".npy data size");
  const auto have = static_cast<std::int64_t>(b.size() - data_at);
  if (have != need) {
    throw mx::ShapeError(name + ": .npy data has " + std::to_string(have) + " bytes but shape and dtype " + descr +
                         " need " + std::to_string(need));
  }
  a.data_offset = data_at;
  return a;
}

NpyArray parse_npy(const std::string& name, std::string_view b) {
  NpyHeader h = parse_npy_header(name, b);
  NpyArray a;
  a.dtype = h.dtype;
  a.shape = std::move(h.shape);
  a.data.assign(b.substr(h.data_offset));
  return a;
}

std::string write_npy(const NpyArray& a) { return npy_header(a.dtype, a.shape) + a.data; }

std::string npy_header(DType d, const std::vector<std::int64_t>& shape) {
  std::string h = "{'descr': '" + std::string(dtype_descr(d)) + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) h += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) h += ",";
  h += "), }";
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xFF);
  out += static_cast<char>((h.size() >> 8) & 0xFF);
  out += h;
  return out;
}

std::vector<std::int64_t> parse_shape(std::string_view s) {
  std::vector<std::int64_t> d;
  std::size_t i = 0;
  while (i <= s.size()) {
    std::size_t e = s.find_first_of("x,", i);
    if (e == std::string_view::npos) e = s.size();
    std::int64_t v = 0;
    if (!parse_dec(s.substr(i, e - i), &v)) {
      throw mx::ShapeError("bad shape '" + std::string(s) + "' (expected dimensions like 128x64 or 2,128,64)");
    }
    d.push_back(v);
    i = e + 1;
  }
  if (d.empty() || d.size() > 3) throw mx::ShapeError("shape '" + std::string(s) + "' must have 1 to 3 dimensions");
  return d;
}

NpyArray raw_array(const std::string& name, std::string_view bytes, DType dt, const std::vector<std::int64_t>& shape) {
  NpyArray a;
  a.dtype = dt;
  a.shape = shape;
  const std::int64_t need = mx::checked_mul(a.count(), dtype_size(dt), "raw data size");
  if (static_cast<std::int64_t>(bytes.size()) != need) {
    std::string sh;
    for (std::size_t i = 0; i < shape.size(); ++i) sh += (i ? "x" : "") + std::to_string(shape[i]);
    throw mx::ShapeError(name + ": file has " + std::to_string(bytes.size()) + " bytes but shape " + sh + " of " +
                         std::to_string(dtype_size(dt)) + "-byte elements needs " + std::to_string(need));
  }
  a.data.assign(bytes);
  return a;
}

}  // namespace mxv
