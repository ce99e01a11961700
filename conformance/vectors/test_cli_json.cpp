// test_cli_json.cpp - issue 15 (label cpu): every error in a side file names
// FILE:LINE:COLUMN, on one line, with exit status 2 and no output written:
// a missing key at the opening brace of the object that lacks it, a wrong type
// or a bad value (unknown recipe, bad shape, bad hex, a data file that cannot
// be read) at the value. The positions below are counted by hand from the
// side file `mxconform quantize` writes (shown in the first test).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common.hpp"
#include "json.hpp"

namespace {

using mxt::run;
using mxt::TempDir;

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::size_t a = 0;
  for (std::size_t b; (b = s.find('\n', a)) != std::string::npos; a = b + 1) v.push_back(s.substr(a, b - a));
  return v;
}
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& l : v) s += l + "\n";
  return s;
}

class CliJson : public ::testing::Test {
 protected:
  TempDir t;
  std::vector<std::string> L;  // the side file's lines (L[0] is line 1)
  void SetUp() override {
    std::string raw;
    for (int i = 0; i < 64; ++i) raw.append("\x00\x00\x80\x3f", 4);  // 1.0f
    mxt::spit(t / "x.bin", raw);
    ASSERT_EQ(run("quantize --in " + (t / "x.bin") + " --shape 2x32 --out " + (t / "q")).rc, 0);
    L = lines(mxt::slurp(t / "q.json"));
    // The layout the positions below are counted in.
    ASSERT_EQ(L.size(), 43u);
    ASSERT_EQ(L[3], "  \"recipe\": \"mxfp8_e4m3\",");
    ASSERT_EQ(L[16], "  \"input\": {");
    ASSERT_EQ(L[21], "  \"tensor_shape\": [1, 2, 32],");
    ASSERT_EQ(L[26], "    \"file\": \"q.data.npy\",");
    ASSERT_EQ(L[30], "  \"scales\": {");
    ASSERT_EQ(L[32], "    \"layout\": \"dense\",");
    ASSERT_EQ(L[40], "  \"global_amax_bits\": \"00000000\",");
  }
  // dequantize NAME (text) must fail: exit 2, one line containing `want`, no output.
  void expect_error(const std::string& name, const std::string& text, const std::string& want,
                    const std::string& cmd = "dequantize") {
    mxt::spit(t / name, text);
    const std::string args = cmd == "dequantize" ? "dequantize " + (t / name) + " --out " + (t / "y.npy")
                                                 : "check-tensor " + (t / name) + " " + (t / "q.json");
    const auto r = run(args);
    EXPECT_EQ(r.rc, 2) << name << ": " << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << name << ": expected '" << want << "' in: " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << name << ": " << r.out;
    EXPECT_FALSE(std::filesystem::exists(t / "y.npy")) << name;
  }
  std::string without(std::size_t line) const {  // 1-based
    auto v = L;
    v.erase(v.begin() + static_cast<std::ptrdiff_t>(line - 1));
    return join(v);
  }
  std::string with(std::size_t line, const std::string& text) const {
    auto v = L;
    v[line - 1] = text;
    return join(v);
  }
};

TEST_F(CliJson, MissingKeyNamesTheObjectsOpeningBrace) {
  expect_error("m1.json", without(4), "m1.json:1:1: JSON object has no key 'recipe'");
  // "layout" removed from "scales" (line 31: '  "scales": {', the brace in column 13).
  expect_error("m2.json", without(33), "m2.json:31:13: JSON object has no key 'layout'");
  // check-tensor reads "input" of the expected side file (line 17 removed .. 21).
  auto v = L;
  v.erase(v.begin() + 16, v.begin() + 21);
  expect_error("m3.json", join(v), "m3.json:1:1: JSON object has no key 'input'", "check-tensor");
}

TEST_F(CliJson, WrongTypeNamesTheValue) {
  expect_error("t1.json", with(4, "  \"recipe\": 7,"), "t1.json:4:13: JSON key 'recipe' must be a string, found an integer");
  expect_error("t2.json", with(27, "    \"file\": [\"q.data.npy\"],"), "t2.json:27:13: JSON key 'file' must be a string, found an array");
  auto v = L;  // "scales" (lines 31-40) as a string
  v.erase(v.begin() + 31, v.begin() + 40);
  v[30] = "  \"scales\": \"dense\",";
  expect_error("t3.json", join(v), "t3.json:31:13: expected a JSON object with key 'layout', found a string");
  expect_error("t4.json", "[1, 2]\n", "t4.json:1:1: expected a JSON object with key 'recipe', found an array");
}

TEST_F(CliJson, BadValueNamesTheValue) {
  expect_error("v1.json", with(4, "  \"recipe\": \"mxfp9\","), "v1.json:4:13: unknown recipe");
  expect_error("v2.json", with(22, "  \"tensor_shape\": [1, -2, 32],"), "v2.json:22:19: tensor_shape must be");
  expect_error("v3.json", with(41, "  \"global_amax_bits\": \"zz\","), "v3.json:41:23: global_amax_bits must be 8 lowercase hex digits");
  expect_error("v4.json", with(27, "    \"file\": \"nothere.npy\","), "v4.json:27:13: ");
  expect_error("v5.json", with(33, "    \"layout\": \"diagonal\","), "v5.json:33:15: unknown scale layout");
}

TEST_F(CliJson, EscapedKeysCrlfTabsAndRepeatedKeys) {
  // CRLF line ends, a tab, an escaped key: the value 7 is in column 17 of line 2.
  expect_error("e1.json", "{\r\n\t\"rec\\u0069pe\": 7\r\n}\r\n", "e1.json:2:17: JSON key 'recipe' must be a string, found an integer");
  // A repeated key: the last value is the one read, and the one named.
  auto v = L;
  v[41] = "  \"device\": \"cpu\",";
  v.insert(v.begin() + 42, "  \"recipe\": 7");
  expect_error("e2.json", join(v), "e2.json:43:13: JSON key 'recipe' must be a string, found an integer");
}

TEST(JsonDoc, PositionsOfNestedValues) {
  const mxv::JsonDoc d("n", R"({"a": {"b": [1, "x\"}", {"c": null}]}, "d": 2})");
  const mxv::Json& j = d.root();
  EXPECT_EQ(d.where(j), "n:1:1");
  EXPECT_EQ(d.where(j["a"]), "n:1:7");
  EXPECT_EQ(d.where(j["a"]["b"]), "n:1:13");
  EXPECT_EQ(d.where(j["a"]["b"][1]), "n:1:17");
  EXPECT_EQ(d.where(j["a"]["b"][2]), "n:1:25");
  EXPECT_EQ(d.where(j["a"]["b"][2]["c"]), "n:1:31");
  EXPECT_EQ(d.where(j["d"]), "n:1:45");
  const mxv::Json other = 5;
  EXPECT_EQ(d.where(other), "n");  // not a value of this document
  // A byte order mark is skipped; very deep nesting parses and keeps the root's position.
  const mxv::JsonDoc b("b", "\xEF\xBB\xBF {\"k\": 1}");
  EXPECT_EQ(b.where(b.root()["k"]), "b:1:11");  // 3 bytes of BOM, then ' {"k": '
  const std::string deep = std::string(300, '[') + std::string(300, ']');
  const mxv::JsonDoc dd("d", deep);
  EXPECT_EQ(dd.where(dd.root()), "d:1:1");
  EXPECT_THROW(mxv::JsonDoc("s", "{\"a\": }"), mx::ParseError);
}

}  // namespace
