// oracle.cpp - the slow exact oracle for SPEC C1, C2, C3 and C8 (C5 NVFP4 is in
// oracle_nvfp4.cpp; see oracle.hpp). Written from the contract's definitions; shares no code
// with reference/src (it includes no mx/*.hpp).
#include "oracle.hpp"
#include "oracle_internal.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace mxo {
namespace {

__extension__ typedef unsigned __int128 u128;

int bitlen(u128 x) {
  int n = 0;
  while (x) {
    ++n;
    x >>= 1;
  }
  return n;
}

// ---- C1: the format table, written out from reference/SPEC.md C1 -------------------
struct Def {
  const char* name;
  int bits, ebits, mbits, bias;
  bool sign;       // has a sign bit (sign-magnitude floats)
  int emax_elem;   // C1 column emax_elem (unused for scale formats)
};
const Def& def(Fmt f) {
  static const Def t[] = {
      {"e4m3", 8, 4, 3, 7, true, 8},    {"e5m2", 8, 5, 2, 15, true, 15},
      {"e3m2", 6, 3, 2, 3, true, 4},    {"e2m3", 6, 2, 3, 1, true, 2},
      {"e2m1", 4, 2, 1, 1, true, 2},    {"int8", 8, 0, 0, 0, false, 0},
      {"ue8m0", 8, 8, 0, 127, false, 0}, {"ue4m3", 8, 4, 3, 7, false, 0},
      {"fp32", 32, 8, 23, 127, true, 127}, {"bf16", 16, 8, 7, 127, true, 127},
      {"fp16", 16, 5, 10, 15, true, 15},
  };
  return t[static_cast<int>(f)];
}

Value fin(bool neg, std::uint64_t sig, std::int64_t exp) {
  Value v;
  v.kind = Value::finite;
  v.neg = neg;
  v.sig = sig;
  v.exp = exp;
  return v;
}
Value special(Value::Kind k, bool neg) {
  Value v;
  v.kind = k;
  v.neg = neg;
  return v;
}

// IEEE interchange formats from their definition.
Value from_ieee(std::uint32_t bits, int ebits, int mbits) {
  const int width = 1 + ebits + mbits;
  const bool neg = ((bits >> (width - 1)) & 1u) != 0;
  const std::uint32_t emask = (1u << ebits) - 1u;
  const std::uint32_t e = (bits >> mbits) & emask;
  const std::uint32_t m = bits & ((1u << mbits) - 1u);
  const int bias = (1 << (ebits - 1)) - 1;
  if (e == emask) return special(m ? Value::nan : Value::inf, neg);
  if (e == 0) return fin(neg, m, 1 - bias - mbits);
  return fin(neg, m | (1u << mbits), static_cast<std::int64_t>(e) - bias - mbits);
}

// Magnitude helpers on finite non-negative values with small exponent gaps.
Value add_mag(const Value& a, const Value& b) {
  if (a.sig == 0) return fin(false, b.sig, b.exp);
  if (b.sig == 0) return fin(false, a.sig, a.exp);
  const std::int64_t e = std::min(a.exp, b.exp);
  if (a.exp - e > 60 || b.exp - e > 60) throw std::logic_error("mxo: add_mag gap");
  return fin(false, (a.sig << (a.exp - e)) + (b.sig << (b.exp - e)), e);
}
Value sub_mag(const Value& a, const Value& b) {  // a >= b
  if (b.sig == 0) return fin(false, a.sig, a.exp);
  const std::int64_t e = std::min(a.exp, b.exp);
  if (a.exp - e > 60 || b.exp - e > 60) throw std::logic_error("mxo: sub_mag gap");
  return fin(false, (a.sig << (a.exp - e)) - (b.sig << (b.exp - e)), e);
}
Value absv(const Value& v) { return fin(false, v.sig, v.exp); }

// ---- element tables (C1 values enumerated, C2 candidates) ---------------------
struct Entry {
  Value mag;
  std::uint32_t code;  // code of +mag (or of -mag in the negative int8 table)
};
struct Table {
  std::vector<Entry> pos;  // ascending finite magnitudes, starting with 0
  Value pos_over;          // first value above max in the format extended by a binade
  std::vector<Entry> neg;  // int8 only: magnitudes of negative codes (full range)
  std::uint32_t max_code = 0;
};

Table build(Fmt f) {
  Table t;
  const Def& d = def(f);
  const std::uint32_t n = 1u << d.bits;
  for (std::uint32_t c = 0; c < n; ++c) {
    const Value v = decode(f, c);
    if (v.kind != Value::finite) continue;
    if (f == Fmt::int8) {
      if (v.neg) t.neg.push_back({absv(v), c});
      else t.pos.push_back({absv(v), c});
      continue;
    }
    if (v.neg) continue;
    if (d.sign && (c >> (d.bits - 1)) != 0) continue;  // -0
    t.pos.push_back({v, c});
  }
  if (f == Fmt::ue8m0) t.pos.push_back({fin(false, 0, 0), 0x00});  // no zero: 0 -> code 0x00
  if (f == Fmt::int8) t.neg.push_back({fin(false, 0, 0), 0x00});
  auto less = [](const Entry& a, const Entry& b) { return compare(a.mag, b.mag) < 0; };
  std::sort(t.pos.begin(), t.pos.end(), less);
  std::sort(t.neg.begin(), t.neg.end(), less);
  const Value mx = t.pos.back().mag;
  t.max_code = t.pos.back().code;
  if (f == Fmt::int8) {
    t.pos_over = fin(false, 128, -6);
  } else if (d.mbits == 0) {
    t.pos_over = fin(false, mx.sig, mx.exp + 1);
  } else {
    // the quantum of the top binade: 2^(floor(log2 max) - mbits)
    const std::int64_t fl = mx.exp + bitlen(mx.sig) - 1;
    t.pos_over = add_mag(mx, fin(false, 1, fl - d.mbits));
  }
  return t;
}

const Table& table(Fmt f) {
  static const Table t[8] = {build(Fmt::e4m3), build(Fmt::e5m2), build(Fmt::e3m2),
                             build(Fmt::e2m3), build(Fmt::e2m1), build(Fmt::int8),
                             build(Fmt::ue8m0), build(Fmt::ue4m3)};
  return t[static_cast<int>(f)];
}

bool is_elem_like(Fmt f) { return static_cast<int>(f) <= static_cast<int>(Fmt::ue4m3); }

std::uint32_t sign_bit(Fmt f) {
  const Def& d = def(f);
  return d.sign ? (1u << (d.bits - 1)) : 0u;
}

std::uint32_t max_code_signed(Fmt f, bool neg, const Policy& p) {
  if (f == Fmt::int8) {
    if (!neg) return 0x7F;
    return p.int8 == Int8Range::int8_full ? 0x80u : 0x81u;
  }
  return table(f).max_code | (neg ? sign_bit(f) : 0u);
}

std::uint32_t nan_code(Fmt f, bool neg, const Policy& p) {
  switch (f) {
    case Fmt::e4m3:
      return p.nan == NanPolicy::nan_keep_sign ? (neg ? 0xFFu : 0x7Fu) : 0x7Fu;
    case Fmt::e5m2:
      return p.nan == NanPolicy::nan_keep_sign ? (neg ? 0xFEu : 0x7Eu) : 0x7Fu;
    case Fmt::ue8m0: return 0xFF;
    case Fmt::ue4m3: return 0x7F;
    default: break;
  }
  if (p.nan == NanPolicy::nan_to_zero) return neg ? sign_bit(f) : 0u;
  return table(f).max_code;  // nan_to_max / default: +max finite
}

std::uint32_t propagate_code(Fmt f, bool neg, const Policy& p) {
  switch (f) {
    case Fmt::e4m3: return 0x7Fu | (neg ? 0x80u : 0u);  // NaN
    case Fmt::e5m2: return 0x7Cu | (neg ? 0x80u : 0u);  // Inf
    case Fmt::ue8m0: return 0xFF;
    case Fmt::ue4m3: return 0x7F;
    default: return max_code_signed(f, neg, p);
  }
}

std::uint32_t overflow_code(Fmt f, bool neg, const Policy& p) {
  if (p.rounding == Rounding::rtz) return max_code_signed(f, neg, p);  // C2: rtz never overflows
  if (p.overflow == Overflow::propagate) return propagate_code(f, neg, p);
  return max_code_signed(f, neg, p);
}

// n with lo = n * (hi - lo): the parity used by ties-to-even.
bool lo_is_odd(const Value& lo, const Value& hi) {
  if (lo.sig == 0) return false;
  const Value q = sub_mag(hi, lo);  // a power of two (one ulp)
  // lo / q: exact integer
  const std::int64_t sh = lo.exp - q.exp;
  // q.sig is a power of two
  const int qb = bitlen(q.sig) - 1;
  const std::int64_t s = sh - qb;
  std::uint64_t n;
  if (s >= 0) n = lo.sig << s;
  else n = lo.sig >> (-s);
  return (n & 1u) != 0;
}

// Stochastic rounding (.rs), written from the text of the PTX ISA, section
// 9.7.9.21 "cvt" (PTX ISA 9.x; rounding modifier .rs): the result is rounded
// toward zero or away from zero according to the carry out of the integer
// addition of the supplied random bits to the truncated-off (discarded)
// mantissa bits of the input. Carried out literally:
//  - the discarded bits are the input's significand bits below the
//    destination's last kept place 2^qe (qe = log2(hi - lo), one ulp of the
//    candidates lo <= a < hi): a w-bit unsigned integer T, w = qe - a.exp;
//  - the random bits are one 32-bit unsigned integer r per value (this
//    library's API; PTX packs 8, 13 or 16 bits per value into rbits);
//  - the two integers are added with their most significant bits aligned
//    (a field narrower than the other is extended below with zero bits,
//    which changes neither value): S = T * 2^(W - w) + r * 2^(W - 32),
//    W = max(w, 32), and the value rounds away from zero iff S >= 2^W (the
//    carry out of the W-bit field).
// Why the top alignment: the PTX text gives f16x2 13 random bits per value
// and bf16x2 16, exactly the number of bits an fp32 normal loses in those
// conversions, so there the fields coincide; for e4m3x4/e5m2x4/e2m3x4/e3m2x4
// (16 random bits per operand pair) and e2m1x4 (8 per operand) the random
// field is narrower than the 20+ discarded bits, and only an addition at the
// top of the discarded field can carry out with probability equal to the
// discarded fraction of an ulp. Which bits the hardware uses below that is
// not in the text (no sm_100 part has measured it here).
bool sr_carry(const Value& a, const Value& lo, const Value& hi, std::uint32_t r) {
  const Value q = sub_mag(hi, lo);
  const std::int64_t qe = q.exp + bitlen(q.sig) - 1;  // hi - lo = 2^qe
  const std::int64_t w = qe - a.exp;                   // discarded bit count
  if (w <= 0) return false;                            // nothing discarded (a == lo)
  // T: the w low bits of a's significand (a and lo agree above 2^qe).
  const u128 t = w >= 64 ? static_cast<u128>(a.sig)
                         : static_cast<u128>(a.sig & ((std::uint64_t{1} << w) - 1));
  // a.sig < 2^64: for w > 96 the top 32 bits of the field are zero, and
  // T + r * 2^(w-32) < 2^(w-32) * (r + 1) <= 2^w: no carry.
  if (w > 96) return false;
  const std::int64_t W = w > 32 ? w : 32;
  const u128 s = (t << (W - w)) + (static_cast<u128>(r) << (W - 32));
  return (s >> W) != 0;
}

}  // namespace

