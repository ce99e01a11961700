// probe_internal.hpp - what probe_lib.cpp (the probes) and probe_emulate.cpp
// (their CPU emulation) share: the register-image layout of an MMA form, the
// poison word, element widths, and the emulation entry points. Internal to
// mxprobes.
#pragma once

#include <cstdint>
#include <vector>

#include "mx/hw_model.hpp"
#include "mx/mma_map.hpp"
#include "probe_kernels.hpp"

namespace mxk::probes::detail {

constexpr std::uint32_t kPoison = 0x7F7F7F7Fu;  // D registers before a probe writes them

inline int ebits_of(mx::Elem e) { return mx::elem_bits(e); }

// The 32-bit words of each operand's register image of form f (lanes x
// registers x words per register).
struct Layout {
  mx::MmaForm f;
  int threads, wpr_a, wpr_b, wpr_c;
  int a_regs, b_regs, c_regs, a_per, b_per;
  explicit Layout(mx::MmaForm form) : f(form) {
    const auto& fi = mx::form_info(form);
    threads = fi.threads;
    wpr_a = words_per_reg(form, mx::Operand::A);
    wpr_b = words_per_reg(form, mx::Operand::B);
    wpr_c = words_per_reg(form, mx::Operand::C);
    a_regs = fi.a_regs;
    b_regs = fi.b_regs;
    c_regs = fi.c_regs;
    a_per = fi.a_per_reg;
    b_per = fi.b_per_reg;
  }
  std::size_t a_words() const { return static_cast<std::size_t>(threads * a_regs * wpr_a); }
  std::size_t b_words() const { return static_cast<std::size_t>(threads * b_regs * wpr_b); }
  std::size_t c_words() const { return static_cast<std::size_t>(threads * c_regs * wpr_c); }
};

// The C9 model that stands in for the GPU (MXPROBE_EMULATE=1; null: the GPU
// runs the batches), set by set_emulation.
extern const mx::HwModelParams* g_emulate;

// The documented maps and g_emulate (exact integer dot for s32, exact f64
// sums for f64) in place of one batch of tiles on the GPU.
void emulate_batch(mx::MmaForm f, TileBatch& b);
// Block-scaled mma.sync on the documented maps and scale lanes, exactly:
// D[m][n] = C + sum_k A*B*SA(m, k/V)*SB(n, k/V).
void emulate_scale(mx::MmaForm f, const ScaleSel& s, TileBatch& b, const std::vector<std::uint32_t>& sfa,
                   const std::vector<std::uint32_t>& sfb);

}  // namespace mxk::probes::detail
