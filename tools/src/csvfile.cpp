// csvfile.cpp - reading and writing golden vector files (schema in
// vectors/README.md). Rows are read with fast-cpp-csv-parser (libfccp); the
// header is canonical for (kind, params) and is compared line by line.
// GCC warns (-Wstringop-truncation) inside libfccp's error class when its
// strncpy of the file name is inlined here; the truncation is intended there.
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <libfccp/csv.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "mx/error.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace mxv {
namespace {

std::string out_name(const std::string& prefix, const std::string& o) {
  return o.empty() ? prefix : prefix + "_" + o;
}

[[noreturn]] void fail(const std::string& name, unsigned line, const std::string& msg) {
  throw mx::ParseError(name + ":" + std::to_string(line) + ": " + msg);
}

template <unsigned N>
void read_rows_n(const std::string& name, const char* b, const char* e, unsigned first_line,
                 const std::function<void(unsigned, const std::vector<std::string_view>&)>& fn) {
  io::CSVReader<N, io::trim_chars<>, io::no_quote_escape<','>, io::throw_on_overflow, io::no_comment> r(
      name, b, e);
  r.set_file_line(first_line);
  std::array<char*, N> f{};
  std::vector<std::string_view> v(N);
  for (;;) {
    bool got = false;
    try {
      got = std::apply([&](auto&... c) { return r.read_row(c...); }, f);
    } catch (const io::error::too_few_columns&) {
      fail(name, r.get_file_line(), "too few columns (truncated row?); expected " + std::to_string(N));
    } catch (const io::error::too_many_columns&) {
      fail(name, r.get_file_line(), "too many columns; expected " + std::to_string(N));
    } catch (const io::error::base& ex) {
      fail(name, r.get_file_line(), std::string("cannot read row: ") + ex.what());
    }
    if (!got) break;
    for (unsigned i = 0; i < N; ++i) v[i] = f[i];
    fn(r.get_file_line(), v);
  }
}

void read_rows(unsigned n, const std::string& name, const char* b, const char* e, unsigned first_line,
               const std::function<void(unsigned, const std::vector<std::string_view>&)>& fn) {
  switch (n) {
#define MXV_CASE(K) \
  case K: return read_rows_n<K>(name, b, e, first_line, fn);
    MXV_CASE(3) MXV_CASE(4) MXV_CASE(5) MXV_CASE(6) MXV_CASE(7) MXV_CASE(8) MXV_CASE(9)
    MXV_CASE(10) MXV_CASE(11) MXV_CASE(12) MXV_CASE(13) MXV_CASE(14)
#undef MXV_CASE
    default: throw mx::InvalidArgument("internal: unsupported column count " + std::to_string(n));
  }
}

}  // namespace

std::vector<std::string> all_columns(const Kind& k) {
  std::vector<std::string> c = k.in_cols();
  for (const auto& o : k.out_cols()) c.push_back(out_name("expected", o));
  for (const auto& o : k.out_cols()) c.push_back(out_name("observed", o));
  c.emplace_back("row_sha");
  return c;
}

std::string header_text(const Kind& k, const Params& params, int level, std::uint64_t seed) {
  std::string h = "# mxconform golden vectors; schema: vectors/README.md; fill the observed_* columns\n";
  h += "# contract: " + std::string(kContractVersion) + "\n";
  h += "# kind: " + std::string(k.name()) + "\n";
  for (const auto& [key, val] : params) h += "# " + key + ": " + val + "\n";
  for (const auto& [key, val] : k.notes()) h += "# " + key + ": " + val + "\n";
  h += "# level: " + std::to_string(level) + "\n";
  h += "# seed: 0x" + hex(seed, 16) + "\n";
  std::string cl;
  const auto cols = all_columns(k);
  for (std::size_t i = 0; i < cols.size(); ++i) cl += (i ? "," : "") + cols[i];
  cl += "\n";
  // header_sha: a flipped bit in a header value that stays valid (the seed)
  // still changes the header, and the error names this line.
  h += "# header_sha: " + sha256_hex(h + cl).substr(0, 16) + "\n";
  return h + cl;
}