const char* fmt_name(Fmt f) { return def(f).name; }
const char* rounding_name(Rounding r) {
  static const char* n[] = {"rne", "rtz", "rna", "sr", "ru"};
  return n[static_cast<int>(r)];
}

Value from_f32(std::uint32_t bits) { return from_ieee(bits, 8, 23); }
Value from_bf16(std::uint16_t bits) { return from_ieee(bits, 8, 7); }
Value from_f16(std::uint16_t bits) { return from_ieee(bits, 5, 10); }

int compare(const Value& a, const Value& b) {
  const bool az = a.sig == 0, bz = b.sig == 0;
  if (az && bz) return 0;
  const bool an = a.neg && !az, bn = b.neg && !bz;
  if (an != bn) return an ? -1 : 1;
  // same sign (or one zero with the other's sign)
  int mag;
  if (az) mag = -1;
  else if (bz) mag = 1;
  else {
    const std::int64_t la = a.exp + bitlen(a.sig) - 1, lb = b.exp + bitlen(b.sig) - 1;
    if (la != lb) {
      mag = la < lb ? -1 : 1;
    } else {
      // same binade: align (the gap is below 64)
      u128 sa = a.sig, sb = b.sig;
      if (a.exp > b.exp) sa <<= (a.exp - b.exp);
      else sb <<= (b.exp - a.exp);
      mag = sa < sb ? -1 : (sa > sb ? 1 : 0);
    }
  }
  return (an || bn) ? -mag : mag;
}

