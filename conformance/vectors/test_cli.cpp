// test_cli.cpp - the mxconform command line (issue 3): bad input gets a
// one-line error naming file/line/column, exit code 2 and no partial output;
// mismatch reporting; quantize/dequantize/check-tensor round trips through
// .npy, raw files and JSON side files; help, formats, bench/probe without
// kernels.
#include <gtest/gtest.h>

#include <cstring>

#include "common.hpp"
#include "json.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"
#include "npy.hpp"
#include "util.hpp"

namespace {

using mxt::run;
using mxt::src;
using mxt::TempDir;

std::size_t lines_of(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Expects a bad-input failure: exit 2, exactly one line, containing `needle`.
void expect_bad(const mxt::RunResult& r, const std::string& needle, const std::string& what) {
  EXPECT_EQ(r.rc, 2) << what << ": " << r.out;
  EXPECT_EQ(lines_of(r.out), 1u) << what << ": not a one-line error: " << r.out;
  EXPECT_NE(r.out.find(needle), std::string::npos) << what << ": expected '" << needle << "' in: " << r.out;
}

// The checked-in e4m3 convert file with its line `n` (1-based) replaced.
std::string with_line(const std::string& content, int n, const std::string& repl) {
  std::string out;
  std::size_t pos = 0;
  for (int l = 1; pos < content.size(); ++l) {
    const std::size_t nl = content.find('\n', pos);
    out += l == n ? repl : content.substr(pos, nl - pos);
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

const char* kConv = "vectors/convert/e4m3_from_fp32.csv";
constexpr int kRow = 20;  // a data line of kConv

TEST(CliBadInput, TruncatedRow) {
  TempDir t;
  const std::string c = mxt::slurp(src(kConv));
  const std::size_t cut = c.find('\n', c.size() / 2) + 12;  // 12 characters into a row
  mxt::spit(t / "trunc.csv", c.substr(0, cut) + "\n");
  const long line = 1 + std::count(c.begin(), c.begin() + static_cast<long>(cut), '\n');
  expect_bad(run("check " + (t / "trunc.csv")), "trunc.csv:" + std::to_string(line) + ": too few columns", "truncated row");
  // The same file without the final newline.
  mxt::spit(t / "trunc2.csv", c.substr(0, cut));
  expect_bad(run("check " + (t / "trunc2.csv")), "trunc2.csv:" + std::to_string(line) + ": last line has no newline",
             "truncated file");
}

TEST(CliBadInput, NonHexFieldNamesLineAndColumn) {
  TempDir t;
  std::string c = mxt::slurp(src(kConv));
  std::string row = with_line(c, kRow, "zz800000,rne,saturate,nan_canonical,-,0,00000000,7e,,0000000000000000");
  mxt::spit(t / "hex.csv", row);
  expect_bad(run("check " + (t / "hex.csv")), "hex.csv:" + std::to_string(kRow) + ": column 1 (in)", "non-hex field");
  // Uppercase hex is not canonical (a flipped bit 5 turns 'a' into 'A').
  mxt::spit(t / "upper.csv", with_line(c, kRow, "3F800000,rne,saturate,nan_canonical,-,0,00000000,38,,0000000000000000"));
  expect_bad(run("check " + (t / "upper.csv")), "upper.csv:" + std::to_string(kRow) + ": column 1 (in)", "uppercase hex");
}

TEST(CliBadInput, WrongColumnCount) {
  TempDir t;
  const std::string c = mxt::slurp(src(kConv));
  mxt::spit(t / "cols.csv", with_line(c, kRow, "3f800000,rne,saturate,nan_canonical,-,0,00000000,38,,0,extra"));
  expect_bad(run("check " + (t / "cols.csv")), "cols.csv:" + std::to_string(kRow) + ": too many columns", "extra column");
  mxt::spit(t / "cols2.csv", with_line(c, kRow, "3f800000,rne"));
  expect_bad(run("check " + (t / "cols2.csv")), "cols2.csv:" + std::to_string(kRow) + ": too few columns", "missing columns");
}

TEST(CliBadInput, UnknownPolicyInRowAndUnknownRecipe) {
  TempDir t;
  const std::string c = mxt::slurp(src(kConv));
  mxt::spit(t / "pol.csv", with_line(c, kRow, "3f800000,rnx,saturate,nan_canonical,-,0,00000000,38,,0000000000000000"));
  expect_bad(run("check " + (t / "pol.csv")), "pol.csv:" + std::to_string(kRow) + ": column 2 (rounding): unknown rounding 'rnx'",
             "unknown rounding");
  mxt::spit(t / "nan.csv", with_line(c, kRow, "3f800000,rne,saturate,nan_to_zero,-,0,00000000,38,,0000000000000000"));
  expect_bad(run("check " + (t / "nan.csv")), "column 4 (nan)", "NaN policy that does not apply to e4m3");
  // A header naming an unknown recipe.
  std::string q = mxt::slurp(src("vectors/quantize/rowwise/mxfp4_from_fp32.csv"));
  q.replace(q.find("# recipe: mxfp4"), 15, "# recipe: mxfp9");
  mxt::spit(t / "rec.csv", q);
  expect_bad(run("check " + (t / "rec.csv")), "rec.csv:4: unknown recipe 'mxfp9'", "unknown recipe in header");
  // On the command line, with no output left behind.
  mx::TensorView tv;
  mxv::NpyArray a;
  a.dtype = mxv::DType::f4;
  a.shape = {2, 32};
  a.data.assign(2 * 32 * 4, '\0');
  mxt::spit(t / "x.npy", mxv::write_npy(a));
  expect_bad(run("quantize --recipe mxfp9 --in " + (t / "x.npy") + " --out " + (t / "q")), "unknown recipe 'mxfp9'", "cli recipe");
  expect_bad(run("quantize --recipe mxfp8_e4m3:bogus --in " + (t / "x.npy") + " --out " + (t / "q")), "modifier 'bogus'",
             "cli modifier");
  expect_bad(run("quantize --layout nope --in " + (t / "x.npy") + " --out " + (t / "q")), "unknown", "cli layout");
  EXPECT_FALSE(std::filesystem::exists(t / "q.json"));
  EXPECT_FALSE(std::filesystem::exists(t / "q.data.npy"));
}

TEST(CliBadInput, RawShapeThatDoesNotMatchTheFileSize) {
  TempDir t;
  mxt::spit(t / "x.bin", std::string(100, '\0'));
  expect_bad(run("quantize --in " + (t / "x.bin") + " --shape 4x8 --out " + (t / "q")), "needs 128", "raw size mismatch");
  expect_bad(run("quantize --in " + (t / "x.bin") + " --shape 5x5 --in-type bf16 --out " + (t / "q")), "needs 50",
             "raw bf16 size mismatch");
  expect_bad(run("quantize --in " + (t / "x.bin") + " --shape 4xq --out " + (t / "q")), "bad shape", "bad shape text");
  EXPECT_FALSE(std::filesystem::exists(t / "q.json"));
}

std::string npy_with_header(const std::string& dict, std::size_t data_bytes) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xFF);
  out += static_cast<char>(h.size() >> 8);
  return out + h + std::string(data_bytes, '\0');
}

TEST(CliBadInput, NpyDtypeFortranOrderAndSize) {
  TempDir t;
  mxt::spit(t / "f8.npy", npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }", 64));
  expect_bad(run("quantize --in " + (t / "f8.npy") + " --out " + (t / "q")), "unsupported .npy dtype '<f8'", "float64");
  mxt::spit(t / "be.npy", npy_with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 4), }", 32));
  expect_bad(run("quantize --in " + (t / "be.npy") + " --out " + (t / "q")), "unsupported .npy dtype '>f4'", "big endian");
  mxt::spit(t / "fo.npy", npy_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 4), }", 32));
  expect_bad(run("quantize --in " + (t / "fo.npy") + " --out " + (t / "q")), "Fortran-order", "fortran order");
  mxt::spit(t / "sz.npy", npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", 31));
  expect_bad(run("quantize --in " + (t / "sz.npy") + " --out " + (t / "q")), "has 31 bytes but shape", "npy size");
  mxt::spit(t / "junk.npy", "not an npy file");
  expect_bad(run("quantize --in " + (t / "junk.npy") + " --out " + (t / "q")), "not a .npy file", "npy magic");
  EXPECT_FALSE(std::filesystem::exists(t / "q.json"));
}

TEST(CliBadInput, ManifestMismatchAndMalformedManifest) {
  TempDir t;
  std::filesystem::create_directories(t / "v/layout");
  std::filesystem::copy_file(src("vectors/layout/dense.csv"), t / "v/layout/dense.csv");
  mxt::spit(t / "M1", mxv::sha256_hex("something else") + "  layout/dense.csv\n");
  expect_bad(run("verify-manifest --manifest " + (t / "M1") + " --dir " + (t / "v")), "M1:1: manifest mismatch", "bad hash");
  mxt::spit(t / "M2", "xyz  layout/dense.csv\n");
  expect_bad(run("verify-manifest --manifest " + (t / "M2") + " --dir " + (t / "v")), "M2:1:1: expected", "bad line");
  mxt::spit(t / "M3", mxv::sha256_hex(mxt::slurp(t / "v/layout/dense.csv")) + "  layout/missing.csv\n");
  expect_bad(run("verify-manifest --manifest " + (t / "M3") + " --dir " + (t / "v")), "is missing", "missing file");
  // A file in the directory that the manifest does not list.
  mxt::spit(t / "M4", mxv::sha256_hex(mxt::slurp(t / "v/layout/dense.csv")) + "  layout/dense.csv\n");
  EXPECT_EQ(run("verify-manifest --manifest " + (t / "M4") + " --dir " + (t / "v")).rc, 0);
  std::filesystem::copy_file(src("vectors/layout/tcgen05.csv"), t / "v/layout/tcgen05.csv");
  expect_bad(run("verify-manifest --manifest " + (t / "M4") + " --dir " + (t / "v")), "is not listed", "extra file");
}

TEST(CliBadInput, UnwritableOutputLeavesNothingBehind) {
  TempDir t;
  mxt::spit(t / "afile", "x");
  expect_bad(run("gen --out " + (t / "afile/sub")), "cannot create output directory", "gen into a file's child");
  mxv::NpyArray a;
  a.dtype = mxv::DType::f4;
  a.shape = {1, 32};
  a.data.assign(32 * 4, '\0');
  mxt::spit(t / "x.npy", mxv::write_npy(a));
  expect_bad(run("quantize --in " + (t / "x.npy") + " --out " + (t / "nodir/q")), "does not exist", "quantize into a missing dir");
  expect_bad(run("fill " + src(kConv) + " --out " + (t / "nodir/f.csv")), "cannot write", "fill into a missing dir");
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::recursive_directory_iterator(t.path)) ++n;
  EXPECT_EQ(n, 2u) << "only afile and x.npy may exist";
}

