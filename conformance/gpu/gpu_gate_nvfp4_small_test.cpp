// gpu_gate_nvfp4_small_test.cpp - the `gpu` gate for NVFP4 rowwise tensors
// of at most 2^21 elements (kernels/nvfp4/one_pass.cuh: one cooperative
// launch, one hand-written grid barrier that carries the CTA maxima, its
// state per stream and handed from launch to launch on the device, the
// input and the block maxima kept in registers across it). The paths: full items kept in registers,
// ragged items (the row's last chunk; every item when K % 8 != 0), items
// beyond the kept ones (read again: forced by mxk::set_work_split), warps
// with no item (tensors smaller than a CTA's span), the global amax from
// every CTA's max (one nonzero element at a time, all zeros, all NaN), and
// shapes either side of the one-pass limit, a quantize captured into a CUDA
// graph (the two passes) between direct launches on the same stream (the
// one-pass kernel's per-stream barrier state), many launches in a row on
// one stream and on two streams at once (the state's two sets alternate,
// each zeroed by the launch after its own; grids of different sizes and
// both orders share one stream's state). Every input type, both NVFP4
// orders, both rowwise layouts, both packings; outputs poisoned (the gate
// turns the poison check on).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/launch.hpp"
#include "gpu_gate.hpp"
#include "gpu_gate_cases.hpp"
#include "mx/convert.hpp"
#include "mx/quantize.hpp"
#include "mxk/api.hpp"

namespace {

struct SplitReset {
  ~SplitReset() { mxk::set_work_split(0); }
};

std::string check_one(const char* name, const gate::Input& in, const gate::Cfg& c, mx::Packing pk) {
  const mx::Recipe r = mx::parse_recipe(name);
  const mx::QuantizeOptions o = gate::opts_of(c, pk);
  return gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o));
}

const char* pk_name(mx::Packing pk) { return pk == mx::Packing::container8 ? " container8" : " packed"; }

// [batch, rows, cols] of type t from fp32 values (bf16/f16: every value
// below is exact in both; NaN stays a quiet NaN).
gate::Input from_f32(mx::InType t, std::int64_t b, std::int64_t rows, std::int64_t cols, const std::vector<float>& v) {
  gate::Input in;
  in.type = t;
  in.batch = b;
  in.rows = rows;
  in.cols = cols;
  const std::size_t n = v.size();
  if (t == mx::InType::f32) {
    in.bytes.resize(4 * n);
    std::memcpy(in.bytes.data(), v.data(), 4 * n);
    return in;
  }
  in.bytes.resize(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool nan = v[i] != v[i];
    const std::uint16_t h = t == mx::InType::bf16 ? (nan ? std::uint16_t{0x7FC0} : mx::f32_to_bf16_rne(v[i]))
                                                  : (nan ? std::uint16_t{0x7E00} : mx::f32_to_f16_rne(v[i]));
    std::memcpy(&in.bytes[2 * i], &h, 2);
  }
  return in;
}

// One quantize through the internal launcher into buffers of its own
// (poisoned), checked after the stream's work is done.
struct Launch {
  mx::Recipe r;
  const mx::Quantized* want = nullptr;
  void *data = nullptr, *scales = nullptr, *gam = nullptr;
  int poison = 0;
  ~Launch() {
    cudaFree(data);
    cudaFree(scales);
    cudaFree(gam);
  }
};

struct DevInput {
  void* x = nullptr;
  gate::Input in;
  ~DevInput() { cudaFree(x); }
};

