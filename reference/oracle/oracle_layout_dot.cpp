// oracle_layout_dot.cpp - the slow exact oracle for SPEC C6 (packing),
// C7 (scale layouts, tcgen05 from an enumerated 128x4 tile) and C9 (exact
// block-scaled dot product with a 2048-bit fixed-point sum). See oracle.hpp.
#include <algorithm>
#include <array>
#include <vector>
#include <stdexcept>

#include "oracle.hpp"
#include "oracle_internal.hpp"

namespace mxo {
namespace {
__extension__ typedef unsigned __int128 u128;

std::int64_t cdiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The 128 x 4 tile of C7 in storage order: 32 groups of 16 bytes; byte
// 16*i + 4*j + k of a tile holds (row 32*j + i, block k).
struct Tile {
  std::array<int, 512> row{}, col{};
  std::array<int, 512> inv{};  // [row * 4 + col] -> byte
};
const Tile& tile() {
  static const Tile t = [] {
    Tile x;
    int byte = 0;
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) {
          x.row[byte] = 32 * j + i;
          x.col[byte] = k;
          x.inv[(32 * j + i) * 4 + k] = byte;
          ++byte;
        }
    return x;
  }();
  return t;
}
}  // namespace

// ---- C6 ----------------------------------------------------------------------
std::vector<std::uint8_t> pack_row(Fmt f, const std::vector<std::uint8_t>& codes, bool container8) {
  const std::size_t n = codes.size();
  const bool fp4 = f == Fmt::e2m1;
  const bool fp6 = f == Fmt::e3m2 || f == Fmt::e2m3;
  if (container8 || (!fp4 && !fp6)) {
    std::vector<std::uint8_t> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(container8 && fp4 ? codes[i] << 2 : codes[i]);
    return out;
  }
  const std::size_t w = fp4 ? 4 : 6;
  std::vector<std::uint8_t> out((n * w + 7) / 8, 0);
  // element i occupies stream bits [w*i, w*i + w), stream bit b is bit b%8 of byte b/8
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < w; ++j)
      if ((codes[i] >> j) & 1u) {
        const std::size_t b = w * i + j;
        out[b / 8] = static_cast<std::uint8_t>(out[b / 8] | (1u << (b % 8)));
      }
  return out;
}

// ---- C7 ----------------------------------------------------------------------
std::int64_t layout_matrix_bytes(Layout l, std::int64_t rows, std::int64_t blocks) {
  if (l == Layout::tcgen05) return cdiv(rows, 128) * cdiv(blocks, 4) * 512;
  return rows * blocks;
}

std::int64_t layout_offset(Layout l, std::int64_t rows, std::int64_t blocks, std::int64_t batch,
                           std::int64_t r, std::int64_t b) {
  const std::int64_t base = batch * layout_matrix_bytes(l, rows, blocks);
  switch (l) {
    case Layout::dense: return base + r * blocks + b;            // [R][NKB] row-major
    case Layout::dense_colwise: return base + b * rows + r;      // [NKB][R] row-major
    case Layout::tcgen05: {
      const std::int64_t tiles_per_row_band = cdiv(blocks, 4);
      const std::int64_t t = (r / 128) * tiles_per_row_band + b / 4;  // tiles row-major
      return base + t * 512 + tile().inv[static_cast<std::size_t>((r % 128) * 4 + b % 4)];
    }
  }
  return -1;
}

Coord layout_coord(Layout l, std::int64_t rows, std::int64_t blocks, std::int64_t offset) {
  const std::int64_t mat = layout_matrix_bytes(l, rows, blocks);
  Coord c;
  c.batch = offset / mat;
  const std::int64_t o = offset % mat;
  switch (l) {
    case Layout::dense:
      c.row = o / blocks;
      c.block = o % blocks;
      break;
    case Layout::dense_colwise:
      c.block = o / rows;
      c.row = o % rows;
      break;
    case Layout::tcgen05: {
      const std::int64_t t = o / 512, byte = o % 512;
      const std::int64_t nt = cdiv(blocks, 4);
      const std::int64_t r = (t / nt) * 128 + tile().row[static_cast<std::size_t>(byte)];
      const std::int64_t b = (t % nt) * 4 + tile().col[static_cast<std::size_t>(byte)];
      if (r < rows && b < blocks) {
        c.row = r;
        c.block = b;
      }
      break;
    }
  }
  return c;
}