TEST(CliBadInput, ZeroByteFiles) {
  TempDir t;
  mxt::spit(t / "e.csv", "");
  mxt::spit(t / "e.npy", "");
  mxt::spit(t / "e.json", "");
  mxt::spit(t / "M", "");
  expect_bad(run("check " + (t / "e.csv")), "e.csv: file is empty (0 bytes)", "empty csv");
  expect_bad(run("quantize --in " + (t / "e.npy") + " --out " + (t / "q")), "empty (0 bytes)", "empty npy");
  expect_bad(run("quantize --in " + (t / "e.npy") + " --shape 2x2 --out " + (t / "q")), "empty (0 bytes)", "empty raw");
  expect_bad(run("dequantize " + (t / "e.json") + " --out " + (t / "y.npy")), "empty (0 bytes)", "empty json");
  expect_bad(run("verify-manifest --manifest " + (t / "M") + " --dir " + t.path), "empty (0 bytes)", "empty manifest");
  expect_bad(run("check-tensor " + (t / "e.npy") + " " + (t / "e.npy")), "empty (0 bytes)", "empty arrays");
}

TEST(CliBadInput, UsageErrorsExit2) {
  EXPECT_EQ(run("").rc, 2);
  EXPECT_EQ(run("frobnicate").rc, 2);
  EXPECT_EQ(run("gen --level 3").rc, 2);
  EXPECT_EQ(run("check").rc, 2);
  EXPECT_EQ(run("check /nonexistent/file.csv").rc, 2);
}

