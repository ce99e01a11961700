// gemm_c11.cpp - the C11 models (block-scaled GEMM on sm_90, reference/SPEC.md
// C11) on top of the fitted H100 wgmma models of mx::hw_model (C9).
#include "mx/gemm_c11.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <thread>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/layout.hpp"

namespace mx {
namespace {

constexpr std::int64_t kV = 32;       // MX block along K
constexpr std::int64_t kBf16Step = 16;  // k of one bf16 wgmma

// Runs body(row) for row in [0, rows) on up to `threads` threads.
void parallel_rows(std::int64_t rows, int threads, const std::function<void(std::int64_t)>& body) {
  const std::int64_t nt = std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(rows, 1));
  if (nt <= 1) {
    for (std::int64_t r = 0; r < rows; ++r) body(r);
    return;
  }
  std::vector<std::thread> pool;
  for (std::int64_t t = 0; t < nt; ++t)
    pool.emplace_back([&, t] {
      for (std::int64_t r = t; r < rows; r += nt) body(r);
    });
  for (auto& th : pool) th.join();
}

void check_out(Fmt out) {
  if (out != Fmt::fp32 && out != Fmt::bf16) throw InvalidArgument("C11 GEMM: output type must be fp32 or bf16");
}

}  // namespace

float c11_block_scale(std::uint8_t ea, std::uint8_t eb) {
  if (ea == 0xFF || eb == 0xFF) return bits_f32(0x7FC00000u);
  const int e = int{ea} + int{eb} - 254;  // -254 .. 254
  if (e > 127) return bits_f32(0x7F800000u);
  if (e >= -126) return bits_f32(static_cast<std::uint32_t>(e + 127) << 23);
  if (e >= -149) return bits_f32(1u << (e + 149));  // subnormal power of two
  return 0.0f;
}

std::uint16_t c11_widen_e2m1(std::uint8_t code, std::uint8_t e) {
  if (e == 0xFF) return 0x7FC0;
  const double v = static_cast<double>(decode(Fmt::e2m1, code & 0xFu)) * std::ldexp(1.0, int{e} - 127);
  const double bf16_max = std::ldexp(255.0, 120);  // (2 - 2^-7) * 2^127
  if (std::fabs(v) > bf16_max) return std::signbit(v) ? 0xFF80 : 0x7F80;
  // |v| is 0 or (1 or 1.5) * 2^x with -128 <= x <= 127: exact in bf16.
  const std::uint32_t u = f32_bits(static_cast<float>(v));
  if ((u & 0xFFFFu) != 0) throw Error("c11_widen_e2m1: inexact widening (internal)");
  return static_cast<std::uint16_t>(u >> 16);
}

std::uint32_t c11_output_bits(float acc, Fmt out) {
  if (std::isnan(acc)) return out == Fmt::bf16 ? 0x7FC0u : 0x7FC00000u;
  if (out == Fmt::bf16) return f32_to_bf16_rne(acc);
  return f32_bits(acc);
}

HwModelParams c11_fp8_params(Fmt elem) {
  return h100_fitted_model(elem == Fmt::e5m2 ? MmaForm::wgmma_e5m2_m64n8k32_ss : MmaForm::wgmma_e4m3_m64n8k32_ss);
}
HwModelParams c11_bf16_params() { return h100_fitted_model(MmaForm::wgmma_bf16_m64n8k16_ss); }

ScaledOperand C11Operand::view() const {
  ScaledOperand s;
  s.elem = elem;
  s.scale_fmt = Fmt::ue8m0;
  s.block = static_cast<int>(kV);
  s.rows = rows;
  s.k = k;
  s.codes = codes.data();
  s.scales = scales.data();
  return s;
}