std::string enqueue(Launch& l, const DevInput& d, cudaStream_t s) {
  namespace D = mxk::detail;
  const std::size_t nd = l.want->data.size(), ns = l.want->scales.size();
  if (cudaMalloc(&l.data, nd) != cudaSuccess || cudaMalloc(&l.scales, ns) != cudaSuccess || cudaMalloc(&l.gam, 4) != cudaSuccess ||
      cudaMemsetAsync(l.data, l.poison, nd, s) != cudaSuccess || cudaMemsetAsync(l.scales, l.poison, ns, s) != cudaSuccess ||
      cudaMemsetAsync(l.gam, l.poison, 4, s) != cudaSuccess) {
    return "cuda allocation / memset failed";
  }
  D::QuantLaunch q;
  q.recipe = l.r;
  q.in = d.in.type;
  q.x = d.x;
  q.batch = d.in.batch;
  q.M = d.in.rows;
  q.K = d.in.cols;
  q.do_row = true;
  q.row = {static_cast<std::uint8_t*>(l.data), static_cast<std::uint8_t*>(l.scales), mx::ScaleLayout::dense, false};
  q.gamax = static_cast<std::uint32_t*>(l.gam);
  D::launch_quantize(q, s);
  return "";
}

std::string fetch_diff(const Launch& l) {
  mx::Quantized got = *l.want;
  if (cudaMemcpy(got.data.data(), l.data, got.data.size(), cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(got.scales.data(), l.scales, got.scales.size(), cudaMemcpyDeviceToHost) != cudaSuccess ||
      cudaMemcpy(&got.global_amax_bits, l.gam, 4, cudaMemcpyDeviceToHost) != cudaSuccess) {
    return "cudaMemcpy failed";
  }
  return gate::diff_quantized(got, *l.want);
}

// Inputs of different sizes (112, 5 and, on the H100, 132 CTAs of 16 warps:
// the decode shape, a small batch, and 2^21 elements, whose grid is wider
// than one 128-slot read of the barrier's slots per lane) and amaxes, both
// orders, and every input type.
struct Mix {
  DevInput in[4];
  std::vector<mx::Quantized> want;  // [input][order]
  Mix() {
    const gate::Shape shapes[] = {{1, 128, 7168}, {2, 19, 1000}, {1, 512, 4096}, {1, 128, 7168}};
    const mx::InType types[] = {mx::InType::bf16, mx::InType::bf16, mx::InType::f16, mx::InType::f32};
    for (int i = 0; i < 4; ++i) {
      in[i].in = gate::make_input(i % 2 == 0 ? gate::Dist::special : gate::Dist::wide, types[i], shapes[i].b, shapes[i].m,
                                  shapes[i].k, mx::Fmt::e2m1, 9700 + static_cast<std::uint64_t>(i));
      if (cudaMalloc(&in[i].x, in[i].in.bytes.size()) != cudaSuccess ||
          cudaMemcpy(in[i].x, in[i].in.bytes.data(), in[i].in.bytes.size(), cudaMemcpyHostToDevice) != cudaSuccess) {
        in[i].x = nullptr;
      }
      for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
        want.push_back(mx::quantize(mx::parse_recipe(name), in[i].in.view(), gate::opts_of(gate::kCfgs[0])));
      }
    }
  }
  bool ok() const { return in[0].x && in[1].x && in[2].x && in[3].x; }
  // launch k's input and order: inputs 0 1 0 1 ... with 2 and 3 now and then, orders changing every third launch
  int input(int k) const { return k % 7 == 5 ? 2 + (k / 7) % 2 : k % 2; }
  int order(int k) const { return (k / 3) % 2; }
  void set(Launch& l, int k) const {
    l.r = mx::parse_recipe(order(k) == 0 ? "nvfp4" : "nvfp4:torchao");
    l.want = &want[static_cast<std::size_t>(2 * input(k) + order(k))];
    l.poison = k % 2 == 0 ? mxk::kPoison : mxk::kPoison2;
  }
};

}  // namespace

