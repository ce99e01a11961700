// mma_map.cpp - host helpers around the documented MMA maps (SPEC C10):
// whole-map listing, comparison, CSV and SVG pictures of fragments.
#include "mx/mma_map.hpp"

#include <cstdio>
#include <set>
#include <utility>

#include "mx/error.hpp"

namespace mx {

MmaForm mma_form_by_name(std::string_view name) {
  for (int i = 0; i < kNumMmaForms; ++i)
    if (kMmaForms[i].name == name) return static_cast<MmaForm>(i);
  throw UnknownName("unknown MMA form '" + std::string(name) +
                    "' (expected a name listed by `probe --list`)");
}

std::string_view operand_name(Operand op) {
  switch (op) {
    case Operand::A: return "A";
    case Operand::B: return "B";
    default: return "C";
  }
}

int operand_regs(MmaForm f, Operand op) {
  const MmaFormInfo& fi = form_info(f);
  return op == Operand::A ? fi.a_regs : op == Operand::B ? fi.b_regs : fi.c_regs;
}
int operand_per_reg(MmaForm f, Operand op) {
  const MmaFormInfo& fi = form_info(f);
  return op == Operand::A ? fi.a_per_reg : op == Operand::B ? fi.b_per_reg : fi.c_per_reg;
}
int operand_rows(MmaForm f, Operand op) {
  const MmaFormInfo& fi = form_info(f);
  return op == Operand::B ? fi.k : fi.m;
}
int operand_cols(MmaForm f, Operand op) {
  const MmaFormInfo& fi = form_info(f);
  return op == Operand::A ? fi.k : fi.n;
}

FragmentMap documented_map(MmaForm f, Operand op) {
  FragmentMap out;
  const int regs = operand_regs(f, op), per = operand_per_reg(f, op);
  for (int lane = 0; lane < form_info(f).threads; ++lane)
    for (int r = 0; r < regs; ++r)
      for (int e = 0; e < per; ++e) out.push_back({lane, r, e, documented(f, op, lane, r, e)});
  return out;
}

std::vector<MapEntry> map_differences(MmaForm f, Operand op, const FragmentMap& measured) {
  const FragmentMap doc = documented_map(f, op);
  if (doc.size() != measured.size())
    throw InvalidArgument("map_differences: measured map has " + std::to_string(measured.size()) +
                          " entries, the documented one " + std::to_string(doc.size()));
  std::vector<MapEntry> diff;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const MapEntry& m = measured[i];
    if (m.lane != doc[i].lane || m.reg != doc[i].reg || m.elem != doc[i].elem)
      throw InvalidArgument("map_differences: measured map is not in (lane, reg, elem) order");
    if (!(m.rc == doc[i].rc)) diff.push_back(m);
  }
  return diff;
}

bool map_is_bijection(MmaForm f, Operand op, const FragmentMap& map) {
  const int rows = operand_rows(f, op), cols = operand_cols(f, op);
  if (static_cast<int>(map.size()) != rows * cols) return false;
  std::set<std::pair<int, int>> seen;
  for (const MapEntry& e : map) {
    if (e.rc.row < 0 || e.rc.row >= rows || e.rc.col < 0 || e.rc.col >= cols) return false;
    if (!seen.insert({e.rc.row, e.rc.col}).second) return false;
  }
  return true;
}

std::string fragment_csv(MmaForm f, Operand op, const FragmentMap& map) {
  std::string s = "form,operand,lane,reg,elem,row,col\n";
  for (const MapEntry& e : map) {
    s += std::string(form_info(f).name) + "," + std::string(operand_name(op)) + "," +
         std::to_string(e.lane) + "," + std::to_string(e.reg) + "," + std::to_string(e.elem) +
         "," + std::to_string(e.rc.row) + "," + std::to_string(e.rc.col) + "\n";
  }
  return s;
}

namespace {
// Colour of a lane: 8 hues for lane % 8, lightness by lane / 8 (as CuTe's
// print_latex uses a small palette keyed by thread index).
std::string lane_colour(int lane) {
  static const int hue[8] = {0, 35, 60, 120, 180, 210, 260, 300};
  char buf[48];
  std::snprintf(buf, sizeof buf, "hsl(%d,70%%,%d%%)", hue[lane % 8], 88 - 8 * ((lane / 8) % 4));
  return buf;
}
}  // namespace

std::string fragment_svg(MmaForm f, Operand op, const FragmentMap& map) {
  const int rows = operand_rows(f, op), cols = operand_cols(f, op);
  const int cw = 56, ch = 22, ox = 40, oy = 40;
  std::vector<const MapEntry*> cell(static_cast<std::size_t>(rows * cols), nullptr);
  for (const MapEntry& e : map)
    if (e.rc.row >= 0 && e.rc.row < rows && e.rc.col >= 0 && e.rc.col < cols)
      cell[static_cast<std::size_t>(e.rc.row * cols + e.rc.col)] = &e;
  const int per = operand_per_reg(f, op);
  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(ox + cols * cw + 10) +
       "\" height=\"" + std::to_string(oy + rows * ch + 10) + "\" font-family=\"monospace\" font-size=\"10\">\n";
  s += "<title>" + std::string(form_info(f).name) + " operand " + std::string(operand_name(op)) +
       ": (lane T, register R[.element]) per (row, col)</title>\n";
  s += "<text x=\"4\" y=\"14\" font-size=\"12\">" + std::string(form_info(f).name) + " " +
       std::string(operand_name(op)) + " (" + std::to_string(rows) + "x" + std::to_string(cols) +
       "; " + (op == Operand::B ? "rows k, cols n" : op == Operand::A ? "rows m, cols k" : "rows m, cols n") +
       ")</text>\n";
  for (int c = 0; c < cols; ++c)
    s += "<text class=\"hdr\" x=\"" + std::to_string(ox + c * cw + cw / 2) + "\" y=\"" + std::to_string(oy - 4) +
         "\" text-anchor=\"middle\">" + std::to_string(c) + "</text>\n";
  for (int r = 0; r < rows; ++r) {
    s += "<text class=\"hdr\" x=\"" + std::to_string(ox - 4) + "\" y=\"" + std::to_string(oy + r * ch + 15) +
         "\" text-anchor=\"end\">" + std::to_string(r) + "</text>\n";
    for (int c = 0; c < cols; ++c) {
      const MapEntry* e = cell[static_cast<std::size_t>(r * cols + c)];
      const int x = ox + c * cw, y = oy + r * ch;
      std::string label = "?";
      std::string fill = "#cccccc";
      if (e) {
        label = "T" + std::to_string(e->lane) + " R" + std::to_string(e->reg);
        if (per > 1) label += "." + std::to_string(e->elem);
        fill = lane_colour(e->lane);
      }
      s += "<rect class=\"cell\" x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
           std::to_string(cw) + "\" height=\"" + std::to_string(ch) + "\" fill=\"" + fill +
           "\" stroke=\"black\" stroke-width=\"0.5\"/>\n";
      s += "<text class=\"cell\" x=\"" + std::to_string(x + cw / 2) + "\" y=\"" + std::to_string(y + 15) +
           "\" text-anchor=\"middle\">" + label + "</text>\n";
    }
  }
  s += "</svg>\n";
  return s;
}

}  // namespace mx
