// test_cli_gpu.cpp - `mxconform quantize --device cuda` (label gpu): the
// kernel library's bytes, read back through the CLI's .npy/JSON files, equal
// the reference's for several recipes, axes and the tcgen05 layout
// (CONTRACT C4, C5, C7). Skipped with the reason when no GPU is usable.
#include <gtest/gtest.h>

#include <cstring>

#include "common.hpp"
#include "mxk/api.hpp"
#include "npy.hpp"
#include "util.hpp"

namespace {

TEST(CliGpu, QuantizeDeviceCudaEqualsReference) {
  std::string why;
  if (!mxk::device_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  mxt::TempDir t;
  std::string raw;
  mxv::Rng rng(11);
  for (int i = 0; i < 200 * 136; ++i) {
    std::uint32_t v = (rng.u32() & 0x807FFFFFu) | (static_cast<std::uint32_t>(100 + rng.below(50)) << 23);
    if (i % 997 == 0) v = 0;
    raw.append(reinterpret_cast<const char*>(&v), 4);
  }
  mxt::spit(t / "x.bin", raw);
  for (const char* r : {"mxfp8_e4m3", "mxfp8_e4m3:rceil", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp4", "mxint8", "nvfp4"}) {
    for (const char* ax : {"rowwise", "colwise"}) {
      const std::string common = std::string("quantize --recipe ") + r + " --axis " + ax + " --layout tcgen05 --in " +
                                 (t / "x.bin") + " --shape 200x136 ";
      auto c = mxt::run(common + "--out " + (t / "c"));
      ASSERT_EQ(c.rc, 0) << c.out;
      auto g = mxt::run(common + "--device cuda --out " + (t / "g"));
      ASSERT_EQ(g.rc, 0) << r << " " << ax << ": " << g.out;
      auto k = mxt::run("check-tensor " + (t / "c.json") + " " + (t / "g.json"));
      EXPECT_EQ(k.rc, 0) << r << " " << ax << ": GPU bytes differ from the reference:\n" << k.out;
    }
  }
}

}  // namespace
