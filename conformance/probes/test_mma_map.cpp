// test_mma_map.cpp - SPEC C10: the documented fragment maps as pure
// functions, and the CSV/SVG pictures made from them.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "mx/error.hpp"
#include "mx/mma_map.hpp"

namespace {

using mx::MmaForm;
using mx::Operand;

struct Row {
  MmaForm f;
  Operand op;
  int lane, reg, elem, row, col;
  const char* why;
};

// Entries read off the PTX ISA figures by hand (not from the formulas).
const Row kWorked[] = {
    {MmaForm::mma_f16_m16n8k16, Operand::A, 0, 0, 1, 0, 1, "9.7.14.5.8 fig: T0 a1 = (0,1)"},
    {MmaForm::mma_f16_m16n8k16, Operand::A, 0, 1, 0, 8, 0, "T0 a2 = (8,0)"},
    {MmaForm::mma_f16_m16n8k16, Operand::A, 0, 2, 0, 0, 8, "T0 a4 = (0,8)"},
    {MmaForm::mma_f16_m16n8k16, Operand::A, 31, 3, 1, 15, 15, "T31 a7 = (15,15)"},
    {MmaForm::mma_bf16_m16n8k16, Operand::B, 5, 1, 1, 11, 1, "T5 b3 = (k 8+2+1, n 1)"},
    {MmaForm::mma_tf32_m16n8k8, Operand::A, 6, 1, 0, 9, 2, "9.7.14.5.7: T6 a1 = (g+8, t) = (9,2)"},
    {MmaForm::mma_tf32_m16n8k8, Operand::A, 6, 2, 0, 1, 6, "T6 a2 = (g, t+4) = (1,6)"},
    {MmaForm::mma_tf32_m16n8k8, Operand::B, 7, 1, 0, 7, 1, "T7 b1 = (t+4, g) = (7,1)"},
    {MmaForm::mma_e4m3_m16n8k32, Operand::A, 5, 2, 1, 1, 21, "C10: T5 byte 9 = (1, 4+1+16)"},
    {MmaForm::mma_e4m3_m16n8k32, Operand::A, 5, 1, 3, 9, 7, "C10: T5 byte 7 = (9, 7)"},
    {MmaForm::mma_s8_m16n8k32, Operand::B, 9, 1, 2, 22, 2, "C10: T9 byte 6 = (k 4+2+16, n 2)"},
    {MmaForm::mma_e5m2_m16n8k32, Operand::C, 13, 3, 0, 11, 3, "C10: T13 d3 = (3+8, 2+1)"},
    {MmaForm::mma_f64_m8n8k4, Operand::C, 7, 1, 0, 1, 7, "9.7.14.5.2: T7 d1 = (1, 7)"},
    {MmaForm::mma_f64_m8n8k4, Operand::A, 7, 0, 0, 1, 3, "T7 a0 = (1, 3)"},
    {MmaForm::wgmma_e4m3_m64n8k32_ss, Operand::C, 37, 2, 0, 25, 2, "9.7.15.5.1: warp 1 lane 5 d2 = (16+1+8, 2)"},
    {MmaForm::wgmma_bf16_m64n8k16_rs, Operand::A, 100, 0, 0, 49, 0, "warp 3 lane 4 a0: row 48+1"},
    {MmaForm::wgmma_e5m2_m64n8k32_rs, Operand::A, 69, 2, 3, 33, 23, "C10: warp 2 lane 5 byte 11 = (32+1+8*0, 4+3+16)"},
    {MmaForm::mma_mxf4_m16n8k64, Operand::A, 1, 3, 7, 8, 47, "C10: T1 nibble 31 = (8, 8+7+32)"},
    {MmaForm::mma_mxf4nvf4_m16n8k64, Operand::B, 2, 1, 0, 48, 0, "C10: T2 nibble 8 = (16+32, 0)"},
};

TEST(C10_MmaMap, WorkedEntries) {
  for (const Row& r : kWorked) {
    const mx::RowCol rc = mx::documented(r.f, r.op, r.lane, r.reg, r.elem);
    EXPECT_EQ(rc.row, r.row) << mx::form_info(r.f).name << " " << r.why;
    EXPECT_EQ(rc.col, r.col) << mx::form_info(r.f).name << " " << r.why;
  }
}

TEST(C10_MmaMap, EveryRegisterOperandIsABijection) {
  int checked = 0;
  for (int i = 0; i < mx::kNumMmaForms; ++i) {
    const auto f = static_cast<MmaForm>(i);
    for (Operand op : {Operand::A, Operand::B, Operand::C}) {
      if (mx::operand_regs(f, op) == 0) continue;
      EXPECT_TRUE(mx::map_is_bijection(f, op, mx::documented_map(f, op)))
          << mx::form_info(f).name << " " << mx::operand_name(op);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 39);  // 16 forms; wgmma ss forms hold only C in registers
}

TEST(C10_MmaMap, ScaleLanesMatchArticle003) {
  // Reference 003 (SM120 probes): with thread-id 0, lane%4==0 holds row lane/4,
  // lane%4==1 holds row lane/4+8; B column n from lane 4n.
  for (int m = 0; m < 16; ++m) {
    const mx::LaneByte lb = mx::documented_scale_lane(Operand::A, m, 0, 0, 0);
    EXPECT_EQ(lb.lane % 4, m / 8);
    EXPECT_EQ(lb.lane / 4, m % 8);
    EXPECT_EQ(lb.byte, 0);
  }
  EXPECT_EQ(mx::documented_scale_lane(Operand::A, 3, 0, 1, 2), (mx::LaneByte{14, 2}));
  EXPECT_EQ(mx::documented_scale_lane(Operand::B, 5, 1, 3, 0), (mx::LaneByte{23, 1}));
}

TEST(C10_MmaMap, DifferencesAreFoundAndLengthChecked) {
  const MmaForm f = MmaForm::mma_e4m3_m16n8k32;
  mx::FragmentMap m = mx::documented_map(f, Operand::A);
  EXPECT_TRUE(mx::map_differences(f, Operand::A, m).empty());
  std::swap(m[3].rc, m[40].rc);
  const auto d = mx::map_differences(f, Operand::A, m);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].lane, m[3].lane);
  EXPECT_FALSE(mx::map_is_bijection(f, Operand::A, {m.begin(), m.end() - 1}));
  m.pop_back();
  EXPECT_THROW(mx::map_differences(f, Operand::A, m), mx::InvalidArgument);
  EXPECT_THROW(mx::mma_form_by_name("mma.m1n1k1"), mx::UnknownName);
  EXPECT_EQ(mx::mma_form_by_name("wgmma.m64n8k32.e4m3.ss"), MmaForm::wgmma_e4m3_m64n8k32_ss);
}

