// probe_lib.cpp - fragment-map probes and numerics cases (see probe_lib.hpp).
//
// Fragment probes (SPEC C10, STYLE 8). mma.sync has no memory
// coordinates: its rows and columns exist only through the relation
// D = A*B + C. The probe therefore anchors labels on the documentation and
// measures everything relative to them:
//   C/D: C one-hot at (lane, reg) with A = B = 0 must reappear in the same D
//        register (C and D share the map);
//   A:   A one-hot 1.0 at (lane, reg, elem), every B element holding a value
//        w(k) that names its documented k; D is read through the documented
//        C/D map: the nonzero outputs must fill exactly one row r (all n)
//        with one value w(k): the element is (r, k);
//   B:   symmetric, with A's elements holding w(k) by A's documented map.
// A wrong documented A map thus shows as A differences (and likewise B);
// a wrong C/D map makes every experiment undecodable (notes).
// wgmma with A in shared memory has memory coordinates: A one-hot at
// (m, k) in memory and B one-hot at (n, k) give the D map absolutely.
// Every register not meant to be 1 or w(k) is 0; D buffers are poisoned
// (0x7F7F7F7F) and shared memory outside the tiles is NaN (0xFF bytes).
#include "probe_lib.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "probe_kernels.hpp"

namespace mxk::probes {

using mx::DotCase;
using mx::Elem;
using mx::MapEntry;
using mx::MmaForm;
using mx::Operand;

std::size_t FragmentProbe::total_differences() const {
  std::size_t n = 0;
  for (const auto& o : operands) n += o.differences.size() + o.notes.size();
  return n;
}

namespace {

constexpr std::uint32_t kPoison = 0x7F7F7F7Fu;

int ebits_of(Elem e) { return mx::elem_bits(e); }

std::uint64_t one_code(Elem e) {
  switch (e) {
    case Elem::f16: return 0x3C00;
    case Elem::bf16: return 0x3F80;
    case Elem::tf32: return 0x3F800000;
    case Elem::e4m3: return 0x38;
    case Elem::e5m2: return 0x3C;
    case Elem::s8: return 1;
    case Elem::f64: return 0x3FF0000000000000ull;
    default: throw mx::InvalidArgument("one_code: no probe value for this element kind");
  }
}

// w(k): distinct exact values naming k (k < 64).
std::uint64_t w_code(Elem e, int k) {
  const double v = 1.0 + k;
  switch (e) {
    case Elem::f16: return mx::f32_to_f16_rne(static_cast<float>(v));
    case Elem::bf16: return mx::f32_to_bf16_rne(static_cast<float>(v));
    case Elem::tf32: return std::bit_cast<std::uint32_t>(static_cast<float>(v));
    case Elem::e4m3: return 0x38u + static_cast<unsigned>(k);
    case Elem::e5m2: return 0x3Cu + static_cast<unsigned>(k);
    case Elem::s8: return static_cast<std::uint64_t>(k + 1);
    case Elem::f64: return std::bit_cast<std::uint64_t>(v);
    default: throw mx::InvalidArgument("w_code: no probe value for this element kind");
  }
}

// D value of slot as double (c kind of the form); NaN for poison.
double d_value(MmaForm f, const std::uint32_t* w) {
  const Elem c = mx::form_info(f).c_elem;
  if (c == Elem::f64) {
    const std::uint64_t u = (std::uint64_t{w[1]} << 32) | w[0];
    return std::bit_cast<double>(u);
  }
  if (w[0] == kPoison) return std::nan("");
  if (c == Elem::s32) return static_cast<double>(static_cast<std::int32_t>(w[0]));
  return static_cast<double>(std::bit_cast<float>(w[0]));
}

std::uint64_t c_one(MmaForm f) {
  const Elem c = mx::form_info(f).c_elem;
  if (c == Elem::f64) return 0x3FF0000000000000ull;
  if (c == Elem::s32) return 1;
  return 0x3F800000u;
}

struct Layout {
  MmaForm f;
  int threads, wpr_a, wpr_b, wpr_c;
  int a_regs, b_regs, c_regs, a_per, b_per;
  explicit Layout(MmaForm form) : f(form) {
    const auto& fi = mx::form_info(form);
    threads = fi.threads;
    wpr_a = words_per_reg(form, Operand::A);
    wpr_b = words_per_reg(form, Operand::B);
    wpr_c = words_per_reg(form, Operand::C);
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

// Put `code` into element e of register reg of lane in an image.
void put(std::uint32_t* img, int regs, int wpr, int bits, int lane, int reg, int e, std::uint64_t code) {
  std::uint32_t* w = img + (static_cast<std::size_t>(lane) * regs + reg) * wpr;
  if (bits == 64) {
    w[0] = static_cast<std::uint32_t>(code);
    w[1] = static_cast<std::uint32_t>(code >> 32);
    return;
  }
  const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : ((1u << bits) - 1);
  const int sh = e * bits;
  w[0] = (w[0] & ~(mask << sh)) | ((static_cast<std::uint32_t>(code) & mask) << sh);
}

bool is_wg(MmaForm f) { return mx::form_info(f).threads == 128; }

// Per tile operands (images / matrices) for a batch.
struct Builder {
  MmaForm f;
  Layout L;
  TileBatch b;
  explicit Builder(MmaForm form) : f(form), L(form) {}
  int K() const { return mx::form_info(f).k; }
  int ebytes() const { return ebits_of(mx::form_info(f).a_elem) / 8; }
  // Appends one zeroed tile and returns its index.
  int add() {
    const int t = b.ntiles++;
    b.a_img.resize(b.a_img.size() + (mx::form_info(f).a_regs ? L.a_words() : 0), 0);
    b.b_img.resize(b.b_img.size() + L.b_words(), 0);
    b.c_img.resize(b.c_img.size() + L.c_words(), 0);
    if (is_wg(f)) {
      b.a_mat.resize(b.a_mat.size() + 2048, 0);
      b.b_mat.resize(b.b_mat.size() + 256, 0);
    }
    return t;
  }
  void a_reg(int t, int lane, int reg, int e, std::uint64_t code) {
    put(b.a_img.data() + static_cast<std::size_t>(t) * L.a_words(), L.a_regs, L.wpr_a,
        ebits_of(mx::form_info(f).a_elem), lane, reg, e, code);
  }
  void b_reg(int t, int lane, int reg, int e, std::uint64_t code) {
    put(b.b_img.data() + static_cast<std::size_t>(t) * L.b_words(), L.b_regs, L.wpr_b,
        ebits_of(mx::form_info(f).b_elem), lane, reg, e, code);
  }
  void c_reg(int t, int lane, int reg, std::uint64_t code) {
    put(b.c_img.data() + static_cast<std::size_t>(t) * L.c_words(), L.c_regs, L.wpr_c,
        ebits_of(mx::form_info(f).c_elem), lane, reg, 0, code);
  }
  void mat(std::vector<std::uint8_t>& m, std::size_t tile_bytes, int t, int row, int k, std::uint64_t code) {
    const int eb = ebytes();
    std::uint8_t* p = m.data() + static_cast<std::size_t>(t) * tile_bytes +
                      static_cast<std::size_t>(row * K() + k) * static_cast<std::size_t>(eb);
    for (int i = 0; i < eb; ++i) p[i] = static_cast<std::uint8_t>(code >> (8 * i));
  }
  void a_mat(int t, int m, int k, std::uint64_t code) { mat(b.a_mat, 2048, t, m, k, code); }
  void b_mat(int t, int n, int k, std::uint64_t code) { mat(b.b_mat, 256, t, n, k, code); }
  // Whole-operand fills by the documented maps.
  void a_doc(int t, const std::vector<std::vector<std::uint64_t>>& A) {  // A[m][k]
    for (int l = 0; l < L.threads; ++l)
      for (int r = 0; r < L.a_regs; ++r)
        for (int e = 0; e < L.a_per; ++e) {
          const mx::RowCol rc = mx::documented(f, Operand::A, l, r, e);
          a_reg(t, l, r, e, A[static_cast<std::size_t>(rc.row)][static_cast<std::size_t>(rc.col)]);
        }
  }
  void b_doc(int t, const std::vector<std::vector<std::uint64_t>>& B) {  // B[n][k]
    for (int l = 0; l < L.threads; ++l)
      for (int r = 0; r < L.b_regs; ++r)
        for (int e = 0; e < L.b_per; ++e) {
          const mx::RowCol rc = mx::documented(f, Operand::B, l, r, e);
          b_reg(t, l, r, e, B[static_cast<std::size_t>(rc.col)][static_cast<std::size_t>(rc.row)]);
        }
  }
  void c_doc(int t, const std::vector<std::vector<std::uint64_t>>& C) {  // C[m][n]
    for (int l = 0; l < L.threads; ++l)
      for (int r = 0; r < L.c_regs; ++r) {
        const mx::RowCol rc = mx::documented(f, Operand::C, l, r, 0);
        c_reg(t, l, r, C[static_cast<std::size_t>(rc.row)][static_cast<std::size_t>(rc.col)]);
      }
  }
  const std::uint32_t* d_slot(int t, int lane, int reg) const {
    return b.d_img.data() + static_cast<std::size_t>(t) * L.c_words() +
           (static_cast<std::size_t>(lane) * L.c_regs + reg) * L.wpr_c;
  }
};

struct Hit {
  int lane, reg;
  mx::RowCol rc;  // documented label of the D slot
  double v;
};

std::vector<Hit> hits(const Builder& bd, int t, int* poison) {
  std::vector<Hit> out;
  for (int l = 0; l < bd.L.threads; ++l)
    for (int r = 0; r < bd.L.c_regs; ++r) {
      const double v = d_value(bd.f, bd.d_slot(t, l, r));
      if (std::isnan(v)) {
        ++*poison;
        continue;
      }
      if (v != 0.0) out.push_back({l, r, mx::documented(bd.f, Operand::C, l, r, 0), v});
    }
  return out;
}

int k_of_value(Elem e, int K, double v) {
  for (int k = 0; k < K; ++k)
    if (elem_value(e, w_code(e, k)) == v) return k;
  return -1;
}

std::string slot_name(const MapEntry& m) {
  return "T" + std::to_string(m.lane) + " R" + std::to_string(m.reg) + "." + std::to_string(m.elem);
}


// ---- CPU emulation (MXPROBE_EMULATE=1): the documented maps and a C9 model
// stand in for the GPU, so the decoding and fitting logic can be tested
// without one (cpu tests; see conformance/probes/).
const mx::HwModelParams* g_emulate = nullptr;

std::uint64_t get(const std::uint32_t* img, int regs, int wpr, int bits, int lane, int reg, int e) {
  const std::uint32_t* w = img + (static_cast<std::size_t>(lane) * regs + reg) * wpr;
  if (bits == 64) return (std::uint64_t{w[1]} << 32) | w[0];
  const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : ((1u << bits) - 1);
  return (w[0] >> (e * bits)) & mask;
}

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

void exec(MmaForm f, TileBatch& b) {
  if (g_emulate) emulate_batch(f, b);
  else run_batch(f, b, 0);
}

}  // namespace


FragmentProbe probe_fragments(MmaForm f) {
  const auto& fi = mx::form_info(f);
  FragmentProbe res;
  res.form = f;
  Builder bd(f);
  const Elem ae = fi.a_elem, be = fi.b_elem;
  const int K = fi.k, M = fi.m, N = fi.n;
  const bool wg = is_wg(f);
  const bool a_regs = fi.a_regs > 0, b_regs = fi.b_regs > 0;
  // Experiment bookkeeping.
  std::vector<int> tC, tA, tB;          // register one-hot tiles
  std::vector<std::pair<int, int>> mA, mB;  // wgmma memory one-hot (row, k) per tile
  std::vector<int> tmA, tmB;
  std::vector<std::vector<std::uint64_t>> Aw(static_cast<std::size_t>(M), std::vector<std::uint64_t>(static_cast<std::size_t>(K)));
  std::vector<std::vector<std::uint64_t>> Bw(static_cast<std::size_t>(N), std::vector<std::uint64_t>(static_cast<std::size_t>(K)));
  for (int m = 0; m < M; ++m)
    for (int k = 0; k < K; ++k) Aw[static_cast<std::size_t>(m)][static_cast<std::size_t>(k)] = w_code(ae, k);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) Bw[static_cast<std::size_t>(n)][static_cast<std::size_t>(k)] = w_code(be, k);
  auto set_b_w = [&](int t) {
    if (wg) {
      for (int n = 0; n < N; ++n)
        for (int k = 0; k < K; ++k) bd.b_mat(t, n, k, w_code(be, k));
    } else {
      bd.b_doc(t, Bw);
    }
  };
  // C one-hot.
  for (int l = 0; l < fi.threads; ++l)
    for (int r = 0; r < fi.c_regs; ++r) {
      const int t = bd.add();
      bd.c_reg(t, l, r, c_one(f));
      tC.push_back(t);
    }
  // A one-hot in registers.
  if (a_regs)
    for (int l = 0; l < fi.threads; ++l)
      for (int r = 0; r < fi.a_regs; ++r)
        for (int e = 0; e < fi.a_per_reg; ++e) {
          const int t = bd.add();
          bd.a_reg(t, l, r, e, one_code(ae));
          set_b_w(t);
          tA.push_back(t);
        }
  // B one-hot in registers.
  if (b_regs)
    for (int l = 0; l < fi.threads; ++l)
      for (int r = 0; r < fi.b_regs; ++r)
        for (int e = 0; e < fi.b_per_reg; ++e) {
          const int t = bd.add();
          bd.b_reg(t, l, r, e, one_code(be));
          bd.a_doc(t, Aw);
          tB.push_back(t);
        }
  // wgmma with A in shared memory: memory one-hots.
  if (wg && !a_regs) {
    for (int m = 0; m < M; ++m)
      for (int k = 0; k < K; ++k) {
        const int t = bd.add();
        bd.a_mat(t, m, k, one_code(ae));
        set_b_w(t);
        tmA.push_back(t);
        mA.push_back({m, k});
      }
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) {
        const int t = bd.add();
        bd.b_mat(t, n, k, one_code(be));
        for (int m = 0; m < M; ++m)
          for (int kk = 0; kk < K; ++kk) bd.a_mat(t, m, kk, w_code(ae, kk));
        tmB.push_back(t);
        mB.push_back({n, k});
      }
  }
  res.tiles = bd.b.ntiles;
  exec(f, bd.b);