Value decode(Fmt f, std::uint32_t code) {
  switch (f) {
    case Fmt::fp32: return from_f32(code);
    case Fmt::bf16: return from_bf16(static_cast<std::uint16_t>(code));
    case Fmt::fp16: return from_f16(static_cast<std::uint16_t>(code));
    case Fmt::int8: {
      // two's complement, value c / 64
      const int c = (code & 0x80u) ? static_cast<int>(code & 0xFFu) - 256 : static_cast<int>(code & 0xFFu);
      return fin(c < 0, static_cast<std::uint64_t>(c < 0 ? -c : c), -6);
    }
    case Fmt::ue8m0:
      code &= 0xFFu;
      if (code == 0xFF) return special(Value::nan, false);
      return fin(false, 1, static_cast<std::int64_t>(code) - 127);
    default: break;
  }
  const Def& d = def(f);
  code &= (1u << d.bits) - 1u;
  if (f == Fmt::ue4m3 && code >= 0x80) return special(Value::nan, false);
  const bool neg = d.sign && ((code >> (d.bits - 1)) & 1u);
  const std::uint32_t e = (code >> d.mbits) & ((1u << d.ebits) - 1u);
  const std::uint32_t m = code & ((1u << d.mbits) - 1u);
  if ((f == Fmt::e4m3 || f == Fmt::ue4m3) && e == 15 && m == 7) return special(Value::nan, neg);
  if (f == Fmt::e5m2 && e == 31) return special(m ? Value::nan : Value::inf, neg);
  if (e == 0) return fin(neg, m, 1 - d.bias - d.mbits);
  return fin(neg, m | (1u << d.mbits), static_cast<std::int64_t>(e) - d.bias - d.mbits);
}

