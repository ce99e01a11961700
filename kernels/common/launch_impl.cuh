// launch_impl.cuh - host-side template that turns a QuantLaunch into kernel
// launches of rowwise.cuh (rowwise only; NVFP4 in one launch:
// nvfp4/one_pass.cuh for small tensors, nvfp4/persist.cuh for large ones), col_stream.cuh (colwise, fused: full tiles of 16-bit
// inputs) or tiles.cuh (colwise, fused: the rest) for one (input type, block
// quantizer) pair.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

#include "common/col_stream.cuh"
#include "common/launch_ex.cuh"
#include "common/launch.hpp"
#include "common/row_select.hpp"
#include "common/tiles.cuh"
#include "mx/error.hpp"
#include "nvfp4/persist.cuh"

namespace mxk::detail {

inline dev::Side make_side(const ScaleOut& o, std::int64_t batch, std::int64_t srows, std::int64_t sblocks,
                           std::int64_t data_row_elems, int bits, bool container8) {
  dev::Side s{};
  s.data = o.data;
  s.scales = o.scales;
  s.row_bytes = container8 ? data_row_elems : (data_row_elems * bits + 7) / 8;
  s.srows = srows;
  s.sblocks = sblocks;
  s.nkt = (sblocks + 3) / 4;
  s.smat = o.layout == mx::ScaleLayout::tcgen05 ? ((srows + 127) / 128) * 128 * s.nkt * 4 : srows * sblocks;
  s.layout = o.layout == mx::ScaleLayout::dense ? dev::kDense
             : o.layout == mx::ScaleLayout::dense_colwise ? dev::kDenseColwise : dev::kTcgen05;
  s.transposed = o.transposed ? 1 : 0;
  (void)batch;
  return s;
}

inline int grid_for(std::int64_t work_items, int per_block) {
  const std::int64_t b = (work_items + per_block - 1) / per_block;
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(b, std::int64_t{1} << 30)));
}

// ---- rowwise (rowwise.cuh) -------------------------------------------------------
// NVFP4's quantize after its amax pass: a programmatic dependent launch (its
// CTAs may be scheduled while k_amax finishes and wait in wait_prior_grid);
// every other quantize: a plain launch.
template <class Q, class... KArgs, class... Args>
void launch_quant_kernel(void (*k)(KArgs...), dim3 grid, dim3 block, cudaStream_t s, Args... args) {
  if constexpr (dev::kReadsGlobalAmax<Q>) {
    check(launch_ex(LaunchAttr::programmatic, k, grid, block, 0, s, args...), "quantize kernel launch (programmatic)");
  } else {
    k<<<grid, block, 0, s>>>(static_cast<KArgs>(args)...);
  }
}

// the cp.async ring k_rowwise: 8 rows per CTA, gy chunk offsets per row block
template <class In, class Q>
void launch_rowwise_ring(const In* x, const dev::Params& p, std::int64_t nch, int forced, cudaStream_t s) {
  const std::int64_t rows = p.batch * p.M;
  const std::int64_t gx = (rows + dev::kRowWarps - 1) / dev::kRowWarps;
  // Up to kRowMaxChunks<Q> chunks per warp (pipelined), fewer where that
  // would leave fewer than kRowMinCtas CTAs (small tensors want every SM busy).
  const std::int64_t cpw = forced > 0 ? forced : std::clamp<std::int64_t>(gx * nch / dev::kRowMinCtas, 1, dev::kRowMaxChunks<Q>);
  const std::int64_t gy = std::min<std::int64_t>((nch + cpw - 1) / cpw, 65535);
  if (gx * gy > 0x7FFFFFFF) throw mx::ShapeError("device quantize: too many rows for one launch");
  const int order = g_ring_order.load();
  const int chunks_fast = order == 0 ? (dev::kRingChunksFast ? 1 : 0) : (order == 2 ? 1 : 0);
  // 48 KB cp.async ring per CTA, 64 registers: 4 CTAs per SM want the
  // largest shared-memory carveout (a hint; set once per instantiation).
  static const bool carveout_set = [] {
    if (cudaFuncSetAttribute(dev::k_rowwise<In, Q>, cudaFuncAttributePreferredSharedMemoryCarveout,
                             static_cast<int>(cudaSharedmemCarveoutMaxShared)) != cudaSuccess) {
      cudaGetLastError();  // only a hint: the launch works without it
    }
    return true;
  }();
  (void)carveout_set;
  launch_quant_kernel<Q>(dev::k_rowwise<In, Q>, dim3(static_cast<unsigned>(gx * gy)), dim3(256), s, x, p,
                         static_cast<int>(gx), static_cast<int>(gy), chunks_fast);
}

