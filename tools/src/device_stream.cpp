// device_stream.cpp - `quantize --device cuda` and `dequantize --device cuda`
// on large tensors (issue 15; bytes equal mx::quantize / mx::dequantize, C4,
// C7, C8): row chunks (tensor_stream.hpp) go through a ring of staging slots
// (pinned host and device buffers of one chunk each, and a CUDA stream),
// allocated once up front, so resident memory is bounded by the ring, not by
// the input. Each slot has a host thread that takes the next chunk, reads it
// from the input file straight into its pinned buffer (pread: no mapping, no
// host copy of the tensor), queues H2D, the kernel and D2H on its stream,
// waits, and writes the results at their place in the output; with several
// slots, reads, transfers, kernels and writes of different chunks overlap.
// Launches through libmxkernels' device-pointer launchers
// (kernels/common/launch.hpp), one launch per chunk.
// MXCONFORM_DEVICE_SLOTS sets the ring's size (default 4), MXCONFORM_CHUNK_BYTES
// the chunk size (default 4 MiB: the ring's pinned memory is about 4 x 5 MiB).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/launch.hpp"
#include "common/supported.hpp"
#include "mx/error.hpp"
#include "mxk/api.hpp"
#include "tensor_stream.hpp"

namespace mxv {
namespace {

using mxk::detail::check;

template <bool Pinned>
struct Buf {
  void* p = nullptr;
  explicit Buf(std::size_t n) {
    if (n == 0) n = 1;
    if (Pinned) {
      check(cudaHostAlloc(&p, n, cudaHostAllocDefault), "cudaHostAlloc (pinned staging buffer)");
    } else {
      check(cudaMalloc(&p, n), "cudaMalloc");
    }
  }
  ~Buf() {
    if (p) Pinned ? cudaFreeHost(p) : cudaFree(p);
  }
  Buf(const Buf&) = delete;
  Buf& operator=(const Buf&) = delete;
  template <class T = std::uint8_t>
  T* as() const { return static_cast<T*>(p); }
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() {
    if (s) cudaStreamDestroy(s);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

void require_device() {
  std::string why;
  if (!mxk::device_available(&why)) throw mx::Error("no CUDA device: " + why);
}

// One staging slot: host (pinned) and device buffers for a chunk's input,
// data and scales (in, a, b), and a stream.
struct Slot {
  Buf<true> h_in, h_a, h_b;
  Buf<false> d_in, d_a, d_b;
  Stream st;
  Slot(std::size_t in, std::size_t a, std::size_t b) : h_in(in), h_a(a), h_b(b), d_in(in), d_a(a), d_b(b) {}
};

std::size_t max_chunk_scales(const mx::Quantized& f, const std::vector<Chunk>& chunks) {
  std::size_t n = 0;
  for (const auto& c : chunks) {
    const mx::ScaleShape s = chunk_scale_shape(f, c);
    n = std::max(n, static_cast<std::size_t>(s.rows * s.blocks));
  }
  return n;
}

// Runs every chunk through the ring: `enq(slot, chunk)` fills the slot's
// pinned input and queues the device work on its stream; `fin(slot, chunk)`
// writes the results once the stream is done. Every slot is allocated before
// any work starts (an out-of-memory error leaves nothing behind); the first
// error stops the other threads and is rethrown here.
template <class Enqueue, class Finish>
void pipeline(const std::vector<Chunk>& chunks, std::size_t in_max, std::size_t a_max, std::size_t b_max, Enqueue&& enq,
              Finish&& fin) {
  if (chunks.empty()) return;
  const auto n = static_cast<std::size_t>(std::min<std::int64_t>(env_int("MXCONFORM_DEVICE_SLOTS", 4), 16));
  std::vector<std::unique_ptr<Slot>> slots;
  for (std::size_t k = 0; k < std::min(n, chunks.size()); ++k) slots.push_back(std::make_unique<Slot>(in_max, a_max, b_max));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr err;
  std::mutex mu;
  auto worker = [&](Slot& s) {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= chunks.size() || failed.load()) return;
      try {
        enq(s, chunks[i]);
        check(cudaStreamSynchronize(s.st.s), "device chunk");
        fin(s, chunks[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu);
        if (!err) err = std::current_exception();
        failed.store(true);
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < slots.size(); ++k) pool.emplace_back(worker, std::ref(*slots[k]));
  worker(*slots[0]);
  for (auto& th : pool) th.join();
  if (err) std::rethrow_exception(err);
}

}  // namespace

void quantize_cuda(const mx::Recipe& r, const LoadedTensor& t, mx::Quantized& full, OutFile& data, std::uint64_t data_at,
                   Progress& p) {
  require_device();
  mx::validate(r, t.view(), full.opts);
  mxk::check_device_recipe(r);  // the launchers' accepted set (kernels/common/supported.hpp)
  mxk::check_device_options(full.opts);
  const std::int64_t eb = static_cast<std::int64_t>(mx::in_type_bytes(t.type));
  const auto chunks = plan_chunks(full, full.cols * eb, env_int("MXCONFORM_CHUNK_BYTES", 4 << 20));
  const FileReader in(t.map->path());
  std::size_t in_max = 0, d_max = 0;
  for (const auto& c : chunks) {
    in_max = std::max<std::size_t>(in_max, chunk_elem_bytes(full, c, eb));
    d_max = std::max<std::size_t>(d_max, chunk_data_bytes(full, c));
  }
  const mx::QuantizeOptions co = chunk_options(full);
  const bool col = full.opts.axis == mx::Axis::colwise;
  pipeline(
      chunks, in_max, d_max, max_chunk_scales(full, chunks),
      [&](Slot& s, const Chunk& c) {
        const std::uint64_t off = chunk_elem_offset(full, c, eb), n = chunk_elem_bytes(full, c, eb);
        in.read(t.data_offset + off, s.h_in.p, n);
        check(cudaMemcpyAsync(s.d_in.p, s.h_in.p, n, cudaMemcpyHostToDevice, s.st.s), "cudaMemcpyAsync H2D");
        mxk::detail::QuantLaunch q;
        q.recipe = r;
        q.in = t.type;
        q.x = s.d_in.p;
        q.batch = 1;
        q.M = c.m1 - c.m0;
        q.K = full.cols;
        q.packing = co.packing;
        q.do_row = !col;
        q.do_col = col;
        (col ? q.col : q.row) = {s.d_a.as(), s.d_b.as(), co.scale_layout, false};
        q.force_software = mxk::force_software();
        mxk::detail::launch_quantize(q, s.st.s);
        const mx::ScaleShape ss = chunk_scale_shape(full, c);
        check(cudaMemcpyAsync(s.h_a.p, s.d_a.p, chunk_data_bytes(full, c), cudaMemcpyDeviceToHost, s.st.s), "cudaMemcpyAsync D2H");
        check(cudaMemcpyAsync(s.h_b.p, s.d_b.p, static_cast<std::size_t>(ss.rows * ss.blocks), cudaMemcpyDeviceToHost, s.st.s),
              "cudaMemcpyAsync D2H");
      },
      [&](Slot& s, const Chunk& c) {
        data.write(data_at + chunk_data_offset(full, c), s.h_a.p, chunk_data_bytes(full, c));
        scatter_scales(full, c, s.h_b.as(), full.scales.data());  // disjoint bytes per chunk
        p.add(static_cast<std::int64_t>(chunk_elem_bytes(full, c, eb)));
      });
}

void dequantize_cuda(const MappedQuantized& m, mx::Fmt out, OutFile& y, std::uint64_t y_at, Progress& p) {
  require_device();
  const mx::Quantized& f = m.q;
  const std::int64_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  const auto chunks = plan_chunks(f, f.cols * ob, env_int("MXCONFORM_CHUNK_BYTES", 4 << 20));
  const FileReader in(m.data_map.path());
  std::size_t y_max = 0, d_max = 0;
  for (const auto& c : chunks) {
    y_max = std::max<std::size_t>(y_max, chunk_elem_bytes(f, c, ob));
    d_max = std::max<std::size_t>(d_max, chunk_data_bytes(f, c));
  }
  const std::size_t data_base = static_cast<std::size_t>(m.data - reinterpret_cast<const std::uint8_t*>(m.data_map.data()));
  pipeline(
      chunks, y_max, d_max, max_chunk_scales(f, chunks),
      [&](Slot& s, const Chunk& c) {
        const std::uint64_t doff = chunk_data_offset(f, c), dn = chunk_data_bytes(f, c);
        in.read(data_base + doff, s.h_a.p, dn);
        const mx::ScaleShape ss = chunk_scale_shape(f, c);
        gather_scales(f, c, m.scales, s.h_b.as());
        check(cudaMemcpyAsync(s.d_a.p, s.h_a.p, dn, cudaMemcpyHostToDevice, s.st.s), "cudaMemcpyAsync H2D");
        check(cudaMemcpyAsync(s.d_b.p, s.h_b.p, static_cast<std::size_t>(ss.rows * ss.blocks), cudaMemcpyHostToDevice, s.st.s),
              "cudaMemcpyAsync H2D");
        mxk::detail::DequantLaunch L;
        L.recipe = f.recipe;
        L.opts = chunk_options(f);
        L.batch = 1;
        L.M = c.m1 - c.m0;
        L.K = f.cols;
        L.data_rows = L.M;
        L.row_bytes = f.row_bytes;
        L.scale_shape = ss;
        L.data = s.d_a.as();
        L.scales = s.d_b.as();
        L.global_amax_bits = f.global_amax_bits;
        L.out = out;
        L.y = s.d_in.p;
        mxk::detail::launch_dequantize(L, s.st.s);
        check(cudaMemcpyAsync(s.h_in.p, s.d_in.p, chunk_elem_bytes(f, c, ob), cudaMemcpyDeviceToHost, s.st.s),
              "cudaMemcpyAsync D2H");
      },
      [&](Slot& s, const Chunk& c) {
        const std::uint64_t n = chunk_elem_bytes(f, c, ob);
        y.write(y_at + chunk_elem_offset(f, c, ob), s.h_in.p, n);
        p.add(static_cast<std::int64_t>(n));
      });
}

}  // namespace mxv
