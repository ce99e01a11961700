// bind_vectors.cpp - golden vector files (vectors/README.md) for Python:
// the CLI's own checker and filler (tools/src/check.cpp) called on a file's
// text, so `mxconform.vectors.check` gives the verdicts of `mxconform check`.
#include <pybind11/stl.h>

#include <sstream>

#include "common.hpp"
#include "vecfile.hpp"

namespace mxpy {

void bind_vectors(py::module_& m) {
  m.attr("SPEC_VERSION") = std::string(mxv::kContractVersion);
  m.def(
      "check_content",
      [](const std::string& name, const std::string& content, std::int64_t max_errors, bool require_all) {
        mxv::CheckOptions o;
        o.max_errors = max_errors;
        o.require_all = require_all;
        std::ostringstream out;
        const mxv::CheckResult r = mxv::check_content(name, content, o, out);
        py::dict d;
        d["file"] = r.file;
        d["kind"] = r.kind;
        d["rows"] = r.rows;
        d["filled"] = r.filled;
        d["unfilled"] = r.unfilled;
        d["mismatches"] = r.mismatches;
        d["bad_expected"] = r.bad_expected;
        d["ok"] = r.ok();
        py::list lines;
        std::istringstream in(out.str());
        for (std::string l; std::getline(in, l);) lines.append(l);
        d["messages"] = lines;
        return d;
      },
      py::arg("name"), py::arg("content"), py::arg("max_errors") = 20, py::arg("require_all") = false,
      "mxconform check on one file's text: counts, ok, and the mismatch lines");
  m.def("fill_content", &mxv::fill_content, py::arg("name"), py::arg("content"),
        "the file with every observed field set to the reference's answer (mxconform fill)");
  m.def("kind_names", &mxv::kind_names);
}

}  // namespace mxpy
