// fuzz_readers.cpp - libFuzzer target for the readers of untrusted files
// (issue 3): golden-vector CSV (check and fill), .npy and the JSON side file.
// The first byte picks the reader; the rest is the file. A reader may only
// return or throw mx::Error (a typed, one-line error); anything else (a crash,
// a sanitizer report, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "json.hpp"
#include "mx/error.hpp"
#include "npy.hpp"
#include "vecfile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        std::ostringstream out;
        mxv::CheckOptions o;
        o.max_errors = 3;
        (void)mxv::check_content("fuzz.csv", body, o, out);
        (void)mxv::fill_content("fuzz.csv", body);
        break;
      }
      case 1: (void)mxv::parse_npy("fuzz.npy", body); break;
      default: {  // the parse and the position scan (JsonDoc), and a lookup
        const mxv::JsonDoc d("fuzz.json", body);
        (void)d.where(d.root());
        if (d.root().is_object()) (void)d.where(d.at(d.root(), "recipe"));
        break;
      }
    }
  } catch (const mx::Error&) {
  }
  return 0;
}