TEST(CliCheck, MismatchLineFormatMaxErrorsAndSummary) {
  TempDir t;
  ASSERT_EQ(run("fill " + src(kConv) + " --out " + (t / "f.csv")).rc, 0);
  std::string c = mxt::slurp(t / "f.csv");
  // Corrupt three observed fields: the rows of 464 (C2 tie to 448).
  int changed = 0;
  std::size_t pos = 0;
  while (changed < 3 && (pos = c.find("\n43e80000,", pos)) != std::string::npos) {
    const std::size_t obs = c.find(",,", pos);
    (void)obs;
    const std::size_t e = c.find('\n', pos + 1);
    // observed is the field before row_sha (17 characters from the end).
    c[e - 18] = c[e - 18] == 'e' ? 'f' : 'e';
    ++changed;
    pos = e;
  }
  mxt::spit(t / "bad.csv", c);
  auto r = run("check " + (t / "bad.csv") + " --max-errors 1");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find(" => 7f, expected: 7e  [C2 rne overflow-boundary tie]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 mismatches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 more error lines not shown"), std::string::npos) << r.out;
  r = run("check " + (t / "f.csv"));
  EXPECT_EQ(r.rc, 0) << r.out;
  // --require-all turns unfilled rows into failures.
  EXPECT_EQ(run("check " + src(kConv)).rc, 0);
  EXPECT_EQ(run("check --require-all " + src(kConv)).rc, 1);
}

