// dequant.cu - dequantize MX and NVFP4 tensors on the GPU (SPEC C5, C8):
// x = decode(element) * 2^(scale - 127), exact, rounded once (RNE) to fp32,
// bf16 or fp16; a 0xFF scale gives NaN for its block. One thread per output
// element; written independently of the reference (no libmxref device calls).
#include <cuda_runtime.h>

#include <cfloat>

#include "common/launch.hpp"
#include "common/supported.hpp"
#include "common/tiles.cuh"
#include "mx/error.hpp"

namespace mxk::detail {
namespace {

struct DqParams {
  int64_t batch, M, K;
  int64_t data_rows, row_bytes;
  const uint8_t* data;
  const uint8_t* scales;
  dev::Side side;  // scale addressing (layout, srows, sblocks, nkt, smat)
  int fmt;         // dev::kE4M3 ... kINT8
  int bits;
  int container8;
  int colwise, transposed;
  int V;
  int nvfp4;       // 0 none, 1 TransformerEngine, 2 torchao
  uint32_t gamax;
  int out;         // 0 fp32, 1 bf16, 2 fp16
  void* y;
};

__device__ uint32_t elem_code(const DqParams& p, int64_t b, int64_t m, int64_t k) {
  const int64_t row = p.transposed ? k : m;
  const int64_t j = p.transposed ? m : k;
  const uint8_t* base = p.data + (b * p.data_rows + row) * p.row_bytes;
  if (p.container8) return p.bits == 4 ? (base[j] >> 2) & 0xFu : base[j];
  if (p.bits == 8) return base[j];
  if (p.bits == 4) return (base[j / 2] >> ((j & 1) * 4)) & 0xFu;
  const int64_t bit = 6 * j;
  const int off = static_cast<int>(bit & 7);
  uint32_t v = static_cast<uint32_t>(base[bit >> 3]) >> off;
  if (off > 2) v |= static_cast<uint32_t>(base[(bit >> 3) + 1]) << (8 - off);
  return v & 0x3Fu;
}

// Decode an element to sign, integer significand and exponent; returns
// 0 finite, 1 Inf, 2 NaN.
__device__ int decode_elem(int fmt, uint32_t c, bool& neg, uint32_t& sig, int& exp) {
  int bits, mb, bias;
  switch (fmt) {
    case dev::kE4M3: bits = 8; mb = 3; bias = 7; break;
    case dev::kE5M2: bits = 8; mb = 2; bias = 15; break;
    case dev::kE3M2: bits = 6; mb = 2; bias = 3; break;
    case dev::kE2M3: bits = 6; mb = 3; bias = 1; break;
    case dev::kE2M1: bits = 4; mb = 1; bias = 1; break;
    default: {  // int8: two's complement, value c / 64
      const int v = static_cast<int>(static_cast<int8_t>(static_cast<uint8_t>(c)));
      neg = v < 0;
      sig = static_cast<uint32_t>(neg ? -v : v);
      exp = -6;
      return 0;
    }
  }
  neg = ((c >> (bits - 1)) & 1u) != 0;
  const uint32_t mag = c & ((1u << (bits - 1)) - 1u);
  if (fmt == dev::kE4M3 && mag == 0x7Fu) return 2;
  if (fmt == dev::kE5M2 && (mag >> 2) == 0x1Fu) return (mag & 3u) ? 2 : 1;
  const uint32_t e = mag >> mb, m = mag & ((1u << mb) - 1u);
  if (e == 0) {
    sig = m;
    exp = 1 - bias - mb;
  } else {
    sig = m | (1u << mb);
    exp = static_cast<int>(e) - bias - mb;
  }
  return 0;
}

__device__ __forceinline__ void put(const DqParams& p, int64_t i, uint32_t bits) {
  if (p.out == 0) {
    static_cast<uint32_t*>(p.y)[i] = bits;
  } else {
    static_cast<uint16_t*>(p.y)[i] = static_cast<uint16_t>(bits);
  }
}

__global__ void __launch_bounds__(256) k_dequant(DqParams p) {
  const int64_t total = p.batch * p.M * p.K;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const int64_t b = i / (p.M * p.K);
    const int64_t rem = i - b * p.M * p.K;
    const int64_t m = rem / p.K, k = rem - m * p.K;
    const uint32_t c = elem_code(p, b, m, k);
    const int64_t r = p.colwise ? k : m;
    const int64_t kb = (p.colwise ? m : k) / p.V;
    const uint32_t s = p.scales[dev::scale_offset(p.side, b, r, kb)];
    if (p.nvfp4) {
      const float e = dev::decode_e2m1(c);
      const float sv = dev::decode_e4m3_mag(s);
      const float gam = __uint_as_float(p.gamax & 0x7FFFFFFFu);
      float v;
      if (p.nvfp4 == 2) {
        const float pts = __fdiv_rn(gam, 2688.0f);
        v = dev::mul_x86(e, dev::mul_x86(pts, sv));
      } else {
        const float s_enc = (gam == 0.0f || !isfinite(gam)) ? 1.0f : __fdiv_rn(2688.0f, gam);
        const float s_dec = __fdiv_rn(1.0f, s_enc);
        v = dev::mul_x86(dev::mul_x86(e, sv), s_dec);
      }
      put(p, i, p.out == 0 ? __float_as_uint(v) : p.out == 1 ? dev::f32_to_bf16_bits(v) : dev::f32_to_f16_bits(v));
      continue;
    }
    const uint32_t qnan = p.out == 0 ? 0x7FC00000u : p.out == 1 ? 0x7FC0u : 0x7E00u;
    const uint32_t inf = p.out == 0 ? 0x7F800000u : p.out == 1 ? 0x7F80u : 0x7C00u;
    const uint32_t sgn = p.out == 0 ? 0x80000000u : 0x8000u;
    if (s == 0xFFu) {
      put(p, i, qnan);
      continue;
    }
    bool neg = false;
    uint32_t sig = 0;
    int exp = 0;
    const int cls = decode_elem(p.fmt, c, neg, sig, exp);
    if (cls == 2) {
      put(p, i, qnan);
      continue;
    }
    if (cls == 1) {
      put(p, i, inf | (neg ? sgn : 0u));
      continue;
    }
    uint32_t mag = 0;
    if (sig != 0) {
      exp += static_cast<int>(s) - 127;
      if (p.out == 0) mag = dev::round_mag<23, -126>(sig, exp);
      else if (p.out == 1) mag = dev::round_mag<7, -126>(sig, exp);
      else mag = dev::round_mag<10, -14>(sig, exp);
      if (mag > inf) mag = inf;
    }
    put(p, i, mag | (neg ? sgn : 0u));
  }
}

}  // namespace

