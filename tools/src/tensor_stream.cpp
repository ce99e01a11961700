// tensor_stream.cpp - see tensor_stream.hpp (chunk planning, scale placement
// through mx::scale_offset, the multithreaded CPU drivers).
#include "tensor_stream.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "mx/error.hpp"
#include "mx/fast_quantize.hpp"

namespace mxv {

std::int64_t env_int(const char* name, std::int64_t dflt) {
  const char* e = std::getenv(name);
  if (!e || !*e) return dflt;
  const long long v = std::atoll(e);
  return v > 0 ? v : dflt;
}

unsigned cpu_threads() {
  // The cores this process may run on (taskset, cgroup cpusets), else all.
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) hw = static_cast<unsigned>(CPU_COUNT(&set));
  return static_cast<unsigned>(std::min<std::int64_t>(env_int("MXCONFORM_THREADS", hw), 256));
}

namespace {
bool transposed(const mx::QuantizeOptions& o) {
  return o.axis == mx::Axis::colwise && o.data_order == mx::DataOrder::transposed;
}
bool colwise(const mx::Quantized& q) { return q.opts.axis == mx::Axis::colwise; }
}  // namespace

bool quantize_chunkable(const mx::Recipe& r, const mx::QuantizeOptions& o) { return !r.is_nvfp4() && !transposed(o); }
bool dequantize_chunkable(const mx::Quantized& q) { return !transposed(q.opts); }

std::int64_t chunk_align(const mx::Quantized& full) { return colwise(full) ? full.recipe.block : 1; }

std::vector<Chunk> plan_chunks(const mx::Quantized& full, std::int64_t row_bytes, std::int64_t target_bytes) {
  const std::int64_t a = chunk_align(full);
  std::int64_t rows = std::max<std::int64_t>(1, target_bytes / std::max<std::int64_t>(1, row_bytes));
  rows = std::max(a, rows / a * a);
  std::vector<Chunk> v;
  for (std::int64_t b = 0; b < full.batch; ++b) {
    for (std::int64_t m = 0; m < full.rows; m += rows) v.push_back({b, m, std::min(full.rows, m + rows)});
  }
  return v;
}

mx::ScaleShape chunk_scale_shape(const mx::Quantized& full, const Chunk& c) {
  const std::int64_t n = c.m1 - c.m0;
  return colwise(full) ? mx::ScaleShape{full.cols, mx::ceil_div(n, full.recipe.block), 1}
                       : mx::ScaleShape{n, full.scale_shape.blocks, 1};
}

namespace {
// Calls f(chunk dense offset, full offset) for every scale of the chunk.
template <class F>
void each_scale(const mx::Quantized& full, const Chunk& c, F&& f) {
  const mx::ScaleShape cs = chunk_scale_shape(full, c);
  const bool col = colwise(full);
  const std::int64_t kb0 = col ? c.m0 / full.recipe.block : 0, r0 = col ? 0 : c.m0;
  const mx::ScaleLayout l = full.opts.scale_layout;
  for (std::int64_t r = 0; r < cs.rows; ++r) {
    if (l == mx::ScaleLayout::dense) {  // the row's blocks are contiguous in both
      f(r * cs.blocks, mx::scale_offset(l, full.scale_shape, c.b, r0 + r, kb0), cs.blocks);
      continue;
    }
    for (std::int64_t kb = 0; kb < cs.blocks; ++kb) {
      f(r * cs.blocks + kb, mx::scale_offset(l, full.scale_shape, c.b, r0 + r, kb0 + kb), std::int64_t{1});
    }
  }
}
}  // namespace

void scatter_scales(const mx::Quantized& full, const Chunk& c, const std::uint8_t* chunk_dense, std::uint8_t* full_buf) {
  each_scale(full, c, [&](std::int64_t co, std::int64_t fo, std::int64_t n) {
    std::copy_n(chunk_dense + co, n, full_buf + fo);
  });
}

void gather_scales(const mx::Quantized& full, const Chunk& c, const std::uint8_t* full_buf, std::uint8_t* chunk_dense) {
  each_scale(full, c, [&](std::int64_t co, std::int64_t fo, std::int64_t n) {
    std::copy_n(full_buf + fo, n, chunk_dense + co);
  });
}

std::uint64_t chunk_data_offset(const mx::Quantized& full, const Chunk& c) {
  return static_cast<std::uint64_t>((c.b * full.data_rows + c.m0) * full.row_bytes);
}
std::uint64_t chunk_data_bytes(const mx::Quantized& full, const Chunk& c) {
  return static_cast<std::uint64_t>((c.m1 - c.m0) * full.row_bytes);
}
std::uint64_t chunk_elem_offset(const mx::Quantized& full, const Chunk& c, std::int64_t elem) {
  return static_cast<std::uint64_t>((c.b * full.rows + c.m0) * full.cols * elem);
}
std::uint64_t chunk_elem_bytes(const mx::Quantized& full, const Chunk& c, std::int64_t elem) {
  return static_cast<std::uint64_t>((c.m1 - c.m0) * full.cols * elem);
}

mx::QuantizeOptions chunk_options(const mx::Quantized& full) {
  mx::QuantizeOptions o = full.opts;
  o.scale_layout = mx::ScaleLayout::dense;
  o.rbits = nullptr;
  return o;
}

