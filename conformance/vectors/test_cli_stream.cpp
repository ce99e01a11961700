// test_cli_stream.cpp - issue 15 (label cpu): the command line on large
// tensors. Quantize and dequantize run in row chunks on several threads
// (forced tiny chunks here), and the files they write equal, byte for byte,
// the reference library's one-shot mx::quantize / mx::dequantize for every
// axis, data order, scale layout and packing (C4, C6, C7, C8); the side
// file's JSON errors name FILE:LINE:COLUMN; the progress line appears on a
// terminal and nowhere else.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstring>

#include "common.hpp"
#include "json.hpp"
#include "mx/quantize.hpp"
#include "mx/recipe.hpp"
#include "npy.hpp"
#include "util.hpp"

namespace {

using mxt::run;
using mxt::TempDir;

// Random fp32 (or bf16) bits with zeros, NaN and Inf mixed in.
std::string tensor_bytes(std::int64_t n, bool bf16, std::uint64_t seed) {
  std::string raw;
  mxv::Rng rng(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t v = (rng.u32() & 0x807FFFFFu) | (static_cast<std::uint32_t>(100 + rng.below(50)) << 23);
    if (i % 997 == 0) v = 0;
    if (i % 1999 == 5) v = 0x7FC00000u;
    if (i % 3001 == 7) v = 0xFF800000u;
    if (bf16) {
      const auto h = static_cast<std::uint16_t>(v >> 16);
      raw.append(reinterpret_cast<const char*>(&h), 2);
    } else {
      raw.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return raw;
}

struct ChunkEnv {
  ChunkEnv() {
    setenv("MXCONFORM_CHUNK_BYTES", "3000", 1);  // a few rows per chunk: many chunks
    setenv("MXCONFORM_THREADS", "3", 1);
  }
  ~ChunkEnv() {
    unsetenv("MXCONFORM_CHUNK_BYTES");
    unsetenv("MXCONFORM_THREADS");
  }
};

std::string bytes_of(const std::vector<std::uint8_t>& v) { return std::string(v.begin(), v.end()); }

TEST(CliStream, ChunkedThreadedQuantizeAndDequantizeEqualTheOneShotReference) {
  TempDir t;
  ChunkEnv env;
  const std::int64_t B = 2, M = 200, K = 136;
  int combos = 0;
  for (const bool bf16 : {false, true}) {
    const std::string raw = tensor_bytes(B * M * K, bf16, bf16 ? 5 : 6);
    mxt::spit(t / "x.bin", raw);
    const mx::TensorView v{raw.data(), bf16 ? mx::InType::bf16 : mx::InType::f32, B, M, K};
    for (const char* r : {"mxfp8_e4m3", "mxfp6_e3m2", "mxfp4:rceil", "mxint8", "nvfp4"}) {
      for (const char* ax : {"rowwise", "colwise", "colwise:transposed"}) {
        for (const char* lay : {"dense", "dense_colwise", "tcgen05"}) {
          for (const char* pk : {"packed", "container8"}) {
            const std::string axis = std::string(ax).substr(0, 7);
            const bool tr = std::strchr(ax, ':') != nullptr;
            if (axis == "rowwise" && std::string(lay) == "dense_colwise") continue;
            if (std::string(pk) == "container8" && (std::string(r) == "mxfp8_e4m3" || std::string(r) == "mxint8")) continue;
            mx::QuantizeOptions o;
            o.axis = mx::parse_axis(axis);
            o.data_order = tr ? mx::DataOrder::transposed : mx::DataOrder::source;
            o.scale_layout = mx::parse_scale_layout(lay);
            o.packing = mx::parse_packing(pk);
            const auto q = mx::quantize(mx::parse_recipe(r), v, o);
            const std::string what = std::string(r) + " " + ax + " " + lay + " " + pk + (bf16 ? " bf16" : " fp32");
            const auto c = run(std::string("quantize --recipe ") + r + " --axis " + axis + (tr ? " --data-order transposed" : "") +
                               " --layout " + lay + " --packing " + pk + " --in " + (t / "x.bin") + " --shape 2x200x136" +
                               (bf16 ? " --in-type bf16" : "") + " --out " + (t / "q"));
            ASSERT_EQ(c.rc, 0) << what << ": " << c.out;
            EXPECT_TRUE(mxv::parse_npy("d", mxt::slurp(t / "q.data.npy")).data == bytes_of(q.data)) << what << ": data";
            EXPECT_TRUE(mxv::parse_npy("s", mxt::slurp(t / "q.scales.npy")).data == bytes_of(q.scales)) << what << ": scales";
            const char* ty = combos % 3 == 0 ? "fp32" : (combos % 3 == 1 ? "bf16" : "fp16");
            const auto d = run("dequantize " + (t / "q.json") + " --out-type " + ty + " --out " + (t / "y.npy"));
            ASSERT_EQ(d.rc, 0) << what << ": " << d.out;
            EXPECT_TRUE(mxv::parse_npy("y", mxt::slurp(t / "y.npy")).data == bytes_of(mx::dequantize(q, mx::parse_format(ty))))
                << what << ": dequantize to " << ty;
            ++combos;
          }
        }
      }
    }
  }
  // Per input type: 8 axis/layout pairs; fp8 and int8 packed only, fp6, fp4, nvfp4 both packings.
  EXPECT_EQ(combos, 2 * (2 * 8 + 3 * 8 * 2));
}

TEST(CliStream, JsonSyntaxErrorsNameFileLineAndColumn) {
  TempDir t;
  mxt::spit(t / "x.bin", tensor_bytes(64, false, 1));
  ASSERT_EQ(run("quantize --in " + (t / "x.bin") + " --shape 2x32 --out " + (t / "q")).rc, 0);
  std::string j = mxt::slurp(t / "q.json");
  // Line 4 is '  "recipe": "mxfp8_e4m3",': without its ':' the parser stops at the
  // end of the unexpected string, column 24 (the last byte it read).
  const std::size_t at = j.find("\"recipe\":");
  ASSERT_NE(at, std::string::npos);
  mxt::spit(t / "bad.json", j.substr(0, at + 8) + " " + j.substr(at + 9));
  auto r = run("dequantize " + (t / "bad.json") + " --out " + (t / "y.npy"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("bad.json:4:24: bad JSON: syntax error"), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  mxt::spit(t / "cut.json", j.substr(0, j.size() / 2));
  r = run("dequantize " + (t / "cut.json") + " --out " + (t / "y.npy"));
  const auto [line, col] = mxv::line_column(j, j.size() / 2);
  EXPECT_NE(r.out.find("cut.json:" + std::to_string(line) + ":"), std::string::npos) << r.out;
  (void)col;
  mxt::spit(t / "n.json", "{\n  \"recipe\": 7\n}\n");
  r = run("dequantize " + (t / "n.json") + " --out " + (t / "y.npy"));
  EXPECT_NE(r.out.find("n.json:2:13: JSON key 'recipe' must be a string"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t / "y.npy"));
  // Line/column arithmetic.
  EXPECT_EQ(mxv::line_column("ab\ncd", 4), (std::pair<std::int64_t, std::int64_t>{2, 2}));
  EXPECT_EQ(mxv::line_column("ab\ncd", 0), (std::pair<std::int64_t, std::int64_t>{1, 1}));
}

TEST(CliStream, ProgressLineOnATerminalOnly) {
  TempDir t;
  mxt::spit(t / "x.bin", tensor_bytes(64 * 256, false, 2));
  const std::string args = " quantize --in " + (t / "x.bin") + " --shape 64x256 --out " + (t / "q");
  setenv("MXCONFORM_PROGRESS_AFTER_MS", "0", 1);
  // No terminal: stderr is the pipe of popen.
  const auto plain = run(args);
  EXPECT_EQ(plain.rc, 0) << plain.out;
  EXPECT_EQ(plain.out.find("mxconform quantize:"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find('\r'), std::string::npos) << plain.out;
  // A pseudo-terminal from script(1): the line appears, ending at 100%.
  const std::string cmd = "script -qec '" + mxt::exe() + args + "' /dev/null 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  unsetenv("MXCONFORM_PROGRESS_AFTER_MS");
  EXPECT_NE(out.find("\rmxconform quantize: 100% (65536/65536 bytes"), std::string::npos) << out;
}

}  // namespace
