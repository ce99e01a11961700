// gpu_gate_row_test.cpp - the `gpu` gate for the rowwise work of issue 9.
// The rowwise kernels: the cp.async ring (NVFP4 and, from 16-bit inputs,
// MXFP4 on both layouts since run 23; the other MX tcgen05 tensors
// k_rowtile does not take) and k_rowstream (MXFP8 / MXINT8 dense scales,
// MXFP6, MXFP4 from f32 or container8) are reached by every Recipes test
// through the two rowwise configurations; k_rowtile (8-bit codes of large tensors,
// tcgen05 scales; 128 x 128 or 128 x 64 CTAs) only by the Tile cases here,
// the forced kernels and GpuGateLarge. Here also
// the dense-scale kernels on large tensors (8 warps per CTA for
// k_rowstream), ragged last chunks and forced splits, sanitizer cases for
// each rowwise kernel. Then inputs for the NVFP4 block
// quantizer that the random and special inputs reach rarely:
// quotients x / total exactly on, and a few fp32/bf16 steps either side of,
// every e2m1 decision boundary (0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5) for
// divisors 2^-3 .. 2^5, zeros and tiny values, and a tensor whose global
// amax makes per_tensor_scale and the divisors subnormal. Both NVFP4 orders,
// every configuration and packing (rowwise, colwise and fused kernels share
// the block quantizer).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/row_select.hpp"
#include "gpu_gate.hpp"
#include "gpu_gate_cases.hpp"
#include "mx/quantize.hpp"
#include "mxk/api.hpp"

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float float_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// [1, rows, cols] input of type t: fp32 bit patterns, stored as bf16 (the
// upper half: every value below is a bf16 value) or fp32.
gate::Input make(mx::InType t, std::int64_t rows, std::int64_t cols, const std::vector<std::uint32_t>& v) {
  gate::Input in;
  in.type = t;
  in.rows = rows;
  in.cols = cols;
  const std::size_t n = static_cast<std::size_t>(rows * cols);
  if (t == mx::InType::bf16) {
    in.bytes.resize(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint16_t h = static_cast<std::uint16_t>(v[i] >> 16);
      std::memcpy(&in.bytes[2 * i], &h, 2);
    }
  } else {
    in.bytes.resize(4 * n);
    std::memcpy(in.bytes.data(), v.data(), 4 * n);
  }
  return in;
}

// Blocks of 16: the block maximum 6 * 2^j first (so that, with the global
// amax 2688 at element 0, per_tensor_scale = 1 and the divisor is 2^j), then
// e2m1 decision boundaries times 2^j moved by -3..3 steps (fp32 steps, or
// bf16 steps for bf16 inputs), both signs, and zeros and tiny values.
std::vector<std::uint32_t> boundary_values(mx::InType t, std::int64_t n) {
  static const float kBound[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f, 6.0f};
  const std::uint32_t step = t == mx::InType::bf16 ? 0x10000u : 1u;
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  std::uint32_t k = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t blk = i / 16, e = i % 16;
    const int j = static_cast<int>(blk % 9) - 3;  // divisor 2^-3 .. 2^5
    if (e == 0) {
      v[i] = bits_of(std::ldexp(6.0f, j));
    } else if (e == 15) {
      v[i] = (blk % 3 == 0) ? 0x80000000u : bits_of(std::ldexp(1.0f, -90 + static_cast<int>(blk % 7)));  // -0, tiny
    } else {
      const float b = std::ldexp(kBound[k % 8], j);
      const int d = static_cast<int>((k / 8) % 7) - 3;
      ++k;
      v[i] = (bits_of(b) + static_cast<std::uint32_t>(d) * step) | ((k % 5 == 0) ? 0x80000000u : 0u);
    }
  }
  v[0] = bits_of(2688.0f);
  return v;
}

// Forces one rowwise kernel (the probe of mxbench --row-kernel,
// common/row_select.hpp: 1 the ring, 2 k_rowstream, 3 k_rowtile where it
// fits) for its lifetime; NVFP4 takes its two passes.
struct ForceRowKernel {
  explicit ForceRowKernel(int k) {
    mxk::detail::g_row_kernel.store(k);
    mxk::detail::g_nvfp4_pass.store(1);
  }
  ~ForceRowKernel() {
    mxk::detail::g_row_kernel.store(0);
    mxk::detail::g_nvfp4_pass.store(0);
  }
};