std::uint32_t code_count(Fmt f) { return 1u << def(f).bits; }
std::uint32_t max_finite_code(Fmt f) { return table(f).max_code; }

std::uint32_t encode(Fmt f, const Value& x, const Policy& p, std::uint32_t rbits) {
  if (!is_elem_like(f)) return round_ieee(f, x);
  if (x.kind == Value::nan) return nan_code(f, x.neg, p);
  const bool unsig = (f == Fmt::ue8m0 || f == Fmt::ue4m3);
  if (x.kind == Value::inf) {
    if (unsig && x.neg) return nan_code(f, true, p);
    if (f == Fmt::int8) return max_code_signed(f, x.neg, p);
    if (p.overflow == Overflow::propagate) return propagate_code(f, x.neg, p);
    return max_code_signed(f, x.neg, p);
  }
  const bool neg = x.neg;
  if (unsig && neg && x.sig != 0) return nan_code(f, true, p);
  const Table& t = table(f);
  const bool negtab = (f == Fmt::int8 && neg);
  const std::vector<Entry>& mags = negtab ? t.neg : t.pos;
  std::size_t size = mags.size();
  if (negtab && p.int8 == Int8Range::int8_symmetric) --size;  // drop -128
  const Value over = negtab ? add_mag(mags[size - 1].mag, fin(false, 1, -6)) : t.pos_over;
  const Value a = absv(x);
  if (compare(a, over) >= 0) return overflow_code(f, neg, p);
  // largest candidate <= a
  std::size_t lo = 0, hi = size;  // invariant: mags[lo] <= a, a < mags[hi] (or over)
  while (hi - lo > 1) {
    const std::size_t mid = (lo + hi) / 2;
    if (compare(mags[mid].mag, a) <= 0) lo = mid;
    else hi = mid;
  }
  const Value& vlo = mags[lo].mag;
  const Value& vhi = (lo + 1 < size) ? mags[lo + 1].mag : over;
  bool up = false;
  if (compare(a, vlo) != 0) {
    const Value mid2 = add_mag(vlo, vhi);  // 2 * midpoint
    const Value a2 = fin(false, a.sig, a.exp + 1);
    const int c = compare(a2, mid2);
    switch (p.rounding) {
      case Rounding::rne: up = c > 0 || (c == 0 && lo_is_odd(vlo, vhi)); break;
      case Rounding::rna: up = c >= 0; break;
      case Rounding::rtz: up = false; break;
      case Rounding::ru: up = !neg; break;
      case Rounding::sr: {
        up = sr_carry(a, vlo, vhi, rbits);  // PTX cvt .rs, see sr_carry
        break;
      }
    }
  }
  if (up && lo + 1 >= size) return overflow_code(f, neg, p);
  const std::uint32_t code = mags[up ? lo + 1 : lo].code;
  if (f == Fmt::int8) return code;
  return code | (neg ? sign_bit(f) : 0u);
}