C11Operand c11_unpack(const Quantized& q) {
  if (q.recipe.is_nvfp4() || q.recipe.block != kV)
    throw InvalidArgument("C11 GEMM: operand recipe '" + q.recipe.name() + "' is not an MX recipe with 32-blocks");
  if (q.opts.axis != Axis::rowwise) throw InvalidArgument("C11 GEMM: operands must be quantized rowwise (along K)");
  if (q.batch != 1) throw InvalidArgument("C11 GEMM: batched operands are not supported");
  C11Operand o;
  o.elem = q.recipe.elem;
  o.rows = q.rows;
  o.k = q.cols;
  o.nkb = ceil_div(q.cols, kV);
  o.codes.resize(static_cast<std::size_t>(checked_mul(o.rows, o.k, "C11 operand")));
  o.scales.resize(static_cast<std::size_t>(checked_mul(o.rows, o.nkb, "C11 scales")));
  for (std::int64_t r = 0; r < o.rows; ++r) {
    for (std::int64_t i = 0; i < o.k; ++i)
      o.codes[static_cast<std::size_t>(r * o.k + i)] = element_code_at(q, 0, r, i);
    for (std::int64_t b = 0; b < o.nkb; ++b)
      o.scales[static_cast<std::size_t>(r * o.nkb + b)] = scale_code_at(q, 0, r, b * kV);
  }
  return o;
}

float c11_mxfp8_acc(const C11Operand& a, std::int64_t m, const C11Operand& b, std::int64_t n, float c) {
  static const HwModelParams p4 = c11_fp8_params(Fmt::e4m3), p5 = c11_fp8_params(Fmt::e5m2);
  const HwModelParams& params = a.elem == Fmt::e5m2 ? p5 : p4;
  const Elem e = a.elem == Fmt::e5m2 ? Elem::e5m2 : Elem::e4m3;
  DotCase cs;
  cs.a.assign(kV, 0);
  cs.b.assign(kV, 0);
  cs.c = 0;  // every block's wgmma starts from a zero accumulator
  float acc = c;
  for (std::int64_t kb = 0; kb < a.nkb; ++kb) {
    for (std::int64_t i = 0; i < kV; ++i) {  // zero-padded past K
      const std::int64_t k = kb * kV + i;
      cs.a[static_cast<std::size_t>(i)] = k < a.k ? a.codes[static_cast<std::size_t>(m * a.k + k)] : 0;
      cs.b[static_cast<std::size_t>(i)] = k < b.k ? b.codes[static_cast<std::size_t>(n * b.k + k)] : 0;
    }
    const float p = bits_f32(hw_dot(params, e, cs));
    const float s = c11_block_scale(a.scales[static_cast<std::size_t>(m * a.nkb + kb)],
                                    b.scales[static_cast<std::size_t>(n * b.nkb + kb)]);
    acc = std::fma(p, s, acc);
  }
  return acc;
}

std::vector<std::uint32_t> c11_mxfp8_gemm(const C11Operand& a, const C11Operand& b, const float* c, Fmt out,
                                          int threads) {
  check_out(out);
  if (a.k != b.k) throw ShapeError("C11 mxfp8: A has K = " + std::to_string(a.k) + ", B has K = " + std::to_string(b.k));
  if (a.elem != b.elem || (a.elem != Fmt::e4m3 && a.elem != Fmt::e5m2))
    throw InvalidArgument("C11 mxfp8: A and B must both be e4m3 or both e5m2");
  std::vector<std::uint32_t> d(static_cast<std::size_t>(checked_mul(a.rows, b.rows, "C11 D")));
  parallel_rows(a.rows, threads, [&](std::int64_t m) {
    for (std::int64_t n = 0; n < b.rows; ++n) {
      const std::size_t i = static_cast<std::size_t>(m * b.rows + n);
      d[i] = c11_output_bits(c11_mxfp8_acc(a, m, b, n, c ? c[i] : 0.0f), out);
    }
  });
  return d;
}

namespace {
void check_w4a16(const C11Operand& b) {
  if (b.elem != Fmt::e2m1) throw InvalidArgument("C11 w4a16: B must be MXFP4 (e2m1)");
}
// The widened, zero-padded B row (bf16 bits, length ceil(K/16)*16).
void widen_row(const C11Operand& b, std::int64_t n, std::vector<std::uint64_t>& w) {
  const std::int64_t kp = ceil_div(b.k, kBf16Step) * kBf16Step;
  w.assign(static_cast<std::size_t>(kp), 0);
  for (std::int64_t k = 0; k < b.k; ++k)
    w[static_cast<std::size_t>(k)] = c11_widen_e2m1(b.codes[static_cast<std::size_t>(n * b.k + k)],
                                                    b.scales[static_cast<std::size_t>(n * b.nkb + k / kV)]);
}
void a_row(const std::uint16_t* a, std::int64_t k, std::vector<std::uint64_t>& w) {
  w.assign(static_cast<std::size_t>(ceil_div(k, kBf16Step) * kBf16Step), 0);
  for (std::int64_t i = 0; i < k; ++i) w[static_cast<std::size_t>(i)] = a[i];
}
}  // namespace

