// gpu_gate_nvfp4_persist_test.cpp - the `gpu` gate for NVFP4 rowwise tensors
// in the persistent one-launch kernel (kernels/nvfp4/persist.cuh: amax over
// each warp's k_rowstream chunks, last first; the one-pass kernel's grid
// barrier that carries the CTA maxima, its state per stream; then the
// quantize of the same chunks, first first). The launcher takes it above
// kNvfp4OnePassMaxElems (2^21) up to kNvfp4PersistMaxElems<Q> (TE order
// 2^23, torchao never); g_nvfp4_pass = 3 (mxbench --nvfp4-pass persist)
// forces it at any size, either order. The paths: full
// chunks, ragged chunks (the row's last one; every chunk when K % 8 != 0),
// warps with several items (sizes above 2^21, or mxk::set_work_split(n) for
// at least n per warp), warps with none, the global amax from one element in
// any item (first, last, a ragged one), all zeros and all NaN, and launches
// of the persistent, one-pass and two-pass paths mixed on one stream with
// nothing waited for between them (the barrier state each leaves for the
// next). Every input type, both NVFP4 orders, both rowwise layouts, both
// packings; outputs poisoned (the gate turns the poison check on; the
// launches on the test's own stream poison their buffers themselves).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/launch.hpp"
#include "common/row_select.hpp"
#include "gpu_gate.hpp"
#include "gpu_gate_cases.hpp"
#include "mx/quantize.hpp"
#include "mxk/api.hpp"

namespace {

// g_nvfp4_pass (0 by size, 1 two passes, 2 one-pass kernel, 3 persistent)
// and the work split for the test's lifetime.
struct ForcePass {
  explicit ForcePass(int k) { mxk::detail::g_nvfp4_pass.store(k); }
  ~ForcePass() {
    mxk::detail::g_nvfp4_pass.store(0);
    mxk::set_work_split(0);
  }
};

std::string check_one(const char* name, const gate::Input& in, const gate::Cfg& c, mx::Packing pk) {
  const mx::Recipe r = mx::parse_recipe(name);
  const mx::QuantizeOptions o = gate::opts_of(c, pk);
  return gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o));
}

const char* pk_name(mx::Packing pk) { return pk == mx::Packing::container8 ? " container8" : " packed"; }

// Element i of a bf16 / f32 input set to v (exact in both types).
void set_elem(gate::Input& in, std::int64_t i, float v) {
  if (in.type == mx::InType::f32) {
    std::memcpy(&in.bytes[static_cast<std::size_t>(4 * i)], &v, 4);
  } else {  // bf16: v's upper half (v is exact in bf16)
    std::uint32_t b = 0;
    std::memcpy(&b, &v, 4);
    const std::uint16_t h = static_cast<std::uint16_t>(b >> 16);
    std::memcpy(&in.bytes[static_cast<std::size_t>(2 * i)], &h, 2);
  }
}

}  // namespace

// Small and ragged shapes with the persistent kernel forced: one item, warps
// with none, K % 8 != 0 (no vector loads), ragged last chunks, batches; the
// work split 0 (one item per warp) and 3 (three per warp: the amax walk from
// the last item down, the quantize walk up).
TEST(GpuGateNvfp4Persist, ForcedShapesBytesEqualReference) {
  REQUIRE_GPU();
  ForcePass force(3);
  std::uint64_t seed = 9800;
  const gate::Shape shapes[] = {{1, 1, 1},    {1, 3, 100},    {5, 7, 33},    {2, 130, 2050},
                                {1, 256, 2048}, {3, 100, 700}, {1, 64, 4100}};
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : gate::kTypes) {
      for (const gate::Shape& s : shapes) {
        const gate::Input in = gate::make_input(gate::Dist::special, t, s.b, s.m, s.k, mx::Fmt::e2m1, seed++);
        for (const int split : {0, 3}) {
          mxk::set_work_split(split);
          for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
            for (mx::Packing pk : gate::kPackings) {
              ASSERT_EQ(check_one(name, in, c, pk), "") << name << " " << mx::in_type_name(t) << " "
                                                        << gate::shape_str(s) << " split " << split << " "
                                                        << c.name << pk_name(pk);
            }
          }
        }
      }
    }
  }
}

