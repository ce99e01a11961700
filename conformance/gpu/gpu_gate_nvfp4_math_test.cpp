// gpu_gate_nvfp4_math_test.cpp - the `gpu` gate for the NVFP4 block
// quantizer's arithmetic (Nvfp4Q, kernels/common/block_quant.cuh): a dense
// sweep of 16-bit inputs (bf16 and f16) below each block's maximum, so that
// for many block scales every input value from the block maximum down over
// several binades is quantized once: the torchao order's division-free
// quotient for 16-bit inputs (checked exhaustively on the host by
// kernels/nvfp4/nvfp4_math_check.cpp), the e2m1 encode of scaled fp32
// values (e2m1x2_f32ro, kernels/nvfp4/e2m1_pack_check.cpp) and the ue4m3
// conversions, in both orders; block maxima over 2^-13 .. 1 of the global
// amax, so the TE order also gets subnormal and zero block scales; -0, NaN
// of both signs and both signs of every value. Rowwise (at 512 x 4096 =
// 2^21 elements the one-pass kernel, whose quantize phase is k_rowstream's
// row_item, for both layouts; the ring's row_pair16 is forced in
// gpu_gate_row_test.cpp) and one colwise configuration, packed and
// container8.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_gate.hpp"
#include "gpu_gate_cases.hpp"
#include "mx/quantize.hpp"
#include "mxk/api.hpp"

namespace {

// [1, rows, cols] input of a 16-bit type from its bit patterns.
gate::Input make16(mx::InType t, std::int64_t rows, std::int64_t cols, const std::vector<std::uint16_t>& v) {
  gate::Input in;
  in.type = t;
  in.rows = rows;
  in.cols = cols;
  in.bytes.resize(2 * v.size());
  std::memcpy(in.bytes.data(), v.data(), 2 * v.size());
  return in;
}

// Block j (16 elements): its maximum A (significand steps over the whole
// significand range, exponent 0 .. -13 below the global amax G, planted at
// element 0), then 15 patterns counting down from just below A, continued
// by the next block with the same A, with a sign pattern; every 97th
// element of a block is -0, NaN or -NaN instead.
std::vector<std::uint16_t> sweep(mx::InType t, std::int64_t n) {
  const bool f16 = t == mx::InType::f16;
  const std::uint16_t g = f16 ? 0x7800u : 0x4780u;  // G: 32768 (f16), 65536 (bf16)
  const int mbits = f16 ? 10 : 7;
  const std::uint16_t g_exp = static_cast<std::uint16_t>(g >> mbits);
  constexpr int kAmaxes = 256;
  std::vector<std::uint16_t> v(static_cast<std::size_t>(n));
  const std::int64_t blocks = n / 16;
  for (std::int64_t j = 0; j < blocks; ++j) {
    const int a = static_cast<int>(j % kAmaxes);
    const std::int64_t round = j / kAmaxes;
    const int sig = (a * 37) & ((1 << mbits) - 1);
    const int e = static_cast<int>(g_exp) - 1 - (a % 14);  // A in [2^-14, 1) * G
    const std::uint16_t A = static_cast<std::uint16_t>((e << mbits) | sig);
    for (int i = 0; i < 16; ++i) {
      std::uint16_t b;
      if (i == 0) {
        b = A;
      } else {
        const std::int64_t k = (round * 15 + (i - 1)) % A;  // A > 0 as an integer
        b = static_cast<std::uint16_t>(A - 1 - k);
      }
      const std::uint16_t sign = ((j * 16 + i) % 3 == 1) ? 0x8000u : 0u;
      b |= sign;
      const std::int64_t idx = j * 16 + i;
      if (i != 0 && idx % 97 == 5) {
        const int w = static_cast<int>((idx / 97) % 3);
        b = w == 0 ? 0x8000u : (f16 ? (w == 1 ? 0x7E00u : 0xFE00u) : (w == 1 ? 0x7FC0u : 0xFFC0u));
      }
      v[static_cast<std::size_t>(idx)] = b;
    }
  }
  v[0] = g;  // the global amax
  return v;
}

TEST(GpuGateNvfp4Math, DenseSweepBytesEqualReference) {
  REQUIRE_GPU();
  const gate::Cfg cfgs[] = {gate::kCfgs[0], gate::kCfgs[1], gate::kCfgs[2]};  // rowwise dense, tcgen05; colwise
  for (const char* name : {"nvfp4:torchao", "nvfp4"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f16}) {
      const std::int64_t rows = 512, cols = 4096;  // 131072 blocks: 512 rounds of 256 block maxima
      const gate::Input in = make16(t, rows, cols, sweep(t, rows * cols));
      for (const gate::Cfg& c : cfgs) {
        for (mx::Packing pk : gate::kPackings) {
          const mx::QuantizeOptions o = gate::opts_of(c, pk);
          ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o)), "")
              << name << " " << mx::in_type_name(t) << " " << c.name
              << (pk == mx::Packing::container8 ? " container8" : " packed");
        }
      }
    }
  }
}

}  // namespace