  int poison = 0;
  // ---- C/D ----
  {
    OperandProbe op;
    op.op = Operand::C;
    if (wg && !a_regs) {
      // Absolute D map from the memory one-hots.
      std::vector<mx::RowCol> lab(static_cast<std::size_t>(fi.threads * fi.c_regs));
      std::vector<int> cnt_r(lab.size(), 0), cnt_c(lab.size(), 0);
      int bad_k = 0;
      for (std::size_t i = 0; i < tmA.size(); ++i) {
        for (const Hit& h : hits(bd, tmA[i], &poison)) {
          const std::size_t s = static_cast<std::size_t>(h.lane * fi.c_regs + h.reg);
          if (mA[i].second == 0) {
            lab[s].row = mA[i].first;
            ++cnt_r[s];
          }
          if (k_of_value(be, K, h.v) != mA[i].second) ++bad_k;
        }
      }
      for (std::size_t i = 0; i < tmB.size(); ++i) {
        for (const Hit& h : hits(bd, tmB[i], &poison)) {
          const std::size_t s = static_cast<std::size_t>(h.lane * fi.c_regs + h.reg);
          if (mB[i].second == 0) {
            lab[s].col = mB[i].first;
            ++cnt_c[s];
          }
          if (k_of_value(ae, K, h.v) != mB[i].second) ++bad_k;
        }
      }
      if (bad_k)
        op.notes.push_back(std::to_string(bad_k) +
                           " outputs carried a k other than the one set in shared memory (descriptor/layout reading)");
      for (int l = 0; l < fi.threads; ++l)
        for (int r = 0; r < fi.c_regs; ++r) {
          const std::size_t s = static_cast<std::size_t>(l * fi.c_regs + r);
          MapEntry me{l, r, 0, lab[s]};
          if (cnt_r[s] != 1 || cnt_c[s] != 1) {
            op.notes.push_back("D " + slot_name(me) + ": lit by " + std::to_string(cnt_r[s]) + " A rows and " +
                               std::to_string(cnt_c[s]) + " B columns (expected 1 and 1)");
            me.rc = {};
          }
          op.measured.push_back(me);
        }
    } else {
      for (int l = 0, i = 0; l < fi.threads; ++l)
        for (int r = 0; r < fi.c_regs; ++r, ++i) {
          const std::vector<Hit> hs = hits(bd, tC[static_cast<std::size_t>(i)], &poison);
          MapEntry me{l, r, 0, {}};
          if (hs.size() == 1 && hs[0].v == 1.0) me.rc = hs[0].rc;
          else op.notes.push_back("C " + slot_name(me) + ": " + std::to_string(hs.size()) + " outputs changed");
          op.measured.push_back(me);
        }
    }
    // C one-hots must reappear in their own D register for wgmma too.
    if (wg) {
      for (int l = 0, i = 0; l < fi.threads; ++l)
        for (int r = 0; r < fi.c_regs; ++r, ++i) {
          const std::vector<Hit> hs = hits(bd, tC[static_cast<std::size_t>(i)], &poison);
          if (hs.size() != 1 || hs[0].lane != l || hs[0].reg != r || hs[0].v != 1.0)
            op.notes.push_back("C one-hot at T" + std::to_string(l) + " R" + std::to_string(r) +
                               " did not come back in the same D register");
        }
    }
    op.differences = mx::map_differences(f, Operand::C, op.measured);
    res.operands.push_back(std::move(op));
  }
  // ---- A ----
  if (a_regs) {
    OperandProbe op;
    op.op = Operand::A;
    std::size_t i = 0;
    for (int l = 0; l < fi.threads; ++l)
      for (int r = 0; r < fi.a_regs; ++r)
        for (int e = 0; e < fi.a_per_reg; ++e, ++i) {
          const std::vector<Hit> hs = hits(bd, tA[i], &poison);
          MapEntry me{l, r, e, {}};
          bool ok = static_cast<int>(hs.size()) == N;
          std::vector<int> cols;
          int row = ok ? hs[0].rc.row : -1, k = ok ? k_of_value(be, K, hs[0].v) : -1;
          for (const Hit& h : hs) ok = ok && h.rc.row == row && k_of_value(be, K, h.v) == k;
          if (ok && k >= 0) me.rc = {row, k};
          else op.notes.push_back("A " + slot_name(me) + ": " + std::to_string(hs.size()) +
                                  " outputs changed, not one full row with one k");
          op.measured.push_back(me);
        }
    op.differences = mx::map_differences(f, Operand::A, op.measured);
    res.operands.push_back(std::move(op));
  }
  // ---- B ----
  if (b_regs) {
    OperandProbe op;
    op.op = Operand::B;
    std::size_t i = 0;
    for (int l = 0; l < fi.threads; ++l)
      for (int r = 0; r < fi.b_regs; ++r)
        for (int e = 0; e < fi.b_per_reg; ++e, ++i) {
          const std::vector<Hit> hs = hits(bd, tB[i], &poison);
          MapEntry me{l, r, e, {}};
          bool ok = static_cast<int>(hs.size()) == M;
          int col = ok ? hs[0].rc.col : -1, k = ok ? k_of_value(ae, K, hs[0].v) : -1;
          for (const Hit& h : hs) ok = ok && h.rc.col == col && k_of_value(ae, K, h.v) == k;
          if (ok && k >= 0) me.rc = {k, col};
          else op.notes.push_back("B " + slot_name(me) + ": " + std::to_string(hs.size()) +
                                  " outputs changed, not one full column with one k");
          op.measured.push_back(me);
        }
    op.differences = mx::map_differences(f, Operand::B, op.measured);
    res.operands.push_back(std::move(op));
  }
  if (poison) res.operands.front().notes.push_back(std::to_string(poison) + " D registers kept the poison value (unwritten or NaN)");
  res.method = wg && !a_regs
                   ? "D map absolute: A one-hot at (m,k) and B one-hot at (n,k) in shared memory (K-major, no swizzle)"
                   : "labels of D anchored on the documented C/D map; A measured against B's documented k, B against A's";
  return res;
}


void run_cases(MmaForm f, std::vector<DotCase>& cases, bool shared_rows) {
  const auto& fi = mx::form_info(f);
  const std::size_t per = shared_rows ? static_cast<std::size_t>(fi.m * fi.n) : 1;
  const int ntiles = static_cast<int>((cases.size() + per - 1) / per);
  Builder bd(f);
  const bool wg = is_wg(f);
  const std::size_t M = static_cast<std::size_t>(fi.m), N = static_cast<std::size_t>(fi.n),
                    K = static_cast<std::size_t>(fi.k);
  for (int t = 0; t < ntiles; ++t) {
    bd.add();
    std::vector<std::vector<std::uint64_t>> A(M, std::vector<std::uint64_t>(K, 0)), B(N, std::vector<std::uint64_t>(K, 0)),
        C(M, std::vector<std::uint64_t>(N, 0));
    for (std::size_t i = 0; i < per; ++i) {
      const std::size_t ci = static_cast<std::size_t>(t) * per + i;
      if (ci >= cases.size()) break;
      const std::size_t m = shared_rows ? i / N : 0, n = shared_rows ? i % N : 0;
      const DotCase& cs = cases[ci];
      if (cs.a.size() != K || cs.b.size() != K) throw mx::InvalidArgument("run_cases: case length is not K");
      A[m] = cs.a;  // the same row for every n of a tile: the caller's tiles share rows
      B[n] = cs.b;
      C[m][n] = cs.c;
    }
    if (wg) {
      if (fi.a_regs) bd.a_doc(t, A);
      else
        for (std::size_t m = 0; m < M; ++m)
          for (std::size_t k = 0; k < K; ++k) bd.a_mat(t, static_cast<int>(m), static_cast<int>(k), A[m][k]);
      for (std::size_t n = 0; n < N; ++n)
        for (std::size_t k = 0; k < K; ++k) bd.b_mat(t, static_cast<int>(n), static_cast<int>(k), B[n][k]);
    } else {
      bd.a_doc(t, A);
      bd.b_doc(t, B);
    }
    bd.c_doc(t, C);
  }
  exec(f, bd.b);
  for (int t = 0; t < ntiles; ++t)
    for (int l = 0; l < fi.threads; ++l)
      for (int r = 0; r < fi.c_regs; ++r) {
        const mx::RowCol rc = mx::documented(f, Operand::C, l, r, 0);
        const std::size_t pos = static_cast<std::size_t>(rc.row * fi.n + rc.col);
        if (pos >= per) continue;
        const std::size_t ci = static_cast<std::size_t>(t) * per + pos;
        if (ci < cases.size()) cases[ci].d = bd.d_slot(t, l, r)[0];
      }
}


// ---- mma.sync.m8n8k4.f64 ----
namespace {
constexpr std::uint64_t kM52 = (std::uint64_t{1} << 52) - 1;
std::uint64_t f64b(bool neg, int ef, std::uint64_t m) {
  return (static_cast<std::uint64_t>(neg) << 63) | (static_cast<std::uint64_t>(ef) << 52) | (m & kM52);
}
std::uint64_t dbits(double x) { return std::bit_cast<std::uint64_t>(x); }

// Specials and signed zeros in a small share; otherwise `ef` with a random fraction.
std::uint64_t f64_or_special(Rng& r, int ef) {
  const bool s = r.next() & 1;
  const std::uint64_t u = r.next() % 1000;
  if (u < 30) return s ? (std::uint64_t{1} << 63) : 0;
  if (u < 34) return f64b(s, 0x7FF, 0);
  if (u < 38) return f64b(s, 0x7FF, 1 + r.next() % kM52);
  return f64b(s, ef, r.next());
}

int ef_of(Rng& r, int mode, bool is_b) {
  switch (mode) {
    case 0: return 1023 + r.range(-600, 600);
    case 4: {  // a tiny (15% subnormal), b near 1
      if (is_b) return 1023 + r.range(-8, 2);
      return r.next() % 100 < 15 ? 0 : r.range(1, 60);
    }
    case 5: return 1023 + r.range(500, 512);
    default: return 1023 + r.range(-3, 3);
  }
}

std::uint64_t rand_c64(Rng& r, int mode, const mx::DotCaseF64& cs) {
  const bool s = r.next() & 1;
  const std::uint64_t u = r.next() % 1000;
  if (u < 4) return f64b(s, 0x7FF, 0);
  if (u < 8) return f64b(s, 0x7FF, 1 + r.next() % kM52);
  if (u < 100) return s ? (std::uint64_t{1} << 63) : 0;
  switch (mode) {
    case 0: return f64b(s, 1023 + r.range(-1000, 1000), r.next());
    case 2: {  // -(a.b) with its low bits perturbed: cancellation against c
      double acc = 0;
      for (int k = 0; k < 4; ++k) acc = std::fma(std::bit_cast<double>(cs.a[k]), std::bit_cast<double>(cs.b[k]), acc);
      if (!std::isfinite(acc) || acc == 0) return f64b(s, 1023 + r.range(-3, 3), r.next());
      std::uint64_t c = dbits(-acc);
      const int how = static_cast<int>(r.next() % 4);
      if (how == 0) return c;
      if (how == 1) return c ^ (r.next() & 0xFF);
      if (how == 2) return c + 1;
      return c ^ (r.next() & 0xFFFFFFFFull);
    }
    case 3: return f64b(s, 1023 + r.range(-60, 0), r.next());
    case 4: return f64b(s, r.range(0, 60), r.next());
    case 5: return f64b(s, 1023 + r.range(1000, 1023), r.next());
    default: return f64b(s, 1023 + r.range(-8, 3), r.next());
  }
}
}  // namespace

std::vector<mx::DotCaseF64> random_tile_cases_f64(std::uint64_t seed, int tile) {
  const MmaForm f = MmaForm::mma_f64_m8n8k4;
  Rng r{seed * 0x100000001B3ull + static_cast<std::uint64_t>(tile) * 0x9E3779B97F4A7C15ull +
        static_cast<std::uint64_t>(f) * 0x632BE59BD9B4E019ull};
  const int mode = tile % 6;
  // Mode 3: the cancelling pairs are (0,1),(2,3) or (0,2),(1,3) or (0,3),(1,2).
  const int pat = static_cast<int>(r.next() % 3);
  const int pa[3][4] = {{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}};
  std::uint64_t A[8][4], B[8][4];
  for (int which = 0; which < 2; ++which)
    for (int i = 0; i < 8; ++i) {
      std::uint64_t* v = which == 0 ? A[i] : B[i];
      for (int k = 0; k < 4; ++k) v[k] = f64_or_special(r, ef_of(r, mode, which == 1));
      if (mode == 3) {
        for (int q = 0; q < 2; ++q) {
          const int k0 = pa[pat][2 * q], k1 = pa[pat][2 * q + 1];
          // a: negated copy; b: copy with low bits changed (both with tweaks).
          v[k1] = which == 0 ? (v[k0] ^ (std::uint64_t{1} << 63) ^ (r.next() % 4 == 0 ? (r.next() & 0xFFFF) : 0))
                             : (v[k0] ^ (r.next() & 0xFFFFFull));
        }
      }
    }
  std::vector<mx::DotCaseF64> out;
  out.reserve(64);
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 8; ++n) {
      mx::DotCaseF64 c;
      for (int k = 0; k < 4; ++k) {
        c.a[k] = A[m][k];
        c.b[k] = B[n][k];
      }
      c.c = rand_c64(r, mode, c);
      out.push_back(c);
    }
  return out;
}