// NVFP4 rowwise in one launch: 1 = the one-pass kernel (nvfp4/one_pass.cuh)
// for tensors of at most kNvfp4OnePassMaxElems elements, 2 = the persistent
// kernel (nvfp4/persist.cuh) above that up to persist_max elements (the
// order's kNvfp4PersistMaxElems<Q>), 0 = the two passes; g_nvfp4_pass forces
// one (1 two passes, 2 the one-pass kernel, 3 the persistent kernel). Never while `s`
// is being captured into a graph: both kernels' barrier state is per stream
// (below), which a graph's replays on other streams would share, so a
// captured quantize takes the two passes (memset, k_amax, quantize: no state
// between launches).
inline int nvfp4_one_launch(std::int64_t n, std::int64_t persist_max, cudaStream_t s) {
  const int f = g_nvfp4_pass.load(std::memory_order_relaxed);
  int k = 0;
  if (n > 0) {
    if (f == 2) {
      k = 1;
    } else if (f == 3) {
      k = 2;
    } else if (f == 0) {
      k = n <= dev::kNvfp4OnePassMaxElems ? 1 : n <= persist_max ? 2 : 0;
    }
  }
  if (k == 0) return 0;
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  check(cudaStreamIsCapturing(s, &st), "cudaStreamIsCapturing");
  return st == cudaStreamCaptureStatusNone ? k : 0;
}
// whether the amax pass is left out (nvfp4.cu)
inline bool nvfp4_one_pass(std::int64_t n, std::int64_t persist_max, cudaStream_t s) {
  return nvfp4_one_launch(n, persist_max, s) != 0;
}

// The one-launch kernels' grid-barrier state (dev::OnePassSync: an epoch and
// two (count, max) sets, 640 bytes), one per (device, stream), allocated and
// zeroed (stream-ordered) on the first launch there and kept: launches on
// one stream run one after the other, and each grid leaves the state ready
// for the next (one_pass.cuh), so nothing on the host changes per launch.
// Streams are told apart by cudaStreamGetId (unique for the process's
// lifetime; a handle can be reused). Never in a graph (nvfp4_one_pass):
// replays on other streams would share the capture stream's state. Each
// host thread remembers its last (device, stream) -> state (no lock on a
// repeated launch); the buffers are freed at exit (before the CUDA
// runtime's own teardown: this object is built after the runtime is
// initialized).
class OnePassSyncs {
 public:
  dev::OnePassSync* get(int devi, unsigned long long sid, cudaStream_t s) {
    thread_local Last last;
    if (last.p != nullptr && last.dev == devi && last.sid == sid) return last.p;
    dev::OnePassSync* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      dev::OnePassSync*& b = bufs_[{devi, sid}];
      if (b == nullptr) {
        check(cudaMalloc(reinterpret_cast<void**>(&b), sizeof(dev::OnePassSync)), "cudaMalloc (nvfp4 one-pass barrier)");
        check(cudaMemsetAsync(b, 0, sizeof(dev::OnePassSync), s), "cudaMemsetAsync (nvfp4 one-pass barrier)");
      }
      p = b;
    }
    last = {devi, sid, p};
    return p;
  }
  ~OnePassSyncs() {
    for (auto& [key, b] : bufs_) {
      if (b != nullptr) cudaFree(b);  // errors ignored at exit
    }
  }

 private:
  struct Last {
    int dev = -1;
    unsigned long long sid = 0;
    dev::OnePassSync* p = nullptr;
  };
  std::mutex mu_;
  std::map<std::pair<int, unsigned long long>, dev::OnePassSync*> bufs_;
};
inline OnePassSyncs& one_pass_syncs() {
  static OnePassSyncs s;
  return s;
}

// CTAs of k_nvfp4_one_pass<In, Q> (PERSIST: k_nvfp4_persist<In, Q>) one SM
// holds (cached per device).
template <class In, class Q, bool PERSIST = false>
int one_pass_ctas_per_sm(int dev) {
  static std::atomic<int> cache[16] = {};
  if (dev >= 0 && dev < 16) {
    const int c = cache[dev].load(std::memory_order_relaxed);
    if (c > 0) return c;
  }
  int per_sm = 0;
  if constexpr (PERSIST) {
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dev::k_nvfp4_persist<In, Q>, 32 * dev::kPersistWarps, 0),
          "occupancy query (nvfp4 persistent)");
  } else {
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dev::k_nvfp4_one_pass<In, Q>, 32 * dev::kOnePassWarps, 0),
          "occupancy query (nvfp4 one pass)");
  }
  if (per_sm < 1) throw mx::Error("device quantize: the nvfp4 one-pass kernel does not fit on this device");
  if (dev >= 0 && dev < 16) cache[dev].store(per_sm, std::memory_order_relaxed);
  return per_sm;
}

