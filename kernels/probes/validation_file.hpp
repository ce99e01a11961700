// validation_file.hpp - the probes' validation sample format (reference/SPEC.md
// C9 hardware models; issue 13): hardware cases the fit never saw, kept apart
// from the fit data (conformance/probes/h100/<form>_validation.bin). Written
// by `mxprobe --corners`, read by the cpu test of the fitted models.
// Header-only, plain C++ (no CUDA, no mxprobes library needed).
//
// Layout (little-endian):
//   "MXPVAL01"                      8 bytes
//   u32 n, n bytes of header text   lines "key=value": form, k, elem_bits,
//                                   classes (comma list, index = class id),
//                                   device, seed
//   records to the end of the file, each:
//     u8 kind (0 named feature, 1 random tile), u8 class id,
//     u16 name length, the name bytes,
//     u16 rows, u16 cols,
//     rows*k A codes, cols*k B codes (elem_bits/8 bytes each),
//     rows*cols c (u32 fp32 bits), rows*cols d (u32, the hardware's result)
//   case (i, j) of a record is (A row i, B column j, c[i*cols+j], d[i*cols+j]).
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mx/hw_model.hpp"

namespace mxk::probes {

struct ValidationRecord {
  std::uint8_t kind = 1;  // 0 feature, 1 random tile
  std::uint8_t cls = 0;
  std::string name;
  int rows = 0, cols = 0;
  std::vector<std::uint64_t> a, b;  // rows*k, cols*k codes
  std::vector<std::uint32_t> c, d;  // rows*cols
  mx::DotCase at(int i, int j, int k) const {
    mx::DotCase cs;
    cs.a.assign(a.begin() + static_cast<std::ptrdiff_t>(i) * k, a.begin() + static_cast<std::ptrdiff_t>(i + 1) * k);
    cs.b.assign(b.begin() + static_cast<std::ptrdiff_t>(j) * k, b.begin() + static_cast<std::ptrdiff_t>(j + 1) * k);
    cs.c = c[static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)];
    cs.d = d[static_cast<std::size_t>(i) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(j)];
    return cs;
  }
};

struct ValidationFile {
  std::map<std::string, std::string> header;  // form, k, elem_bits, classes, device, seed
  std::vector<std::string> classes;
  int k = 0, elem_bits = 0;
  std::vector<ValidationRecord> records;
  std::size_t cases() const {
    std::size_t n = 0;
    for (const auto& r : records) n += static_cast<std::size_t>(r.rows) * static_cast<std::size_t>(r.cols);
    return n;
  }
};