// ---- C9 ----------------------------------------------------------------------
namespace {
// Unsigned fixed point, LSB 2^-1024, 2048 bits.
struct Fixed {
  std::array<std::uint64_t, 32> w{};
  void add_bit_run(u128 sig, std::int64_t exp) {
    const std::int64_t pos = exp + 1024;
    if (pos < 0 || pos + 128 > 2048 - 64) throw std::logic_error("mxo: exact_dot range");
    // add sig << pos, one 64-bit chunk at a time
    for (int part = 0; part < 2; ++part) {
      const std::uint64_t v = static_cast<std::uint64_t>(sig >> (64 * part));
      if (!v) continue;
      const std::int64_t p = pos + 64 * part;
      const std::int64_t li = p / 64, sh = p % 64;
      u128 carry = static_cast<u128>(v) << sh;  // up to 127 bits
      for (std::int64_t i = li; i < 32 && carry; ++i) {
        const u128 s = static_cast<u128>(w[static_cast<std::size_t>(i)]) + static_cast<std::uint64_t>(carry);
        w[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(s);
        carry = (carry >> 64) + (s >> 64);
      }
    }
  }
  int cmp(const Fixed& o) const {
    for (int i = 31; i >= 0; --i)
      if (w[i] != o.w[i]) return w[i] < o.w[i] ? -1 : 1;
    return 0;
  }
  Fixed minus(const Fixed& o) const {  // requires *this >= o
    Fixed r;
    std::uint64_t borrow = 0;
    for (int i = 0; i < 32; ++i) {
      const std::uint64_t a = w[i], b = o.w[i];
      const std::uint64_t d = a - b - borrow;
      borrow = (a < b || (a - b) < borrow) ? 1 : 0;
      r.w[i] = d;
    }
    return r;
  }
  int top() const {
    for (int i = 31; i >= 0; --i)
      if (w[i]) return i * 64 + 63 - __builtin_clzll(w[i]);
    return -1;
  }
  bool bit(int b) const { return (w[b / 64] >> (b % 64)) & 1u; }
};
}  // namespace

std::uint32_t exact_dot(const Row& a, const Row& b, std::int64_t k, int block, std::uint32_t c_bits) {
  // D = C + sum_b (XA * XB * gA * gB) * (sum_{i in b} PA_i * PB_i), the block
  // form of SPEC C9; specials as IEEE multiplication/addition would give
  // them; finite values summed exactly in a 2048-bit fixed point.
  Fixed pos, neg;
  bool nan = false, pinf = false, ninf = false;
  bool all_neg_zero = true;  // IEEE 754 6.3: an exact zero sum is -0 only if every term is -0
  const Value c = from_f32(c_bits);
  if (c.kind == Value::nan) nan = true;
  else if (c.kind == Value::inf) (c.neg ? ninf : pinf) = true;
  else {
    if (!(c.sig == 0 && c.neg)) all_neg_zero = false;
    if (c.sig) (c.neg ? neg : pos).add_bit_run(c.sig, c.exp);
  }
  auto strip = [](std::uint64_t& s, std::int64_t& e) {
    while (s && !(s & 1u)) {
      s >>= 1;
      ++e;
    }
  };
  const std::int64_t nkb = cdiv(k, block);
  for (std::int64_t kb = 0; kb < nkb; ++kb) {
    // inner sum of element products
    bool inan = false, ipinf = false, ininf = false, inner_all_neg_zero = true;
    Fixed ipos, ineg;
    struct Term { bool neg; u128 sig; std::int64_t exp; };
    std::vector<Term> terms;
    for (std::int64_t i = kb * block; i < std::min(k, (kb + 1) * block); ++i) {
      const Value pa = decode(a.elem, a.codes[i]), pb = decode(b.elem, b.codes[i]);
      const bool sg = pa.neg != pb.neg;
      if (pa.kind == Value::nan || pb.kind == Value::nan) { inan = true; continue; }
      if (pa.kind == Value::inf || pb.kind == Value::inf) {
        if ((pa.kind == Value::finite && pa.sig == 0) || (pb.kind == Value::finite && pb.sig == 0)) inan = true;
        else (sg ? ininf : ipinf) = true;
        continue;
      }
      if (pa.sig == 0 || pb.sig == 0) {
        if (!sg) inner_all_neg_zero = false;
        continue;
      }
      inner_all_neg_zero = false;
      std::uint64_t s1 = pa.sig, s2 = pb.sig;
      std::int64_t e1 = pa.exp, e2 = pb.exp;
      strip(s1, e1);
      strip(s2, e2);
      const Term t{sg, static_cast<u128>(s1) * s2, e1 + e2};
      terms.push_back(t);
      (sg ? ineg : ipos).add_bit_run(t.sig, t.exp);
    }
    const int icmp = ipos.cmp(ineg);
    // the block factor
    const Value f[4] = {decode(a.scale_fmt, a.scales[kb]), decode(b.scale_fmt, b.scales[kb]),
                        from_f32(a.global_scale), from_f32(b.global_scale)};
    bool fnan = false, finf = false, fzero = false, fneg = false;
    for (const Value& v : f) {
      fnan = fnan || v.kind == Value::nan;
      finf = finf || v.kind == Value::inf;
      fzero = fzero || (v.kind == Value::finite && v.sig == 0);
      fneg = fneg != v.neg;
    }
    if (fnan || (finf && fzero) || inan || (ipinf && ininf)) { nan = true; continue; }
    if (ipinf || ininf) {
      if (fzero) nan = true;
      else ((ipinf != fneg) ? pinf : ninf) = true;
      continue;
    }
    if (finf) {
      if (icmp == 0) nan = true;
      else (((icmp < 0) != fneg) ? ninf : pinf) = true;
      continue;
    }
    if (icmp == 0 || fzero) {
      // a zero block result: its sign is the inner sign times the factor's
      const bool inner_neg = icmp == 0 ? inner_all_neg_zero && terms.empty() : icmp < 0;
      if (!(inner_neg != fneg)) all_neg_zero = false;
      continue;
    }
    all_neg_zero = false;
    std::uint64_t fs[4];
    std::int64_t fe[4];
    for (int j = 0; j < 4; ++j) {
      fs[j] = f[j].sig;
      fe[j] = f[j].exp;
      strip(fs[j], fe[j]);
    }
    // sa, sb <= 4 bits; gA, gB <= 24 bits each after stripping
    const u128 fsig = static_cast<u128>(fs[0]) * fs[1] * fs[2] * fs[3];
    const std::int64_t fexp = fe[0] + fe[1] + fe[2] + fe[3];
    for (const Term& t : terms) {
      // t.sig <= 16 bits (element significands), so t.sig * fsig < 2^80
      (t.neg != fneg ? neg : pos).add_bit_run(t.sig * fsig, t.exp + fexp);
    }
  }
  if (nan || (pinf && ninf)) return 0x7FC00000u;
  if (pinf) return 0x7F800000u;
  if (ninf) return 0xFF800000u;
  const int cm = pos.cmp(neg);
  if (cm == 0) return all_neg_zero ? 0x80000000u : 0u;
  const Fixed d = cm > 0 ? pos.minus(neg) : neg.minus(pos);
  const int t = d.top();
  // take up to 100 bits from the top, the rest as sticky
  const int low = t - 99 > 0 ? t - 99 : 0;
  u128 sig = 0;
  for (int bi = t; bi >= low; --bi) sig = (sig << 1) | (d.bit(bi) ? 1u : 0u);
  bool sticky = false;
  for (int bi = low - 1; bi >= 0 && !sticky; --bi) sticky = d.bit(bi);
  return detail::round_fp32_parts(cm < 0, sig, sticky, low - 1024);
}

}  // namespace mxo