// The grid of a cooperative NVFP4 launch of NW warps per CTA over `items`
// items: one item per warp (mxk::set_work_split(n): n items per warp, so that
// the gate reaches the items not kept in registers, or warps of several items
// at small sizes), capped by the CTAs that fit on the device at once (the grid
// barrier needs every CTA resident; cudaLaunchKernelEx refuses a cooperative
// grid that does not fit); and the stream's barrier state.
struct CoopGrid {
  std::int64_t grid;
  dev::OnePassSync* sync;
};
template <class In, class Q, bool PERSIST>
CoopGrid nvfp4_coop_grid(std::int64_t items, int nw, cudaStream_t s) {
  int devi = 0;
  check(cudaGetDevice(&devi), "cudaGetDevice");
  const std::int64_t cap = std::int64_t{one_pass_ctas_per_sm<In, Q, PERSIST>(devi)} * device_sm_count();
  const int forced = g_work_split.load(std::memory_order_relaxed);
  const std::int64_t per_warp = forced > 0 ? forced : 1;
  const std::int64_t grid = std::max<std::int64_t>(1, std::min<std::int64_t>((items + nw * per_warp - 1) / (nw * per_warp), cap));
  unsigned long long sid = 0;
  check(cudaStreamGetId(s, &sid), "cudaStreamGetId");
  return {grid, one_pass_syncs().get(devi, sid, s)};
}

// The one-pass kernel (nvfp4/one_pass.cuh). Measured on the H100 at 128x7168
// bf16: bench/results/README.md, run 10 one and run 11 nvs.
template <class In, class Q>
void launch_nvfp4_one_pass(const In* x, const dev::Params& p, std::int64_t nch, cudaStream_t s) {
  const int nw = dev::kOnePassWarps;
  const CoopGrid g = nvfp4_coop_grid<In, Q, false>(p.batch * p.M * nch, nw, s);
  // the amax word is the caller's writable scratch (QuantLaunch::gamax): the kernel writes the global amax there
  check(launch_ex(LaunchAttr::cooperative, dev::k_nvfp4_one_pass<In, Q>, dim3(static_cast<unsigned>(g.grid)),
                  dim3(static_cast<unsigned>(32 * nw)), 0, s, x, p, nch, g.sync, const_cast<std::uint32_t*>(p.gamax)),
        "nvfp4 one-pass kernel launch (cooperative)");
}

// The persistent kernel (nvfp4/persist.cuh): every CTA the device holds at
// once (fewer where the tensor has fewer items than their warps), over
// k_rowstream's chunks (nch per row).
template <class In, class Q>
void launch_nvfp4_persist(const In* x, const dev::Params& p, std::int64_t nch, cudaStream_t s) {
  const int nw = dev::kPersistWarps;
  const CoopGrid g = nvfp4_coop_grid<In, Q, true>(p.batch * p.M * nch, nw, s);
  const int fpf = g_persist_prefetch.load(std::memory_order_relaxed);
  const int pf = fpf >= 0 ? fpf : dev::kPersistPrefetch;
  check(launch_ex(LaunchAttr::cooperative, dev::k_nvfp4_persist<In, Q>, dim3(static_cast<unsigned>(g.grid)),
                  dim3(static_cast<unsigned>(32 * nw)), 0, s, x, p, nch, g.sync, const_cast<std::uint32_t*>(p.gamax), pf),
        "nvfp4 persistent kernel launch (cooperative)");
}

