// gemm.cpp - exact block-scaled dot product (SPEC C9 `exact`).
#include "mx/gemm.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/layout.hpp"

namespace mx {
namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension
__extension__ typedef __int128 i128;

// Unsigned fixed-point number with LSB 2^-kOffset.
constexpr int kOffset = 448;
constexpr int kLimbs = 13;  // 832 bits: every term lies in [2^-400, 2^340]

struct Big {
  std::array<std::uint64_t, kLimbs> w{};
  void add(u128 sig, int exp) {
    if (sig == 0) return;
    const int pos = exp + kOffset;
    if (pos < 0 || pos + 128 > kLimbs * 64) throw Error("exact accumulator range exceeded (internal)");
    const int li = pos / 64, sh = pos % 64;
    // spread sig << sh over up to three limbs
    const std::uint64_t lo = static_cast<std::uint64_t>(sig);
    const std::uint64_t hi = static_cast<std::uint64_t>(sig >> 64);
    std::uint64_t parts[3];
    parts[0] = lo << sh;
    parts[1] = sh ? (hi << sh) | (lo >> (64 - sh)) : hi;
    parts[2] = sh ? hi >> (64 - sh) : 0;
    std::uint64_t carry = 0;
    for (int i = li; i < kLimbs; ++i) {
      const std::uint64_t p = (i - li) < 3 ? parts[i - li] : 0;
      const u128 s = static_cast<u128>(w[i]) + p + carry;
      w[i] = static_cast<std::uint64_t>(s);
      carry = static_cast<std::uint64_t>(s >> 64);
      if ((i - li) >= 2 && carry == 0) break;
    }
  }
  bool less(const Big& o) const {
    for (int i = kLimbs - 1; i >= 0; --i) {
      if (w[i] != o.w[i]) return w[i] < o.w[i];
    }
    return false;
  }
  void sub(const Big& o) {  // *this -= o, requires *this >= o
    std::uint64_t borrow = 0;
    for (int i = 0; i < kLimbs; ++i) {
      const u128 a = w[i];
      const u128 s = static_cast<u128>(o.w[i]) + borrow;
      w[i] = static_cast<std::uint64_t>(a - s);
      borrow = a < s ? 1 : 0;
    }
  }
  bool zero() const {
    for (auto x : w) if (x) return false;
    return true;
  }
};

// Round |B| * 2^-kOffset (with sign) once to fp32, RNE, overflow to Inf.
float round_big(const Big& b, bool neg) {
  int top = -1;
  for (int i = kLimbs - 1; i >= 0; --i) {
    if (b.w[i]) {
      top = i * 64 + 63 - std::countl_zero(b.w[i]);
      break;
    }
  }
  if (top < 0) return neg ? -0.0f : 0.0f;
  // Take 62 bits below and including `top`, plus a sticky bit.
  const int low = top - 61;  // bit index of the lowest kept bit
  std::uint64_t sig = 0;
  bool sticky = false;
  for (int bit = top; bit >= std::max(low, 0); --bit) {
    sig = (sig << 1) | ((b.w[bit / 64] >> (bit % 64)) & 1u);
  }
  int exp;
  if (low >= 0) {
    for (int bit = low - 1; bit >= 0 && !sticky; --bit) {
      if ((b.w[bit / 64] >> (bit % 64)) & 1u) sticky = true;
    }
    exp = low - kOffset;
  } else {
    exp = -kOffset;
  }
  Exact v;
  v.neg = neg;
  v.sig = (sig << 1) | (sticky ? 1u : 0u);
  v.exp = exp - 1;
  return bits_f32(encode_exact(Fmt::fp32, v, ConvPolicy{Rounding::rne, Overflow::propagate}));
}

struct Acc {
  Big pos, neg;
  bool nan = false, pinf = false, ninf = false;
  bool any_nonzero_or_pos = false;  // for the sign of an exact zero
  void add(bool n, u128 sig, int exp) {
    if (sig == 0) {
      if (!n) any_nonzero_or_pos = true;
      return;
    }
    any_nonzero_or_pos = true;
    (n ? neg : pos).add(sig, exp);
  }
  float result() const {
    if (nan || (pinf && ninf)) return std::numeric_limits<float>::quiet_NaN();
    if (pinf) return std::numeric_limits<float>::infinity();
    if (ninf) return -std::numeric_limits<float>::infinity();
    Big d = pos;
    bool sign = false;
    if (pos.less(neg)) {
      d = neg;
      d.sub(pos);
      sign = true;
    } else {
      d.sub(neg);
    }
    if (d.zero()) return any_nonzero_or_pos ? 0.0f : -0.0f;
    return round_big(d, sign);
  }
};

void check_operand(const ScaledOperand& o, const char* name) {
  if (o.block <= 0) throw InvalidArgument(std::string(name) + ": block size must be positive");
  if (o.rows < 0 || o.k < 0) throw ShapeError(std::string(name) + ": negative shape");
  if ((o.rows > 0 && o.k > 0) && (o.codes == nullptr || o.scales == nullptr)) {
    throw InvalidArgument(std::string(name) + ": null codes or scales pointer");
  }
  if (o.scale_fmt != Fmt::ue8m0 && o.scale_fmt != Fmt::ue4m3) {
    throw InvalidArgument(std::string(name) + ": scale format must be ue8m0 or ue4m3");
  }
}

}  // namespace