mxv::NpyArray test_tensor(std::int64_t m, std::int64_t k) {
  mxv::NpyArray a;
  a.dtype = mxv::DType::f4;
  a.shape = {m, k};
  mxv::Rng rng(7);
  for (std::int64_t i = 0; i < m * k; ++i) {
    std::uint32_t v = (rng.u32() & 0x807FFFFFu) | (static_cast<std::uint32_t>(110 + rng.below(30)) << 23);
    if (i == 5) v = 0x7FC00000u;
    if (i == 40) v = 0;
    char b[4];
    std::memcpy(b, &v, 4);
    a.data.append(b, 4);
  }
  return a;
}

TEST(CliTensor, QuantizeWritesDataScalesAndSideFileEqualToTheReference) {
  TempDir t;
  const auto a = test_tensor(3, 70);
  mxt::spit(t / "x.npy", mxv::write_npy(a));
  auto r = run("quantize --recipe mxfp8_e4m3:rceil --in " + (t / "x.npy") + " --out " + (t / "q"));
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto d = mxv::parse_npy("d", mxt::slurp(t / "q.data.npy"));
  const auto s = mxv::parse_npy("s", mxt::slurp(t / "q.scales.npy"));
  const mxv::JsonDoc doc("j", mxt::slurp(t / "q.json"));
  const mxv::Json& j = doc.root();
  EXPECT_EQ(doc.str(j, "recipe"), "mxfp8_e4m3:rceil");
  EXPECT_EQ(doc.str(doc.at(j, "policies"), "scale_rule"), "rceil");
  EXPECT_EQ(doc.str(doc.at(j, "scales"), "layout"), "dense");
  mx::TensorView v{a.data.data(), mx::InType::f32, 1, 3, 70};
  const auto q = mx::quantize(mx::parse_recipe("mxfp8_e4m3:rceil"), v);
  EXPECT_EQ(d.shape, (std::vector<std::int64_t>{1, 3, 70}));
  EXPECT_TRUE(d.data == std::string(q.data.begin(), q.data.end()));
  EXPECT_TRUE(s.data == std::string(q.scales.begin(), q.scales.end()));
}