float c11_w4a16_acc(const std::uint16_t* a_row_bits, const C11Operand& b, std::int64_t n, float c) {
  check_w4a16(b);
  static const HwModelParams params = c11_bf16_params();
  DotCase cs;
  a_row(a_row_bits, b.k, cs.a);
  widen_row(b, n, cs.b);
  cs.c = f32_bits(c);
  return bits_f32(hw_dot(params, Elem::bf16, cs));
}

namespace {
// D[m][n] for w4a16: B widened once (C11), then `eval` on each element's
// k-order DotCase (A row, B row, C) - the C11 model or the C9 exact sum.
template <class Eval>
std::vector<std::uint32_t> w4a16_each(const std::uint16_t* a_bf16, std::int64_t m, const C11Operand& b, const float* c,
                                      int threads, const char* what, Eval eval) {
  check_w4a16(b);
  std::vector<std::vector<std::uint64_t>> wb(static_cast<std::size_t>(b.rows));
  for (std::int64_t n = 0; n < b.rows; ++n) widen_row(b, n, wb[static_cast<std::size_t>(n)]);
  std::vector<std::uint32_t> d(static_cast<std::size_t>(checked_mul(m, b.rows, what)));
  parallel_rows(m, threads, [&](std::int64_t r) {
    DotCase cs;
    a_row(a_bf16 + r * b.k, b.k, cs.a);
    for (std::int64_t n = 0; n < b.rows; ++n) {
      const std::size_t i = static_cast<std::size_t>(r * b.rows + n);
      cs.b = wb[static_cast<std::size_t>(n)];
      cs.c = f32_bits(c ? c[i] : 0.0f);
      d[i] = eval(cs);
    }
  });
  return d;
}
}  // namespace

std::vector<std::uint32_t> c11_w4a16_gemm(const std::uint16_t* a_bf16, std::int64_t m, const C11Operand& b,
                                          const float* c, Fmt out, int threads) {
  check_out(out);
  static const HwModelParams params = c11_bf16_params();
  return w4a16_each(a_bf16, m, b, c, threads, "C11 D", [&](const DotCase& cs) {
    return c11_output_bits(bits_f32(hw_dot(params, Elem::bf16, cs)), out);
  });
}

std::vector<std::uint32_t> c11_w4a16_exact(const std::uint16_t* a_bf16, std::int64_t m, const C11Operand& b,
                                           const float* c, int threads) {
  return w4a16_each(a_bf16, m, b, c, threads, "C9 D",
                    [](const DotCase& cs) { return exact_dot_rne(Elem::bf16, cs); });
}

UlpStats c11_ulp_stats(const std::vector<std::uint32_t>& model, const std::vector<std::uint32_t>& exact) {
  if (model.size() != exact.size()) throw ShapeError("c11_ulp_stats: sizes differ");
  auto ordered = [](std::uint32_t u) -> std::int64_t {
    const std::int64_t mag = u & 0x7FFFFFFFu;
    return (u >> 31) ? -mag : mag;  // -0 and +0 both map to 0
  };
  auto special = [](std::uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u; };
  UlpStats s;
  double sum = 0;
  std::int64_t finite = 0;
  for (std::size_t i = 0; i < model.size(); ++i) {
    ++s.count;
    if (special(model[i]) || special(exact[i])) {
      if (!same_result(model[i], exact[i])) {
        ++s.differ;
        ++s.special;
      }
      continue;
    }
    const double d = static_cast<double>(std::abs(ordered(model[i]) - ordered(exact[i])));
    ++finite;
    sum += d;
    if (d != 0) ++s.differ;
    s.max_ulp = std::max(s.max_ulp, d);
  }
  s.mean_ulp = finite ? sum / static_cast<double>(finite) : 0.0;
  return s;
}

}  // namespace mx
