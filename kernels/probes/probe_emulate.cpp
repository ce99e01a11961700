// probe_emulate.cpp - the CPU emulation of the probe kernels (MXPROBE_EMULATE=1):
// the documented maps and a C9 model stand in for the GPU, so the probes'
// decoding and fitting logic runs in the cpu tests (conformance/probes,
// probes_emu_test). Moved from probe_lib.cpp.
#include <bit>
#include <cmath>
#include <vector>

#include "mx/convert.hpp"
#include "numerics_cases.hpp"
#include "probe_internal.hpp"

namespace mxk::probes::detail {

using mx::DotCase;
using mx::Elem;
using mx::MmaForm;
using mx::Operand;

const mx::HwModelParams* g_emulate = nullptr;

namespace {

std::uint64_t get(const std::uint32_t* img, int regs, int wpr, int bits, int lane, int reg, int e) {
  const std::uint32_t* w = img + (static_cast<std::size_t>(lane) * regs + reg) * wpr;
  if (bits == 64) return (std::uint64_t{w[1]} << 32) | w[0];
  const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : ((1u << bits) - 1);
  return (w[0] >> (e * bits)) & mask;
}
}  // namespace

void emulate_batch(MmaForm f, TileBatch& b) {
  const auto& fi = mx::form_info(f);
  const Layout L(f);
  const std::size_t M = static_cast<std::size_t>(fi.m), N = static_cast<std::size_t>(fi.n),
                    K = static_cast<std::size_t>(fi.k);
  const int ab = ebits_of(fi.a_elem), cb = ebits_of(fi.c_elem);
  const bool wg = fi.threads == 128;
  b.d_img.assign(static_cast<std::size_t>(b.ntiles) * L.c_words(), kPoison);
  for (int t = 0; t < b.ntiles; ++t) {
    std::vector<std::vector<std::uint64_t>> A(M, std::vector<std::uint64_t>(K)), B(N, std::vector<std::uint64_t>(K)),
        C(M, std::vector<std::uint64_t>(N));
    if (fi.a_regs) {
      for (int l = 0; l < L.threads; ++l)
        for (int r = 0; r < L.a_regs; ++r)
          for (int e = 0; e < L.a_per; ++e) {
            const mx::RowCol rc = mx::documented(f, Operand::A, l, r, e);
            A[static_cast<std::size_t>(rc.row)][static_cast<std::size_t>(rc.col)] =
                get(b.a_img.data() + static_cast<std::size_t>(t) * L.a_words(), L.a_regs, L.wpr_a, ab, l, r, e);
          }
    } else {
      for (std::size_t m = 0; m < M; ++m)
        for (std::size_t k = 0; k < K; ++k) {
          std::uint64_t v = 0;
          for (int i = ab / 8 - 1; i >= 0; --i)
            v = (v << 8) | b.a_mat[static_cast<std::size_t>(t) * 2048 + (m * K + k) * static_cast<std::size_t>(ab / 8) + static_cast<std::size_t>(i)];
          A[m][k] = v;
        }
    }
    if (wg) {
      for (std::size_t n = 0; n < N; ++n)
        for (std::size_t k = 0; k < K; ++k) {
          std::uint64_t v = 0;
          for (int i = ab / 8 - 1; i >= 0; --i)
            v = (v << 8) | b.b_mat[static_cast<std::size_t>(t) * 256 + (n * K + k) * static_cast<std::size_t>(ab / 8) + static_cast<std::size_t>(i)];
          B[n][k] = v;
        }
    } else {
      for (int l = 0; l < L.threads; ++l)
        for (int r = 0; r < L.b_regs; ++r)
          for (int e = 0; e < L.b_per; ++e) {
            const mx::RowCol rc = mx::documented(f, Operand::B, l, r, e);
            B[static_cast<std::size_t>(rc.col)][static_cast<std::size_t>(rc.row)] =
                get(b.b_img.data() + static_cast<std::size_t>(t) * L.b_words(), L.b_regs, L.wpr_b, ab, l, r, e);
          }
    }
    for (int l = 0; l < L.threads; ++l)
      for (int r = 0; r < L.c_regs; ++r) {
        const mx::RowCol rc = mx::documented(f, Operand::C, l, r, 0);
        C[static_cast<std::size_t>(rc.row)][static_cast<std::size_t>(rc.col)] =
            (wg && !b.use_c) ? 0 : get(b.c_img.data() + static_cast<std::size_t>(t) * L.c_words(), L.c_regs, L.wpr_c, cb, l, r, 0);
      }
    for (int l = 0; l < L.threads; ++l)
      for (int r = 0; r < L.c_regs; ++r) {
        const mx::RowCol rc = mx::documented(f, Operand::C, l, r, 0);
        const std::size_t m = static_cast<std::size_t>(rc.row), n = static_cast<std::size_t>(rc.col);
        std::uint32_t* w = b.d_img.data() + static_cast<std::size_t>(t) * L.c_words() +
                           (static_cast<std::size_t>(l) * L.c_regs + r) * L.wpr_c;
        if (fi.c_elem == Elem::f64) {
          double acc = std::bit_cast<double>(C[m][n]);
          for (std::size_t k = 0; k < K; ++k)
            acc += std::bit_cast<double>(A[m][k]) * std::bit_cast<double>(B[n][k]);
          const std::uint64_t u = std::bit_cast<std::uint64_t>(acc);
          w[0] = static_cast<std::uint32_t>(u);
          w[1] = static_cast<std::uint32_t>(u >> 32);
          continue;
        }
        DotCase cs;
        cs.a = A[m];
        cs.b = B[n];
        cs.c = static_cast<std::uint32_t>(C[m][n]);
        w[0] = fi.c_elem == Elem::s32 ? exact_int_dot(cs) : mx::hw_dot(*g_emulate, fi.a_elem, cs);
      }
  }
}

// Emulated block-scaled mma.sync (documented maps and scale lanes, exact
// arithmetic): D[m][n] = C + sum_k A*B*SA(m, k/V)*SB(n, k/V).
void emulate_scale(MmaForm f, const ScaleSel& s, TileBatch& b, const std::vector<std::uint32_t>& sfa,
                          const std::vector<std::uint32_t>& sfb) {
  const auto& fi = mx::form_info(f);
  const bool nv = f == MmaForm::mma_mxf4nvf4_m16n8k64;
  const int vec = f == MmaForm::mma_mxf8f6f4_m16n8k32 ? 1 : nv ? 4 : 2;
  const int V = fi.k / vec;
  const int bits = mx::elem_bits(fi.a_elem);
  auto elem = [&](std::uint32_t code) {
    if (fi.a_elem == Elem::e2m1) {
      static const double t[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
      return (code & 8 ? -1.0 : 1.0) * t[code & 7];
    }
    return elem_value(fi.a_elem, code);
  };
  auto scale = [&](std::uint32_t byte) {
    return nv ? elem_value(Elem::e4m3, byte & 0x7F) : std::ldexp(1.0, static_cast<int>(byte) - 127);
  };
  std::vector<std::vector<double>> A(16, std::vector<double>(static_cast<std::size_t>(fi.k))),
      B(8, std::vector<double>(static_cast<std::size_t>(fi.k)));
  for (int l = 0; l < 32; ++l) {
    for (int r = 0; r < 4; ++r)
      for (int e = 0; e < fi.a_per_reg; ++e) {
        const mx::RowCol rc = mx::documented(f, Operand::A, l, r, e);
        const std::uint32_t code = (b.a_img[static_cast<std::size_t>(l * 4 + r)] >> (e * bits)) & ((1u << bits) - 1);
        A[static_cast<std::size_t>(rc.row)][static_cast<std::size_t>(rc.col)] = elem(code);
      }
    for (int r = 0; r < 2; ++r)
      for (int e = 0; e < fi.b_per_reg; ++e) {
        const mx::RowCol rc = mx::documented(f, Operand::B, l, r, e);
        const std::uint32_t code = (b.b_img[static_cast<std::size_t>(l * 2 + r)] >> (e * bits)) & ((1u << bits) - 1);
        B[static_cast<std::size_t>(rc.col)][static_cast<std::size_t>(rc.row)] = elem(code);
      }
  }
  auto sbyte = [&](const std::vector<std::uint32_t>& w, mx::LaneByte lb) {
    return (w[static_cast<std::size_t>(lb.lane)] >> (8 * lb.byte)) & 0xFFu;
  };
  b.d_img.assign(128, 0x7F7F7F7Fu);
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < 4; ++r) {
      const mx::RowCol rc = mx::documented(f, Operand::C, l, r, 0);
      double acc = static_cast<double>(std::bit_cast<float>(b.c_img[static_cast<std::size_t>(l * 4 + r)]));
      for (int k = 0; k < fi.k; ++k) {
        const int j = k / V;
        acc += A[static_cast<std::size_t>(rc.row)][static_cast<std::size_t>(k)] *
               B[static_cast<std::size_t>(rc.col)][static_cast<std::size_t>(k)] *
               scale(sbyte(sfa, mx::documented_scale_lane(Operand::A, rc.row, j, s.tid_a, s.byte_a))) *
               scale(sbyte(sfb, mx::documented_scale_lane(Operand::B, rc.col, j, s.tid_b, s.byte_b)));
      }
      b.d_img[static_cast<std::size_t>(l * 4 + r)] = std::bit_cast<std::uint32_t>(static_cast<float>(acc));
    }
}

}  // namespace mxk::probes::detail