TEST(CliTensor, ColwiseTcgen05RawBf16AndCheckTensorAcrossLayouts) {
  TempDir t;
  std::string raw;
  mxv::Rng rng(3);
  for (int i = 0; i < 40 * 6; ++i) {
    const std::uint16_t h = static_cast<std::uint16_t>((rng.u32() & 0x807F) | ((100 + rng.below(40)) << 7));
    raw.append(reinterpret_cast<const char*>(&h), 2);
  }
  mxt::spit(t / "x.bin", raw);
  auto r = run("quantize --recipe mxfp4 --axis colwise --layout tcgen05 --in " + (t / "x.bin") +
               " --shape 40x6 --in-type bf16 --out " + (t / "a"));
  ASSERT_EQ(r.rc, 0) << r.out;
  r = run("quantize --recipe mxfp4 --axis colwise --data-order transposed --layout dense_colwise --packing container8 --in " +
          (t / "x.bin") + " --shape 40x6 --in-type bf16 --out " + (t / "b"));
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto s = mxv::parse_npy("s", mxt::slurp(t / "a.scales.npy"));
  EXPECT_EQ(s.data.size(), 512u) << "tcgen05: ceil(6/128)*128 rows x 1 tile of 4 = 512 bytes (C7)";
  r = run("check-tensor " + (t / "a.json") + " " + (t / "b.json"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("identical"), std::string::npos) << r.out;
}

TEST(CliTensor, CheckTensorNamesFirstDifferenceBlockInputsAndScale) {
  TempDir t;
  mxt::spit(t / "x.npy", mxv::write_npy(test_tensor(4, 64)));
  ASSERT_EQ(run("quantize --recipe mxfp8_e4m3 --in " + (t / "x.npy") + " --out " + (t / "q")).rc, 0);
  auto d = mxv::parse_npy("d", mxt::slurp(t / "q.data.npy"));
  d.data[static_cast<std::size_t>(2 * 64 + 37)] ^= 0x01;  // element [m 2, k 37]
  mxt::spit(t / "mine.data.npy", mxv::write_npy(d));
  std::string j = mxt::slurp(t / "q.json");
  j.replace(j.find("q.data.npy"), 10, "mine.data.npy");
  mxt::spit(t / "mine.json", j);
  const auto r = run("check-tensor " + (t / "q.json") + " " + (t / "mine.json"));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("first difference at [b 0, m 2, k 37]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("block cols 32..63 of row 2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("block inputs (fp32 bits):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 256 element codes"), std::string::npos) << r.out;
}

TEST(CliTensor, DequantizeAndCompareArrays) {
  TempDir t;
  const auto a = test_tensor(2, 48);
  mxt::spit(t / "x.npy", mxv::write_npy(a));
  ASSERT_EQ(run("quantize --recipe nvfp4 --in " + (t / "x.npy") + " --out " + (t / "q")).rc, 0);
  for (const char* ty : {"fp32", "bf16", "fp16"}) {
    const auto r = run("dequantize " + (t / "q.json") + " --out " + (t / (std::string("y_") + ty + ".npy")) + " --out-type " + ty);
    ASSERT_EQ(r.rc, 0) << r.out;
  }
  mx::TensorView v{a.data.data(), mx::InType::f32, 1, 2, 48};
  const auto q = mx::quantize(mx::parse_recipe("nvfp4"), v);
  const auto y = mxv::parse_npy("y", mxt::slurp(t / "y_fp32.npy"));
  const auto ref = mx::dequantize(q, mx::Fmt::fp32);
  EXPECT_TRUE(y.data == std::string(ref.begin(), ref.end()));
  EXPECT_EQ(mxv::parse_npy("b", mxt::slurp(t / "y_bf16.npy")).dtype, mxv::DType::u2);
  EXPECT_EQ(mxv::parse_npy("h", mxt::slurp(t / "y_fp16.npy")).dtype, mxv::DType::f2);
  auto y2 = y;
  y2.data[(1 * 48 + 5) * 4 + 1] ^= 0x10;
  mxt::spit(t / "y2.npy", mxv::write_npy(y2));
  const auto r = run("check-tensor " + (t / "y_fp32.npy") + " " + (t / "y2.npy"));
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("[1, 5]: "), std::string::npos) << r.out;
  EXPECT_EQ(run("check-tensor " + (t / "y_fp32.npy") + " " + (t / "y_fp32.npy")).rc, 0);
}