// Every rowwise kernel forced on both rowwise layouts, for each MX element
// family and NVFP4, whatever the launcher's size and layout rules pick
// (MXFP6 takes k_rowstream at every size, MXFP4 from 16-bit inputs the
// ring): the ring (where the ring cannot take MXFP4 whole blocks per lane,
// container8, the launcher sends it to k_rowstream),
// k_rowstream, and k_rowtile (where it fits: 16-bit inputs, 8-bit codes,
// packed, whole 128 x 64 tiles; elsewhere the launcher's choice). Whole
// tiles (256 x 2048) and ragged chunks (2 x 130 x 2050), bf16 and f32.
TEST(GpuGateRow, ForcedKernelsBytesEqualReference) {
  REQUIRE_GPU();
  std::uint64_t seed = 6600;
  for (const char* name : {"mxfp8_e4m3", "mxint8", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4", "nvfp4", "nvfp4:torchao"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      for (const gate::Shape& s : {gate::Shape{1, 256, 2048}, gate::Shape{2, 130, 2050}}) {
        const gate::Input in = gate::make_input(gate::Dist::special, t, s.b, s.m, s.k, r.elem, seed++);
        for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
          for (mx::Packing pk : gate::kPackings) {
            const mx::QuantizeOptions o = gate::opts_of(c, pk);
            const mx::Quantized want = mx::quantize(r, in.view(), o);
            for (const int k : {1, 2, 3}) {
              const ForceRowKernel force(k);
              ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), want), "")
                  << name << " " << mx::in_type_name(t) << " " << gate::shape_str(s) << " " << c.name << " kernel " << k
                  << (pk == mx::Packing::container8 ? " container8" : " packed");
            }
          }
        }
      }
    }
  }
}

// The ring forced for every MXFP6 / MXFP4 recipe (the launcher sends MXFP6
// and f32 MXFP4 to k_rowstream): hardware and software conversions, bf16 /
// f16 / f32,
// splits 4 (each stage refilled) and 1, both rowwise layouts, a ragged last
// chunk. Four row lengths, for the alignments of the MXFP4 code rows that
// row_quad32 (16-bit inputs: a whole block per lane) stores: K = 9216 (16
// bytes), 9232 (8), 9224 and 9256 (4).
std::vector<std::string> ring_recipes() {
  std::vector<std::string> v;
  for (const std::string& n : mx::recipe_names()) {
    const mx::Recipe r = mx::parse_recipe(n);
    if (!r.is_nvfp4() && (r.elem == mx::Fmt::e2m1 || r.elem == mx::Fmt::e3m2 || r.elem == mx::Fmt::e2m3)) v.push_back(n);
  }
  return v;
}
class RowRingForced : public ::testing::TestWithParam<std::string> {};
TEST_P(RowRingForced, BytesEqualReference) {
  REQUIRE_GPU();
  struct Reset {
    ~Reset() {
      mxk::set_work_split(0);
      mxk::set_force_software(false);
    }
  } reset;
  const ForceRowKernel ring(1);
  const mx::Recipe r = mx::parse_recipe(GetParam());
  std::uint64_t seed = 6700;
  for (mx::InType t : {mx::InType::bf16, mx::InType::f16, mx::InType::f32}) {
    for (const std::int64_t K : {9256, 9216, 9232, 9224}) {
      const gate::Input in = gate::make_input(gate::Dist::special, t, 1, 19, K, r.elem, seed++);
      for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
        const mx::QuantizeOptions o = gate::opts_of(c);
        const mx::Quantized want = mx::quantize(r, in.view(), o);
        for (const int split : {4, 1}) {
          for (const bool sw : {false, true}) {
            mxk::set_work_split(split);
            mxk::set_force_software(sw);
            const std::string diff = gate::diff_quantized(mxk::quantize_device(r, in.view(), o), want);
            mxk::set_work_split(0);
            mxk::set_force_software(false);
            ASSERT_EQ(diff, "") << GetParam() << " " << mx::in_type_name(t) << " K " << K << " " << c.name << " split "
                                << split << (sw ? " (software conversion)" : "");
          }
        }
      }
    }
  }
}
INSTANTIATE_TEST_SUITE_P(GpuGateRow, RowRingForced, ::testing::ValuesIn(ring_recipes()), gate::param_name);

