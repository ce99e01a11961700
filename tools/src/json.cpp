// json.cpp - see json.hpp. Parsing is nlohmann::json's; its parse_error
// carries a byte count, turned into line:column here.
#include "json.hpp"

#include <algorithm>
#include <limits>

#include "mx/error.hpp"

namespace mxv {

const Json& json_at(const Json& j, const std::string& file, const std::string& key) {
  if (j.is_object()) {
    const auto it = j.find(key);
    if (it != j.end()) return *it;
  }
  throw mx::ParseError(file + ": JSON side file has no key '" + key + "'");
}

const std::string& json_str(const Json& j, const std::string& file, const std::string& key) {
  const Json& v = json_at(j, file, key);
  if (!v.is_string()) throw mx::ParseError(file + ": JSON key '" + key + "' must be a string");
  return v.get_ref<const std::string&>();
}

std::int64_t json_int(const Json& j, const std::string& file, const std::string& key) {
  const Json& v = json_at(j, file, key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw mx::ParseError(file + ": JSON key '" + key + "' is too large");
  }
  if (!v.is_number_integer()) throw mx::ParseError(file + ": JSON key '" + key + "' must be an integer");
  return v.get<std::int64_t>();
}

namespace {

std::string scalar(const Json& j) {
  // Invalid UTF-8 in a string (a file name) is replaced, never an exception.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void dump(std::string& out, const Json& j, int ind) {
  if (j.is_object()) {
    const std::string pad(static_cast<std::size_t>(ind + 2), ' '), end(static_cast<std::size_t>(ind), ' ');
    out += "{\n";
    std::size_t k = 0;
    for (const auto& [key, val] : j.items()) {
      out += pad + scalar(Json(key)) + ": ";
      dump(out, val, ind + 2);
      out += ++k < j.size() ? ",\n" : "\n";
    }
    out += end + "}";
  } else if (j.is_array()) {
    out += "[";
    for (std::size_t k = 0; k < j.size(); ++k) {
      if (k) out += ", ";
      dump(out, j[k], ind);
    }
    out += "]";
  } else {
    out += scalar(j);
  }
}

}  // namespace

std::pair<std::int64_t, std::int64_t> line_column(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::int64_t line = 1;
  std::size_t start = 0;
  for (std::size_t i = 0; i < pos; ++i) {
    if (text[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  return {line, static_cast<std::int64_t>(pos - start) + 1};
}

std::string json_dump(const Json& j, int indent) {
  std::string s;
  dump(s, j, indent);
  s += "\n";
  return s;
}

Json json_parse(const std::string& name, std::string_view text) {
  if (text.empty()) throw mx::ParseError(name + ": file is empty (0 bytes); expected a JSON side file");
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // e.byte: 1-based index of the last character read (0 when none).
    const auto [line, col] = line_column(text, e.byte > 0 ? static_cast<std::size_t>(e.byte - 1) : 0);
    std::string why = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error while parsing
    // value - invalid literal; last read: 'x'": keep what follows the position.
    if (const auto p = why.find(": "); p != std::string::npos) why = why.substr(p + 2);
    throw mx::ParseError(name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": bad JSON: " + why);
  } catch (const Json::exception& e) {
    throw mx::ParseError(name + ": bad JSON: " + std::string(e.what()));
  }
}

}  // namespace mxv
