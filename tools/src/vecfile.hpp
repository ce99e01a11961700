// vecfile.hpp - golden vector files: kinds, header, rows (schema in
// vectors/README.md).
//
// A vector file is
//   # key: value            header lines, canonical for (kind, params)
//   col,col,...             the column line
//   row                     inputs, expected_*, observed_* (empty until an
//                           implementation fills them), row_sha
// Every field is ASCII; hex is lowercase and fixed width. row_sha is the first
// 16 hex digits of SHA-256(SHA-256(header + column line) + "\n" + the input
// and expected fields joined by ','), so a flipped bit anywhere in a row or
// the header is found even when the flipped row is well formed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mxv {

// Version of the specification the vectors follow (reference/SPEC.md,
// section "The version line of vector files and side files").
inline constexpr std::string_view kContractVersion = "mxconform reference/SPEC.md v2";
inline constexpr std::uint64_t kDefaultSeed = 0x6d78636f6e666f72ull;  // "mxconfor"

using Params = std::vector<std::pair<std::string, std::string>>;

// A bad field: index of the column (0-based) and a one-line reason.
struct FieldError {
  int col;
  std::string msg;
};

class Kind {
 public:
  virtual ~Kind() = default;
  virtual std::string_view name() const = 0;
  // Header keys (after contract, kind, level, seed) in canonical order.
  virtual std::vector<std::string> param_keys() const = 0;
  // Validates the parameters (throws mx::UnknownName / mx::InvalidArgument).
  virtual void set_params(const Params& p) = 0;
  // Extra descriptive header lines (key, value) derived from the params.
  virtual Params notes() const = 0;
  virtual std::vector<std::string> in_cols() const = 0;
  // Output names: "" gives columns expected/observed, "x" gives expected_x/observed_x.
  virtual std::vector<std::string> out_cols() const = 0;
  // The reference's answer for one row; throws FieldError for a bad input field.
  virtual void compute(const std::vector<std::string_view>& in, std::vector<std::string>& out) const = 0;
  // "C2 rne tie": the clause and the case, for mismatch messages.
  virtual std::string tag(const std::vector<std::string_view>& in) const = 0;
  // Where two values of output column `oc` first differ (code index `idx`,
  // -1 for a scalar), for mismatch messages; "" when nothing to add.
  virtual std::string detail(const std::vector<std::string_view>& in, int oc, std::int64_t idx) const {
    (void)in, (void)oc, (void)idx;
    return "";
  }
  // Hex digits per code in output column oc (to locate the first difference);
  // 0 when the column is one scalar.
  virtual int code_digits(int oc) const {
    (void)oc;
    return 0;
  }
};

std::unique_ptr<Kind> make_kind(std::string_view name);  // throws mx::UnknownName
std::vector<std::string> kind_names();

// All columns of a kind in file order.
std::vector<std::string> all_columns(const Kind& k);

// Header text (every '#' line and the column line, each ending in '\n').
std::string header_text(const Kind& k, const Params& params, int level, std::uint64_t seed);

// One generated file.
struct VecFile {
  std::string relpath;  // e.g. "convert/e4m3_from_fp32.csv"
  std::string content;
  std::int64_t rows = 0;
  std::string kind;
};

// Builds a file: header, then each input row with the reference's answers.
VecFile build_file(const std::string& relpath, Kind& k, const Params& params, int level,
                   std::uint64_t seed, const std::vector<std::vector<std::string>>& in_rows);

struct GenOptions {
  int level = 1;
  std::uint64_t seed = kDefaultSeed;
  std::vector<std::string> recipes;  // empty: the full set
  std::function<void(const std::string&)> on_file;  // called after each file is built (progress)
};
std::vector<VecFile> generate(const GenOptions& o);

// MANIFEST text: "sha256  relpath\n" per file, sorted by path (sha256sum -c compatible).
std::string manifest_text(const std::vector<VecFile>& files);

struct CheckOptions {
  std::int64_t max_errors = 20;  // mismatch lines printed per file (all are counted)
  bool require_all = false;      // an unfilled observed field is an error
};
struct CheckResult {
  std::string file, kind;
  std::int64_t rows = 0, filled = 0, unfilled = 0, mismatches = 0, bad_expected = 0;
  bool ok() const { return mismatches == 0 && bad_expected == 0; }
};
// Checks one file's content (`name` is used in messages). Malformed input
// throws mx::ParseError / mx::UnknownName with "name:line:col: reason".
// Mismatch lines go to `out`.
CheckResult check_content(const std::string& name, std::string_view content, const CheckOptions& o,
                          std::ostream& out);
// The same file with every observed field replaced by the reference's answer
// (for testing a harness, and for the reproducibility gate).
std::string fill_content(const std::string& name, std::string_view content);

// Parses a vector file and calls `row` for each data row. Used by check,
// fill and the fuzzer. Throws like check_content.
struct ParsedHeader {
  std::unique_ptr<Kind> kind;
  Params params;
  int level = 1;
  std::uint64_t seed = 0;
  std::string header;      // canonical header text (equal to the file's)
  std::string header_sha;  // SHA-256 of header
};
void parse_vector_file(const std::string& name, std::string_view content, ParsedHeader* hdr,
                       const std::function<void(unsigned line, const std::vector<std::string_view>& fields)>& row);

std::string row_sha(const std::string& header_sha, const std::vector<std::string_view>& fields,
                    std::size_t n_in, std::size_t n_out);

}  // namespace mxv