namespace valfile_detail {
inline void put(std::string& s, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
}  // namespace valfile_detail

inline std::string validation_bytes(const ValidationFile& vf) {
  using valfile_detail::put;
  std::string head;
  for (const auto& [key, v] : vf.header) head += key + "=" + v + "\n";
  std::string s = "MXPVAL01";
  put(s, head.size(), 4);
  s += head;
  const int eb = vf.elem_bits / 8;
  for (const auto& r : vf.records) {
    put(s, r.kind, 1);
    put(s, r.cls, 1);
    put(s, r.name.size(), 2);
    s += r.name;
    put(s, static_cast<std::uint64_t>(r.rows), 2);
    put(s, static_cast<std::uint64_t>(r.cols), 2);
    for (auto v : r.a) put(s, v, eb);
    for (auto v : r.b) put(s, v, eb);
    for (auto v : r.c) put(s, v, 4);
    for (auto v : r.d) put(s, v, 4);
  }
  return s;
}

// Parses a whole file; throws std::runtime_error "<what>: byte N: <reason>".
inline ValidationFile parse_validation(const std::string& bytes, const std::string& what) {
  ValidationFile vf;
  std::size_t pos = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(what + ": byte " + std::to_string(pos) + ": " + why);
  };
  auto get = [&](int n) {
    if (bytes.size() - pos < static_cast<std::size_t>(n)) fail("truncated (" + std::to_string(n) + " more bytes expected)");
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[pos + static_cast<std::size_t>(i)])) << (8 * i);
    pos += static_cast<std::size_t>(n);
    return v;
  };
  if (bytes.compare(0, 8, "MXPVAL01") != 0) fail("not a probe validation file (magic MXPVAL01 missing)");
  pos = 8;
  const std::size_t hn = get(4);
  if (bytes.size() - pos < hn) fail("truncated header");
  std::istringstream hs(bytes.substr(pos, hn));
  pos += hn;
  for (std::string line; std::getline(hs, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) fail("header line without '=': " + line);
    vf.header[line.substr(0, eq)] = line.substr(eq + 1);
  }
  for (const char* key : {"form", "k", "elem_bits", "classes"})
    if (!vf.header.count(key)) fail(std::string("header has no ") + key);
  try {
    vf.k = std::stoi(vf.header["k"]);
    vf.elem_bits = std::stoi(vf.header["elem_bits"]);
  } catch (const std::exception&) {
    fail("header k or elem_bits is not a number");
  }
  if (vf.k < 1 || vf.k > 64 || (vf.elem_bits != 8 && vf.elem_bits != 16 && vf.elem_bits != 32)) fail("bad k or elem_bits");
  std::istringstream cs(vf.header["classes"]);
  for (std::string c; std::getline(cs, c, ',');) vf.classes.push_back(c);
  const int eb = vf.elem_bits / 8;
  while (pos < bytes.size()) {
    ValidationRecord r;
    r.kind = static_cast<std::uint8_t>(get(1));
    r.cls = static_cast<std::uint8_t>(get(1));
    if (r.kind > 1) fail("record kind " + std::to_string(r.kind) + " (0 or 1 expected)");
    if (r.cls >= vf.classes.size()) fail("class id " + std::to_string(r.cls) + " not in the header's list");
    const std::size_t nl = get(2);
    if (bytes.size() - pos < nl) fail("truncated name");
    r.name = bytes.substr(pos, nl);
    pos += nl;
    r.rows = static_cast<int>(get(2));
    r.cols = static_cast<int>(get(2));
    if (r.rows < 1 || r.cols < 1) fail("record with no rows or columns");
    const std::size_t na = static_cast<std::size_t>(r.rows) * static_cast<std::size_t>(vf.k),
                      nb = static_cast<std::size_t>(r.cols) * static_cast<std::size_t>(vf.k),
                      nc = static_cast<std::size_t>(r.rows) * static_cast<std::size_t>(r.cols);
    for (std::size_t i = 0; i < na; ++i) r.a.push_back(get(eb));
    for (std::size_t i = 0; i < nb; ++i) r.b.push_back(get(eb));
    for (std::size_t i = 0; i < nc; ++i) r.c.push_back(static_cast<std::uint32_t>(get(4)));
    for (std::size_t i = 0; i < nc; ++i) r.d.push_back(static_cast<std::uint32_t>(get(4)));
    vf.records.push_back(std::move(r));
  }
  return vf;
}

inline ValidationFile read_validation(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_validation(bytes, path);
}

struct ClassStats {
  std::size_t cases = 0, mismatches = 0;
  std::vector<std::string> examples;  // "name: a=.. b=.. c=.. hw=.. model=.."
};

// The model p on every case of the file, counted per class id (index into
// vf.classes); up to `examples` mismatching cases listed per class.
inline std::vector<ClassStats> check_validation(const ValidationFile& vf, const mx::HwModelParams& p, mx::Elem e,
                                                std::size_t examples = 3) {
  std::vector<ClassStats> st(vf.classes.size());
  const int digits = vf.elem_bits / 4;
  auto hex = [](std::uint64_t v, int w) {
    static const char* const h = "0123456789abcdef";
    std::string s(static_cast<std::size_t>(w), '0');
    for (int i = w - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = h[v & 15];
    return s;
  };
  for (std::size_t ri = 0; ri < vf.records.size(); ++ri) {
    const ValidationRecord& r = vf.records[ri];
    for (int i = 0; i < r.rows; ++i)
      for (int j = 0; j < r.cols; ++j) {
        const mx::DotCase cs = r.at(i, j, vf.k);
        const std::uint32_t m = mx::hw_dot(p, e, cs);
        ClassStats& s = st[r.cls];
        ++s.cases;
        if (mx::same_result(m, cs.d)) continue;
        ++s.mismatches;
        if (s.examples.size() >= examples) continue;
        std::string row = (r.kind == 0 ? r.name : "tile " + std::to_string(ri) + " (" + std::to_string(i) + "," +
                                                      std::to_string(j) + ")") + ": a=";
        for (auto v : cs.a) row += hex(v, digits) + " ";
        row += "b=";
        for (auto v : cs.b) row += hex(v, digits) + " ";
        row += "c=" + hex(cs.c, 8) + " hw=" + hex(cs.d, 8) + " model=" + hex(m, 8);
        s.examples.push_back(row);
      }
  }
  return st;
}

}  // namespace mxk::probes
