// json.cpp - see json.hpp. Parsing is nlohmann::json's; its parse_error
// carries a byte count, turned into line:column here. The position scan runs
// only over text nlohmann accepted, walks the values in document order beside
// the DOM (members of an ordered_json object are in first-occurrence order;
// a repeated key, whose last value the DOM keeps, is looked up by name), and
// is bounded in depth (deeper values keep no position: they are never read).
#include "json.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "mx/error.hpp"

namespace mxv {

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

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_delim(char c) { return is_ws(c) || c == ',' || c == ':' || c == ']' || c == '}'; }

struct Scanner {
  std::string_view t;
  std::unordered_map<const Json*, std::size_t>& pos;
  std::size_t i = 0;
  static constexpr int kMaxDepth = 64;

  void ws() {
    while (i < t.size() && is_ws(t[i])) ++i;
  }
  // i at '"': moves past the closing quote.
  void string() {
    ++i;
    while (i < t.size() && t[i] != '"') i += t[i] == '\\' ? 2 : 1;
    i = std::min(i + 1, t.size());
  }
  // Skips one value of any depth without recursion.
  void skip() {
    std::int64_t depth = 0;
    do {
      ws();
      if (i >= t.size()) return;
      const char c = t[i];
      if (c == '{' || c == '[') {
        ++depth;
        ++i;
      } else if (c == '}' || c == ']') {
        --depth;
        ++i;
      } else if (c == '"') {
        string();
      } else if (c == ',' || c == ':') {
        ++i;
      } else {
        while (i < t.size() && !is_delim(t[i])) ++i;
      }
    } while (depth > 0);
  }
  std::string key(std::size_t a, std::size_t b) const {
    const std::string_view tok = t.substr(a, b - a);
    if (tok.size() >= 2 && tok.find('\\') == std::string_view::npos) return std::string(tok.substr(1, tok.size() - 2));
    try {
      return Json::parse(tok.begin(), tok.end()).get<std::string>();
    } catch (const Json::exception&) {
      return {};
    }
  }
  // One value at i; `node` is its DOM value (null when unknown).
  void value(const Json* node, int depth) {
    ws();
    if (i >= t.size()) return;
    if (node) pos[node] = i;
    const char c = t[i];
    if ((c == '{' || c == '[') && depth >= kMaxDepth) return skip();
    if (c == '"') return string();
    if (c != '{' && c != '[') {
      while (i < t.size() && !is_delim(t[i])) ++i;
      return;
    }
    const char close = c == '{' ? '}' : ']';
    ++i;
    ws();
    if (i < t.size() && t[i] == close) {
      ++i;
      return;
    }
    const Json::object_t* obj = (c == '{' && node && node->is_object()) ? &node->get_ref<const Json::object_t&>() : nullptr;
    std::size_t k = 0;  // member or element index
    while (i < t.size()) {
      const Json* child = nullptr;
      if (c == '{') {
        ws();
        const std::size_t a = i;
        if (i >= t.size() || t[i] != '"') return;
        string();
        const std::string name = key(a, i);
        if (obj && k < obj->size() && (obj->begin() + static_cast<std::ptrdiff_t>(k))->first == name) {
          child = &(obj->begin() + static_cast<std::ptrdiff_t>(k))->second;
        } else if (obj) {  // a repeated key: the DOM holds its last value
          const auto it = obj->find(name);
          child = it != obj->end() ? &it->second : nullptr;
          --k;
        }
        ws();
        if (i >= t.size() || t[i] != ':') return;
        ++i;
      } else if (node && node->is_array() && k < node->size()) {
        child = &(*node)[k];
      }
      value(child, depth + 1);
      ++k;
      ws();
      if (i < t.size() && t[i] == ',') {
        ++i;
        continue;
      }
      if (i < t.size() && t[i] == close) ++i;
      return;
    }
  }
};

std::string type_name(const Json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number_float()) return "a number";
  return std::string(v.is_object() || v.is_array() ? "an " : "a ") + v.type_name();
}

}  // namespace

JsonDoc::JsonDoc(std::string name, std::string_view text) : name_(std::move(name)), text_(text) {
  *root_ = json_parse(name_, text);
  Scanner s{text_, pos_};
  if (text_.size() >= 3 && text_.compare(0, 3, "\xEF\xBB\xBF") == 0) s.i = 3;  // a UTF-8 byte order mark
  s.value(root_.get(), 0);
}

std::string JsonDoc::where(const Json& v) const {
  const auto it = pos_.find(&v);
  if (it == pos_.end()) return name_;
  const auto [line, col] = line_column(text_, it->second);
  return name_ + ":" + std::to_string(line) + ":" + std::to_string(col);
}

void JsonDoc::fail(const Json& v, const std::string& msg) const { throw mx::ParseError(where(v) + ": " + msg); }

const Json& JsonDoc::at(const Json& obj, const std::string& key) const {
  if (!obj.is_object()) fail(obj, "expected a JSON object with key '" + key + "', found " + type_name(obj));
  const auto it = obj.find(key);
  if (it == obj.end()) fail(obj, "JSON object has no key '" + key + "'");
  return *it;
}

const std::string& JsonDoc::str(const Json& obj, const std::string& key) const {
  const Json& v = at(obj, key);
  if (!v.is_string()) fail(v, "JSON key '" + key + "' must be a string, found " + type_name(v));
  return v.get_ref<const std::string&>();
}

std::int64_t JsonDoc::integer(const Json& obj, const std::string& key) const {
  const Json& v = at(obj, key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    fail(v, "JSON key '" + key + "' is too large");
  }
  if (!v.is_number_integer()) fail(v, "JSON key '" + key + "' must be an integer, found " + type_name(v));
  return v.get<std::int64_t>();
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