// k_rowtile where it applies (8-bit codes of large 16-bit tensors made of
// whole 128 x 64 tiles, tcgen05 scales), else k_rowstream or the ring by
// scale layout (kRowStreamDense/Tcgen05) and, for MXFP6 / MXFP4, size
// (kRowStreamSmall: k_rowstream up to kRowStreamSmallElems<In, Q>; MXFP4
// from 16-bit inputs takes the ring only where quad_fits);
// g_row_kernel forces one (a benchmark probe,
// mxbench --row-kernel: 1 = the ring, 2 = k_rowstream, 3 = k_rowtile where
// it applies; k_rowtile's sub-tiles per CTA: kTileSubs, or the forced split).
template <class In, class Q>
void launch_rowwise(const In* x, const dev::Params& p, cudaStream_t s) {
  constexpr std::int64_t CH = dev::RowShape<In>::CH;
  const std::int64_t rows = p.batch * p.M;
  const std::int64_t nch = (p.K + CH - 1) / CH;
  if constexpr (dev::kReadsGlobalAmax<Q>) {
    constexpr std::int64_t CH1 = dev::OnePassShape<In>::CH;
    const int one = nvfp4_one_launch(rows * p.K, dev::kNvfp4PersistMaxElems<Q>, s);
    if (one == 1) return launch_nvfp4_one_pass<In, Q>(x, p, (p.K + CH1 - 1) / CH1, s);
    if (one == 2) return launch_nvfp4_persist<In, Q>(x, p, nch, s);
  }
  const int forced = g_work_split.load();
  const int probe = g_row_kernel.load();
  if constexpr (sizeof(In) == 2 && dev::kRowTileQ<Q>) {
    // k_rowtile: whole 128 x 64 tiles, packed codes, 16-byte aligned buffers;
    // automatically for the layouts of row_tile_layout with at least
    // kTileMinCtasPerSm tiles per SM (probe 3 forces it where it fits).
    // kTileSubs sub-tiles of 128 x 64 per CTA (2: where K % 128 == 0,
    // M % 128 == 0 and the scales are 16-byte aligned); a forced split of 1
    // picks 1, of 2 or more 2 (where that fits).
    const std::int64_t tiles = rows / dev::kTileRows * (p.K / dev::kTileCols);
    auto a16 = [](const void* ptr) { return (reinterpret_cast<std::uintptr_t>(ptr) % 16) == 0; };
    const bool fits = p.vec_in != 0 && p.container8 == 0 && rows % dev::kTileRows == 0 && p.K % dev::kTileCols == 0 &&
                      a16(p.row.data) && tiles <= 0x7FFFFFFF;
    const bool autotile = probe == 0 && dev::row_tile_layout(p.row.layout) &&
                          tiles >= static_cast<std::int64_t>(dev::kTileMinCtasPerSm) * device_sm_count();
    if (fits && (probe == 3 || autotile)) {
      const bool wide_fits = p.K % (2 * dev::kTileCols) == 0 && p.M % dev::kTileRows == 0 && a16(p.row.scales);
      const int subs = forced == 1 ? 1 : forced >= 2 ? 2 : dev::kTileSubs;
      if (subs == 2 && wide_fits) {
        constexpr int MB = dev::kTileWideCtasPerSm;
        // 33 KB of shared memory per CTA, 5 CTAs per SM: the largest carveout
        // (a hint, set once per instantiation)
        static const bool carveout_set = [] {
          if (cudaFuncSetAttribute(dev::k_rowtile<In, Q, 2, MB>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   static_cast<int>(cudaSharedmemCarveoutMaxShared)) != cudaSuccess) {
            cudaGetLastError();  // only a hint: the launch works without it
          }
          return true;
        }();
        (void)carveout_set;
        launch_quant_kernel<Q>(dev::k_rowtile<In, Q, 2, MB>, dim3(static_cast<unsigned>(tiles / 2)), dim3(256), s, x, p,
                               p.K / (2 * dev::kTileCols));
      } else {
        launch_quant_kernel<Q>(dev::k_rowtile<In, Q, 1, dev::kTileCtasPerSm>, dim3(static_cast<unsigned>(tiles)), dim3(256),
                               s, x, p, p.K / dev::kTileCols);
      }
      return;
    }
  }
  // by layout and format, and for the formats of kRowStreamSmall by size
  const bool small = dev::kRowStreamSmall<Q> && rows * p.K <= dev::kRowStreamSmallElems<In, Q>;
  bool stream = probe == 1   ? false
                : probe == 2 ? true
                             : (small || (p.row.layout == dev::kTcgen05 ? dev::kRowStreamTcgen05
                                                                        : dev::kRowStreamDense<Q>));
  // the ring quantizes MXFP4 from 16-bit inputs a whole block per lane only
  // (row_quad32): where a row's codes cannot take that, k_rowstream
  if constexpr (dev::kRowQuad32<In, Q>) stream = stream || !dev::quad_fits(p);
  if (!stream) return launch_rowwise_ring<In, Q>(x, p, nch, forced, s);
  // k_rowstream: kStreamWarpsQ<Q> warps per CTA, kStreamChunksQ<Q> chunks
  // per warp; where that leaves under kStreamMinCtasPerSm CTAs per SM (small
  // tensors want every SM busy), kStreamWarpsSmall warps, then one chunk.
  // The forced split (mxk::set_work_split) and g_stream_warps (a probe)
  // override either.
  const std::int64_t items = rows * nch;
  const std::int64_t min_ctas = static_cast<std::int64_t>(dev::kStreamMinCtasPerSm) * device_sm_count();
  std::int64_t cpw = forced > 0 ? forced : dev::kStreamChunksQ<Q>;
  const int fw = g_stream_warps.load();
  int nw = fw > 0 ? std::min(fw, dev::kStreamWarps) : dev::kStreamWarpsQ<Q>;
  if (fw <= 0 && (items + nw * cpw - 1) / (nw * cpw) < min_ctas) nw = dev::kStreamWarpsSmall;
  if (forced <= 0 && (items + nw * cpw - 1) / (nw * cpw) < min_ctas) cpw = 1;
  const std::int64_t grid = (items + nw * cpw - 1) / (nw * cpw);
  if (grid > 0x7FFFFFFF) throw mx::ShapeError("device quantize: too many row chunks for one launch");
  launch_quant_kernel<Q>(dev::k_rowstream<In, Q>, dim3(static_cast<unsigned>(grid)), dim3(static_cast<unsigned>(32 * nw)),
                         s, x, p, nch, static_cast<int>(cpw));
}