mx::Quantized chunk_quantized(const MappedQuantized& m, const Chunk& c) {
  const mx::Quantized& f = m.q;
  mx::Quantized q;
  q.recipe = f.recipe;
  q.opts = chunk_options(f);
  q.batch = 1;
  q.rows = c.m1 - c.m0;
  q.cols = f.cols;
  q.data_rows = q.rows;
  q.data_row_elems = f.cols;
  q.row_bytes = f.row_bytes;
  const std::uint8_t* d = m.data + chunk_data_offset(f, c);
  q.data.assign(d, d + chunk_data_bytes(f, c));
  q.scale_shape = chunk_scale_shape(f, c);
  q.scales.resize(static_cast<std::size_t>(q.scale_shape.rows * q.scale_shape.blocks));
  gather_scales(f, c, m.scales, q.scales.data());
  q.global_amax_bits = f.global_amax_bits;
  return q;
}

namespace {
// Runs job(chunk) for every chunk on `threads` workers; rethrows the first error.
template <class F>
void parallel_chunks(const std::vector<Chunk>& chunks, unsigned threads, F&& job) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr err;
  std::mutex mu;
  auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= chunks.size() || failed.load()) return;
      try {
        job(chunks[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!err) err = std::current_exception();
        failed.store(true);
      }
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(chunks.size())));
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < n; ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (err) std::rethrow_exception(err);
}
}  // namespace

namespace {
// A buffer reused by every chunk a thread runs (fresh large allocations would
// fault their pages in again for each chunk).
std::uint8_t* scratch(std::vector<std::uint8_t>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}
}  // namespace

void quantize_cpu(const mx::Recipe& r, const LoadedTensor& t, mx::Quantized& full, OutFile& data, std::uint64_t data_at,
                  Progress& p) {
  const std::int64_t eb = static_cast<std::int64_t>(mx::in_type_bytes(t.type));
  const auto chunks = plan_chunks(full, full.cols * eb, env_int("MXCONFORM_CHUNK_BYTES", 8 << 20));
  const mx::QuantizeOptions co = chunk_options(full);
  // The fast path (mx::FastQuantizer: the reference's bytes, proven in
  // conformance/fast) where it covers the recipe, else mx::quantize per chunk.
  const bool fast = mx::FastQuantizer::supports(r, co);
  std::unique_ptr<mx::FastQuantizer> fq;
  if (fast) fq = std::make_unique<mx::FastQuantizer>(r);
  parallel_chunks(chunks, cpu_threads(), [&](const Chunk& c) {
    const std::uint64_t in_off = chunk_elem_offset(full, c, eb), in_n = chunk_elem_bytes(full, c, eb);
    if (fast) {
      thread_local std::vector<std::uint8_t> dbuf, sbuf;
      const mx::ScaleShape ss = chunk_scale_shape(full, c);
      const std::size_t dn = chunk_data_bytes(full, c);
      std::uint8_t* d = scratch(dbuf, dn);
      std::uint8_t* s = scratch(sbuf, static_cast<std::size_t>(ss.rows * ss.blocks));
      fq->rows(t.data + in_off, t.type, c.m1 - c.m0, full.cols, full.opts.axis, co.packing, d, s);
      data.write(data_at + chunk_data_offset(full, c), d, dn);
      scatter_scales(full, c, s, full.scales.data());
    } else {
      const mx::TensorView v{t.data + in_off, t.type, 1, c.m1 - c.m0, full.cols};
      const mx::Quantized q = mx::quantize(r, v, co);
      data.write(data_at + chunk_data_offset(full, c), q.data.data(), q.data.size());
      scatter_scales(full, c, q.scales.data(), full.scales.data());
    }
    t.map->release(t.data_offset + in_off, in_n);
    p.add(static_cast<std::int64_t>(in_n));
  });
}

void dequantize_cpu(const MappedQuantized& m, mx::Fmt out, OutFile& y, std::uint64_t y_at, Progress& p) {
  const mx::Quantized& f = m.q;
  const std::int64_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  const auto chunks = plan_chunks(f, f.cols * ob, env_int("MXCONFORM_CHUNK_BYTES", 8 << 20));
  const std::size_t data_base = static_cast<std::size_t>(m.data - reinterpret_cast<const std::uint8_t*>(m.data_map.data()));
  // mx::FastDequantizer: one table lookup per element, the table filled by
  // mx::dequantize (every recipe; conformance/fast).
  const mx::FastDequantizer fd(f.recipe, f.global_amax_bits, out);
  parallel_chunks(chunks, cpu_threads(), [&](const Chunk& c) {
    thread_local std::vector<std::uint8_t> ybuf, sbuf;
    const mx::ScaleShape ss = chunk_scale_shape(f, c);
    std::uint8_t* s = scratch(sbuf, static_cast<std::size_t>(ss.rows * ss.blocks));
    gather_scales(f, c, m.scales, s);
    const std::size_t yn = chunk_elem_bytes(f, c, ob);
    std::uint8_t* yb = scratch(ybuf, yn);
    fd.rows(m.data + chunk_data_offset(f, c), f.row_bytes, f.opts.packing, s, c.m1 - c.m0, f.cols, f.opts.axis, yb);
    y.write(y_at + chunk_elem_offset(f, c, ob), yb, yn);
    m.data_map.release(data_base + chunk_data_offset(f, c), chunk_data_bytes(f, c));
    p.add(static_cast<std::int64_t>(yn));
  });
}

}  // namespace mxv
