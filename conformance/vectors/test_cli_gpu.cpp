// test_cli_gpu.cpp - `mxconform quantize --device cuda` and `dequantize
// --device cuda` (label gpu): the kernel library's bytes, read back through
// the CLI's .npy/JSON files, equal the reference's for several recipes, axes
// and the tcgen05 layout (C4, C5, C7), and, for dequantize, for every recipe,
// axis, data order, layout and packing that quantize --device cuda accepts
// (C8), through the chunked device pipeline (issue 15). Skipped with the
// reason when no GPU is usable.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common.hpp"
#include "mx/error.hpp"
#include "mx/recipe.hpp"
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

// Quantize on the CPU, then dequantize with --device cuda and on the CPU:
// the outputs equal mx::dequantize of the reference's result byte for byte.
// Small forced chunks (MXCONFORM_CHUNK_BYTES) make the pipeline run many
// chunks on both streams; a second pass uses the default chunk size.
TEST(CliGpu, DequantizeDeviceCudaEqualsReference) {
  std::string why;
  if (!mxk::device_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  mxt::TempDir t;
  const std::int64_t B = 2, M = 200, K = 136;
  std::string raw;
  mxv::Rng rng(12);
  for (std::int64_t i = 0; i < B * M * K; ++i) {
    std::uint32_t v = (rng.u32() & 0x807FFFFFu) | (static_cast<std::uint32_t>(100 + rng.below(50)) << 23);
    if (i % 997 == 0) v = 0;
    if (i % 1999 == 3) v = 0x7FC00000u;
    raw.append(reinterpret_cast<const char*>(&v), 4);
  }
  mxt::spit(t / "x.bin", raw);
  const mx::TensorView v{raw.data(), mx::InType::f32, B, M, K};
  int accepted = 0, refused = 0, n = 0;
  for (const char* chunk : {"3000", ""}) {
    if (*chunk) setenv("MXCONFORM_CHUNK_BYTES", chunk, 1);
    for (const char* r : {"mxfp8_e4m3", "mxfp8_e4m3:rceil", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "mxint8",
                          "nvfp4", "nvfp4:torchao", "mxfp4:nan_to_zero"}) {
      for (const char* ax : {"rowwise", "colwise", "colwise:transposed"}) {
        for (const char* lay : {"dense", "dense_colwise", "tcgen05"}) {
          for (const char* pk : {"packed", "container8"}) {
            const std::string axis = std::string(ax).substr(0, 7);
            const bool tr = std::strchr(ax, ':') != nullptr;
            mx::QuantizeOptions o;
            o.axis = mx::parse_axis(axis);
            o.data_order = tr ? mx::DataOrder::transposed : mx::DataOrder::source;
            o.scale_layout = mx::parse_scale_layout(lay);
            o.packing = mx::parse_packing(pk);
            const mx::Recipe rec = mx::parse_recipe(r);
            mx::Quantized q;
            try {  // what quantize --device cuda accepts (a 32x32 probe)
              const std::vector<float> z(32 * 32, 1.0f);
              (void)mxk::quantize_device(rec, mx::TensorView{z.data(), mx::InType::f32, 1, 32, 32}, o);
              q = mx::quantize(rec, v, o);
            } catch (const mx::Error&) {
              if (*chunk) ++refused;
              continue;
            }
            if (*chunk) ++accepted;
            const std::string what = std::string(r) + " " + ax + " " + lay + " " + pk;
            const auto c = mxt::run(std::string("quantize --recipe ") + r + " --axis " + axis +
                                    (tr ? " --data-order transposed" : "") + " --layout " + lay + " --packing " + pk +
                                    " --in " + (t / "x.bin") + " --shape 2x200x136 --out " + (t / "q"));
            ASSERT_EQ(c.rc, 0) << what << ": " << c.out;
            const char* ty = n % 3 == 0 ? "fp32" : (n % 3 == 1 ? "bf16" : "fp16");
            ++n;
            const auto g = mxt::run("dequantize " + (t / "q.json") + " --device cuda --out-type " + ty + " --out " + (t / "g.npy"));
            ASSERT_EQ(g.rc, 0) << what << ": " << g.out;
            const auto want = mx::dequantize(q, mx::parse_format(ty));
            EXPECT_TRUE(mxv::parse_npy("g", mxt::slurp(t / "g.npy")).data == std::string(want.begin(), want.end()))
                << what << " to " << ty << (*chunk ? " (chunks of " + std::string(chunk) + " bytes)" : std::string())
                << ": device dequantize differs from the reference";
          }
        }
      }
    }
    unsetenv("MXCONFORM_CHUNK_BYTES");
  }
  EXPECT_GT(accepted, 50) << "quantize --device cuda refused too much (" << refused << " refused)";
  EXPECT_GT(refused, 0) << "the probe should refuse dense_colwise rowwise and non-default NaN policies";
}

// The chunked quantize pipeline on the device (forced small chunks, a ring of
// 1, 2 or 5 staging slots, each with its thread and stream) equals the
// reference for each axis and layout.
TEST(CliGpu, QuantizeDeviceCudaChunkedEqualsReference) {
  std::string why;
  if (!mxk::device_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  mxt::TempDir t;
  std::string raw;
  mxv::Rng rng(13);
  for (int i = 0; i < 3 * 256 * 96; ++i) {
    const std::uint16_t h = static_cast<std::uint16_t>((rng.u32() & 0x807F) | ((100 + rng.below(40)) << 7));
    raw.append(reinterpret_cast<const char*>(&h), 2);
  }
  mxt::spit(t / "x.bin", raw);
  setenv("MXCONFORM_CHUNK_BYTES", "2000", 1);
  int k = 0;
  for (const char* r : {"mxfp8_e4m3", "mxfp6_e2m3", "mxfp4", "mxint8"}) {
    for (const char* ax : {"rowwise", "colwise"}) {
      for (const char* lay : {"dense", "dense_colwise", "tcgen05"}) {
        if (std::string(ax) == "rowwise" && std::string(lay) == "dense_colwise") continue;
        const char* const slots[] = {"1", "2", "5"};
        setenv("MXCONFORM_DEVICE_SLOTS", slots[k++ % 3], 1);
        const std::string common = std::string("quantize --recipe ") + r + " --axis " + ax + " --layout " + lay + " --in " +
                                   (t / "x.bin") + " --shape 3x256x96 --in-type bf16 ";
        auto c = mxt::run(common + "--out " + (t / "c"));
        ASSERT_EQ(c.rc, 0) << c.out;
        auto g = mxt::run(common + "--device cuda --out " + (t / "g"));
        ASSERT_EQ(g.rc, 0) << r << " " << ax << " " << lay << ": " << g.out;
        EXPECT_EQ(mxt::slurp(t / "c.data.npy"), mxt::slurp(t / "g.data.npy")) << r << " " << ax << " " << lay << ": data";
        EXPECT_EQ(mxt::slurp(t / "c.scales.npy"), mxt::slurp(t / "g.scales.npy")) << r << " " << ax << " " << lay << ": scales";
      }
    }
  }
  unsetenv("MXCONFORM_CHUNK_BYTES");
  unsetenv("MXCONFORM_DEVICE_SLOTS");
}

// Out of device memory and no visible device: one line, exit status 2, no
// output file (issue 15). This process takes all but ~200 MiB of the GPU's
// memory; the child's context and its ring of staging slots (4 x 40 MiB
// here) cannot all fit.
struct DeviceHog {
  std::vector<void*> held;
  DeviceHog() {
    std::size_t free = 0, total = 0;
    for (int i = 0; i < 4096 && cudaMemGetInfo(&free, &total) == cudaSuccess && free > (256u << 20); ++i) {
      void* p = nullptr;
      if (cudaMalloc(&p, std::min<std::size_t>(std::size_t{1} << 30, free - (200u << 20))) != cudaSuccess) {
        cudaGetLastError();
        break;
      }
      held.push_back(p);
    }
  }
  ~DeviceHog() {
    for (void* p : held) cudaFree(p);
  }
};

TEST(CliGpu, OutOfDeviceMemoryAndNoDeviceAreOneLineExitTwoNoOutput) {
  std::string why;
  if (!mxk::device_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  mxt::TempDir t;
  std::string raw(std::size_t{512} * 16384 * 4, '\0');  // 32 MiB of zeros
  mxt::spit(t / "x.bin", raw);
  const std::string in = " --in " + (t / "x.bin") + " --shape 512x16384";
  ASSERT_EQ(mxt::run("quantize" + in + " --out " + (t / "c")).rc, 0);
  const auto expect_clean_failure = [&](const mxt::RunResult& r, const std::string& want, const std::string& what) {
    EXPECT_EQ(r.rc, 2) << what << ": " << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << what << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << ": " << r.out;
    for (const char* f : {"g.data.npy", "g.scales.npy", "g.json", "y.npy"}) EXPECT_FALSE(std::filesystem::exists(t / f)) << what << ": " << f;
  };
  setenv("CUDA_VISIBLE_DEVICES", "", 1);
  expect_clean_failure(mxt::run("quantize --device cuda" + in + " --out " + (t / "g")), "no CUDA device", "quantize, no device");
  expect_clean_failure(mxt::run("dequantize " + (t / "c.json") + " --device cuda --out " + (t / "y.npy")), "no CUDA device",
                       "dequantize, no device");
  unsetenv("CUDA_VISIBLE_DEVICES");
  setenv("MXCONFORM_CHUNK_BYTES", "33554432", 1);
  {
    const DeviceHog hog;
    ASSERT_FALSE(hog.held.empty());
    expect_clean_failure(mxt::run("quantize --device cuda" + in + " --out " + (t / "g")), "memory", "quantize, device full");
    expect_clean_failure(mxt::run("dequantize " + (t / "c.json") + " --device cuda --out " + (t / "y.npy")), "memory",
                         "dequantize, device full");
  }
  unsetenv("MXCONFORM_CHUNK_BYTES");
}

}  // namespace