// Many one-pass launches in a row on one stream, nothing waited for between
// them: each grid reads the barrier state the one before left (the epoch's
// parity picks the set; the previous set, zeroed by this launch, serves the
// next), over grids of 112, 5 and 132 CTAs, both orders and every input type.
TEST(GpuGateNvfp4Small, ManyLaunchesOneStreamBytesEqualReference) {
  REQUIRE_GPU();
  Mix mix;
  ASSERT_TRUE(mix.ok());
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  constexpr int kLaunches = 41;
  std::vector<Launch> ls(kLaunches);
  for (int k = 0; k < kLaunches; ++k) {
    mix.set(ls[k], k);
    ASSERT_EQ(enqueue(ls[k], mix.in[mix.input(k)], s), "") << "launch " << k;
  }
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  for (int k = 0; k < kLaunches; ++k) {
    ASSERT_EQ(fetch_diff(ls[k]), "") << "launch " << k << " input " << mix.input(k) << " order " << mix.order(k);
  }
  cudaStreamDestroy(s);
}

// Two streams at once (each its own barrier state), launches interleaved
// from one host thread, then the same from two host threads onto one
// stream each, nothing waited for until the end.
TEST(GpuGateNvfp4Small, TwoStreamsBytesEqualReference) {
  REQUIRE_GPU();
  Mix mix;
  ASSERT_TRUE(mix.ok());
  cudaStream_t s[2] = {nullptr, nullptr};
  for (auto& st : s) ASSERT_EQ(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), cudaSuccess);
  constexpr int kLaunches = 24;
  std::vector<Launch> ls(2 * kLaunches);
  for (int k = 0; k < 2 * kLaunches; ++k) {
    mix.set(ls[k], k / 2 + 3 * (k % 2));
    ASSERT_EQ(enqueue(ls[k], mix.in[mix.input(k / 2 + 3 * (k % 2))], s[k % 2]), "") << "launch " << k;
  }
  for (auto& st : s) ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  for (int k = 0; k < 2 * kLaunches; ++k) ASSERT_EQ(fetch_diff(ls[k]), "") << "interleaved launch " << k;
  std::vector<Launch> lt(2 * kLaunches);
  std::string err[2];
  int devi = 0;
  ASSERT_EQ(cudaGetDevice(&devi), cudaSuccess);
  {
    std::vector<std::thread> th;
    for (int t = 0; t < 2; ++t) {
      th.emplace_back([&, t] {
        cudaSetDevice(devi);
        for (int k = t; k < 2 * kLaunches && err[t].empty(); k += 2) {
          mix.set(lt[k], k);
          try {
            err[t] = enqueue(lt[k], mix.in[mix.input(k)], s[t]);
          } catch (const std::exception& e) {
            err[t] = e.what();
          }
        }
      });
    }
    for (auto& x : th) x.join();
  }
  ASSERT_EQ(err[0], "");
  ASSERT_EQ(err[1], "");
  for (auto& st : s) ASSERT_EQ(cudaStreamSynchronize(st), cudaSuccess);
  for (int k = 0; k < 2 * kLaunches; ++k) ASSERT_EQ(fetch_diff(lt[k]), "") << "threaded launch " << k;
  for (auto& st : s) cudaStreamDestroy(st);
}

// The decode shape the one-pass kernel was tuned for: every input type.
TEST(GpuGateNvfp4Small, DecodeShapeBytesEqualReference) {
  REQUIRE_GPU();
  std::uint64_t seed = 9100;
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : gate::kTypes) {
      for (gate::Dist d : {gate::Dist::special, gate::Dist::wide}) {
        const gate::Input in = gate::make_input(d, t, 1, 128, 7168, mx::Fmt::e2m1, seed++);
        for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
          for (mx::Packing pk : gate::kPackings) {
            ASSERT_EQ(check_one(name, in, c, pk), "") << name << " " << mx::in_type_name(t) << " "
                                                      << gate::dist_name(d) << " " << c.name << pk_name(pk);
          }
        }
      }
    }
  }
}

