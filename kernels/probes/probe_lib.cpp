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
#include "probe_internal.hpp"
#include "probe_kernels.hpp"

namespace mxk::probes {

using detail::ebits_of;  // probe_internal.hpp
using detail::emulate_batch;
using detail::emulate_scale;
using detail::g_emulate;
using detail::kPoison;
using detail::Layout;
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

// Layout: probe_internal.hpp.

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

// ---- CPU emulation (MXPROBE_EMULATE=1): probe_emulate.cpp; g_emulate is the model
// that stands in for the GPU (null: the GPU runs the batches).
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
