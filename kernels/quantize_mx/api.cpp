// api.cpp - host launchers of libmxkernels (kernels/include/mxk/api.hpp):
// copy host tensors to the device, poison every output buffer (kPoison; with
// the poison check a second launch over kPoison2 must give the same bytes),
// launch, copy back into the reference's result types (mx::Quantized,
// mx::PerTensorQuantized), so the gate compares bytes directly with
// mx::quantize / mx::dequantize / mx::quantize_per_tensor.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/launch.hpp"
#include "common/supported.hpp"
#include "mx/error.hpp"
#include "mxk/api.hpp"

namespace mxk {

using detail::check;

namespace {

bool g_force_software = false;
bool g_poison_check = false;
bool g_unwrite_last = false;

// The device descriptors (common/dev_convert.cuh) number formats like mx::Fmt.
static_assert(static_cast<int>(mx::Fmt::e4m3) == 0 && static_cast<int>(mx::Fmt::e5m2) == 1 &&
              static_cast<int>(mx::Fmt::e3m2) == 2 && static_cast<int>(mx::Fmt::e2m3) == 3 &&
              static_cast<int>(mx::Fmt::e2m1) == 4 && static_cast<int>(mx::Fmt::int8) == 5);

struct DevBuf {
  void* p = nullptr;
  std::size_t n = 0;
  explicit DevBuf(std::size_t bytes) : n(bytes) {
    if (bytes) check(cudaMalloc(&p, bytes), "cudaMalloc");
  }
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  template <class T>
  T* as() const { return static_cast<T*>(p); }
  void poison(std::uint8_t byte) const {
    if (n) check(cudaMemset(p, byte, n), "cudaMemset(poison)");
  }
  void upload(const void* h) const {
    if (n) check(cudaMemcpy(p, h, n, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  void download(void* h) const {
    if (n) check(cudaMemcpy(h, p, n, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }
};

// One output buffer of a launch and where its bytes go on the host.
struct Out {
  const DevBuf* dev;
  void* host;
  const char* what;
};

// Poison every output with kPoison, run `launch`, download. With the poison
// check on, again over kPoison2: a byte that differs between the two runs was
// not written by the kernels (mx::Error names the buffer and the byte).
void run_poisoned(const std::vector<Out>& outs, const std::function<void()>& launch, const char* op) {
  auto run = [&](std::uint8_t poison) {
    for (const Out& o : outs) o.dev->poison(poison);
    launch();
    check(cudaDeviceSynchronize(), op);
    if (g_unwrite_last && !outs.empty() && outs[0].dev->n) {
      check(cudaMemset(static_cast<std::uint8_t*>(outs[0].dev->p) + outs[0].dev->n - 1, poison, 1), "test hook");
    }
  };
  run(kPoison);
  for (const Out& o : outs) o.dev->download(o.host);
  if (!g_poison_check) return;
  run(kPoison2);
  std::vector<std::uint8_t> second;
  for (const Out& o : outs) {
    second.resize(o.dev->n);
    o.dev->download(second.data());
    const auto* first = static_cast<const std::uint8_t*>(o.host);
    for (std::size_t i = 0; i < o.dev->n; ++i) {
      if (first[i] != second[i]) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "%s: byte %zu of %zu of %s not written by the kernels (0x%02X after poison 0x%02X, 0x%02X after "
                      "poison 0x%02X)",
                      op, i, o.dev->n, o.what, first[i], kPoison, second[i], kPoison2);
        throw mx::Error(buf);
      }
    }
  }
}

std::int64_t in_bytes(const mx::TensorView& t) {
  return t.batch * t.rows * t.cols * static_cast<std::int64_t>(mx::in_type_bytes(t.type));
}

void validate_device(const mx::Recipe& r, const mx::TensorView& t, const mx::QuantizeOptions& o) {
  mx::validate(r, t, o);  // shapes, options, policies: same typed errors as the reference
  check_device_recipe(r);
  check_device_options(o);
}

void require_device() {
  std::string why;
  if (!device_available(&why)) throw mx::Error("no CUDA device: " + why);
}

}  // namespace

void set_force_software(bool on) { g_force_software = on; }
void set_poison_check(bool on) { g_poison_check = on; }
bool poison_check() { return g_poison_check; }
void set_test_unwrite_last_byte(bool on) { g_unwrite_last = on; }
bool force_software() { return g_force_software; }
void set_work_split(int n) { detail::g_work_split.store(n < 0 ? 0 : (n > 4 ? 4 : n)); }
int work_split() { return detail::g_work_split.load(); }
void set_tile_rows(int rows) { detail::g_tile_rows.store(rows == 32 || rows == 128 ? rows : 0); }
int tile_rows() { return detail::g_tile_rows.load(); }

bool device_available(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(e);
    return false;
  }
  if (n == 0) {
    if (why) *why = "no CUDA device found";
    return false;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || prop.major < 9) {
    cudaGetLastError();
    if (why) *why = "device 0 is older than sm_90 (kernels are built for 90a/100a/120a)";
    return false;
  }
  if (why) *why = prop.name;
  return true;
}

static FusedQuantized run_quantize(const mx::Recipe& r, const mx::TensorView& t, const mx::QuantizeOptions* row,
                                   const mx::QuantizeOptions* col) {
  require_device();
  FusedQuantized out;
  if (row) out.rowwise = mx::quantized_shape(r, t, *row);
  if (col) out.colwise = mx::quantized_shape(r, t, *col);
  DevBuf x(static_cast<std::size_t>(in_bytes(t)));
  x.upload(t.data);
  DevBuf rd(row ? out.rowwise.data.size() : 0), rs(row ? out.rowwise.scales.size() : 0);
  DevBuf cd(col ? out.colwise.data.size() : 0), cs(col ? out.colwise.scales.size() : 0);
  DevBuf gam(4);
  detail::QuantLaunch q;
  q.recipe = r;
  q.in = t.type;
  q.x = x.p;
  q.batch = t.batch;
  q.M = t.rows;
  q.K = t.cols;
  q.packing = row ? row->packing : col->packing;
  q.do_row = row != nullptr;
  q.do_col = col != nullptr;
  if (row) q.row = {rd.as<std::uint8_t>(), rs.as<std::uint8_t>(), row->scale_layout, false};
  if (col) q.col = {cd.as<std::uint8_t>(), cs.as<std::uint8_t>(), col->scale_layout, col->data_order == mx::DataOrder::transposed};
  q.gamax = gam.as<std::uint32_t>();
  q.force_software = g_force_software;
  std::uint32_t ga = 0;
  std::vector<Out> outs;
  if (row) {
    outs.push_back({&rd, out.rowwise.data.data(), "rowwise data"});
    outs.push_back({&rs, out.rowwise.scales.data(), "rowwise scales"});
  }
  if (col) {
    outs.push_back({&cd, out.colwise.data.data(), "colwise data"});
    outs.push_back({&cs, out.colwise.scales.data(), "colwise scales"});
  }
  if (r.is_nvfp4()) outs.push_back({&gam, &ga, "NVFP4 global amax"});
  run_poisoned(outs, [&] { detail::launch_quantize(q, nullptr); }, "device quantize");
  out.rowwise.global_amax_bits = ga;
  out.colwise.global_amax_bits = ga;
  return out;
}

mx::Quantized quantize_device(const mx::Recipe& r, const mx::TensorView& t, const mx::QuantizeOptions& o) {
  validate_device(r, t, o);
  if (o.axis == mx::Axis::rowwise) return run_quantize(r, t, &o, nullptr).rowwise;
  return run_quantize(r, t, nullptr, &o).colwise;
}

FusedQuantized quantize_device_fused(const mx::Recipe& r, const mx::TensorView& t, const mx::QuantizeOptions& row,
                                     const mx::QuantizeOptions& col) {
  if (row.axis != mx::Axis::rowwise || col.axis != mx::Axis::colwise) {
    throw mx::InvalidArgument("fused quantize needs one rowwise and one colwise option set");
  }
  if (row.packing != col.packing) throw mx::InvalidArgument("fused quantize needs the same packing on both sides");
  validate_device(r, t, row);
  validate_device(r, t, col);
  return run_quantize(r, t, &row, &col);
}

std::vector<std::uint8_t> dequantize_device(const mx::Quantized& q, mx::Fmt out) {
  check_device_dequant_output(out);
  require_device();
  const std::int64_t total = q.batch * q.rows * q.cols;
  const std::size_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  if (static_cast<std::int64_t>(q.data.size()) != q.batch * q.data_rows * q.row_bytes ||
      static_cast<std::int64_t>(q.scales.size()) != mx::scale_buffer_bytes(q.opts.scale_layout, q.scale_shape)) {
    throw mx::ShapeError("dequantize: data or scale buffer size does not match the quantized shape");
  }
  DevBuf d(q.data.size()), s(q.scales.size()), y(static_cast<std::size_t>(total) * ob);
  d.upload(q.data.data());
  s.upload(q.scales.data());
  detail::DequantLaunch L;
  L.recipe = q.recipe;
  L.opts = q.opts;
  L.batch = q.batch;
  L.M = q.rows;
  L.K = q.cols;
  L.data_rows = q.data_rows;
  L.row_bytes = q.row_bytes;
  L.scale_shape = q.scale_shape;
  L.data = d.as<std::uint8_t>();
  L.scales = s.as<std::uint8_t>();
  L.global_amax_bits = q.global_amax_bits;
  L.out = out;
  L.y = y.p;
  std::vector<std::uint8_t> res(static_cast<std::size_t>(total) * ob);
  run_poisoned({{&y, res.data(), "dequantized output"}}, [&] { detail::launch_dequantize(L, nullptr); },
               "device dequantize");
  return res;
}

mx::PerTensorQuantized per_tensor_fp8_device(mx::Fmt f, const mx::TensorView& t) {
  check_device_per_tensor_format(f);
  mx::PerTensorQuantized r;
  r.elem = f;
  r.batch = t.batch;
  r.rows = t.rows;
  r.cols = t.cols;
  std::int64_t n = 0;
  if (t.batch < 1 || t.rows < 0 || t.cols < 0 || __builtin_mul_overflow(t.rows, t.cols, &n) ||
      __builtin_mul_overflow(n, t.batch * 4, &n)) {
    throw mx::ShapeError("tensor shape must have batch >= 1, rows >= 0, cols >= 0 and fit 64-bit byte counts");
  }
  require_device();
  n = t.batch * t.rows * t.cols;
  if (n > 0 && t.data == nullptr) throw mx::InvalidArgument("tensor data pointer is null");
  DevBuf x(static_cast<std::size_t>(in_bytes(t))), q(static_cast<std::size_t>(n)), am(4), sc(4), si(4);
  x.upload(t.data);
  r.data.resize(static_cast<std::size_t>(n));
  run_poisoned({{&q, r.data.data(), "per-tensor codes"},
                {&am, &r.amax_bits, "per-tensor amax"},
                {&sc, &r.scale_bits, "per-tensor scale"},
                {&si, &r.scale_inv_bits, "per-tensor scale_inv"}},
               [&] {
                 detail::launch_pt_amax(t.type, x.p, n, am.as<std::uint32_t>(), nullptr);
                 detail::launch_pt_cast(f, t.type, x.p, n, am.as<std::uint32_t>(), q.as<std::uint8_t>(), sc.as<float>(),
                                        si.as<float>(), nullptr, g_force_software);
               },
               "device per-tensor quantize");
  return r;
}

std::vector<std::uint8_t> per_tensor_fp8_dequant_device(const mx::PerTensorQuantized& q, mx::Fmt out) {
  check_device_per_tensor_format(q.elem);
  check_device_dequant_output(out);
  if (static_cast<std::int64_t>(q.data.size()) != q.batch * q.rows * q.cols) {
    throw mx::ShapeError("per-tensor dequantize: code count does not match the shape");
  }
  require_device();
  const std::int64_t n = static_cast<std::int64_t>(q.data.size());
  const std::size_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  DevBuf d(q.data.size()), si(4), y(q.data.size() * ob);
  d.upload(q.data.data());
  si.upload(&q.scale_inv_bits);
  std::vector<std::uint8_t> res(q.data.size() * ob);
  run_poisoned({{&y, res.data(), "per-tensor dequantized output"}},
               [&] { detail::launch_pt_dequant(q.elem, d.as<std::uint8_t>(), n, si.as<float>(), out, y.p, nullptr); },
               "device per-tensor dequantize");
  return res;
}

}  // namespace mxk
