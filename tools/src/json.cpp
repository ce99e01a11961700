// json.cpp - see json.hpp.
#include "json.hpp"

#include "mx/error.hpp"

namespace mxv {

const Json& Json::at(const std::string& file, const std::string& key) const {
  if (t == T::object) {
    for (std::size_t n = 0; n < keys.size(); ++n) {
      if (keys[n] == key) return vals[n];
    }
  }
  throw mx::ParseError(file + ": JSON side file has no key '" + key + "'");
}
const std::string& Json::as_str(const std::string& file, const std::string& key) const {
  const Json& v = at(file, key);
  if (v.t != T::string) throw mx::ParseError(file + ": JSON key '" + key + "' must be a string");
  return v.s;
}
std::int64_t Json::as_int(const std::string& file, const std::string& key) const {
  const Json& v = at(file, key);
  if (v.t != T::integer) throw mx::ParseError(file + ": JSON key '" + key + "' must be an integer");
  return v.i;
}

namespace {
void esc(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static constexpr char kH[] = "0123456789abcdef";
      out += "\\u00";
      out += kH[(c >> 4) & 0xF];
      out += kH[c & 0xF];
    } else {
      out += c;
    }
  }
  out += '"';
}
void dump(std::string& out, const Json& j, int ind) {
  const std::string pad(static_cast<std::size_t>(ind + 2), ' '), end(static_cast<std::size_t>(ind), ' ');
  switch (j.t) {
    case Json::T::null: out += "null"; break;
    case Json::T::boolean: out += j.b ? "true" : "false"; break;
    case Json::T::integer: out += std::to_string(j.i); break;
    case Json::T::string: esc(out, j.s); break;
    case Json::T::array:
      out += "[";
      for (std::size_t k = 0; k < j.a.size(); ++k) {
        if (k) out += ", ";
        dump(out, j.a[k], ind);
      }
      out += "]";
      break;
    case Json::T::object:
      out += "{\n";
      for (std::size_t k = 0; k < j.keys.size(); ++k) {
        out += pad;
        esc(out, j.keys[k]);
        out += ": ";
        dump(out, j.vals[k], ind + 2);
        out += k + 1 < j.keys.size() ? ",\n" : "\n";
      }
      out += end + "}";
      break;
  }
}

struct Parser {
  const std::string& name;
  std::string_view s;
  std::size_t i = 0;
  int depth = 0;
  [[noreturn]] void bad(const std::string& why) const {
    throw mx::ParseError(name + ": bad JSON at byte " + std::to_string(i) + ": " + why);
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  Json value() {
    if (++depth > 32) bad("nested too deeply");
    ws();
    if (i >= s.size()) bad("unexpected end");
    Json j;
    const char c = s[i];
    if (c == '{') {
      j.t = Json::T::object;
      ++i;
      ws();
      if (i < s.size() && s[i] == '}') {
        ++i;
      } else {
        for (;;) {
          ws();
          std::string k = string();
          ws();
          if (i >= s.size() || s[i] != ':') bad("expected ':'");
          ++i;
          j.keys.push_back(std::move(k));
          j.vals.push_back(value());
          ws();
          if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
          }
          if (i < s.size() && s[i] == '}') {
            ++i;
            break;
          }
          bad("expected ',' or '}'");
        }
      }
    } else if (c == '[') {
      j.t = Json::T::array;
      ++i;
      ws();
      if (i < s.size() && s[i] == ']') {
        ++i;
      } else {
        for (;;) {
          j.a.push_back(value());
          ws();
          if (i < s.size() && s[i] == ',') {
            ++i;
            continue;
          }
          if (i < s.size() && s[i] == ']') {
            ++i;
            break;
          }
          bad("expected ',' or ']'");
        }
      }
    } else if (c == '"') {
      j.t = Json::T::string;
      j.s = string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      j.t = Json::T::integer;
      bool neg = false;
      if (c == '-') {
        neg = true;
        ++i;
      }
      const std::size_t st = i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (i - st > 17) bad("integer too large");
        j.i = j.i * 10 + (s[i] - '0');
        ++i;
      }
      if (i == st) bad("expected digits");
      if (neg) j.i = -j.i;
    } else if (s.substr(i, 4) == "true") {
      j.t = Json::T::boolean;
      j.b = true;
      i += 4;
    } else if (s.substr(i, 5) == "false") {
      j.t = Json::T::boolean;
      i += 5;
    } else if (s.substr(i, 4) == "null") {
      i += 4;
    } else {
      bad("unexpected character");
    }
    --depth;
    return j;
  }
  std::string string() {
    if (i >= s.size() || s[i] != '"') bad("expected a string");
    ++i;
    std::string r;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        if (++i >= s.size()) bad("bad escape");
        const char e = s[i];
        if (e == 'u') bad("\\u escapes are not supported");
        r += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        r += s[i];
      }
      ++i;
    }
    if (i >= s.size()) bad("unterminated string");
    ++i;
    return r;
  }
};
}  // namespace

std::string json_dump(const Json& j, int indent) {
  std::string s;
  dump(s, j, indent);
  s += "\n";
  return s;
}

Json json_parse(const std::string& name, std::string_view text) {
  if (text.empty()) throw mx::ParseError(name + ": file is empty (0 bytes); expected a JSON side file");
  Parser p{name, text};
  Json j = p.value();
  p.ws();
  if (p.i != text.size()) p.bad("trailing characters");
  return j;
}

}  // namespace mxv
