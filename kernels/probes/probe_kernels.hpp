// probe_kernels.hpp - host interface of the MMA probe kernels (kernels/probes).
//
// A probe is a batch of tiles; each tile is one execution of one MMA
// instruction by one warp (mma.sync) or one warpgroup (wgmma). The host gives
// the exact register images of A, B and C for every thread (so fragment
// probes can set any single (lane, register, element) and poison the rest),
// and, for wgmma, the A and/or B matrices that go to shared memory. The kernel
// returns the D register image of every thread. Nothing here knows the
// documented maps: packing matrices into registers is the caller's choice.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mx/mma_map.hpp"

namespace mxk::probes {

// 32-bit words per register of the operand (2 for f64, else 1).
int words_per_reg(mx::MmaForm f, mx::Operand op);

struct TileBatch {
  int ntiles = 0;
  // Register images, per tile: [thread][reg][word] (threads of the form).
  std::vector<std::uint32_t> a_img, b_img, c_img;
  // wgmma: shared-memory operands per tile, row-major with K contiguous:
  // A [64][K], B [8 (n)][K], element bytes as the form's element kind.
  std::vector<std::uint8_t> a_mat, b_mat;
  // wgmma: 1 = accumulate into C (scale-d true), 0 = D = A*B.
  int use_c = 1;
  std::vector<std::uint32_t> d_img;  // out: [tile][thread][reg][word]
};

// Whether the running device can execute form f; otherwise false and why.
bool form_runnable(mx::MmaForm f, std::string* why);

// Device name and compute capability; false (with why) without a device.
bool device_info(std::string* name, int* cc_major, int* cc_minor, std::string* why);

// Run a batch; throws mx::Error on CUDA errors or a form that cannot run.
// smem_variant: 0 = K-major no-swizzle descriptor with LBO = K-direction
// core-matrix stride and SBO = M/N-direction stride (PTX ISA 9.7.15.5.1);
// 1 = the two swapped (kept as a self-check of the descriptor reading).
void run_batch(mx::MmaForm f, TileBatch& b, int smem_variant = 0);

// Block-scale selector probes (sm_120a only): one tile with the given
// images and 32 scale words per operand; selectors are immediates in PTX,
// so only the combinations listed by scale_selectors() exist.
struct ScaleSel {
  int byte_a, tid_a, byte_b, tid_b;
};
std::vector<ScaleSel> scale_selectors(mx::MmaForm f);
void run_scale_batch(mx::MmaForm f, const ScaleSel& s, TileBatch& b, const std::vector<std::uint32_t>& sfa,
                     const std::vector<std::uint32_t>& sfb);

}  // namespace mxk::probes