TEST(CliTensor, RawOutputsRoundTripAndDirectoryCheck) {
  TempDir t;
  const auto a = test_tensor(2, 40);
  mxt::spit(t / "x.bin", a.data);
  ASSERT_EQ(run("quantize --recipe mxfp6_e3m2 --in " + (t / "x.bin") + " --shape 2x40 --out-format raw --out " + (t / "r")).rc, 0);
  ASSERT_EQ(run("quantize --recipe mxfp6_e3m2 --in " + (t / "x.bin") + " --shape 2x40 --out " + (t / "n")).rc, 0);
  EXPECT_EQ(mxt::slurp(t / "r.data.bin"), mxv::parse_npy("n", mxt::slurp(t / "n.data.npy")).data);
  EXPECT_EQ(mxt::slurp(t / "r.data.bin").size(), 2u * 30u) << "40 fp6 codes pack into 30 bytes per row (C6)";
  EXPECT_EQ(run("check-tensor " + (t / "n.json") + " " + (t / "r.json")).rc, 0);
  ASSERT_EQ(run("dequantize " + (t / "r.json") + " --out-format raw --out " + (t / "y.bin")).rc, 0);
  ASSERT_EQ(run("dequantize " + (t / "n.json") + " --out " + (t / "y.npy")).rc, 0);
  EXPECT_EQ(mxt::slurp(t / "y.bin"), mxv::parse_npy("y", mxt::slurp(t / "y.npy")).data);
  // A raw data file of the wrong size is refused.
  mxt::spit(t / "r.data.bin", std::string(59, '\0'));
  expect_bad(run("dequantize " + (t / "r.json") + " --out " + (t / "z.npy")), "has 59 bytes", "raw data size");
  EXPECT_FALSE(std::filesystem::exists(t / "z.npy"));
  // check DIR checks every .csv below it.
  std::filesystem::create_directories(t / "v/pack");
  std::filesystem::copy_file(src("vectors/pack/e2m1_packed.csv"), t / "v/pack/e2m1_packed.csv");
  std::filesystem::copy_file(src("vectors/pack/e3m2_packed.csv"), t / "v/pack/e3m2_packed.csv");
  const auto c = run("check " + (t / "v"));
  EXPECT_EQ(c.rc, 0) << c.out;
  EXPECT_NE(c.out.find("check: 2 files"), std::string::npos) << c.out;
}

TEST(CliNpy, VersionTwoHeaderAndRoundTrip) {
  mxv::NpyArray a;
  a.dtype = mxv::DType::u2;
  a.shape = {3};
  a.data = std::string("\x01\x00\x02\x00\x03\x00", 6);
  const std::string v1 = mxv::write_npy(a);
  EXPECT_EQ(v1.size() % 64, 6u);  // header padded to 64, then 6 data bytes
  const auto b = mxv::parse_npy("v1", v1);
  EXPECT_EQ(b.shape, a.shape);
  EXPECT_EQ(b.data, a.data);
  // Version 2.0: a 4-byte header length.
  const std::string dict = "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }\n";
  std::string v2("\x93NUMPY\x02\x00", 8);
  const auto n = static_cast<std::uint32_t>(dict.size());
  v2.append(reinterpret_cast<const char*>(&n), 4);
  v2 += dict + a.data;
  EXPECT_EQ(mxv::parse_npy("v2", v2).data, a.data);
}

TEST(CliMisc, HelpFormatsAndKernelOnlySubcommands) {
  auto r = run("--help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("Typical session"), std::string::npos) << r.out;
  r = run("gen --help");
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("Examples:"), std::string::npos) << r.out;
  r = run("formats");
  EXPECT_EQ(r.rc, 0);
  for (const char* s : {"e4m3", "ue8m0", "nvfp4:torchao", "mxfp8_e4m3:rceil", "tcgen05", "C7", "nonfinite_block_ignore", "C9"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << " missing from formats:\n" << r.out;
  }
#if !defined(MX_HAVE_KERNELS)
  expect_bad(run("bench --size 1"), "built without CUDA kernels", "bench");
  expect_bad(run("probe"), "built without CUDA kernels", "probe");
  TempDir t;
  mxv::NpyArray a;
  a.dtype = mxv::DType::f4;
  a.shape = {1, 32};
  a.data.assign(128, '\0');
  mxt::spit(t / "x.npy", mxv::write_npy(a));
  expect_bad(run("quantize --device cuda --in " + (t / "x.npy") + " --out " + (t / "q")), "built without CUDA kernels",
             "quantize --device cuda");
  ASSERT_EQ(run("quantize --in " + (t / "x.npy") + " --out " + (t / "q")).rc, 0);
  expect_bad(run("dequantize " + (t / "q.json") + " --device cuda --out " + (t / "y.npy")), "built without CUDA kernels",
             "dequantize --device cuda");
  EXPECT_FALSE(std::filesystem::exists(t / "y.npy"));
#endif
}

}  // namespace