std::string row_sha(const std::string& header_sha, const std::vector<std::string_view>& fields,
                    std::size_t n_in, std::size_t n_out) {
  std::string key = header_sha;
  key += '\n';
  for (std::size_t i = 0; i < n_in + n_out; ++i) {
    if (i) key += ',';
    key += fields[i];
  }
  return sha256_hex(key).substr(0, 16);
}

VecFile build_file(const std::string& relpath, Kind& k, const Params& params, int level,
                   std::uint64_t seed, const std::vector<std::vector<std::string>>& in_rows) {
  k.set_params(params);
  VecFile f;
  f.relpath = relpath;
  f.kind = std::string(k.name());
  f.content = header_text(k, params, level, seed);
  const std::string hsha = sha256_hex(f.content);
  const std::size_t n_in = k.in_cols().size(), n_out = k.out_cols().size();
  std::vector<std::string> out;
  std::vector<std::string_view> fields;
  for (const auto& r : in_rows) {
    out.assign(n_out, "");
    fields.assign(r.begin(), r.end());
    try {
      k.compute(fields, out);
    } catch (const FieldError& e) {
      throw mx::InvalidArgument("internal: generated row for " + relpath + " column " +
                                std::to_string(e.col + 1) + ": " + e.msg);
    }
    for (const auto& o : out) fields.emplace_back(o);
    std::string line;
    for (std::size_t i = 0; i < n_in; ++i) line += (i ? "," : "") + r[i];
    for (const auto& o : out) line += "," + o;
    for (std::size_t i = 0; i < n_out; ++i) line += ",";
    line += "," + row_sha(hsha, fields, n_in, n_out) + "\n";
    f.content += line;
    ++f.rows;
  }
  return f;
}

std::string manifest_text(const std::vector<VecFile>& files) {
  std::vector<std::pair<std::string, std::string>> v;
  for (const auto& f : files) v.emplace_back(f.relpath, sha256_hex(f.content));
  std::sort(v.begin(), v.end());
  std::string s;
  for (const auto& [p, h] : v) s += h + "  " + p + "\n";
  return s;
}

