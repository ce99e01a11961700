// json.hpp - the few JSON values the side files need (objects, arrays,
// strings, integers, booleans): a writer with stable key order and a strict
// reader with byte offsets in its errors.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mxv {

struct Json {
  enum class T : std::uint8_t { null, boolean, integer, string, array, object } t = T::null;
  bool b = false;
  std::int64_t i = 0;
  std::string s;
  std::vector<Json> a;
  // Object members in insertion order (two vectors: std::pair would need
  // Json complete here).
  std::vector<std::string> keys;
  std::vector<Json> vals;

  static Json str(std::string v) { Json j; j.t = T::string; j.s = std::move(v); return j; }
  static Json num(std::int64_t v) { Json j; j.t = T::integer; j.i = v; return j; }
  static Json boolean(bool v) { Json j; j.t = T::boolean; j.b = v; return j; }
  static Json arr() { Json j; j.t = T::array; return j; }
  static Json obj() { Json j; j.t = T::object; return j; }
  Json& set(const std::string& k, Json v) {
    keys.push_back(k);
    vals.push_back(std::move(v));
    return *this;
  }
  // Accessors throw mx::ParseError naming the file and the key.
  const Json& at(const std::string& file, const std::string& key) const;
  const std::string& as_str(const std::string& file, const std::string& key) const;
  std::int64_t as_int(const std::string& file, const std::string& key) const;
};

std::string json_dump(const Json& j, int indent = 0);
Json json_parse(const std::string& name, std::string_view text);

}  // namespace mxv