// The colwise/fused stream kernel (col_stream.cuh) takes 16-bit MX inputs
// made of full 128 x 64 tiles, packed codes and 16-byte aligned buffers;
// everything else (and a forced tile row count, mxk::set_tile_rows) goes to
// the general tile kernel (tiles.cuh).
template <class In, class Q>
bool col_stream_ok(const QuantLaunch& q, bool c8) {
  if constexpr (sizeof(In) != 2 || Q::V != 32) {
    return false;
  } else {
    auto a16 = [](const void* ptr) { return (reinterpret_cast<std::uintptr_t>(ptr) % 16) == 0; };
    return g_tile_rows.load() == 0 && !c8 && q.M % dev::kCsRows == 0 && q.K % dev::kCsCols == 0 && a16(q.x) &&
           a16(q.col.data) && (!q.do_row || a16(q.row.data));
  }
}

template <class In, class Q>
void launch_family(const QuantLaunch& q, float inv_max, cudaStream_t s) {
  const bool c8 = q.packing == mx::Packing::container8;
  dev::Params p{};
  p.batch = q.batch;
  p.M = q.M;
  p.K = q.K;
  const std::int64_t V = Q::V;
  if (q.do_row) p.row = make_side(q.row, q.batch, q.M, (q.K + V - 1) / V, q.K, Q::BITS, c8);
  if (q.do_col) p.col = make_side(q.col, q.batch, q.K, (q.M + V - 1) / V, q.col.transposed ? q.M : q.K, Q::BITS, c8);
  p.container8 = c8 ? 1 : 0;
  p.rule = static_cast<int>(q.recipe.rule);
  p.nfb_ignore = q.recipe.nfb == mx::NonFiniteBlock::nonfinite_block_ignore ? 1 : 0;
  p.inv_max = inv_max;
  p.vec_in = ((q.K % 8) == 0 && (reinterpret_cast<std::uintptr_t>(q.x) % 16) == 0) ? 1 : 0;
  p.gamax = q.gamax;
  const In* x = static_cast<const In*>(q.x);
  if (q.batch * q.M * q.K == 0) return;
  if (q.do_row && !q.do_col) {
    launch_rowwise<In, Q>(x, p, s);
  } else if (col_stream_ok<In, Q>(q, c8)) {
    if constexpr (sizeof(In) == 2 && Q::V == 32) {
      // kCsTilesPerCta tiles per CTA, kCsTilesPerCtaFastMem where the DRAM is
      // fast for the SM count and the CTAs still fill every SM's
      // kCsCtasPerSm slots (128x7168: 112 tiles, one per CTA) (mxk::set_work_split
      // forces n: each tile after the first loads while the one before converts)
      const std::int64_t tiles = q.batch * (q.M / dev::kCsRows) * (q.K / dev::kCsCols);
      const int forced = g_work_split.load();
      const bool fast_mem = device_dram_gbs_per_sm() >= dev::kCsFastMemGbsPerSm &&
                            tiles >= std::int64_t{dev::kCsTilesPerCtaFastMem} * dev::kCsCtasPerSm * device_sm_count();
      const int per_cta = forced > 0 ? forced : fast_mem ? dev::kCsTilesPerCtaFastMem : dev::kCsTilesPerCta;
      const int grid = grid_for(tiles, per_cta);
      if (q.do_row) {
        dev::k_colstream<In, Q, true><<<grid, dev::kCsThreads, 0, s>>>(x, p);
      } else {
        dev::k_colstream<In, Q, false><<<grid, dev::kCsThreads, 0, s>>>(x, p);
      }
    }
  } else {
    // 128-row tiles unless they would leave fewer than ~2 waves of CTAs
    // (2 x SMs x 3 resident CTAs): then 32-row tiles, 4x more CTAs with a
    // quarter of the work each (decode-sized and small tensors).
    // mxk::set_tile_rows forces either (the gate runs both).
    const int forced_rows = g_tile_rows.load();
    const std::int64_t ntc = (q.K + dev::kTC - 1) / dev::kTC;
    const std::int64_t tiles128 = q.batch * ((q.M + dev::kTR - 1) / dev::kTR) * ntc;
    bool small_tiles;
    if (forced_rows > 0) {
      small_tiles = forced_rows == dev::kTRSmall;
    } else {
      small_tiles = tiles128 < 2 * 3 * static_cast<std::int64_t>(device_sm_count());
    }
    const std::int64_t tr = small_tiles ? dev::kTRSmall : dev::kTR;
    const std::int64_t tiles = q.batch * ((q.M + tr - 1) / tr) * ntc;
    // Up to 4 tiles per CTA (the next tile's loads overlap this one's
    // conversion), fewer where that would leave fewer than ~3000 CTAs.
    const int forced = g_work_split.load();
    const std::int64_t tpc = forced > 0 ? forced : std::clamp<std::int64_t>(tiles / 3000, 1, 4);
    const int grid = grid_for(tiles, static_cast<int>(tpc));
    if (small_tiles) {
      if (q.do_row) {
        dev::k_tile<In, Q, true, true, dev::kTRSmall><<<grid, 256, 0, s>>>(x, p);
      } else {
        dev::k_tile<In, Q, false, true, dev::kTRSmall><<<grid, 256, 0, s>>>(x, p);
      }
    } else if (q.do_row) {
      dev::k_tile<In, Q, true, true><<<grid, 256, 0, s>>>(x, p);
    } else {
      dev::k_tile<In, Q, false, true><<<grid, 256, 0, s>>>(x, p);
    }
  }
  check(cudaGetLastError(), "quantize kernel launch");
}