// 1100 x 4100 on dense scales (5 chunks per row, the last ragged; 5500
// chunks): k_rowstream with 8 warps per CTA for MXFP8, MXINT8, 2 for
// MXFP4 (by size since run 12); NVFP4 the ring since run 23; splits 0, 3.
TEST(GpuGateRow, StreamLargeBytesEqualReference) {
  REQUIRE_GPU();
  struct Reset {
    ~Reset() { mxk::set_work_split(0); }
  } reset;
  std::uint64_t seed = 4100;
  for (const char* name : {"mxfp8_e4m3", "mxint8", "mxfp4:rceil", "nvfp4", "nvfp4:torchao"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      const gate::Input in = gate::make_input(gate::Dist::special, t, 1, 1100, 4100, r.elem, seed++);
      for (const int split : {0, 3}) {
        mxk::set_work_split(split);
        for (mx::Packing pk : gate::kPackings) {
          const mx::QuantizeOptions o = gate::opts_of(gate::kCfgs[0], pk);
          ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o)), "")
              << name << " " << mx::in_type_name(t) << " split " << split
              << (pk == mx::Packing::container8 ? " container8" : " packed");
        }
      }
    }
  }
}

// compute-sanitizer subset (the gate's sanitizer filter runs GpuGateSanitizer.*):
// k_rowstream on full and ragged chunks, one and four chunks per warp: on
// dense scales MXFP8, MXINT8 and NVFP4 (since run 11) and MXFP6 (since run
// 12, by size), on tcgen05 scales MXFP6 and MXFP4 (by size, run 12).
TEST(GpuGateSanitizer, RowStream) {
  REQUIRE_GPU();
  struct Reset {
    ~Reset() { mxk::set_work_split(0); }
  } reset;
  struct Case {
    const char* name;
    int cfg;
  };
  for (const Case& k : {Case{"mxfp8_e4m3", 0}, Case{"mxint8", 0}, Case{"mxfp6_e2m3", 0}, Case{"nvfp4", 0},
                        Case{"mxfp6_e3m2", 1}, Case{"mxfp4", 1}}) {
    const mx::Recipe r = mx::parse_recipe(k.name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      const gate::Input in = gate::make_input(gate::Dist::special, t, 2, 5, 9256, r.elem, 4200);
      for (const int split : {1, 4}) {
        mxk::set_work_split(split);
        const mx::QuantizeOptions o = gate::opts_of(gate::kCfgs[k.cfg]);
        ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o)), "")
            << k.name << " " << gate::kCfgs[k.cfg].name << " split " << split;
      }
    }
  }
}

// k_rowtile (8-bit codes, 16-bit inputs, packed, tcgen05 scales, whole
// 128 x 64 tiles, at least 4 tiles per SM; nothing smaller in the gate
// reaches it by shape): 1152 x 4096 (576 tiles) and a batch 4 x 192 x 7168
// (672 tiles; 128-row bands across batch entries, tcgen05 scales padded per
// entry). Every 8-bit recipe, bf16 and f16; the same tensors with dense
// scales and with container8 (the ring; run 10's second device call ran
// k_rowtile on the dense ones too, when it still took them).
// Its CTA shape (since run 13): 128 x 64, or with kTileSubs = 2 or the
// forced split 2 128 x 128 (two sub-tiles, the 512-byte tcgen05 scale
// block staged in shared memory) where K % 128 == 0 and M % 128 == 0:
// 1152 x 4096 and a batch 3 x 256 x 5632 (528 tiles) fit 128 x 128;
// 1152 x 4160 (K % 128 == 64) and 4 x 192 x 7168 (a band across batch
// entries) do not. Each tensor by the launcher's choice and with k_rowtile
// forced (probe 3) at the forced splits 1 (128 x 64) and 2 (128 x 128
// where it fits), on both layouts (dense: one scale byte per block from
// each thread).
TEST(GpuGateRow, TileBytesEqualReference) {
  REQUIRE_GPU();
  struct Reset {
    ~Reset() { mxk::set_work_split(0); }
  } reset;
  std::uint64_t seed = 6100;
  for (const char* name : {"mxfp8_e4m3", "mxfp8_e4m3:rceil", "mxfp8_e5m2", "mxint8"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f16}) {
      for (const gate::Shape& s : {gate::Shape{1, 1152, 4096}, gate::Shape{4, 192, 7168}, gate::Shape{3, 256, 5632},
                                   gate::Shape{1, 1152, 4160}}) {
        const gate::Dist d = seed % 2 ? gate::Dist::special : gate::Dist::wide;
        const gate::Input in = gate::make_input(d, t, s.b, s.m, s.k, r.elem, seed++);
        for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
          for (mx::Packing pk : gate::kPackings) {
            const mx::QuantizeOptions o = gate::opts_of(c, pk);
            const mx::Quantized want = mx::quantize(r, in.view(), o);
            for (const int split : {0, 1, 2}) {  // 0: the launcher's choice; 1, 2: k_rowtile forced
              const ForceRowKernel force(split == 0 ? 0 : 3);
              mxk::set_work_split(split);
              ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), want), "")
                  << name << " " << mx::in_type_name(t) << " " << gate::shape_str(s) << " " << c.name << " split " << split
                  << (pk == mx::Packing::container8 ? " container8" : " packed");
            }
            mxk::set_work_split(0);
          }
        }
      }
    }
  }
}