std::uint32_t encode_f32(Fmt f, std::uint32_t bits, const Policy& p, std::uint32_t rbits) {
  return encode_scaled(f, bits, 0, p, rbits);
}

std::uint32_t encode_scaled(Fmt f, std::uint32_t bits, int scale_exp, const Policy& p,
                            std::uint32_t rbits) {
  Value v = from_f32(bits);
  if (v.kind == Value::finite) {
    if (p.flush_input_subnormals && ((bits >> 23) & 0xFFu) == 0) v.sig = 0;
    v.exp -= scale_exp;
  }
  return encode(f, v, p, rbits);
}

// ---- IEEE rounding (fp32 / bf16 / fp16) ----------------------------------------
namespace {
// RNE of (-1)^neg * (sig + sticky*eps) * 2^exp, eps below the last bit of sig.
std::uint32_t round_ieee_parts(Fmt out, bool neg, u128 sig, bool sticky, std::int64_t exp) {
  const Def& d = def(out);
  const int width = d.bits;
  const std::uint32_t sbit = neg ? (1u << (width - 1)) : 0u;
  const std::uint32_t inf = ((1u << d.ebits) - 1u) << d.mbits;
  if (sig == 0 && !sticky) return sbit;
  if (sig == 0) throw std::logic_error("mxo: sticky without significand");
  const std::int64_t L = exp + bitlen(sig) - 1;
  const std::int64_t emin = 1 - d.bias;
  const std::int64_t qe = std::max(L, emin) - d.mbits;  // exponent of one ulp
  std::int64_t drop = qe - exp;
  if (drop > 120) {
    // far below one ulp: keep 120 discarded bits, fold the rest into the sticky bit
    const std::int64_t sh = drop - 120;
    if (sh >= 128) {
      sticky = sticky || sig != 0;
      sig = 0;
    } else {
      sticky = sticky || (sig & ((static_cast<u128>(1) << sh) - 1)) != 0;
      sig >>= sh;
    }
    exp += sh;
    drop = 120;
  }
  u128 n;
  if (drop <= 0) {
    if (sticky) throw std::logic_error("mxo: sticky needs discarded bits");
    n = sig << (-drop);
  } else {
    n = sig >> drop;
    const u128 rem = sig & ((static_cast<u128>(1) << drop) - 1);
    const u128 half = static_cast<u128>(1) << (drop - 1);
    const bool above = rem > half || (rem == half && sticky);
    const bool tie = rem == half && !sticky;
    if (above || (tie && (n & 1))) ++n;
  }
  std::int64_t q = qe;
  if (n >> (d.mbits + 1)) {  // carried into the next binade
    n >>= 1;
    ++q;
  }
  if (n == 0) return sbit;
  std::uint32_t e, m;
  if (n < (static_cast<u128>(1) << d.mbits)) {
    e = 0;
    m = static_cast<std::uint32_t>(n);
  } else {
    const std::int64_t be = q + d.mbits + d.bias;
    if (be >= (1 << d.ebits) - 1) return sbit | inf;
    e = static_cast<std::uint32_t>(be);
    m = static_cast<std::uint32_t>(n) & ((1u << d.mbits) - 1u);
  }
  return sbit | (e << d.mbits) | m;
}

std::uint32_t canonical_nan(Fmt out) {
  switch (out) {
    case Fmt::fp32: return 0x7FC00000u;
    case Fmt::bf16: return 0x7FC0u;
    case Fmt::fp16: return 0x7E00u;
    default: throw std::logic_error("mxo: canonical_nan");
  }
}
std::uint32_t inf_bits(Fmt out, bool neg) {
  const Def& d = def(out);
  return (((1u << d.ebits) - 1u) << d.mbits) | (neg ? (1u << (d.bits - 1)) : 0u);
}

// exact fp32 operations (one rounding each)
std::uint32_t fmul(std::uint32_t a, std::uint32_t b) {
  const Value x = from_f32(a), y = from_f32(b);
  const bool neg = x.neg != y.neg;
  if (x.kind == Value::nan || y.kind == Value::nan) return canonical_nan(Fmt::fp32);
  if (x.kind == Value::inf || y.kind == Value::inf) {
    if ((x.kind == Value::finite && x.sig == 0) || (y.kind == Value::finite && y.sig == 0))
      return canonical_nan(Fmt::fp32);
    return inf_bits(Fmt::fp32, neg);
  }
  return round_ieee_parts(Fmt::fp32, neg, static_cast<u128>(x.sig) * y.sig, false, x.exp + y.exp);
}
std::uint32_t fdiv_val(const Value& x, const Value& y) {
  const bool neg = x.neg != y.neg;
  if (x.kind == Value::nan || y.kind == Value::nan) return canonical_nan(Fmt::fp32);
  if (x.kind == Value::inf) return y.kind == Value::inf ? canonical_nan(Fmt::fp32) : inf_bits(Fmt::fp32, neg);
  if (y.kind == Value::inf) return neg ? 0x80000000u : 0u;
  if (y.sig == 0) return x.sig == 0 ? canonical_nan(Fmt::fp32) : inf_bits(Fmt::fp32, neg);
  if (x.sig == 0) return neg ? 0x80000000u : 0u;
  // x.sig * 2^100 / y.sig: an integer quotient of >= 36 bits plus a sticky remainder
  const u128 num = static_cast<u128>(x.sig) << 100;
  const u128 q = num / y.sig;
  const bool sticky = (num % y.sig) != 0;
  return round_ieee_parts(Fmt::fp32, neg, q, sticky, x.exp - y.exp - 100);
}
std::uint32_t fdiv(std::uint32_t a, std::uint32_t b) { return fdiv_val(from_f32(a), from_f32(b)); }

int floor_log2(const Value& a) {
  // the k with 2^k <= a < 2^(k+1), by exact comparisons (binary search)
  std::int64_t lo = -400, hi = 400;  // 2^lo <= a < 2^hi
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    if (compare(fin(false, 1, mid), a) <= 0) lo = mid;
    else hi = mid;
  }
  return static_cast<int>(lo);
}
int ceil_log2(const Value& a) {
  const int fl = floor_log2(a);
  return compare(fin(false, 1, fl), a) == 0 ? fl : fl + 1;
}
// max finite as a value (C1 column "max finite")
Value max_finite_value(Fmt f) { return table(f).pos.back().mag; }
}  // namespace