// Either side of kNvfp4OnePassMaxElems (2^21): exactly 2^21 in one matrix,
// in a batch and in one row; 2^21 - 1024; K % 8 != 0 (every item ragged,
// no vector loads) just below; 2^21 + 4096 (the two passes).
TEST(GpuGateNvfp4Small, LimitShapesBytesEqualReference) {
  REQUIRE_GPU();
  std::uint64_t seed = 9200;
  const gate::Shape shapes[] = {{1, 512, 4096}, {2, 1024, 1024}, {1, 1, 2097152}, {1, 2047, 1024},
                                {1, 2049, 1023}, {1, 513, 4096}};
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : gate::kTypes) {
      for (const gate::Shape& s : shapes) {
        const gate::Input in = gate::make_input(gate::Dist::special, t, s.b, s.m, s.k, mx::Fmt::e2m1, seed++);
        for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
          ASSERT_EQ(check_one(name, in, c, mx::Packing::packed), "")
              << name << " " << mx::in_type_name(t) << " " << gate::shape_str(s) << " " << c.name;
        }
      }
    }
  }
}

// Warps with no item (a CTA's 16 warps hold more than the tensor), one item
// per warp, and 2..4 items per warp (the first two kept in registers, the
// others read again), over full and ragged items.
TEST(GpuGateNvfp4Small, SplitsAndIdleWarpsBytesEqualReference) {
  REQUIRE_GPU();
  SplitReset reset;
  std::uint64_t seed = 9300;
  const gate::Shape shapes[] = {{1, 1, 1}, {1, 1, 16}, {1, 3, 100}, {2, 1, 520}, {5, 7, 33},
                                {1, 64, 4100}, {3, 100, 700}, {2, 40, 2048}};
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : gate::kTypes) {
      for (const gate::Shape& s : shapes) {
        const gate::Input in = gate::make_input(gate::Dist::special, t, s.b, s.m, s.k, mx::Fmt::e2m1, seed++);
        for (const int split : {0, 1, 2, 3, 4}) {
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

// The global amax is the maximum of every CTA's max: a tensor of small
// values with one large element, placed in the first, a middle, the last
// kept item and an item read again (split 4), and past the last full chunk
// of a row; all zeros (amax 0) and all NaN (amax 0: NaN is dropped).
TEST(GpuGateNvfp4Small, AmaxFromEverySlotBytesEqualReference) {
  REQUIRE_GPU();
  SplitReset reset;
  const std::int64_t b = 1, rows = 96, cols = 7200;  // 15 chunks per row, the last ragged
  const std::int64_t n = b * rows * cols;
  const std::int64_t spots[] = {0, 511, 512, n / 2 + 3, n - cols + 7167, n - 1, 40 * cols + 7199};
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : gate::kTypes) {
      for (const int split : {0, 4}) {
        mxk::set_work_split(split);
        for (std::int64_t spot : spots) {
          std::vector<float> v(static_cast<std::size_t>(n));
          for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = (i % 7 == 0 ? -0.375f : 0.25f) * static_cast<float>(1 + i % 3);
          v[static_cast<std::size_t>(spot)] = -1024.0f;
          const gate::Input in = from_f32(t, b, rows, cols, v);
          ASSERT_EQ(check_one(name, in, gate::kCfgs[1], mx::Packing::packed), "")
              << name << " " << mx::in_type_name(t) << " split " << split << " max at " << spot;
        }
        for (float fill : {0.0f, __builtin_nanf("")}) {
          const gate::Input in = from_f32(t, b, rows, cols, std::vector<float>(static_cast<std::size_t>(n), fill));
          ASSERT_EQ(check_one(name, in, gate::kCfgs[0], mx::Packing::packed), "")
              << name << " " << mx::in_type_name(t) << " split " << split << " all " << fill;
        }
      }
    }
  }
}

// The internal launcher on a stream of the test's own (kernels/common/
// launch.hpp): a quantize captured into a graph takes the two passes (the
// one-pass kernel's per-stream barrier state would be shared by every replay), replayed
// three times with direct (one-pass) launches on the same stream between
// the replays; each result's bytes against the reference, outputs poisoned
// before each launch.
TEST(GpuGateNvfp4Small, GraphCaptureBytesEqualReference) {
  REQUIRE_GPU();
  namespace D = mxk::detail;
  const std::int64_t M = 128, K = 7168;
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    const gate::Input in = gate::make_input(gate::Dist::special, mx::InType::bf16, 1, M, K, mx::Fmt::e2m1, 9600);
    const mx::QuantizeOptions o = gate::opts_of(gate::kCfgs[0]);  // rowwise, dense scales: no padding bytes
    const mx::Quantized want = mx::quantize(r, in.view(), o);
    void *x = nullptr, *data = nullptr, *scales = nullptr, *gam = nullptr;
    ASSERT_EQ(cudaMalloc(&x, in.bytes.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&data, want.data.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&scales, want.scales.size()), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&gam, 4), cudaSuccess);
    struct Free {
      void** p[4];
      ~Free() {
        for (void** q : p) cudaFree(*q);
      }
    } free_all{{&x, &data, &scales, &gam}};
    ASSERT_EQ(cudaMemcpy(x, in.bytes.data(), in.bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    D::QuantLaunch q;
    q.recipe = r;
    q.in = mx::InType::bf16;
    q.x = x;
    q.M = M;
    q.K = K;
    q.do_row = true;
    q.row = {static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(scales), mx::ScaleLayout::dense, false};
    q.gamax = static_cast<std::uint32_t*>(gam);
    cudaGraph_t g = nullptr;
    cudaGraphExec_t ge = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    D::launch_quantize(q, s);
    ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    ASSERT_EQ(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
    for (int rep = 0; rep < 6; ++rep) {
      const int poison = rep % 2 == 0 ? mxk::kPoison : mxk::kPoison2;
      ASSERT_EQ(cudaMemsetAsync(data, poison, want.data.size(), s), cudaSuccess);
      ASSERT_EQ(cudaMemsetAsync(scales, poison, want.scales.size(), s), cudaSuccess);
      ASSERT_EQ(cudaMemsetAsync(gam, poison, 4, s), cudaSuccess);
      if (rep % 2 == 0) {
        ASSERT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
      } else {
        D::launch_quantize(q, s);
      }
      ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      mx::Quantized got = want;
      ASSERT_EQ(cudaMemcpy(got.data.data(), data, want.data.size(), cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(got.scales.data(), scales, want.scales.size(), cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(&got.global_amax_bits, gam, 4, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(gate::diff_quantized(got, want), "") << name << (rep % 2 == 0 ? " graph replay " : " direct launch ") << rep;
    }
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaStreamDestroy(s);
  }
}

// compute-sanitizer subset (GpuGateSanitizer.*): the one-pass kernel with
// kept, read-again and ragged items, at the decode shape and at 2^21
// elements (the barrier's second slot read per lane, 8-bit containers).
TEST(GpuGateSanitizer, Nvfp4OnePass) {
  REQUIRE_GPU();
  mxk::set_poison_check(false);  // one launch each under the sanitizers
  struct Reset {
    ~Reset() {
      mxk::set_poison_check(true);
      mxk::set_work_split(0);
    }
  } reset;
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      const gate::Input small = gate::make_input(gate::Dist::special, t, 2, 5, 9260, mx::Fmt::e2m1, 9500);
      for (const int split : {0, 4}) {
        mxk::set_work_split(split);
        ASSERT_EQ(check_one(name, small, gate::kCfgs[0], mx::Packing::packed), "") << name << " split " << split;
      }
      mxk::set_work_split(0);
      const gate::Input decode = gate::make_input(gate::Dist::special, t, 1, 128, 7168, mx::Fmt::e2m1, 9501);
      ASSERT_EQ(check_one(name, decode, gate::kCfgs[1], mx::Packing::packed), "") << name << " decode";
      // 2^21 elements: more CTAs than one 128-slot read per lane of the barrier (132 on the H100)
      const gate::Input wide = gate::make_input(gate::Dist::special, t, 1, 512, 4096, mx::Fmt::e2m1, 9502);
      ASSERT_EQ(check_one(name, wide, gate::kCfgs[0], mx::Packing::container8), "") << name << " 512x4096";
    }
  }
}