// compute-sanitizer subset: k_rowtile forced (probe 3) at 384 x 8192, every
// CTA shape (split 0: kTileSubs = 1, 128 x 64; 2: 128 x 128 with the staged
// tcgen05 scale block), tcgen05 and dense scales.
TEST(GpuGateSanitizer, RowTile) {
  REQUIRE_GPU();
  mxk::set_poison_check(false);  // one launch each under the sanitizers
  struct Reset {
    ~Reset() {
      mxk::set_poison_check(true);
      mxk::set_work_split(0);
    }
  } reset;
  for (const char* name : {"mxfp8_e4m3", "mxint8"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    const gate::Input in = gate::make_input(gate::Dist::special, mx::InType::bf16, 1, 384, 8192, r.elem, 6200);
    for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
      const mx::QuantizeOptions o = gate::opts_of(c);
      const mx::Quantized want = mx::quantize(r, in.view(), o);
      for (const int split : {0, 2}) {
        const ForceRowKernel force(3);
        mxk::set_work_split(split);
        ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), want), "")
            << name << " " << c.name << " split " << split;
      }
    }
  }
}

// The cp.async ring on dense scales, forced (MXFP6 and MXFP4 take it
// automatically only above 2^27 elements since run 12; MXFP8 and MXINT8
// take k_rowstream since run 11; NVFP4 on dense scales k_rowstream): f16
// inputs, ragged chunks, a batch, and the forced splits 1 and 4. NVFP4's
// packed full chunks in the ring take row_pair16 (a lane per 16-element
// block, other lanes' ring words).
TEST(GpuGateRow, RingDenseBytesEqualReference) {
  REQUIRE_GPU();
  struct Reset {
    ~Reset() { mxk::set_work_split(0); }
  } reset;
  const ForceRowKernel ring(1);
  std::uint64_t seed = 6300;
  for (const char* name : {"mxfp8_e5m2", "mxint8", "mxfp6_e2m3", "mxfp4:rceil", "nvfp4", "nvfp4:torchao"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (const gate::Shape& s : {gate::Shape{2, 130, 2050}, gate::Shape{1, 520, 8200}}) {
      const gate::Input in = gate::make_input(gate::Dist::special, mx::InType::f16, s.b, s.m, s.k, r.elem, seed++);
      for (mx::Packing pk : gate::kPackings) {
        const mx::QuantizeOptions o = gate::opts_of(gate::kCfgs[0], pk);
        const mx::Quantized want = mx::quantize(r, in.view(), o);
        for (const int split : {0, 1, 4}) {
          mxk::set_work_split(split);
          ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), want), "")
              << name << " " << gate::shape_str(s) << " split " << split
              << (pk == mx::Packing::container8 ? " container8" : " packed");
        }
      }
    }
  }
}