std::uint32_t detail::round_fp32_parts(bool neg, u128 sig, bool sticky, std::int64_t exp) {
  return round_ieee_parts(Fmt::fp32, neg, sig, sticky, exp);
}
std::uint32_t detail::fp32_mul(std::uint32_t a, std::uint32_t b) { return fmul(a, b); }
std::uint32_t detail::fp32_div(std::uint32_t a, std::uint32_t b) { return fdiv(a, b); }

std::uint32_t round_ieee(Fmt out, const Value& x) {
  if (x.kind == Value::nan) return canonical_nan(out);
  if (x.kind == Value::inf) return inf_bits(out, x.neg);
  return round_ieee_parts(out, x.neg, x.sig, false, x.exp);
}

// ---- C3 ----------------------------------------------------------------------
int scale_exponent(std::uint32_t amax_bits, Fmt elem, ScaleRule rule) {
  const Value a = absv(from_f32(amax_bits & 0x7FFFFFFFu));
  const Def& d = def(elem);
  switch (rule) {
    case ScaleRule::floor: return floor_log2(a) - d.emax_elem;
    case ScaleRule::ceil: return ceil_log2(a) - d.emax_elem;
    case ScaleRule::even: {
      // r = a rounded to (mb + 1) significant bits, ties away; int8 keeps 6
      // fraction bits (127/64 = 1.111111b).
      const int mb = elem == Fmt::int8 ? 6 : d.mbits;
      const int fl = floor_log2(a);
      const Value ulp = fin(false, 1, fl - mb);
      // lo = largest multiple of ulp <= a
      const std::int64_t sh = (fl - mb) - a.exp;
      const std::uint64_t n = sh > 0 ? (a.sig >> sh) : (a.sig << (-sh));
      const Value lo = fin(false, n, fl - mb);
      const Value half = fin(false, 1, fl - mb - 1);
      const Value r = compare(sub_mag(a, lo), half) >= 0 ? add_mag(lo, ulp) : lo;
      return floor_log2(r) - d.emax_elem;
    }
    case ScaleRule::rceil: {
      // q = fp32(amax * fp32(1/max_finite)), then ceil(log2 q).
      const Value mx = max_finite_value(elem);
      const std::uint32_t inv = fdiv_val(fin(false, 1, 0), mx);
      const std::uint32_t q = fmul(amax_bits & 0x7FFFFFFFu, inv);
      const Value qv = from_f32(q);
      if (qv.sig == 0) return -100000;
      return ceil_log2(qv);
    }
  }
  return 0;
}

