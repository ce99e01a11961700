// oracle_layout_dot.cpp - the slow exact oracle for CONTRACT C6 (packing),
// C7 (scale layouts, tcgen05 from an enumerated 128x4 tile) and C9 (exact
// block-scaled dot product with a 2048-bit fixed-point sum). See oracle.hpp.
#include <array>
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
  Fixed pos, neg;
  bool nan = false, pinf = false, ninf = false;
  // IEEE 754 sign of an exact zero sum under RNE: -0 only when every term is -0.
  bool all_neg_zero = true;
  auto add_term = [&](const Value* f, int nf) {
    // IEEE product of the factors: NaN if any NaN or Inf * 0, Inf if any Inf.
    bool sign = false, any_inf = false, any_zero = false;
    u128 sig = 1;
    std::int64_t exp = 0;
    for (int i = 0; i < nf; ++i) {
      if (f[i].kind == Value::nan) {
        nan = true;
        return;
      }
      sign = sign != f[i].neg;
      if (f[i].kind == Value::inf) {
        any_inf = true;
        continue;
      }
      if (f[i].sig == 0) any_zero = true;
      // strip trailing zeros so the product stays within 128 bits
      std::uint64_t s = f[i].sig;
      std::int64_t e = f[i].exp;
      while (s && !(s & 1u)) {
        s >>= 1;
        ++e;
      }
      sig *= s;
      exp += e;
    }
    if (any_inf) {
      if (any_zero) nan = true;
      else (sign ? ninf : pinf) = true;
      return;
    }
    if (!(any_zero && sign)) all_neg_zero = false;
    if (any_zero) return;
    (sign ? neg : pos).add_bit_run(sig, exp);
  };
  const Value c = from_f32(c_bits);
  add_term(&c, 1);
  for (std::int64_t i = 0; i < k; ++i) {
    const std::int64_t kb = i / block;
    const Value f[6] = {decode(a.elem, a.codes[i]), decode(b.elem, b.codes[i]),
                        decode(a.scale_fmt, a.scales[kb]), decode(b.scale_fmt, b.scales[kb]),
                        from_f32(a.global_scale), from_f32(b.global_scale)};
    add_term(f, 6);
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