// compute-sanitizer subset: the ring, forced, on both rowwise layouts
// (MXFP6; MXFP4's row_quad32 and NVFP4's row_pair16 share ring words
// between lanes), full and ragged chunks; MXFP4 code rows 4-byte (K =
// 9256) and 16-byte (9216) aligned.
TEST(GpuGateSanitizer, RowRing) {
  REQUIRE_GPU();
  struct Reset {
    ~Reset() { mxk::set_work_split(0); }
  } reset;
  const ForceRowKernel ring(1);
  for (const char* name : {"mxfp6_e3m2", "mxfp4:rceil", "nvfp4", "nvfp4:torchao"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f16}) {
      for (const std::int64_t K : {9256, 9216}) {
        const gate::Input in = gate::make_input(gate::Dist::special, t, 2, 5, K, r.elem, 6400);
        for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
          const mx::QuantizeOptions o = gate::opts_of(c);
          const mx::Quantized want = mx::quantize(r, in.view(), o);
          for (const int split : {1, 4}) {
            mxk::set_work_split(split);
            ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), want), "")
                << name << " " << mx::in_type_name(t) << " K " << K << " " << c.name << " split " << split;
          }
        }
      }
    }
  }
}

// NVFP4 rowwise: tensors of at most 2^21 elements take the one-pass kernel
// (nvfp4/one_pass.cuh: amax and quantize in one cooperative launch), larger
// ones the amax pass and then the quantize pass as a programmatic dependent
// launch (the ring for both layouts since run 23; TE's order up to 2^23
// elements the persistent kernel). Shapes on
// both sides of the limit (2^21 exactly: the largest one-pass grid), a
// batch, ragged chunks; both orders, both rowwise layouts and packings.
TEST(GpuGateRow, Nvfp4OneAndTwoPassBytesEqualReference) {
  REQUIRE_GPU();
  std::uint64_t seed = 5100;
  for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      for (const gate::Shape& s : {gate::Shape{1, 512, 4096}, gate::Shape{1, 520, 4100}, gate::Shape{3, 100, 700}}) {
        const gate::Input in = gate::make_input(gate::Dist::special, t, s.b, s.m, s.k, r.elem, seed++);
        for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
          for (mx::Packing pk : gate::kPackings) {
            const mx::QuantizeOptions o = gate::opts_of(c, pk);
            ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o)), "")
                << name << " " << mx::in_type_name(t) << " " << gate::shape_str(s) << " " << c.name
                << (pk == mx::Packing::container8 ? " container8" : " packed");
          }
        }
      }
    }
  }
}

// compute-sanitizer subset: NVFP4's two passes (k_amax, then the quantize
// kernels as programmatic dependent launches) on tensors above the
// one-pass limit; the one-pass kernel runs in every other sanitizer case.
// Since run 17 (tail8) the quantize kernels issue their first loads before
// the wait for the amax grid: the ring (since run 23 both orders and
// layouts) and k_rowstream, each forced here with the two passes. K =
// 4100: ragged chunks only (the loads in row_ragged, after the wait); K =
// 4096: whole vector chunks (the early loads and copies).
TEST(GpuGateSanitizer, Nvfp4TwoPass) {
  REQUIRE_GPU();
  mxk::set_poison_check(false);  // one launch each under the sanitizers
  struct Reset {
    ~Reset() { mxk::set_poison_check(true); }
  } reset;
  for (const std::int64_t k : {4100, 4096}) {
    const gate::Input in = gate::make_input(gate::Dist::special, mx::InType::bf16, 1, 520, k, mx::Fmt::e2m1, 5200);
    for (const char* name : {"nvfp4", "nvfp4:torchao"}) {
      const mx::Recipe r = mx::parse_recipe(name);
      for (const gate::Cfg& c : {gate::kCfgs[0], gate::kCfgs[1]}) {
        const mx::QuantizeOptions o = gate::opts_of(c);
        const mx::Quantized want = mx::quantize(r, in.view(), o);
        for (const int kern : {1, 2}) {
          const ForceRowKernel force(kern);
          ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), want), "")
              << name << " " << c.name << " K " << k << (kern == 1 ? " ring" : " k_rowstream");
        }
      }
    }
  }
}

TEST(GpuGateRow, Nvfp4QuotientBoundariesBytesEqualReference) {
  REQUIRE_GPU();
  for (const char* name : {"nvfp4:torchao", "nvfp4"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      for (int tensor = 0; tensor < 2; ++tensor) {
        const std::int64_t rows = 24, cols = 272;  // ragged chunk and tile edges too
        std::vector<std::uint32_t> v = boundary_values(t, rows * cols);
        if (tensor == 1) {
          // global amax 2^-120: per_tensor_scale and the divisors subnormal
          for (auto& w : v) w = (w & 0x80000000u) | bits_of(std::ldexp(std::fabs(float_of(w)), -140));
        }
        const gate::Input in = make(t, rows, cols, v);
        for (const gate::Cfg& c : gate::kCfgs) {
          for (mx::Packing pk : gate::kPackings) {
            const mx::QuantizeOptions o = gate::opts_of(c, pk);
            ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o)), "")
                << name << " " << mx::in_type_name(t) << " tensor " << tensor << " " << c.name
                << (pk == mx::Packing::container8 ? " container8" : " packed");
          }
        }
      }
    }
  }
}