// Minimal XML well-formedness: balanced tags, quoted attributes, known entities.
bool well_formed(const std::string& s, std::string* err) {
  std::vector<std::string> stack;
  std::size_t i = 0;
  while ((i = s.find('<', i)) != std::string::npos) {
    const std::size_t j = s.find('>', i);
    if (j == std::string::npos) return *err = "unterminated tag", false;
    std::string tag = s.substr(i + 1, j - i - 1);
    i = j + 1;
    if (tag.empty()) return *err = "empty tag", false;
    if (tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return *err = "mismatched </" + tag.substr(1) + ">", false;
      stack.pop_back();
      continue;
    }
    std::size_t q = 0;
    for (char c : tag) q += c == '"';
    if (q % 2) return *err = "unbalanced quotes in <" + tag + ">", false;
    const bool self = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (!self) stack.push_back(name);
  }
  if (!stack.empty()) return *err = "unclosed <" + stack.back() + ">", false;
  for (std::size_t a = s.find('&'); a != std::string::npos; a = s.find('&', a + 1))
    if (s.compare(a, 5, "&amp;") && s.compare(a, 4, "&lt;") && s.compare(a, 4, "&gt;")) return *err = "bare &", false;
  return true;
}

TEST(C10_MmaSvg, WellFormedWithOneLabelledCellPerElement) {
  for (int i = 0; i < mx::kNumMmaForms; ++i) {
    const auto f = static_cast<MmaForm>(i);
    for (Operand op : {Operand::A, Operand::B, Operand::C}) {
      if (mx::operand_regs(f, op) == 0) continue;
      const mx::FragmentMap m = mx::documented_map(f, op);
      const std::string svg = mx::fragment_svg(f, op, m);
      std::string err;
      ASSERT_TRUE(well_formed(svg, &err)) << mx::form_info(f).name << ": " << err;
      // One rect and one label per element, each label names the entry there.
      std::map<std::pair<int, int>, std::string> want;
      const int per = mx::operand_per_reg(f, op);
      for (const auto& e : m)
        want[{e.rc.row, e.rc.col}] =
            "T" + std::to_string(e.lane) + " R" + std::to_string(e.reg) + (per > 1 ? "." + std::to_string(e.elem) : "");
      const std::regex cell_text("<text class=\"cell\" x=\"(\\d+)\" y=\"(\\d+)\"[^>]*>([^<]*)</text>");
      std::size_t n = 0;
      for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell_text); it != std::sregex_iterator(); ++it, ++n) {
        const int x = std::stoi((*it)[1]), y = std::stoi((*it)[2]);
        const int col = (x - 40 - 28) / 56, row = (y - 40 - 15) / 22;
        EXPECT_EQ((*it)[3].str(), (want[{row, col}])) << mx::form_info(f).name << " cell " << row << "," << col;
      }
      const std::size_t cells = static_cast<std::size_t>(mx::operand_rows(f, op) * mx::operand_cols(f, op));
      EXPECT_EQ(n, cells) << mx::form_info(f).name;
      std::size_t rects = 0;
      for (std::size_t p = svg.find("<rect class=\"cell\""); p != std::string::npos; p = svg.find("<rect class=\"cell\"", p + 1)) ++rects;
      EXPECT_EQ(rects, cells);
      EXPECT_EQ(svg.find(">?<"), std::string::npos);
    }
  }
}

TEST(C10_MmaSvg, MissingEntriesAreMarked) {
  const MmaForm f = MmaForm::mma_tf32_m16n8k8;
  mx::FragmentMap m = mx::documented_map(f, Operand::B);
  m[0].rc = {};
  const std::string svg = mx::fragment_svg(f, Operand::B, m);
  EXPECT_NE(svg.find(">?<"), std::string::npos);
  const std::string csv = mx::fragment_csv(f, Operand::B, m);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 64);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "form,operand,lane,reg,elem,row,col");
  EXPECT_NE(csv.find("mma.m16n8k8.tf32,B,0,0,0,-1,-1"), std::string::npos);
}

}  // namespace
