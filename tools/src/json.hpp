// json.hpp - the JSON side files of `mxconform quantize` (issue 15): values
// are nlohmann::ordered_json (Debian nlohmann-json3-dev), written with a
// stable layout (members in insertion order, one per line, arrays on one
// line) and read strictly: a syntax error names FILE:LINE:COLUMN, a missing
// key or a wrong type names the file and the key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace mxv {

using Json = nlohmann::ordered_json;

// Member `key` of object `j`; throws mx::ParseError naming the file and key.
const Json& json_at(const Json& j, const std::string& file, const std::string& key);
const std::string& json_str(const Json& j, const std::string& file, const std::string& key);
std::int64_t json_int(const Json& j, const std::string& file, const std::string& key);

// The side-file text: objects one member per line (2-space indent from
// `indent`), arrays and scalars on one line, '\n' at the end.
std::string json_dump(const Json& j, int indent = 0);
// Parses `text`; a syntax error throws mx::ParseError("NAME:LINE:COL: bad JSON: ...").
Json json_parse(const std::string& name, std::string_view text);

// 1-based line and column of byte offset `pos` (0-based) of `text`.
std::pair<std::int64_t, std::int64_t> line_column(std::string_view text, std::size_t pos);

}  // namespace mxv
