// mx/mma_map.hpp - documented MMA fragment maps (SPEC C10) as pure functions.
//
// For every warp-level MMA form the probes measure, this header says which
// (row, col) of A, B or C/D the documentation puts in (lane, register,
// element-within-register). Sources: PTX ISA 9.0, section 9.7.14.5.x
// "Matrix fragments for mma.m16n8k*" (m16n8k16 f16/bf16: 9.7.14.5.8;
// m16n8k8 tf32: 9.7.14.5.7; m16n8k32 8-bit: 9.7.14.5.9; m8n8k4 f64:
// 9.7.14.5.2; m16n8k64 fp4: 9.7.14.5.10) and 9.7.15.5.1 "Register fragments
// and shared memory matrix layouts" for wgmma (D of m64nNk*; A in registers
// is the mma m16n8k* A fragment stacked over the four warps). C10 restates the
// 8-bit and fp4 maps. Packing convention of every register: element e of a
// register occupies bits [e*bits, (e+1)*bits) (element 0 in the low bits).
//
// Block scales (C10, sm_120a mma.sync .block_scale): documented_scale_lane()
// says from which lane and byte the scale of A row m / B column n and K-block
// j is read for a given (thread-id, byte-id) selector.
//
// Everything here is constexpr and MX_HD, so the probe kernels load operands
// with the same functions the host compares against.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mx/hd.hpp"

