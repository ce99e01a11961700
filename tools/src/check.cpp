// check.cpp - `mxconform check`: verify a vector file that another
// implementation filled in. Every row's answer is recomputed with libmxref:
// the observed columns are compared with the reference's answer (not with the
// expected column alone), and a row whose expected column disagrees with the
// reference, or whose row_sha does not match its fields, is reported too.
#include <sstream>

#include "mx/error.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace mxv {
namespace {

std::string clip(std::string_view s, std::size_t n = 48) {
  return s.size() <= n ? std::string(s) : std::string(s.substr(0, n)) + "...(" + std::to_string(s.size()) + " chars)";
}

std::string inputs_text(const std::vector<std::string_view>& f, std::size_t n_in) {
  std::string s;
  for (std::size_t i = 0; i < n_in; ++i) s += (i ? " " : "") + clip(f[i]);
  return s;
}

}  // namespace

CheckResult check_content(const std::string& name, std::string_view content, const CheckOptions& o, std::ostream& out) {
  CheckResult res;
  res.file = name;
  ParsedHeader h;
  std::int64_t printed = 0;
  std::vector<std::string> want;
  const auto report = [&](const std::string& line) {
    if (printed++ < o.max_errors) out << line << "\n";
  };
  parse_vector_file(name, content, &h, [&](unsigned line, const std::vector<std::string_view>& f) {
    const Kind& k = *h.kind;
    const std::size_t n_in = k.in_cols().size(), n_out = k.out_cols().size();
    const auto cols = all_columns(k);
    const std::string where = name + ":" + std::to_string(line);
    ++res.rows;
    want.assign(n_out, "");
    try {
      k.compute(f, want);
    } catch (const FieldError& e) {
      throw mx::ParseError(where + ": column " + std::to_string(e.col + 1) + " (" + cols[static_cast<std::size_t>(e.col)] +
                           "): " + e.msg);
    } catch (const mx::Error& e) {
      throw mx::ParseError(where + ": " + e.what());
    }
    if (row_sha(h.header_sha, f, n_in, n_out) != f[n_in + 2 * n_out]) {
      ++res.bad_expected;
      report(where + ": row_sha " + clip(f[n_in + 2 * n_out]) +
             " does not match the row's inputs and expected fields (edited or corrupted row): " + inputs_text(f, n_in));
    }
    bool filled_any = false, unfilled_any = false;
    for (std::size_t j = 0; j < n_out; ++j) {
      const std::string_view exp = f[n_in + j], obs = f[n_in + n_out + j];
      const std::string cname = k.out_cols()[j].empty() ? "" : " " + k.out_cols()[j];
      const auto first_diff = [&](std::string_view a) -> std::string {
        const int dg = k.code_digits(static_cast<int>(j));
        if (dg == 0) return "";
        std::size_t i = 0;
        while (i < a.size() && i < want[j].size() && a[i] == want[j][i]) ++i;
        const auto idx = static_cast<std::int64_t>(i) / dg;
        const std::string at = "code " + std::to_string(idx) + ": " +
                               clip(a.substr(std::min(a.size(), static_cast<std::size_t>(idx * dg)), static_cast<std::size_t>(dg))) +
                               " vs " + want[j].substr(std::min(want[j].size(), static_cast<std::size_t>(idx * dg)), static_cast<std::size_t>(dg));
        const std::string d = k.detail(f, static_cast<int>(j), idx);
        return " (first difference at " + at + (d.empty() ? "" : "; " + d) + ")";
      };
      if (exp != want[j]) {
        ++res.bad_expected;
        report(where + ": expected" + cname + " column disagrees with the reference: " + inputs_text(f, n_in) +
               " => file says " + clip(exp) + ", reference: " + clip(want[j]) + first_diff(exp) + "  [" + k.tag(f) + "]");
      }
      if (obs.empty()) {
        unfilled_any = true;
        continue;
      }
      filled_any = true;
      // Observed fields must be canonical (same width, lowercase hex) to be
      // compared byte for byte; anything else is a mismatch, shown as is.
      if (obs != want[j]) {
        ++res.mismatches;
        report(where + ":" + cname + (cname.empty() ? "" : ": ") + inputs_text(f, n_in) + " => " + clip(obs) +
               ", expected: " + clip(want[j]) + first_diff(obs) + "  [" + k.tag(f) + "]");
      }
    }
    if (filled_any) ++res.filled;
    if (unfilled_any) {
      ++res.unfilled;
      if (o.require_all && !filled_any) {
        ++res.mismatches;
        report(where + ": observed column is empty (--require-all)");
      }
    }
  });
  res.kind = std::string(h.kind->name());
  if (printed > o.max_errors) out << name << ": ... " << (printed - o.max_errors) << " more error lines not shown (--max-errors)\n";
  return res;
}

std::string fill_content(const std::string& name, std::string_view content) {
  ParsedHeader h;
  std::vector<std::string> rows;
  std::vector<std::string> want;
  parse_vector_file(name, content, &h, [&](unsigned line, const std::vector<std::string_view>& f) {
    const Kind& k = *h.kind;
    const std::size_t n_in = k.in_cols().size(), n_out = k.out_cols().size();
    want.assign(n_out, "");
    try {
      k.compute(f, want);
    } catch (const FieldError& e) {
      throw mx::ParseError(name + ":" + std::to_string(line) + ": column " + std::to_string(e.col + 1) + ": " + e.msg);
    }
    std::string r;
    for (std::size_t i = 0; i < n_in + n_out; ++i) r += std::string(f[i]) + ",";
    for (std::size_t j = 0; j < n_out; ++j) r += want[j] + ",";
    r += std::string(f[n_in + 2 * n_out]) + "\n";
    rows.push_back(std::move(r));
  });
  // Keep the header bytes (including '##' notes) as they are.
  std::size_t pos = 0;
  for (;;) {
    const std::size_t nl = content.find('\n', pos);
    const std::string_view l = content.substr(pos, nl - pos);
    pos = nl + 1;
    if (l.empty() || l[0] != '#') break;
  }
  std::string s(content.substr(0, pos));
  for (const auto& r : rows) s += r;
  return s;
}

}  // namespace mxv