// Above kNvfp4OnePassMaxElems (2^21): the launcher's choice (TE order: the
// persistent kernel up to 2^23 elements; torchao: the two passes) and the
// persistent kernel forced, with whole chunks (513 x 4096), ragged last
// chunks (600 x 4100, 2 x 300 x 4104), K % 8 != 0 (2100 x 1023) and one
// long row (1 x 2^21 + 1000).
TEST(GpuGateNvfp4Persist, LargeShapesBytesEqualReference) {
  REQUIRE_GPU();
  std::uint64_t seed = 9850;
  const gate::Shape shapes[] = {{1, 513, 4096}, {1, 600, 4100}, {2, 300, 4104}, {1, 2100, 1023}, {1, 1, 2098152}};
  int k = 0;
  for (const int mode : {0, 3}) {
    ForcePass force(mode);
    for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
      for (const gate::Shape& s : shapes) {
        const mx::InType t = gate::kTypes[k % 3];
        const gate::Input in = gate::make_input(gate::Dist::special, t, s.b, s.m, s.k, mx::Fmt::e2m1, seed++);
        const gate::Cfg& c = gate::kCfgs[k % 2];
        const mx::Packing pk = gate::kPackings[(k / 2) % 2];
        ++k;
        ASSERT_EQ(check_one(name, in, c, pk), "") << name << " mode " << mode << " " << mx::in_type_name(t) << " "
                                                  << gate::shape_str(s) << " " << c.name << pk_name(pk);
      }
    }
  }
}

// The global amax is the maximum over every CTA: small values with one large
// element placed in the first item, a middle one, the last item, the ragged
// last chunk of a row, and (split 3) items read first and last by a warp;
// all zeros (amax 0) and all NaN (NaN is dropped: amax 0). 300 x 7200: 8
// chunks per row (16-bit inputs), the last ragged, 2.16 M elements.
TEST(GpuGateNvfp4Persist, AmaxFromEverySlotBytesEqualReference) {
  REQUIRE_GPU();
  ForcePass force(3);
  const std::int64_t rows = 300, cols = 7200, n = rows * cols;
  const std::int64_t spots[] = {0, 1023, n / 2 + 5, n - 1, 41 * cols + 7199, 299 * cols + 1024};
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      for (const int split : {0, 3}) {
        mxk::set_work_split(split);
        for (std::int64_t spot : spots) {
          gate::Input in = gate::make_input(gate::Dist::uniform, t, 1, rows, cols, mx::Fmt::e2m1, 9900 + spot);
          set_elem(in, spot, -1048576.0f);  // 2^20 above uniform's 2^11
          ASSERT_EQ(check_one(name, in, gate::kCfgs[1], mx::Packing::packed), "")
              << name << " " << mx::in_type_name(t) << " split " << split << " max at " << spot;
        }
        for (float fill : {0.0f, __builtin_nanf("")}) {
          gate::Input in = gate::make_input(gate::Dist::uniform, t, 1, rows, cols, mx::Fmt::e2m1, 9990);
          for (std::int64_t i = 0; i < n; ++i) set_elem(in, i, fill);
          ASSERT_EQ(check_one(name, in, gate::kCfgs[0], mx::Packing::packed), "")
              << name << " " << mx::in_type_name(t) << " split " << split << " all " << fill;
        }
      }
    }
  }
}