void run_cases_f64(std::vector<mx::DotCaseF64>& cases, bool shared_rows) {
  const MmaForm f = MmaForm::mma_f64_m8n8k4;
  const auto& fi = mx::form_info(f);
  const std::size_t per = shared_rows ? 64 : 1;
  const int ntiles = static_cast<int>((cases.size() + per - 1) / per);
  Builder bd(f);
  for (int t = 0; t < ntiles; ++t) {
    bd.add();
    std::vector<std::vector<std::uint64_t>> A(8, std::vector<std::uint64_t>(4, 0)), B(8, std::vector<std::uint64_t>(4, 0)),
        C(8, std::vector<std::uint64_t>(8, 0));
    for (std::size_t i = 0; i < per; ++i) {
      const std::size_t ci = static_cast<std::size_t>(t) * per + i;
      if (ci >= cases.size()) break;
      const std::size_t m = shared_rows ? i / 8 : 0, n = shared_rows ? i % 8 : 0;
      const mx::DotCaseF64& cs = cases[ci];
      A[m].assign(cs.a, cs.a + 4);
      B[n].assign(cs.b, cs.b + 4);
      C[m][n] = cs.c;
    }
    bd.a_doc(t, A);
    bd.b_doc(t, B);
    bd.c_doc(t, C);
  }
  if (g_emulate) {  // emulation: the fitted f64 model stands in for the GPU
    for (auto& c : cases) c.d = mx::hw_dot_f64(mx::h100_fitted_f64_model(), c);
    return;
  }
  run_batch(f, bd.b, 0);
  for (int t = 0; t < ntiles; ++t)
    for (int l = 0; l < fi.threads; ++l)
      for (int r = 0; r < fi.c_regs; ++r) {
        const mx::RowCol rc = mx::documented(f, Operand::C, l, r, 0);
        const std::size_t pos = static_cast<std::size_t>(rc.row * fi.n + rc.col);
        if (pos >= per) continue;
        const std::size_t ci = static_cast<std::size_t>(t) * per + pos;
        const std::uint32_t* w = bd.d_slot(t, l, r);
        if (ci < cases.size()) cases[ci].d = (std::uint64_t{w[1]} << 32) | w[0];
      }
}