namespace mx {

enum class MmaForm : std::uint8_t {
  mma_f16_m16n8k16,
  mma_bf16_m16n8k16,
  mma_tf32_m16n8k8,
  mma_e4m3_m16n8k32,
  mma_e5m2_m16n8k32,
  mma_s8_m16n8k32,
  mma_f64_m8n8k4,
  wgmma_bf16_m64n8k16_rs,  // A from registers, B from shared memory
  wgmma_bf16_m64n8k16_ss,  // A and B from shared memory
  wgmma_e4m3_m64n8k32_rs,
  wgmma_e4m3_m64n8k32_ss,
  mma_mxf8f6f4_m16n8k32,   // sm_120a, e4m3 x e4m3 with ue8m0 block scales
  mma_mxf4_m16n8k64,       // sm_120a, e2m1 with ue8m0, scale_vec::2X
  mma_mxf4nvf4_m16n8k64,   // sm_120a, e2m1 with ue4m3, scale_vec::4X
  wgmma_e5m2_m64n8k32_rs,  // (appended: the numbering of the forms above is kept)
  wgmma_e5m2_m64n8k32_ss,
};
inline constexpr int kNumMmaForms = 16;

enum class Operand : std::uint8_t { A, B, C };  // C stands for C and D (same map)

// Element kind of an operand (what the bits of one element are).
enum class Elem : std::uint8_t { f16, bf16, tf32, e4m3, e5m2, s8, f64, f32, s32, e2m1 };

struct MmaFormInfo {
  std::string_view name;      // CLI name, e.g. "mma.m16n8k32.e4m3"
  std::string_view ptx;       // the instruction as written in PTX
  int m, n, k;
  int threads;                // 32 for mma.sync, 128 for wgmma
  Elem a_elem, b_elem, c_elem;
  int a_regs, a_per_reg;      // 0 regs: operand not in registers (wgmma smem)
  int b_regs, b_per_reg;
  int c_regs, c_per_reg;
  int sm;                     // minimal compute capability x10 (90, 120)
  bool arch_specific;         // needs an "a" target (sm_90a, sm_120a)
};

// clang-format off
inline constexpr MmaFormInfo kMmaForms[kNumMmaForms] = {
  {"mma.m16n8k16.f16",  "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",   16, 8, 16, 32, Elem::f16,  Elem::f16,  Elem::f32, 4, 2, 2, 2, 4, 1, 80, false},
  {"mma.m16n8k16.bf16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16, 32, Elem::bf16, Elem::bf16, Elem::f32, 4, 2, 2, 2, 4, 1, 80, false},
  {"mma.m16n8k8.tf32",  "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",  16, 8, 8,  32, Elem::tf32, Elem::tf32, Elem::f32, 4, 1, 2, 1, 4, 1, 80, false},
  {"mma.m16n8k32.e4m3", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 16, 8, 32, 32, Elem::e4m3, Elem::e4m3, Elem::f32, 4, 4, 2, 4, 4, 1, 89, false},
  {"mma.m16n8k32.e5m2", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", 16, 8, 32, 32, Elem::e5m2, Elem::e5m2, Elem::f32, 4, 4, 2, 4, 4, 1, 89, false},
  {"mma.m16n8k32.s8",   "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",     16, 8, 32, 32, Elem::s8,   Elem::s8,   Elem::s32, 4, 4, 2, 4, 4, 1, 80, false},
  {"mma.m8n8k4.f64",    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",     8,  8, 4,  32, Elem::f64,  Elem::f64,  Elem::f64, 1, 1, 1, 1, 2, 1, 80, false},
  {"wgmma.m64n8k16.bf16.rs", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 (A in registers)", 64, 8, 16, 128, Elem::bf16, Elem::bf16, Elem::f32, 4, 2, 0, 0, 4, 1, 90, true},
  {"wgmma.m64n8k16.bf16.ss", "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 (A in shared memory)", 64, 8, 16, 128, Elem::bf16, Elem::bf16, Elem::f32, 0, 0, 0, 0, 4, 1, 90, true},
  {"wgmma.m64n8k32.e4m3.rs", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 (A in registers)", 64, 8, 32, 128, Elem::e4m3, Elem::e4m3, Elem::f32, 4, 4, 0, 0, 4, 1, 90, true},
  {"wgmma.m64n8k32.e4m3.ss", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 (A in shared memory)", 64, 8, 32, 128, Elem::e4m3, Elem::e4m3, Elem::f32, 0, 0, 0, 0, 4, 1, 90, true},
  {"mma.m16n8k32.mxf8f6f4", "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0", 16, 8, 32, 32, Elem::e4m3, Elem::e4m3, Elem::f32, 4, 4, 2, 4, 4, 1, 120, true},
  {"mma.m16n8k64.mxf4", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0", 16, 8, 64, 32, Elem::e2m1, Elem::e2m1, Elem::f32, 4, 8, 2, 8, 4, 1, 120, true},
  {"mma.m16n8k64.mxf4nvf4", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3", 16, 8, 64, 32, Elem::e2m1, Elem::e2m1, Elem::f32, 4, 8, 2, 8, 4, 1, 120, true},
  {"wgmma.m64n8k32.e5m2.rs", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 (A in registers)", 64, 8, 32, 128, Elem::e5m2, Elem::e5m2, Elem::f32, 4, 4, 0, 0, 4, 1, 90, true},
  {"wgmma.m64n8k32.e5m2.ss", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 (A in shared memory)", 64, 8, 32, 128, Elem::e5m2, Elem::e5m2, Elem::f32, 0, 0, 0, 0, 4, 1, 90, true},
};
// clang-format on

constexpr const MmaFormInfo& form_info(MmaForm f) { return kMmaForms[static_cast<int>(f)]; }

// Device-usable pieces of the table (the table itself is host-only data).
MX_HD constexpr bool is_wgmma(MmaForm f) {
  return f == MmaForm::wgmma_bf16_m64n8k16_rs || f == MmaForm::wgmma_bf16_m64n8k16_ss ||
         f == MmaForm::wgmma_e4m3_m64n8k32_rs || f == MmaForm::wgmma_e4m3_m64n8k32_ss ||
         f == MmaForm::wgmma_e5m2_m64n8k32_rs || f == MmaForm::wgmma_e5m2_m64n8k32_ss;
}
MX_HD constexpr bool a_in_regs(MmaForm f) {
  return f != MmaForm::wgmma_bf16_m64n8k16_ss && f != MmaForm::wgmma_e4m3_m64n8k32_ss &&
         f != MmaForm::wgmma_e5m2_m64n8k32_ss;
}
MX_HD constexpr int per_reg(MmaForm f, int op /* 0 A, 1 B, 2 C */) {
  if (op == 2) return 1;
  switch (f) {
    case MmaForm::mma_tf32_m16n8k8: case MmaForm::mma_f64_m8n8k4: return 1;
    case MmaForm::mma_f16_m16n8k16: case MmaForm::mma_bf16_m16n8k16:
    case MmaForm::wgmma_bf16_m64n8k16_rs: case MmaForm::wgmma_bf16_m64n8k16_ss: return 2;
    case MmaForm::mma_mxf4_m16n8k64: case MmaForm::mma_mxf4nvf4_m16n8k64: return 8;
    default: return 4;
  }
}

MX_HD constexpr int elem_bits(Elem e) {
  switch (e) {
    case Elem::f16: case Elem::bf16: return 16;
    case Elem::tf32: case Elem::f32: case Elem::s32: return 32;
    case Elem::f64: return 64;
    case Elem::e2m1: return 4;
    default: return 8;
  }
}

struct RowCol {
  int row = -1, col = -1;  // for B, row is k and col is n
  friend constexpr bool operator==(const RowCol&, const RowCol&) = default;
};

// Which (row, col) the documentation assigns to element `e` of register
// `reg` of thread `lane` (0..threads-1) for operand `op` of form `f`.
// Returns {-1, -1} for an operand the form does not hold in registers.
MX_HD constexpr RowCol documented(MmaForm f, Operand op, int lane, int reg, int e) {
  const int w = lane >> 5;         // warp within the warpgroup (wgmma)
  const int l = lane & 31;
  const int g = l >> 2, t = l & 3;
  const bool wg = is_wgmma(f);
  if (op == Operand::C) {
    const int i = reg + e;
    if (f == MmaForm::mma_f64_m8n8k4) return {g, 2 * t + i};  // 9.7.14.5.2
    if (wg) return {16 * w + g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1)};  // 9.7.15.5.1
    return {g + 8 * (i >> 1), 2 * t + (i & 1)};
  }
  if (op == Operand::A && !a_in_regs(f)) return {};
  if (op == Operand::B && wg) return {};
  const int per = per_reg(f, op == Operand::A ? 0 : 1);
  const int i = reg * per + e;
  const int row0 = wg ? 16 * w : 0;
  switch (f) {
    case MmaForm::mma_f16_m16n8k16:
    case MmaForm::mma_bf16_m16n8k16:
    case MmaForm::wgmma_bf16_m64n8k16_rs:
      if (op == Operand::A) return {row0 + g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
      return {2 * t + (i & 1) + 8 * (i >> 1), g};
    case MmaForm::mma_tf32_m16n8k8:
      if (op == Operand::A) return {g + 8 * (i & 1), t + 4 * (i >> 1)};
      return {t + 4 * i, g};
    case MmaForm::mma_e4m3_m16n8k32:
    case MmaForm::mma_e5m2_m16n8k32:
    case MmaForm::mma_s8_m16n8k32:
    case MmaForm::wgmma_e4m3_m64n8k32_rs:
    case MmaForm::wgmma_e5m2_m64n8k32_rs:
    case MmaForm::mma_mxf8f6f4_m16n8k32:
      if (op == Operand::A) return {row0 + g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
      return {4 * t + (i & 3) + 16 * (i >> 2), g};
    case MmaForm::mma_mxf4_m16n8k64:
    case MmaForm::mma_mxf4nvf4_m16n8k64:
      if (op == Operand::A) return {g + 8 * ((i >> 3) & 1), 8 * t + (i & 7) + 32 * (i >> 4)};
      return {8 * t + (i & 7) + 32 * (i >> 3), g};
    case MmaForm::mma_f64_m8n8k4:
      if (op == Operand::A) return {g, t};
      return {t, g};
    default:
      return {};
  }
}

// Block-scale lane map (C10, sm_120a). For A row m (B column n) and K-block j
// (0 <= j < scale_vec), the scale byte is read from `lane`, byte `byte`.
// C10 gives 1X; for 2X/4X the documented rule is that byte byte_id + j of the
// same lane holds block j (PTX ISA 9.0 9.7.14.5.14, scale_vec::2X/4X).
struct LaneByte {
  int lane = -1, byte = -1;
  friend constexpr bool operator==(const LaneByte&, const LaneByte&) = default;
};
MX_HD constexpr LaneByte documented_scale_lane(Operand op, int idx, int block, int thread_id,
                                               int byte_id) {
  if (op == Operand::A) return {4 * (idx % 8) + 2 * thread_id + idx / 8, byte_id + block};
  return {4 * idx + thread_id, byte_id + block};
}

// ---- host-side helpers (mma_map.cpp) ----------------------------------------

// Form by CLI name; throws UnknownName.
MmaForm mma_form_by_name(std::string_view name);
std::string_view operand_name(Operand op);
int operand_regs(MmaForm f, Operand op);
int operand_per_reg(MmaForm f, Operand op);
// Rows and columns of the operand's matrix (A: m x k, B: k x n, C: m x n).
int operand_rows(MmaForm f, Operand op);
int operand_cols(MmaForm f, Operand op);

// One row of a fragment map: (lane, reg, elem) -> (row, col).
struct MapEntry {
  int lane = 0, reg = 0, elem = 0;
  RowCol rc;
};
using FragmentMap = std::vector<MapEntry>;

// The whole documented map of one operand, ordered by (lane, reg, elem).
FragmentMap documented_map(MmaForm f, Operand op);

// Positions where `measured` differs from the documented map (same order and
// size required; throws InvalidArgument otherwise).
std::vector<MapEntry> map_differences(MmaForm f, Operand op, const FragmentMap& measured);

// True when every (row, col) of the operand matrix is held by exactly one
// (lane, reg, elem) (the map is a bijection onto the matrix).
bool map_is_bijection(MmaForm f, Operand op, const FragmentMap& map);

// CSV: header "operand,lane,reg,elem,row,col" then one row per entry.
std::string fragment_csv(MmaForm f, Operand op, const FragmentMap& map);

// SVG picture of the operand's matrix: one <rect> and one <text> "T<lane>
// R<reg>[.<elem>]" per element, coloured by lane (CuTe print_latex style).
// Elements no entry maps to are drawn grey and labelled "?".
std::string fragment_svg(MmaForm f, Operand op, const FragmentMap& map);

}  // namespace mx