void parse_vector_file(const std::string& name, std::string_view content, ParsedHeader* hdr,
                       const std::function<void(unsigned, const std::vector<std::string_view>&)>& row) {
  if (content.empty()) throw mx::ParseError(name + ": file is empty (0 bytes); expected a vector file");
  // Every byte is printable ASCII or '\n' (CR line ends, tabs, NULs are refused).
  unsigned line = 1, col = 1;
  for (char ch : content) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      ++line;
      col = 1;
      continue;
    }
    if (c == '\r') {
      throw mx::ParseError(name + ":" + std::to_string(line) + ":" + std::to_string(col) +
                           ": CR line end (vector files use \\n line ends; convert with dos2unix)");
    }
    if (c < 0x20 || c > 0x7E) {
      throw mx::ParseError(name + ":" + std::to_string(line) + ":" + std::to_string(col) +
                           ": invalid byte 0x" + hex(c, 2) + " (vector files are printable ASCII)");
    }
    ++col;
  }
  if (content.back() != '\n') fail(name, line, "last line has no newline (truncated file?)");

  // Header: '#' lines up to the column line; '##' lines are user notes.
  std::map<std::string, std::pair<std::string, unsigned>> kv;
  std::string actual;  // the header lines that must be canonical
  std::vector<unsigned> actual_lines;
  std::size_t pos = 0;
  line = 0;
  std::size_t col_line_end = std::string_view::npos;
  while (pos < content.size()) {
    const std::size_t nl = content.find('\n', pos);
    const std::string_view l = content.substr(pos, nl - pos);
    ++line;
    if (l.substr(0, 2) == "##") {
      pos = nl + 1;
      continue;
    }
    actual += l;
    actual += '\n';
    actual_lines.push_back(line);
    if (l.empty() || l[0] != '#') {
      col_line_end = nl + 1;
      break;
    }
    const std::size_t c = l.find(": ");
    if (l.substr(0, 2) == "# " && c != std::string_view::npos) {
      const std::string key(l.substr(2, c - 2));
      if (!kv.count(key)) kv[key] = {std::string(l.substr(c + 2)), line};
    }
    pos = nl + 1;
  }
  if (col_line_end == std::string_view::npos) fail(name, line, "no column line after the '#' header");
  const unsigned col_line_no = line;
  // A file written for another version of the specification (e.g. v1, which
  // cited reference/SPEC.md) has other header bytes and so other row_sha values:
  // say so plainly instead of reporting a header difference.
  if (const auto it = kv.find("contract"); it != kv.end() && it->second.first != kContractVersion) {
    fail(name, it->second.second,
         "file follows '" + it->second.first + "', this mxconform checks '" + std::string(kContractVersion) +
             "' (reference/SPEC.md): regenerate the vectors with 'mxconform gen' and fill them again");
  }
  const auto get = [&](const std::string& key) -> std::pair<std::string, unsigned> {
    const auto it = kv.find(key);
    if (it == kv.end()) {
      throw mx::ParseError(name + ":1: header has no '# " + key + ": ...' line (not a vector file?)");
    }
    return it->second;
  };
  const auto [kname, kline] = get("kind");
  ParsedHeader local;
  ParsedHeader& h = hdr ? *hdr : local;
  try {
    h.kind = make_kind(kname);
  } catch (const mx::Error& e) {
    fail(name, kline, e.what());
  }
  h.params.clear();
  for (const auto& key : h.kind->param_keys()) h.params.emplace_back(key, get(key).first);
  try {
    h.kind->set_params(h.params);
  } catch (const mx::Error& e) {
    fail(name, get(h.kind->param_keys().empty() ? "kind" : h.kind->param_keys()[0]).second, e.what());
  }
  {
    const auto [lv, ll] = get("level");
    std::int64_t v = 0;
    if (!parse_dec(lv, &v) || v < 1 || v > 2) fail(name, ll, "level must be 1 or 2 (got '" + lv + "')");
    h.level = static_cast<int>(v);
    const auto [sv, sl] = get("seed");
    std::uint64_t s = 0;
    if (sv.substr(0, 2) != "0x" || !parse_hex(std::string_view(sv).substr(2), 16, &s)) {
      fail(name, sl, "seed must be 0x and 16 lowercase hex digits (got '" + sv + "')");
    }
    h.seed = s;
  }
  h.header = header_text(*h.kind, h.params, h.level, h.seed);
  if (h.header != actual) {
    // Name the first line that differs.
    std::size_t a = 0, c = 0;
    for (std::size_t i = 0; i < actual_lines.size(); ++i) {
      const std::size_t ae = actual.find('\n', a), ce = h.header.find('\n', c);
      const std::string al = actual.substr(a, ae - a);
      const std::string cl = ce == std::string::npos ? std::string("(nothing)") : h.header.substr(c, ce - c);
      if (al != cl) {
        fail(name, actual_lines[i], "header line differs from the canonical header of kind '" + kname +
                                        "': got '" + al + "', expected '" + cl + "'");
      }
      a = ae + 1;
      c = ce == std::string::npos ? h.header.size() : ce + 1;
    }
    fail(name, col_line_no, "header is not the canonical header of kind '" + kname + "'");
  }
  h.header_sha = sha256_hex(h.header);
  const auto ncols = static_cast<unsigned>(all_columns(*h.kind).size());
  const char* b = content.data() + col_line_end;
  const char* e = content.data() + content.size();
  if (b == e) return;
  read_rows(ncols, name, b, e, col_line_no, row);
}

}  // namespace mxv