std::vector<FeatureF64> feature_cases_f64() {
  std::vector<FeatureF64> out;
  auto P = [](int x) { return std::ldexp(1.0, x); };
  // Case from c and up to four (a, b) pairs given as doubles.
  auto mk = [&](const std::string& name, double c, std::vector<std::pair<double, double>> ps) {
    mx::DotCaseF64 cs;
    cs.c = dbits(c);
    for (std::size_t k = 0; k < ps.size() && k < 4; ++k) {
      cs.a[k] = dbits(ps[k].first);
      cs.b[k] = dbits(ps[k].second);
    }
    out.push_back({name, cs});
  };
  const double one = 1.0, e52 = P(-52);
  // Products: exact (fma) or rounded (fmul) before the add.
  mk("product_exact: p0=(1+2^-52)^2, c=-(1+2^-51)", -(1 + P(-51)), {{1 + e52, 1 + e52}});
  mk("product_exact: p0=(1+2^-52)(1-2^-53), c=-1", -1.0, {{1 + e52, 1 - P(-53)}});
  // Order and intermediate rounding: p=2^-60 survives only if added after the cancellation.
  mk("order: p0=1 p1=-1 p2=2^-60", 0.0, {{one, one}, {-one, one}, {P(-60), one}});
  mk("order: p0=2^-60 p1=1 p2=-1", 0.0, {{P(-60), one}, {one, one}, {-one, one}});
  mk("order: p1=1 p2=2^-60 p3=-1", 0.0, {{0, 0}, {one, one}, {P(-60), one}, {-one, one}});
  mk("order: p0=1 p3=-1 p1=2^-60", 0.0, {{one, one}, {P(-60), one}, {0, 0}, {-one, one}});
  mk("order: p2=1 p3=-1 p0=2^-60", 0.0, {{P(-60), one}, {0, 0}, {one, one}, {-one, one}});
  mk("order: p0=1 p1=2^-60 p2=-1", 0.0, {{one, one}, {P(-60), one}, {-one, one}});
  // Where C enters.
  mk("cpos: c=1 p0=-1 p1=2^-60", 1.0, {{-one, one}, {P(-60), one}});
  mk("cpos: c=2^-60 p0=1 p1=-1", P(-60), {{one, one}, {-one, one}});
  mk("cpos: c=1 p3=-1 p0=2^-60", 1.0, {{P(-60), one}, {0, 0}, {0, 0}, {-one, one}});
  mk("cpos: c=1 p0=2^-60 p1=-1", 1.0, {{P(-60), one}, {-one, one}});
  // Double rounding: two half-ulps.
  mk("double_round: c=1 p0=2^-53 p1=2^-53", 1.0, {{P(-53), one}, {P(-53), one}});
  mk("double_round: c=1 p2=2^-53 p3=2^-53", 1.0, {{0, 0}, {0, 0}, {P(-53), one}, {P(-53), one}});
  mk("double_round: p0=1 p1=2^-53 p2=2^-53", 0.0, {{one, one}, {P(-53), one}, {P(-53), one}});
  // Alignment width: a tie broken by a bit j below 2^0.
  for (int j : {56, 60, 64, 70, 80, 100, 105, 106, 110, 120, 200})
    mk("align_sticky: c=1 p0=2^-53 p1=2^-" + std::to_string(j), 1.0, {{P(-53), one}, {P(-j), one}});
  for (int j : {53, 54, 55, 56, 60, 64, 80, 106, 110})
    mk("align_neg: c=1 p0=-2^-" + std::to_string(j), 1.0, {{-P(-j), one}});
  mk("round_tie: c=1 p0=2^-53", 1.0, {{P(-53), one}});
  mk("round_tie: c=1+2^-52 p0=2^-53", 1 + e52, {{P(-53), one}});
  // Group: a tiny term next to a cancelling pair, in every position.
  for (int g = 0; g < 4; ++g) {
    std::vector<std::pair<double, double>> ps(4, {0.0, 0.0});
    int idx[3], n = 0;
    for (int k = 0; k < 4; ++k)
      if (k != g) idx[n++] = k;
    const int i0 = idx[0], i1 = idx[1];
    ps[static_cast<std::size_t>(i0)] = {P(60), one};
    ps[static_cast<std::size_t>(i1)] = {-P(60), one};
    ps[static_cast<std::size_t>(g)] = {P(-60), one};
    mk("group: p" + std::to_string(i0) + "=2^60 p" + std::to_string(i1) + "=-2^60 p" + std::to_string(g) + "=2^-60", 0.0, ps);
  }
  // Subnormals.
  {
    mx::DotCaseF64 cs;
    cs.a[0] = 1;
    cs.b[0] = dbits(1.0);
    out.push_back({"subnormal_operand: min_sub * 1", cs});
    cs.b[0] = dbits(P(52));
    out.push_back({"subnormal_operand: min_sub * 2^52", cs});
  }
  mk("subnormal_result: c=1.5*2^-1022 p0=-2^-1022", 1.5 * P(-1022), {{-P(-511), P(-511)}});
  mk("subnormal_result: p0=2^-1074 (2^-537 * 2^-537)", 0.0, {{P(-537), P(-537)}});
  mk("underflow: p0=2^-1076 (2^-538 * 2^-538)", 0.0, {{P(-538), P(-538)}});
  mk("underflow: p0=1.5*2^-1075, c=0", 0.0, {{1.5 * P(-538), P(-537)}});
  mk("underflow_sum: p0=2^-1075 p1=2^-1075", 0.0, {{P(-538), P(-537)}, {P(-538), P(-537)}});
  mk("subnormal_c: c=2^-1074 p=0", P(-1074), {});
  mk("subnormal_c: c=2^-1074 p0=1 p1=-1", P(-1074), {{one, one}, {-one, one}});
  // Signed zeros.
  mk("zero_sign: c=-0 products +0", -0.0, {});
  mk("zero_sign: c=-0 p0=-0*1", -0.0, {{-0.0, one}});
  mk("zero_sign: c=+0 p0=-0*1", 0.0, {{-0.0, one}});
  mk("zero_sign: c=-1 p0=1", -1.0, {{one, one}});
  mk("zero_sign: c=-0 p0=-0 p1=-0 p2=-0 p3=-0", -0.0, {{-0.0, one}, {-0.0, one}, {-0.0, one}, {-0.0, one}});
  // Specials and overflow.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN(),
               mx = std::numeric_limits<double>::max();
  mk("nan_c: c=NaN", nan, {});
  mk("inf_c: c=+Inf", inf, {});
  mk("inf_c_plus_product: c=+Inf p0=-1", inf, {{-one, one}});
  mk("inf_c_minus_inf: c=+Inf p0=-Inf*1", inf, {{-inf, one}});
  mk("nan_operand: NaN * 1", 0.0, {{nan, one}});
  mk("inf_operand: Inf * 1", 0.0, {{inf, one}});
  mk("inf_times_zero: Inf * 0", 0.0, {{inf, 0.0}});
  mk("inf_minus_inf: Inf*1 + Inf*-1", 0.0, {{inf, one}, {inf, -one}});
  mk("overflow: c=max p0=2^970 (tie)", mx, {{P(485), P(485)}});
  mk("overflow: c=max p0=2^969", mx, {{P(485), P(484)}});
  mk("overflow: p0=2^1000*2^100", 0.0, {{P(1000), P(100)}});
  mk("overflow_intermediate: p0=2^1023*2 p1=-2^1023*2", 0.0, {{P(1023), 2.0}, {P(1023), -2.0}});
  mk("overflow_intermediate: c=max p0=max p1=-max", mx, {{mx, one}, {-mx, one}});
  return out;
}

}  // namespace mxk::probes

namespace mxk::probes {

// Emulated block-scaled mma.sync (documented maps and scale lanes, exact
// arithmetic): D[m][n] = C + sum_k A*B*SA(m, k/V)*SB(n, k/V).
static void emulate_scale(MmaForm f, const ScaleSel& s, TileBatch& b, const std::vector<std::uint32_t>& sfa,
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

void exec_scale(MmaForm f, const ScaleSel& s, TileBatch& b, const std::vector<std::uint32_t>& sfa,
                const std::vector<std::uint32_t>& sfb) {
  if (g_emulate) emulate_scale(f, s, b, sfa, sfb);
  else run_scale_batch(f, s, b, sfa, sfb);
}

void set_emulation(const mx::HwModelParams* p) { g_emulate = p; }
bool emulating() { return g_emulate != nullptr; }
bool runnable(MmaForm f, std::string* why) {
  if (g_emulate) return true;
  return form_runnable(f, why);
}
}  // namespace mxk::probes