void launch_dequantize(const DequantLaunch& d, cudaStream_t s) {
  check_device_dequant_output(d.out);
  DqParams p{};
  p.batch = d.batch;
  p.M = d.M;
  p.K = d.K;
  p.data_rows = d.data_rows;
  p.row_bytes = d.row_bytes;
  p.data = d.data;
  p.scales = d.scales;
  const std::int64_t nkt = (d.scale_shape.blocks + 3) / 4;
  p.side.srows = d.scale_shape.rows;
  p.side.sblocks = d.scale_shape.blocks;
  p.side.nkt = nkt;
  p.side.smat = d.opts.scale_layout == mx::ScaleLayout::tcgen05
                    ? ((d.scale_shape.rows + 127) / 128) * 128 * nkt * 4
                    : d.scale_shape.rows * d.scale_shape.blocks;
  p.side.layout = d.opts.scale_layout == mx::ScaleLayout::dense ? dev::kDense
                  : d.opts.scale_layout == mx::ScaleLayout::dense_colwise ? dev::kDenseColwise : dev::kTcgen05;
  p.fmt = static_cast<int>(d.recipe.elem);
  p.bits = elem_bits(d.recipe.elem);
  p.container8 = d.opts.packing == mx::Packing::container8 ? 1 : 0;
  p.colwise = d.opts.axis == mx::Axis::colwise ? 1 : 0;
  p.transposed = (p.colwise && d.opts.data_order == mx::DataOrder::transposed) ? 1 : 0;
  p.V = d.recipe.block;
  p.nvfp4 = d.recipe.nvfp4 == mx::Nvfp4Order::none ? 0 : d.recipe.nvfp4 == mx::Nvfp4Order::torchao ? 2 : 1;
  p.gamax = d.global_amax_bits;
  p.out = d.out == mx::Fmt::fp32 ? 0 : d.out == mx::Fmt::bf16 ? 1 : 2;
  p.y = d.y;
  const std::int64_t total = d.batch * d.M * d.K;
  if (total == 0) return;
  const std::int64_t g = std::min<std::int64_t>((total + 255) / 256, std::int64_t{1} << 20);
  k_dequant<<<static_cast<int>(g), 256, 0, s>>>(p);
  check(cudaGetLastError(), "dequantize kernel launch");
}

}  // namespace mxk::detail