std::uint8_t scale_code(std::uint32_t amax_bits, Fmt elem, ScaleRule rule) {
  if ((amax_bits & 0x7FFFFFFFu) == 0) return 0x00;
  const int e = std::clamp(scale_exponent(amax_bits, elem, rule), -127, 127);
  return static_cast<std::uint8_t>(e + 127);
}

Block quantize_block(const std::uint32_t* x, std::int64_t n, std::int64_t stride, Fmt elem,
                     ScaleRule rule, const Policy& p, NonFiniteBlock nfb, const std::uint32_t* rbits) {
  Block b;
  bool nonfinite = false;
  std::uint32_t amax = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const Value v = from_f32(x[i * stride]);
    if (v.kind != Value::finite) {
      nonfinite = true;
      continue;
    }
    if (compare(absv(v), from_f32(amax)) > 0) amax = x[i * stride] & 0x7FFFFFFFu;
  }
  const std::uint8_t code = scale_code(amax, elem, rule);
  b.exp = static_cast<int>(code) - 127;
  b.scale = (nonfinite && nfb == NonFiniteBlock::nonfinite_block_nan) ? 0xFF : code;
  for (std::int64_t i = 0; i < n; ++i) {
    b.codes.push_back(static_cast<std::uint8_t>(
        encode_scaled(elem, x[i * stride], b.exp, p, rbits ? rbits[i] : 0u)));
  }
  return b;
}

// ---- C8 ----------------------------------------------------------------------
std::uint32_t dequant(Fmt elem, std::uint8_t code, std::uint8_t scale, Fmt out) {
  if (scale == 0xFF) return canonical_nan(out);
  Value v = decode(elem, code);
  if (v.kind == Value::finite) v.exp += static_cast<int>(scale) - 127;
  return round_ieee(out, v);
}

std::string to_string(const Value& v) {
  if (v.kind == Value::nan) return v.neg ? "-nan" : "nan";
  if (v.kind == Value::inf) return v.neg ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%llu*2^%lld", v.neg ? "-" : "", static_cast<unsigned long long>(v.sig),
                static_cast<long long>(v.exp));
  return buf;
}

}  // namespace mxo