// The persistent, one-pass and two-pass paths mixed on one stream of the
// test's own, through the internal launcher, nothing waited for until the
// end: each one-launch grid reads the barrier state (epoch, sets) the one
// before left, whichever kernel that was and whatever its grid size. Inputs
// 128 x 7168 (one-pass by size) and 600 x 4100 bf16 (by size: persistent in
// TE's order, the two passes in torchao's);
// the mode by launch: by size, forced persistent, forced two passes; orders
// changing every fourth launch; each launch's outputs poisoned first.
TEST(GpuGateNvfp4Persist, MixedLaunchesOneStreamBytesEqualReference) {
  REQUIRE_GPU();
  namespace D = mxk::detail;
  ForcePass reset(0);
  const gate::Shape shapes[2] = {{1, 128, 7168}, {1, 600, 4100}};
  gate::Input in[2];
  void* dx[2] = {nullptr, nullptr};
  std::vector<mx::Quantized> want;  // [input][order]
  for (int i = 0; i < 2; ++i) {
    in[i] = gate::make_input(gate::Dist::special, mx::InType::bf16, 1, shapes[i].m, shapes[i].k, mx::Fmt::e2m1, 9950 + i);
    ASSERT_EQ(cudaMalloc(&dx[i], in[i].bytes.size()), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dx[i], in[i].bytes.data(), in[i].bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
      want.push_back(mx::quantize(mx::parse_recipe(name), in[i].view(), gate::opts_of(gate::kCfgs[0])));
    }
  }
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  constexpr int kLaunches = 30;
  struct Out {
    void *data = nullptr, *scales = nullptr, *gam = nullptr;
    ~Out() {
      cudaFree(data);
      cudaFree(scales);
      cudaFree(gam);
    }
  };
  std::vector<Out> outs(kLaunches);
  auto input = [](int k) { return k % 2; };
  auto order = [](int k) { return (k / 4) % 2; };
  auto mode = [](int k) { return (k / 2) % 3 == 0 ? 0 : (k / 2) % 3 == 1 ? 3 : 1; };
  for (int k = 0; k < kLaunches; ++k) {
    const mx::Quantized& w = want[static_cast<std::size_t>(2 * input(k) + order(k))];
    Out& o = outs[static_cast<std::size_t>(k)];
    const int poison = k % 2 == 0 ? mxk::kPoison : mxk::kPoison2;
    ASSERT_EQ(cudaMalloc(&o.data, w.data.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&o.scales, w.scales.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&o.gam, 4), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(o.data, poison, w.data.size(), s), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(o.scales, poison, w.scales.size(), s), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(o.gam, poison, 4, s), cudaSuccess);
    D::QuantLaunch q;
    q.recipe = mx::parse_recipe(order(k) == 0 ? "nvfp4" : "nvfp4:torchao");
    q.in = mx::InType::bf16;
    q.x = dx[input(k)];
    q.M = shapes[input(k)].m;
    q.K = shapes[input(k)].k;
    q.do_row = true;
    q.row = {static_cast<std::uint8_t*>(o.data), static_cast<std::uint8_t*>(o.scales), mx::ScaleLayout::dense, false};
    q.gamax = static_cast<std::uint32_t*>(o.gam);
    D::g_nvfp4_pass.store(mode(k));
    D::launch_quantize(q, s);
  }
  D::g_nvfp4_pass.store(0);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  for (int k = 0; k < kLaunches; ++k) {
    const mx::Quantized& w = want[static_cast<std::size_t>(2 * input(k) + order(k))];
    const Out& o = outs[static_cast<std::size_t>(k)];
    mx::Quantized got = w;
    ASSERT_EQ(cudaMemcpy(got.data.data(), o.data, w.data.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got.scales.data(), o.scales, w.scales.size(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(&got.global_amax_bits, o.gam, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(gate::diff_quantized(got, w), "") << "launch " << k << " input " << input(k) << " order " << order(k)
                                                << " mode " << mode(k);
  }
  cudaStreamDestroy(s);
  for (void* p : dx) cudaFree(p);
}

// compute-sanitizer subset (GpuGateSanitizer.*): the persistent kernel forced
// with full and ragged chunks, several items per warp (split 3) and idle
// warps, bf16 and f32, both orders, both layouts.
TEST(GpuGateSanitizer, Nvfp4Persist) {
  REQUIRE_GPU();
  mxk::set_poison_check(false);  // one launch each under the sanitizers
  struct Reset {
    ~Reset() { mxk::set_poison_check(true); }
  } reset;
  ForcePass force(3);
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      const gate::Input a = gate::make_input(gate::Dist::special, t, 2, 5, 9260, mx::Fmt::e2m1, 9700);
      const gate::Input b = gate::make_input(gate::Dist::special, t, 1, 130, 4096, mx::Fmt::e2m1, 9701);
      for (const int split : {0, 3}) {
        mxk::set_work_split(split);
        ASSERT_EQ(check_one(name, a, gate::kCfgs[0], mx::Packing::packed), "") << name << " ragged split " << split;
        ASSERT_EQ(check_one(name, b, gate::kCfgs[1], mx::Packing::container8), "") << name << " full split " << split;
      }
    }
  }
}
