// test_vectors.cpp - the reproducibility gate for vectors/ (issue 3) and the
// checker's power to find a single flipped bit.
//   - regenerating level 1 gives the checked-in bytes and MANIFEST exactly;
//   - every checked-in file, filled with the reference's answers, passes;
//   - one flipped bit anywhere in a file (filled or not) fails, naming the line;
//   - rows whose expected values come from reference/SPEC.md by hand (C2, C3, C6,
//     C7, C8 worked cases) are present with those values.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "common.hpp"
#include "mx/error.hpp"
#include "util.hpp"
#include "vecfile.hpp"

namespace {

using mxt::src;

TEST(VectorsRepro, RegeneratedLevel1EqualsCheckedInBytesAndManifest) {
  const auto files = mxv::generate(mxv::GenOptions{});
  std::set<std::string> generated;
  for (const auto& f : files) {
    generated.insert(f.relpath);
    const std::string have = mxt::slurp(src("vectors/" + f.relpath));
    EXPECT_TRUE(have == f.content) << "vectors/" << f.relpath
                                   << " differs from what `mxconform gen` writes now (" << have.size() << " vs "
                                   << f.content.size() << " bytes): run tools/regen-vectors.sh and commit";
  }
  const auto in_repo = mxt::checked_in_csv();
  EXPECT_EQ(std::set<std::string>(in_repo.begin(), in_repo.end()), generated)
      << "the set of checked-in vector files differs from the generated set";
  EXPECT_EQ(mxt::slurp(src("vectors/MANIFEST")), mxv::manifest_text(files)) << "vectors/MANIFEST is stale";
}

TEST(VectorsRepro, CliGenIntoFreshDirVerifiesAgainstManifest) {
  mxt::TempDir t;
  auto g = mxt::run("gen --out " + (t / "v"));
  ASSERT_EQ(g.rc, 0) << g.out;
  EXPECT_NE(g.out.find("convert:"), std::string::npos) << g.out;
  auto v = mxt::run("verify-manifest --manifest " + src("vectors/MANIFEST") + " --dir " + (t / "v"));
  EXPECT_EQ(v.rc, 0) << v.out;
  EXPECT_NE(v.out.find("match"), std::string::npos) << v.out;
  // A generated file changed by one byte is a manifest mismatch (exit 2).
  std::string c = mxt::slurp(t / "v/layout/dense.csv");
  c[c.size() - 2] = c[c.size() - 2] == '0' ? '1' : '0';
  mxt::spit(t / "v/layout/dense.csv", c);
  v = mxt::run("verify-manifest --manifest " + src("vectors/MANIFEST") + " --dir " + (t / "v"));
  EXPECT_EQ(v.rc, 2) << v.out;
  EXPECT_NE(v.out.find("manifest mismatch"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("layout/dense.csv"), std::string::npos) << v.out;
}

TEST(VectorsRepro, SameSeedSameBytesOtherSeedOtherBytes) {
  mxv::GenOptions a, b;
  b.seed = 12345;
  const auto fa = mxv::generate(a), fb = mxv::generate(b);
  ASSERT_EQ(fa.size(), fb.size());
  EXPECT_NE(mxv::manifest_text(fa), mxv::manifest_text(fb));
  EXPECT_EQ(mxv::manifest_text(fa), mxv::manifest_text(mxv::generate(a)));
}

TEST(VectorsCheck, EveryCheckedInFileFilledWithReferencePasses) {
  std::int64_t total = 0;
  for (const auto& rel : mxt::checked_in_csv()) {
    const std::string c = mxt::slurp(src("vectors/" + rel));
    std::ostringstream out;
    const auto r0 = mxv::check_content(rel, c, {}, out);
    EXPECT_TRUE(r0.ok()) << rel << " (unfilled): " << out.str();
    EXPECT_EQ(r0.filled, 0) << rel;
    const std::string filled = mxv::fill_content(rel, c);
    const auto r = mxv::check_content(rel, filled, {}, out);
    EXPECT_TRUE(r.ok()) << rel << ": " << out.str();
    EXPECT_GT(r.rows, 0) << rel;
    EXPECT_EQ(r.filled, r.rows) << rel;
    total += r.rows;
  }
  EXPECT_GT(total, 100000);
}

// Line numbers named as "name:N" in a message.
std::set<long> named_lines(const std::string& name, const std::string& msg) {
  std::set<long> s;
  const std::regex re(std::regex_replace(name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"(:(\d+))");
  for (std::sregex_iterator it(msg.begin(), msg.end(), re), end; it != end; ++it) s.insert(std::stol((*it)[1]));
  return s;
}

// Flips one bit at `pos` and expects check to fail naming line of `pos` (for a
// data row) or a header line (for a flip in the header).
void expect_flip_found(const std::string& rel, const std::string& content, std::size_t pos, int bit) {
  std::string c = content;
  c[pos] = static_cast<char>(c[pos] ^ (1 << bit));
  const long line = 1 + static_cast<long>(std::count(content.begin(), content.begin() + static_cast<long>(pos), '\n'));
  long header_end = 0;  // line number of the column line
  {
    std::istringstream in(content);
    std::string l;
    while (std::getline(in, l)) {
      ++header_end;
      if (l.empty() || l[0] != '#') break;
    }
  }
  std::ostringstream out;
  std::string msg;
  bool failed = false;
  try {
    const auto r = mxv::check_content(rel, c, {}, out);
    failed = !r.ok();
    msg = out.str();
  } catch (const mx::Error& e) {
    failed = true;
    msg = e.what();
  }
  const std::string what = rel + " byte " + std::to_string(pos) + " (line " + std::to_string(line) + ") 0x" +
                           mxv::hex(static_cast<unsigned char>(content[pos]), 2) + " -> 0x" +
                           mxv::hex(static_cast<unsigned char>(c[pos]), 2);
  ASSERT_TRUE(failed) << "flipped bit not found: " << what;
  const auto lines = named_lines(rel, msg);
  if (line > header_end) {
    EXPECT_TRUE(lines.count(line)) << "message does not name line " << line << ": " << what << "\n" << msg;
  } else {
    bool in_header = false;
    for (long l : lines) in_header |= l >= 1 && l <= header_end;
    EXPECT_TRUE(in_header) << "message does not name a header line: " << what << "\n" << msg;
  }
}

TEST(VectorsCheck, OneFlippedBitAnywhereInAnyFileIsFoundAndTheLineNamed) {
  mxv::Rng rng(0xF11Bu);
  for (const auto& rel : mxt::checked_in_csv()) {
    const std::string orig = mxt::slurp(src("vectors/" + rel));
    const std::string filled = mxv::fill_content(rel, orig);
    // Random positions in the filled file, and a few in the unfilled one.
    for (int i = 0; i < 12; ++i) {
      expect_flip_found(rel, filled, static_cast<std::size_t>(rng.below(filled.size())), static_cast<int>(rng.below(8)));
    }
    for (int i = 0; i < 3; ++i) {
      expect_flip_found(rel, orig, static_cast<std::size_t>(rng.below(orig.size())), static_cast<int>(rng.below(8)));
    }
    // The header's first 600 bytes, the final newline, and an observed field.
    expect_flip_found(rel, filled, static_cast<std::size_t>(rng.below(std::min<std::size_t>(600, filled.size()))), 0);
    expect_flip_found(rel, filled, filled.size() - 1, 1);
    expect_flip_found(rel, filled, filled.size() - 19, 0);  // last character of the last observed field
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Every bit of every byte, in kFlipShards interleaved shards (byte pos goes to
// shard pos % kFlipShards) so that ctest -j spreads the ~30k checks over cores
// (one test took ~280 s under ASan on CI's 2 cores).
constexpr int kFlipShards = 4;
class VectorsCheckShard : public ::testing::TestWithParam<int> {};
TEST_P(VectorsCheckShard, EveryBitOfOneFilledFileFlippedIsFound) {
  const std::string rel = "pack/e2m1_packed.csv";
  const std::string filled = mxv::fill_content(rel, mxt::slurp(src("vectors/" + rel)));
  ASSERT_GT(filled.size(), static_cast<std::size_t>(kFlipShards));
  for (std::size_t pos = static_cast<std::size_t>(GetParam()); pos < filled.size(); pos += kFlipShards) {
    for (int bit = 0; bit < 8; ++bit) {
      expect_flip_found(rel, filled, pos, bit);
      if (::testing::Test::HasFailure()) return;
    }
  }
}
INSTANTIATE_TEST_SUITE_P(VectorsCheck, VectorsCheckShard, ::testing::Range(0, kFlipShards));

// Looks up the row whose leading input fields are `prefix` and returns its
// expected fields joined by ','.
std::string expected_of(const std::string& rel, const std::string& prefix) {
  const std::string c = mxt::slurp(src("vectors/" + rel));
  mxv::ParsedHeader h;
  std::string found;
  mxv::parse_vector_file(rel, c, &h, [&](unsigned, const std::vector<std::string_view>& f) {
    const std::size_t n_in = h.kind->in_cols().size(), n_out = h.kind->out_cols().size();
    std::string key;
    for (std::size_t i = 0; i < n_in; ++i) key += (i ? "," : "") + std::string(f[i]);
    if (key.compare(0, prefix.size(), prefix) != 0 || !found.empty()) return;
    for (std::size_t j = 0; j < n_out; ++j) found += (j ? "," : "") + std::string(f[n_in + j]);
  });
  return found;
}

struct HandRow {
  const char* file;
  const char* inputs;
  const char* expected;
  const char* why;
};

// Expected values written by hand from reference/SPEC.md, not from the reference.
const HandRow kHand[] = {
    {"convert/e4m3_from_fp32.csv", "43e80000,rne,saturate,nan_canonical,-,0,00000000", "7e", "C2: e4m3 464 ties to even 448"},
    {"convert/e4m3_from_fp32.csv", "43e80000,rne,propagate,nan_canonical,-,0,00000000", "7e", "C2: 464 rounds to 448, no overflow"},
    {"convert/e4m3_from_fp32.csv", "43f00000,rne,propagate,nan_canonical,-,0,00000000", "7f", "C2: 480 overflows, propagate gives NaN"},
    {"convert/e4m3_from_fp32.csv", "43f00000,rne,saturate,nan_canonical,-,0,00000000", "7e", "C2: 480 saturates to 448"},
    {"convert/e4m3_from_fp32.csv", "43fa0000,rtz,propagate,nan_canonical,-,0,00000000", "7e", "C2: rtz overflow gives max finite"},
    {"convert/e4m3_from_fp32.csv", "7fc00000,rne,saturate,nan_canonical,-,0,00000000", "7f", "C2: NaN -> 0x7F"},
    {"convert/e4m3_from_fp32.csv", "ffc00000,rne,saturate,nan_canonical,-,0,00000000", "7f", "C2: nan_canonical drops the sign"},
    {"convert/e4m3_from_fp32.csv", "ffc00000,rne,saturate,nan_keep_sign,-,0,00000000", "ff", "C2: nan_keep_sign e4m3 0x7F|sign"},
    {"convert/e4m3_from_fp32.csv", "80000000,rne,saturate,nan_canonical,-,0,00000000", "80", "C2: -0 keeps its sign"},
    {"convert/e4m3_from_fp32.csv", "7f800000,rne,saturate,nan_canonical,-,0,00000000", "7e", "C2: Inf saturates"},
    {"convert/e4m3_from_fp32.csv", "7f800000,rne,propagate,nan_canonical,-,0,00000000", "7f", "C2: Inf propagates to NaN"},
    {"convert/e5m2_from_fp32.csv", "47700000,rne,propagate,nan_canonical,-,0,00000000", "7c", "C2: e5m2 61440 ties up to 65536, overflow Inf"},
    {"convert/e5m2_from_fp32.csv", "47700000,rne,saturate,nan_canonical,-,0,00000000", "7b", "C2: e5m2 61440 saturates"},
    {"convert/e5m2_from_fp32.csv", "ffc00000,rne,saturate,nan_keep_sign,-,0,00000000", "fe", "C2: e5m2 keep-sign NaN 0x7E|sign"},
    {"convert/e2m1_from_fp32.csv", "40e00000,rne,saturate,nan_to_max,-,0,00000000", "07", "C2: e2m1 7 overflows, saturates to 6"},
    {"convert/e2m1_from_fp32.csv", "7fc00000,rne,saturate,nan_to_max,-,0,00000000", "07", "C2: nan_to_max"},
    {"convert/e2m1_from_fp32.csv", "ffc00000,rne,saturate,nan_to_zero,-,0,00000000", "08", "C2: nan_to_zero keeps the sign"},
    {"convert/int8_from_fp32.csv", "c0000000,rne,saturate,nan_to_max,int8_full,0,00000000", "80", "C2: int8 -2 -> -128"},
    {"convert/int8_from_fp32.csv", "c0000000,rne,saturate,nan_to_max,int8_symmetric,0,00000000", "81", "C2: int8_symmetric clamps to -127"},
    {"scale/e4m3.csv", "437f0000,floor", "7e", "C3: 255 floor 126"},
    {"scale/e4m3.csv", "437f0000,ceil", "7f", "C3: 255 ceil 127"},
    {"scale/e4m3.csv", "437f0000,even", "7f", "C3: 255 even 127"},
    {"scale/e4m3.csv", "437f0000,rceil", "7f", "C3: 255 rceil 127"},
    {"scale/e4m3.csv", "43e00000,floor", "7f", "C3: 448 floor 127"},
    {"scale/e4m3.csv", "43e00000,ceil", "80", "C3: 448 ceil 128"},
    {"scale/e4m3.csv", "43e00000,even", "7f", "C3: 448 even 127"},
    {"scale/e4m3.csv", "43e00000,rceil", "7f", "C3: 448 rceil 127"},
    {"scale/e4m3.csv", "43e08000,even", "7f", "C3: 449 even 127"},
    {"scale/e4m3.csv", "43e08000,rceil", "80", "C3: 449 rceil 128"},
    {"scale/e4m3.csv", "43fa0000,floor", "7f", "C3: 500 floor 127"},
    {"scale/e4m3.csv", "43fa0000,even", "80", "C3: 500 even 128"},
    {"scale/e4m3.csv", "43fa0000,rceil", "80", "C3: 500 rceil 128"},
    {"scale/e4m3.csv", "00000000,rceil", "00", "C3: amax 0 -> 0x00"},
    {"scale/e4m3.csv", "7fc00000,floor", "ff", "C3: non-finite block -> 0xFF"},
    {"scale/e4m3.csv", "7f800000,ceil", "ff", "C3: non-finite block -> 0xFF"},
    {"layout/tcgen05.csv", "256,8,1,0,0,1", "2048,1", "C7 worked (0,1)->1"},
    {"layout/tcgen05.csv", "256,8,1,0,1,0", "2048,16", "C7 worked (1,0)->16"},
    {"layout/tcgen05.csv", "256,8,1,0,31,0", "2048,496", "C7 worked (31,0)->496"},
    {"layout/tcgen05.csv", "256,8,1,0,32,0", "2048,4", "C7 worked (32,0)->4"},
    {"layout/tcgen05.csv", "256,8,1,0,127,3", "2048,511", "C7 worked (127,3)->511"},
    {"layout/tcgen05.csv", "256,8,1,0,0,4", "2048,512", "C7 worked (0,4)->512"},
    {"layout/tcgen05.csv", "256,8,1,0,128,0", "2048,1024", "C7 worked (128,0)->1024"},
    {"layout/tcgen05.csv", "256,8,1,0,255,7", "2048,2047", "C7 worked (255,7)->2047"},
    {"layout/tcgen05.csv", "200,6,1,0,199,5", "2048,1657", "C7 padded R=200 K=192: 2048 bytes, (199,5)->1657"},
    {"layout/dense.csv", "256,8,1,0,255,7", "2048,2047", "C7 dense r*blocks+b"},
    {"pack/e2m1_packed.csv", "2,0f0f", "ff", "C6: two e2m1 codes per byte"},
    {"pack/e2m1_packed.csv", "3,0f000f", "0f0f", "C6: element 2i low nibble, odd tail high nibble 0"},
    {"pack/e3m2_packed.csv", "4,3f3f3f3f", "ffffff", "C6: four 6-bit codes fill three bytes"},
    {"pack/e2m1_container8.csv", "1,0f", "3c", "C6: container8 e2m1 in bits 5..2"},
    {"pack/e3m2_container8.csv", "1,3f", "3f", "C6: container8 fp6 in bits 5..0"},
    {"dequant/e4m3.csv", "7f,38", "3f800000,3f80,3c00", "C8: 1.0 * 2^0"},
    {"dequant/e4m3.csv", "ff,38", "7fc00000,7fc0,7e00", "C8: scale 0xFF gives NaN"},
    {"dequant/e4m3.csv", "8f,7e", "4be00000,4be0,7c00", "C8: 448 * 2^16, fp16 overflows to Inf"},
    {"dequant/e4m3.csv", "00,01", "00002000,0000,0000", "C8: 2^-9 * 2^-127 = 2^-136, fp32 subnormal; bf16/fp16 round to 0"},
};

TEST(VectorsContract, HandWrittenRowsFromTheContractArePresent) {
  for (const auto& h : kHand) {
    const std::string got = expected_of(h.file, h.inputs);
    EXPECT_EQ(got, h.expected) << h.file << " row " << h.inputs << ": expected " << h.expected << ", file has '" << got
                               << "'  [" << h.why << "]";
  }
}

// The version line cites the specification in the repository (reference/
// SPEC.md, section "The version line of vector files and side files"), and
// the cited file is there with that version and every clause.
TEST(VectorsHeader, EveryFileCitesReferenceSpecV2AndTheSpecIsThere) {
  const std::string want = "# contract: mxconform reference/SPEC.md v2";
  for (const auto& rel : mxt::checked_in_csv()) {
    std::istringstream in(mxt::slurp(src("vectors/" + rel)));
    std::string l1, l2;
    std::getline(in, l1);
    std::getline(in, l2);
    EXPECT_EQ(l2, want) << "vectors/" << rel << " line 2";
  }
  const std::string spec = mxt::slurp(src("reference/SPEC.md"));
  EXPECT_NE(spec.find("**Version 2**"), std::string::npos) << "reference/SPEC.md does not declare version 2";
  for (int c = 1; c <= 13; ++c) {
    EXPECT_NE(spec.find("\n## C" + std::to_string(c) + ". "), std::string::npos)
        << "reference/SPEC.md has no clause heading C" << c;
  }
}

// A file written for another version of the specification (v1 cited the
// contract outside the repository) is refused with one line that names the
// file, the line, both versions and the way out; never checked as if current.
TEST(VectorsHeader, FileOfAnotherSpecVersionIsRefusedNamingBothVersions) {
  const std::string c = mxt::slurp(src("vectors/convert/e2m1_from_fp32.csv"));
  const std::size_t a = c.find('\n') + 1, b = c.find('\n', a);
  mxt::TempDir t;
  for (const std::string old : {"mxconform CONTRACT.md v1 (C1-C10)", "mxconform reference/SPEC.md v3"}) {
    mxt::spit(t / "old.csv", c.substr(0, a) + "# contract: " + old + c.substr(b));
    const auto r = mxt::run("check " + (t / "old.csv"));
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "not one line: " << r.out;
    for (const std::string& needle : {std::string("old.csv:2: "), "'" + old + "'",
                                      std::string("'mxconform reference/SPEC.md v2'"), std::string("mxconform gen")}) {
      EXPECT_NE(r.out.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.out;
    }
  }
}

TEST(VectorsSize, Level1StaysUnder50MB) {
  std::uintmax_t total = 0;
  for (const auto& rel : mxt::checked_in_csv()) total += std::filesystem::file_size(src("vectors/" + rel));
  EXPECT_LT(total, 50u * 1000u * 1000u) << "level-1 vectors are " << total << " bytes";
  EXPECT_GT(total, 0u);
}

}  // namespace