float exact_dot(const ScaledOperand& a, std::int64_t m, const ScaledOperand& b, std::int64_t n, float c) {
  check_operand(a, "A");
  check_operand(b, "B");
  if (a.k != b.k || a.block != b.block) throw ShapeError("A and B must have the same K and block size");
  if (m < 0 || m >= a.rows || n < 0 || n >= b.rows) throw ShapeError("dot product row outside the operand");
  const std::int64_t K = a.k, V = a.block, nkb = ceil_div(K, V);
  Acc acc;
  // C
  {
    const Unpacked u = unpack_f32(f32_bits(c));
    if (u.cls == Class::nan) acc.nan = true;
    else if (u.cls == Class::inf) (u.v.neg ? acc.ninf : acc.pinf) = true;
    else acc.add(u.v.neg, u.v.sig, u.v.exp);
  }
  // Global (NVFP4 tensor) factors.
  Unpacked ga = unpack_f32(f32_bits(a.global_scale));
  Unpacked gb = unpack_f32(f32_bits(b.global_scale));
  for (Unpacked* g : {&ga, &gb}) {  // strip trailing zeros: 1.0 -> sig 1
    while (g->v.sig != 0 && (g->v.sig & 1u) == 0) {
      g->v.sig >>= 1;
      ++g->v.exp;
    }
  }
  for (std::int64_t kb = 0; kb < nkb; ++kb) {
    Exact sa, sb;
    const Class ca = decode_exact(a.scale_fmt, a.scales[m * nkb + kb], &sa);
    const Class cb = decode_exact(b.scale_fmt, b.scales[n * nkb + kb], &sb);
    // Exact block sum of products; specials tracked per IEEE.
    i128 sum = 0;  // in units of 2^(-2*lsb) with a common exponent
    bool bnan = false, bpinf = false, bninf = false;
    bool all_zero = true;
    const std::int64_t i0 = kb * V, i1 = std::min(K, i0 + V);
    constexpr int kLsb = -40;  // every element value is a multiple of 2^-20
    for (std::int64_t i = i0; i < i1; ++i) {
      Exact pa, pb;
      const Class xa = decode_exact(a.elem, a.codes[m * K + i], &pa);
      const Class xb = decode_exact(b.elem, b.codes[n * K + i], &pb);
      if (xa == Class::nan || xb == Class::nan) { bnan = true; continue; }
      const bool na = (xa == Class::finite) ? pa.neg : (a.codes[m * K + i] & sign_mask(desc(a.elem))) != 0;
      const bool nb = (xb == Class::finite) ? pb.neg : (b.codes[n * K + i] & sign_mask(desc(b.elem))) != 0;
      if (xa == Class::inf || xb == Class::inf) {
        const bool other_zero = (xa == Class::finite && pa.sig == 0) || (xb == Class::finite && pb.sig == 0);
        if (other_zero) bnan = true;
        else ((na != nb) ? bninf : bpinf) = true;
        continue;
      }
      // IEEE 754 6.3: an exact zero sum is -0 only when every term is -0
      // (term sign: element signs and global-scale signs; scales are >= 0).
      const bool tzero = pa.sig == 0 || pb.sig == 0 || sa.sig == 0 || sb.sig == 0 || ga.v.sig == 0 || gb.v.sig == 0;
      if (!tzero || (na != nb) == (ga.v.neg != gb.v.neg)) acc.any_nonzero_or_pos = true;
      if (pa.sig == 0 || pb.sig == 0) continue;
      all_zero = false;
      const i128 p = static_cast<i128>(pa.sig * pb.sig) << (pa.exp + pb.exp - kLsb);
      sum += (na != nb) ? -p : p;
    }
    (void)all_zero;
    const bool scale_nan = ca == Class::nan || cb == Class::nan;
    if (bnan || scale_nan || (bpinf && bninf)) { acc.nan = true; continue; }
    // The block factor XA * XB * gA * gB as IEEE would multiply it (C9): a
    // NaN factor or 0 * Inf is NaN; Inf times the inner sum is Inf unless the
    // inner sum is zero; a zero factor (ue4m3 0, global 0) times Inf is NaN.
    const bool f_nan = ga.cls == Class::nan || gb.cls == Class::nan;
    const bool f_inf = ga.cls == Class::inf || gb.cls == Class::inf;
    const bool f_zero = sa.sig == 0 || sb.sig == 0 || (ga.cls == Class::finite && ga.v.sig == 0) ||
                        (gb.cls == Class::finite && gb.v.sig == 0);
    const bool f_neg = ga.v.neg != gb.v.neg;
    if (f_nan || (f_inf && f_zero)) { acc.nan = true; continue; }
    if (bpinf || bninf) {
      if (f_zero) { acc.nan = true; continue; }
      ((bpinf != f_neg) ? acc.pinf : acc.ninf) = true;
      continue;
    }
    if (f_inf) {
      if (sum == 0) { acc.nan = true; continue; }
      (((sum < 0) != f_neg) ? acc.ninf : acc.pinf) = true;
      continue;
    }
    const bool neg = sum < 0;
    const u128 mag = static_cast<u128>(neg ? -sum : sum);
    if (mag == 0) continue;
    // mag * 2^kLsb * sa * sb * ga * gb: multiply the significands in 128 bits.
    const u128 s1 = static_cast<u128>(sa.sig) * sb.sig;          // <= 8 bits
    const u128 s2 = static_cast<u128>(ga.v.sig) * gb.v.sig;      // <= 48 bits
    if (s1 == 0 || s2 == 0) { acc.add(neg != (ga.v.neg != gb.v.neg), 0, 0); continue; }
    const u128 sig = mag * s1 * s2;  // <= 56 + 8 + 48 bits
    const int exp = kLsb + sa.exp + sb.exp + ga.v.exp + gb.v.exp;
    acc.add(neg != (ga.v.neg != gb.v.neg), sig, exp);
  }
  return acc.result();
}

std::vector<float> exact_gemm(const ScaledOperand& a, const ScaledOperand& b, const float* c) {
  check_operand(a, "A");
  check_operand(b, "B");
  std::vector<float> d(static_cast<std::size_t>(checked_mul(a.rows, b.rows, "GEMM output")));
  for (std::int64_t m = 0; m < a.rows; ++m) {
    for (std::int64_t n = 0; n < b.rows; ++n) {
      d[m * b.rows + n] = exact_dot(a, m, b, n, c ? c[m * b.rows + n] : 0.0f);
    }
  }
  return d;
}

}  // namespace mx