template <class In>
void launch_mx_type(const QuantLaunch& q, cudaStream_t s) {
  const float inv_max = inv_max_finite(q.recipe.elem);
  const bool sw = q.force_software;
  switch (q.recipe.elem) {
    case mx::Fmt::e4m3:
      return sw ? launch_family<In, dev::MxQ<dev::kE4M3, false>>(q, inv_max, s)
                : launch_family<In, dev::MxQ<dev::kE4M3, true>>(q, inv_max, s);
    case mx::Fmt::e5m2:
      return sw ? launch_family<In, dev::MxQ<dev::kE5M2, false>>(q, inv_max, s)
                : launch_family<In, dev::MxQ<dev::kE5M2, true>>(q, inv_max, s);
    case mx::Fmt::e2m1:
      return sw ? launch_family<In, dev::MxQ<dev::kE2M1, false>>(q, inv_max, s)
                : launch_family<In, dev::MxQ<dev::kE2M1, true>>(q, inv_max, s);
    // fp6 through the fp8 cvt, int8 through an fp32 add (dev_convert.cuh)
    case mx::Fmt::e3m2:
      return sw ? launch_family<In, dev::MxQ<dev::kE3M2, false>>(q, inv_max, s)
                : launch_family<In, dev::MxQ<dev::kE3M2, true>>(q, inv_max, s);
    case mx::Fmt::e2m3:
      return sw ? launch_family<In, dev::MxQ<dev::kE2M3, false>>(q, inv_max, s)
                : launch_family<In, dev::MxQ<dev::kE2M3, true>>(q, inv_max, s);
    case mx::Fmt::int8:
      return sw ? launch_family<In, dev::MxQ<dev::kINT8, false>>(q, inv_max, s)
                : launch_family<In, dev::MxQ<dev::kINT8, true>>(q, inv_max, s);
    default: throw mx::InvalidArgument("device quantize: not an MX element format");
  }
}

}  // namespace mxk::detail
