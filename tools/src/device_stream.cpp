// device_stream.cpp - `quantize --device cuda` and `dequantize --device cuda`
// on large tensors (issue 15; bytes equal mx::quantize / mx::dequantize, C4,
// C7, C8): row chunks (tensor_stream.hpp) staged through pinned host buffers
// on two CUDA streams, so that while the GPU copies and converts one chunk
// the host copies the next one out of the mapped input and writes the
// previous one's results. Launches through libmxkernels' device-pointer
// launchers (kernels/common/launch.hpp), one launch per chunk.
#include <cuda_runtime_api.h>

#include <cstring>
#include <string>

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
// data and scales (in, a, b), a stream, and the chunk it holds.
struct Slot {
  Buf<true> h_in, h_a, h_b;
  Buf<false> d_in, d_a, d_b;
  Stream st;
  Chunk c;
  bool busy = false;
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

template <class Enqueue, class Finish>
void pipeline(const std::vector<Chunk>& chunks, std::size_t in_max, std::size_t a_max, std::size_t b_max, Enqueue&& enq,
              Finish&& fin) {
  Slot s0(in_max, a_max, b_max), s1(in_max, a_max, b_max);
  Slot* slots[2] = {&s0, &s1};
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    Slot& s = *slots[i % 2];
    if (s.busy) {
      check(cudaStreamSynchronize(s.st.s), "device chunk");
      fin(s);
      s.busy = false;
    }
    s.c = chunks[i];
    enq(s);
    s.busy = true;
  }
  for (std::size_t k = 0; k < 2; ++k) {
    Slot& s = *slots[(chunks.size() + k) % 2];
    if (!s.busy) continue;
    check(cudaStreamSynchronize(s.st.s), "device chunk");
    fin(s);
    s.busy = false;
  }
}

}  // namespace

void quantize_cuda(const mx::Recipe& r, const LoadedTensor& t, mx::Quantized& full, OutFile& data, std::uint64_t data_at,
                   Progress& p) {
  require_device();
  mx::validate(r, t.view(), full.opts);
  mxk::check_device_recipe(r);  // the launchers' accepted set (kernels/common/supported.hpp)
  mxk::check_device_options(full.opts);
  const std::int64_t eb = static_cast<std::int64_t>(mx::in_type_bytes(t.type));
  const auto chunks = plan_chunks(full, full.cols * eb, env_int("MXCONFORM_CHUNK_BYTES", 32 << 20));
  std::size_t in_max = 0, d_max = 0;
  for (const auto& c : chunks) {
    in_max = std::max<std::size_t>(in_max, chunk_elem_bytes(full, c, eb));
    d_max = std::max<std::size_t>(d_max, chunk_data_bytes(full, c));
  }
  const mx::QuantizeOptions co = chunk_options(full);
  const bool col = full.opts.axis == mx::Axis::colwise;
  pipeline(
      chunks, in_max, d_max, max_chunk_scales(full, chunks),
      [&](Slot& s) {
        const Chunk& c = s.c;
        const std::uint64_t off = chunk_elem_offset(full, c, eb), n = chunk_elem_bytes(full, c, eb);
        std::memcpy(s.h_in.p, t.data + off, n);
        t.map->release(t.data_offset + off, n);
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
      [&](Slot& s) {
        data.write(data_at + chunk_data_offset(full, s.c), s.h_a.p, chunk_data_bytes(full, s.c));
        scatter_scales(full, s.c, s.h_b.as(), full.scales.data());
        p.add(static_cast<std::int64_t>(chunk_elem_bytes(full, s.c, eb)));
      });
}

void dequantize_cuda(const MappedQuantized& m, mx::Fmt out, OutFile& y, std::uint64_t y_at, Progress& p) {
  require_device();
  const mx::Quantized& f = m.q;
  const std::int64_t ob = out == mx::Fmt::fp32 ? 4 : 2;
  const auto chunks = plan_chunks(f, f.cols * ob, env_int("MXCONFORM_CHUNK_BYTES", 32 << 20));
  std::size_t y_max = 0, d_max = 0;
  for (const auto& c : chunks) {
    y_max = std::max<std::size_t>(y_max, chunk_elem_bytes(f, c, ob));
    d_max = std::max<std::size_t>(d_max, chunk_data_bytes(f, c));
  }
  const std::size_t data_base = static_cast<std::size_t>(m.data - reinterpret_cast<const std::uint8_t*>(m.data_map.data()));
  pipeline(
      chunks, y_max, d_max, max_chunk_scales(f, chunks),
      [&](Slot& s) {
        const Chunk& c = s.c;
        const std::uint64_t doff = chunk_data_offset(f, c), dn = chunk_data_bytes(f, c);
        std::memcpy(s.h_a.p, m.data + doff, dn);
        m.data_map.release(data_base + doff, dn);
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
      [&](Slot& s) {
        const std::uint64_t n = chunk_elem_bytes(f, s.c, ob);
        y.write(y_at + chunk_elem_offset(f, s.c, ob), s.h_in.p, n);
        p.add(static_cast<std::int64_t>(n));
      });
}

}  // namespace mxv
