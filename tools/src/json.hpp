// json.hpp - the JSON side files of `mxconform quantize` (issue 15): values
// are nlohmann::ordered_json (Debian nlohmann-json3-dev), written with a
// stable layout (members in insertion order, one per line, arrays on one
// line) and read strictly. Every error names FILE:LINE:COLUMN: a syntax error
// where the parser stopped; a wrong type or a bad value at the value's first
// character; a missing key at the opening brace of the object that lacks it.
// nlohmann's values carry no positions, so JsonDoc scans the (already
// validated) text once more and records the byte offset of every value.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "mx/error.hpp"

namespace mxv {

using Json = nlohmann::ordered_json;

// A parsed JSON file and the source position of each of its values.
class JsonDoc {
 public:
  JsonDoc() = default;
  // Parses `text`; a syntax error throws mx::ParseError("NAME:LINE:COL: bad JSON: ...").
  JsonDoc(std::string name, std::string_view text);

  const Json& root() const { return *root_; }
  const std::string& name() const { return name_; }
  // "NAME:LINE:COL" of `v`, a value inside root() (NAME alone for any other).
  std::string where(const Json& v) const;
  // Throws mx::ParseError("where(v): msg").
  [[noreturn]] void fail(const Json& v, const std::string& msg) const;

  // Member `key` of object `obj` (a missing key: at obj's '{').
  const Json& at(const Json& obj, const std::string& key) const;
  // The member as a string / a 64-bit integer (a wrong type: at the value).
  const std::string& str(const Json& obj, const std::string& key) const;
  std::int64_t integer(const Json& obj, const std::string& key) const;
  // parse(str(obj, key)); an mx::Error it throws is rethrown as an
  // mx::ParseError at the value's position.
  template <class F>
  auto parsed(const Json& obj, const std::string& key, F&& parse) const -> decltype(parse(std::string())) {
    const Json& v = at(obj, key);
    const std::string& s = str(obj, key);
    try {
      return parse(s);
    } catch (const mx::Error& e) {
      fail(v, e.what());
    }
  }

 private:
  std::string name_, text_;
  std::unique_ptr<Json> root_ = std::make_unique<Json>();
  std::unordered_map<const Json*, std::size_t> pos_;
};

// The side-file text: objects one member per line (2-space indent from
// `indent`), arrays and scalars on one line, '\n' at the end.
std::string json_dump(const Json& j, int indent = 0);
// Parses `text` (no positions kept); errors as JsonDoc's constructor.
Json json_parse(const std::string& name, std::string_view text);

// 1-based line and column of byte offset `pos` (0-based) of `text`.
std::pair<std::int64_t, std::int64_t> line_column(std::string_view text, std::size_t pos);

}  // namespace mxv