// torchao order without a per-element division (Nvfp4Q<1>::quotient_rn):
// blocks whose divisor total = per_tensor_scale * decode(s) lies either side
// of the fast path's bounds 2^64 and 2^-64 (per_tensor_scale 2^60 and
// 2^-70, block scales 2^-9 (clamped to 2^-6) .. 1.875 * 2^6), so both the
// division-free path and the exact one run in one tensor; per block the
// elements are e2m1 decision boundaries times total moved by -3..3 steps,
// both signs, a fraction of the block maximum, and one special: -0, +0,
// NaN of either sign (ignored by both amaxes, so it reaches the fast path),
// the smallest subnormal, and block maximum * 2^-35 (quotient below 2^-30).
std::vector<std::uint32_t> fast_div_values(mx::InType t, std::int64_t n, int pe) {
  static const float kBound[] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
  const std::uint32_t step = t == mx::InType::bf16 ? 0x10000u : 1u;
  const std::uint32_t keep = t == mx::InType::bf16 ? 0xFFFF0000u : 0xFFFFFFFFu;
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  std::uint32_t k = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t blk = i / 16, e = i % 16;
    const int ks = static_cast<int>(blk % 16) - 9;                         // block scale 2^ks * (1 + j / 8)
    const float sc = std::ldexp(1.0f + static_cast<float>((blk / 16) % 8) / 8.0f, ks);
    const float sce = sc < 0.015625f ? 0.015625f : sc;                     // torchao's clamp
    const float total = std::ldexp(sce, pe);
    const float bmax = std::ldexp(6.0f * sc, pe);
    const std::uint32_t sign = ((k * 7 + static_cast<std::uint32_t>(e)) % 3 == 0) ? 0x80000000u : 0u;
    if (e == 0) {
      v[i] = bits_of(bmax);
    } else if (e == 15) {
      static const std::uint32_t kSpecial[] = {0x80000000u, 0u, 0x7FC00000u, 0xFFC00000u, 0x00010000u, 0x80010000u};
      const std::int64_t c = blk % 7;
      v[i] = c < 6 ? kSpecial[c] : (bits_of(std::ldexp(bmax, -35)) & keep);
    } else if (e == 14 || sc < sce) {
      v[i] = (bits_of(bmax * static_cast<float>(1 + (k++ % 255)) / 256.0f) & keep) | sign;
    } else {
      const float b = kBound[k % 7] * total;
      const int d = static_cast<int>((k / 7) % 7) - 3;
      ++k;
      v[i] = (bits_of(b) + static_cast<std::uint32_t>(d) * step) | sign;
    }
  }
  v[0] = bits_of(std::ldexp(2688.0f, pe));  // global amax: per_tensor_scale = 2^pe
  return v;
}

TEST(GpuGateRow, Nvfp4FastDivisionRangeBytesEqualReference) {
  REQUIRE_GPU();
  for (const char* name : {"nvfp4:torchao", "nvfp4"}) {
    const mx::Recipe r = mx::parse_recipe(name);
    for (mx::InType t : {mx::InType::bf16, mx::InType::f32}) {
      for (const int pe : {60, -70}) {
        const std::int64_t rows = 24, cols = 272;
        const gate::Input in = make(t, rows, cols, fast_div_values(t, rows * cols, pe));
        for (const gate::Cfg& c : gate::kCfgs) {
          for (mx::Packing pk : gate::kPackings) {
            const mx::QuantizeOptions o = gate::opts_of(c, pk);
            ASSERT_EQ(gate::diff_quantized(mxk::quantize_device(r, in.view(), o), mx::quantize(r, in.view(), o)), "")
                << name << " " << mx::in_type_name(t) << " per_tensor_scale 2^" << pe << " " << c.name
                << (pk == mx::Packing::container8 ? " container8" : " packed");
          }
        }
      }
    }
  }
}

}  // namespace
