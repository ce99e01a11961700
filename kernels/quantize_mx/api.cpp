// api.cpp - host launchers of libmxkernels (kernels/include/mxk/api.hpp):
// copy host tensors to the device, poison every output buffer (kPoison),
// launch, copy back into the reference's result types (mx::Quantized), so
// the gate compares bytes directly with mx::quantize / mx::dequantize.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "common/launch.hpp"
#include "mx/error.hpp"
#include "mxk/api.hpp"

namespace mxk {

using detail::check;

namespace {

bool g_force_software = false;

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
  void poison() const {
    if (n) check(cudaMemset(p, kPoison, n), "cudaMemset(poison)");
  }
  void upload(const void* h) const {
    if (n) check(cudaMemcpy(p, h, n, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  void download(void* h) const {
    if (n) check(cudaMemcpy(h, p, n, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }
};

std::int64_t in_bytes(const mx::TensorView& t) {
  return t.batch * t.rows * t.cols * static_cast<std::int64_t>(mx::in_type_bytes(t.type));
}

// Shapes of the result, filled as mx::quantize fills them (without data).
mx::Quantized shape_of(const mx::Recipe& r, const mx::TensorView& t, const mx::QuantizeOptions& o) {
  mx::Quantized q;
  q.recipe = r;
  q.opts = o;
  q.opts.rbits = nullptr;
  q.batch = t.batch;
  q.rows = t.rows;
  q.cols = t.cols;
  const bool col = o.axis == mx::Axis::colwise;
  const bool tr = col && o.data_order == mx::DataOrder::transposed;
  q.data_rows = tr ? t.cols : t.rows;
  q.data_row_elems = tr ? t.rows : t.cols;
  q.row_bytes = mx::packed_row_bytes(r.elem, q.data_row_elems, o.packing);
  q.data.resize(static_cast<std::size_t>(q.data_rows * q.row_bytes * t.batch));
  q.scale_shape = col ? mx::ScaleShape{t.cols, mx::ceil_div(t.rows, r.block), t.batch}
                      : mx::ScaleShape{t.rows, mx::ceil_div(t.cols, r.block), t.batch};
  q.scales.resize(static_cast<std::size_t>(mx::scale_buffer_bytes(o.scale_layout, q.scale_shape)));
  return q;
}

void validate_device(const mx::Recipe& r, const mx::TensorView& t, const mx::QuantizeOptions& o) {
  mx::validate(r, t, o);  // shapes, options, policies: same typed errors as the reference
  detail::check_supported(r, o.packing);
  if (o.packing == mx::Packing::container8 && mx::desc(r.elem).bits == 8) return;
}

void require_device() {
  std::string why;
  if (!device_available(&why)) throw mx::Error("no CUDA device: " + why);
}

}  // namespace

void set_force_software(bool on) { g_force_software = on; }
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
  if (row) out.rowwise = shape_of(r, t, *row);
  if (col) out.colwise = shape_of(r, t, *col);
  DevBuf x(static_cast<std::size_t>(in_bytes(t)));
  x.upload(t.data);
  DevBuf rd(row ? out.rowwise.data.size() : 0), rs(row ? out.rowwise.scales.size() : 0);
  DevBuf cd(col ? out.colwise.data.size() : 0), cs(col ? out.colwise.scales.size() : 0);
  DevBuf gam(4);
  rd.poison();
  rs.poison();
  cd.poison();
  cs.poison();
  gam.poison();
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
  detail::launch_quantize(q, nullptr);
  check(cudaDeviceSynchronize(), "quantize kernels");
  std::uint32_t ga = 0;
  if (r.is_nvfp4()) gam.download(&ga);
  if (row) {
    rd.download(out.rowwise.data.data());
    rs.download(out.rowwise.scales.data());
    out.rowwise.global_amax_bits = ga;
  }
  if (col) {
    cd.download(out.colwise.data.data());
    cs.download(out.colwise.scales.data());
    out.colwise.global_amax_bits = ga;
  }
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
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16 && out != mx::Fmt::fp16) {
    throw mx::InvalidArgument("dequantize output must be fp32, bf16 or fp16");
  }
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
  y.poison();
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
  detail::launch_dequantize(L, nullptr);
  check(cudaDeviceSynchronize(), "dequantize kernel");
  std::vector<std::uint8_t> res(static_cast<std::size_t>(total) * ob);
  y.download(res.data());
  return res;
}

PerTensorFp8 per_tensor_fp8_device(const mx::TensorView& t) {
  require_device();
  const std::int64_t n = t.batch * t.rows * t.cols;
  if (n > 0 && t.data == nullptr) throw mx::InvalidArgument("tensor data pointer is null");
  DevBuf x(static_cast<std::size_t>(in_bytes(t))), q(static_cast<std::size_t>(n)), am(4), si(4);
  x.upload(t.data);
  q.poison();
  am.poison();
  si.poison();
  detail::launch_pt_amax(t.type, x.p, n, am.as<std::uint32_t>(), nullptr);
  detail::launch_pt_cast(t.type, x.p, n, am.as<std::uint32_t>(), q.as<std::uint8_t>(), si.as<float>(), nullptr,
                         g_force_software);
  check(cudaDeviceSynchronize(), "per-tensor kernels");
  PerTensorFp8 r;
  r.data.resize(static_cast<std::size_t>(n));
  q.download(r.data.data());
  am.download(&r.amax_bits);
  si.download(&r.scale_inv);
  r.scale = 448.0f / std::max(mx::bits_f32(r.amax_bits), 1e-12f);
  return r;
}

std::vector<std::uint8_t> per_tensor_fp8_dequant_device(const PerTensorFp8& q, mx::Fmt out) {
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16 && out != mx::Fmt::fp16) {
    throw mx::InvalidArgument("per-tensor dequantize output must be fp32, bf16 or fp16");
  }
  require_device();
  const std::int64_t n = static_cast<std::int64_t>(q.data.size());
  const std::size_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  DevBuf d(q.data.size()), si(4), y(q.data.size() * ob);
  d.upload(q.data.data());
  si.upload(&q.scale_inv);
  y.poison();
  detail::launch_pt_dequant(d.as<std::uint8_t>(), n, si.as<float>(), out, y.p, nullptr);
  check(cudaDeviceSynchronize(), "per-tensor dequant kernel");
  std::vector<std::uint8_t> res(q.data.size() * ob);
  y.download(res.data());
  return res;
}

}  // namespace mxk
