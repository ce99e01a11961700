// cmd_profile.cpp - `mxconform encode`, `decode`, `diff-profiles` and
// `profiles` (issue 14): element conversion under a library profile or a
// named policy (C2, C13), and where two profiles differ.
//
// A profile is named NAME or NAME:MODE (e.g. cuda:nosat-rz); `ocp` is the C2
// default and accepts --rounding/--overflow/--nan/--policy; a library profile
// is fixed, except that triton and cuda pick their API mode from
// --rounding/--overflow (or :MODE).
#include "cmd_profile.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/profile.hpp"
#include "mx/recipe.hpp"
#include "npy.hpp"
#include "util.hpp"

namespace mxv {
namespace {

struct Opts {
  std::string format, profile = "ocp", rounding, overflow, nan, policy, source, in, out, out_type = "fp32";
  std::string a, b;
  bool exhaustive = false, check = false;
};
Opts g;

// NAME or NAME:MODE -> the policy for (source, fmt).
struct Chosen {
  mx::ConvPolicy policy;
  std::string label;  // "torch-cpu (rne:propagate:nan_keep_sign)"
};

Chosen choose(const std::string& spec, mx::InType src, mx::Fmt fmt, const mx::PolicyOverrides& o) {
  const std::size_t c = spec.find(':');
  const std::string name = spec.substr(0, c);
  Chosen out;
  if (c == std::string::npos) {
    out.policy = mx::resolve_policy(name, src, fmt, o);
  } else {
    if (name == "ocp") throw mx::InvalidArgument("profile ocp has no modes; pass policy values with --policy");
    const std::string mode = spec.substr(c + 1);
    (void)mx::find_profile_entry(name, src, fmt);  // unknown profile / no such cast: its message
    const mx::ProfileEntry* hit = nullptr;
    std::string modes;
    for (const auto& e : mx::profile_entries()) {
      if (e.profile != name || e.source != src || e.fmt != fmt) continue;
      modes += (modes.empty() ? "" : ", ") + std::string(e.mode.empty() ? "(none: fixed)" : e.mode);
      if (e.mode == mode) hit = &e;
    }
    if (!hit) throw mx::InvalidArgument("profile " + name + " has no mode '" + mode + "' here (modes: " + modes + ")");
    out.policy = hit->policy;
  }
  out.label = spec + " (" + mx::policy_string(out.policy) + ")";
  return out;
}

mx::PolicyOverrides overrides() {
  mx::PolicyOverrides o;
  if (!g.rounding.empty()) o.rounding = mx::parse_rounding(g.rounding);
  if (!g.overflow.empty()) o.overflow = mx::parse_overflow(g.overflow);
  if (!g.nan.empty()) o.nan = mx::parse_nan_policy(g.nan);
  if (!g.policy.empty()) {
    std::size_t start = 0;
    while (true) {
      const std::size_t c = g.policy.find(':', start);
      o.modifiers.push_back(g.policy.substr(start, c == std::string::npos ? std::string::npos : c - start));
      if (c == std::string::npos) break;
      start = c + 1;
    }
  }
  return o;
}

mx::Fmt element_format(const std::string& s) {
  const mx::Fmt f = mx::parse_format(s == "e8m0" ? "ue8m0" : s);
  if (f == mx::Fmt::fp32 || f == mx::Fmt::bf16 || f == mx::Fmt::fp16) {
    throw mx::InvalidArgument("--format " + s + " is an input type; expected e4m3, e5m2, e3m2, e2m3, e2m1, "
                              "int8, ue8m0 (e8m0) or ue4m3");
  }
  return f;
}

// The source type of an input array: from its dtype, checked against --source.
mx::InType source_of(const NpyArray& a, const std::string& file) {
  std::optional<mx::InType> want;
  if (!g.source.empty()) want = mx::parse_in_type(g.source);
  mx::InType t;
  switch (a.dtype) {
    case DType::f4: t = mx::InType::f32; break;
    case DType::f2: t = mx::InType::f16; break;
    case DType::u2:
      if (!want || *want != mx::InType::bf16) {
        throw mx::InvalidArgument(file + ": uint16 array: pass --source bf16 if it holds bf16 bit patterns");
      }
      t = mx::InType::bf16;
      break;
    default:
      throw mx::InvalidArgument(file + ": dtype " + std::string(dtype_descr(a.dtype)) +
                                " is not an input type (float32, float16, or uint16 bf16 bits with --source bf16)");
  }
  if (want && *want != t) {
    throw mx::InvalidArgument(file + ": --source " + g.source + " but the array holds " +
                              std::string(mx::in_type_name(t)));
  }
  return t;
}

int run_encode() {
  const mx::Fmt fmt = element_format(g.format);
  const NpyArray x = parse_npy(g.in, read_file(g.in));
  const mx::InType src = source_of(x, g.in);
  const Chosen ch = choose(g.profile, src, fmt, overrides());
  NpyArray y;
  y.dtype = DType::u1;
  y.shape = x.shape;
  const std::int64_t n = x.count();
  y.data.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t bits = mx::load_as_f32_bits(x.data.data(), src, i);
    y.data[static_cast<std::size_t>(i)] = static_cast<char>(mx::encode_f32_bits(fmt, bits, ch.policy) & 0xFFu);
  }
  write_file_atomic(g.out, write_npy(y));
  std::cout << "encode: " << n << " " << mx::in_type_name(src) << " -> " << mx::desc(fmt).name << " codes, "
            << ch.label << ", wrote " << g.out << "\n";
  return 0;
}

int run_decode() {
  const mx::Fmt fmt = element_format(g.format);
  const NpyArray c = parse_npy(g.in, read_file(g.in));
  if (c.dtype != DType::u1) {
    throw mx::InvalidArgument(g.in + ": codes must be uint8 ('|u1'), got " + std::string(dtype_descr(c.dtype)));
  }
  const mx::InType out_t = mx::parse_in_type(g.out_type);
  const int bits = mx::desc(fmt).bits;
  NpyArray y;
  y.dtype = out_t == mx::InType::f32 ? DType::f4 : out_t == mx::InType::f16 ? DType::f2 : DType::u2;
  y.shape = c.shape;
  const std::int64_t n = c.count();
  y.data.resize(static_cast<std::size_t>(n) * (out_t == mx::InType::f32 ? 4 : 2));
  for (std::int64_t i = 0; i < n; ++i) {
    const auto code = static_cast<std::uint32_t>(static_cast<unsigned char>(c.data[static_cast<std::size_t>(i)]));
    if (bits < 8 && (code >> bits) != 0) {
      throw mx::InvalidArgument(g.in + ": element " + std::to_string(i) + " is 0x" + hex(code, 2) + ", not a " +
                                std::to_string(bits) + "-bit " + std::string(mx::desc(fmt).name) + " code");
    }
    const float v = mx::decode(fmt, code);
    if (out_t == mx::InType::f32) {
      const std::uint32_t u = mx::f32_bits(v);
      std::memcpy(&y.data[static_cast<std::size_t>(i) * 4], &u, 4);
    } else {
      const std::uint16_t h = out_t == mx::InType::bf16 ? mx::f32_to_bf16_rne(v) : mx::f32_to_f16_rne(v);
      std::memcpy(&y.data[static_cast<std::size_t>(i) * 2], &h, 2);
    }
  }
  write_file_atomic(g.out, write_npy(y));
  std::cout << "decode: " << n << " " << mx::desc(fmt).name << " codes -> " << mx::in_type_name(out_t)
            << ", wrote " << g.out << "\n";
  return 0;
}

// ---- diff-profiles --------------------------------------------------------------

// The fp32 inputs of diff-profiles: every exponent x mantissas around each
// rounding position, both signs, plus the format's values and midpoints +-1 ulp.
std::vector<std::uint32_t> fp32_structured(mx::Fmt fmt) {
  std::set<std::uint32_t> s;
  std::vector<std::uint32_t> pats = {0, 1, 2, 3, 0x7FFFFF, 0x7FFFFE, 0x400000, 0x3FFFFF, 0x400001};
  for (int kept = 0; kept <= 10; ++kept) {
    const std::uint32_t half = 1u << (22 - kept), ulp = kept ? half << 1 : 0;
    for (std::uint32_t base : {0u, ulp}) {
      for (std::uint32_t d : {0xFFFFFFFFu, 0u, 1u}) pats.push_back((base + half + d) & 0x7FFFFFu);
    }
  }
  for (std::uint32_t e = 0; e < 256; ++e) {
    for (std::uint32_t p : pats) s.insert((e << 23) | p);
  }
  // Every code's value and the midpoints between neighbours, +-1 ulp.
  const auto& d = mx::desc(fmt);
  std::vector<float> vals;
  for (std::uint32_t c = 0; c < (1u << d.bits); ++c) {
    const float v = mx::decode(fmt, c);
    if (v == v && v >= 0 && v < 3.0e38f) vals.push_back(v);
  }
  std::sort(vals.begin(), vals.end());
  for (std::size_t i = 0; i < vals.size(); ++i) {
    std::vector<double> pts = {vals[i]};
    if (i + 1 < vals.size()) pts.push_back((static_cast<double>(vals[i]) + vals[i + 1]) / 2);
    for (double p : pts) {
      const float f = static_cast<float>(p);
      if (static_cast<double>(f) != p) continue;
      const std::uint32_t u = mx::f32_bits(f);
      for (std::uint32_t q : {u - 1, u, u + 1}) {
        if (q < 0x7F800000u) s.insert(q);
      }
    }
  }
  std::vector<std::uint32_t> v;
  for (std::uint32_t u : s) {
    v.push_back(u);
    v.push_back(u | 0x80000000u);
  }
  return v;
}

std::string class_of(std::uint32_t x, mx::Fmt fmt, std::uint32_t src_bits, mx::InType src) {
  const bool neg = (x >> 31) != 0;
  const std::uint32_t a = x & 0x7FFFFFFFu;
  const auto& d = mx::desc(fmt);
  if (a > 0x7F800000u) return neg ? "NaN, negative" : "NaN, positive";
  if (a == 0x7F800000u) return neg ? "-Inf" : "+Inf";
  if (a == 0) return neg ? "-0" : "+0";
  if (!d.is_signed && neg) return "negative input, unsigned format";
  const bool sub = src == mx::InType::f32 ? (src_bits >> 23) == 0
                   : src == mx::InType::bf16 ? ((src_bits >> 7) & 0xFF) == 0 : ((src_bits >> 10) & 0x1F) == 0;
  const double v = static_cast<double>(mx::bits_f32(a));
  std::string where;
  if (v > mx::max_finite(d)) where = "above max finite";
  else if (v < mx::min_subnormal(d)) where = "below the smallest code";
  else if (v < mx::min_normal(d) * 2 && !d.has_zero) where = "bottom binade";
  else if (v < mx::min_normal(d)) where = "subnormal range of the format";
  else where = "normal range";
  mx::ConvPolicy rne, rna;
  rna.rounding = mx::Rounding::rna;
  if (mx::encode_f32_bits(fmt, a, rne) != mx::encode_f32_bits(fmt, a, rna)) where += ", tie";
  if (sub) where += ", subnormal input";
  return std::string(neg ? "negative, " : "positive, ") + where;
}

struct ClassRow {
  std::uint64_t count = 0;
  std::uint32_t input = 0, a = 0, b = 0;
};

int run_diff() {
  const mx::Fmt fmt = element_format(g.format);
  const mx::InType src = mx::parse_in_type(g.source.empty() ? "fp32" : g.source);
  const mx::PolicyOverrides none;
  const Chosen a = choose(g.a, src, fmt, none), b = choose(g.b, src, fmt, none);
  std::map<std::string, ClassRow> rows;
  std::uint64_t compared = 0, differ = 0;
  const auto one = [&](std::uint32_t bits) {
    const std::uint32_t x = src == mx::InType::f32 ? bits
                            : src == mx::InType::bf16 ? mx::bf16_to_f32_bits(static_cast<std::uint16_t>(bits))
                                                      : mx::f16_to_f32_bits(static_cast<std::uint16_t>(bits));
    const std::uint32_t ca = mx::encode_f32_bits(fmt, x, a.policy), cb = mx::encode_f32_bits(fmt, x, b.policy);
    ++compared;
    if (ca == cb) return;
    ++differ;
    ClassRow& r = rows[class_of(x, fmt, bits, src)];
    if (r.count++ == 0) {
      r.input = bits;
      r.a = ca;
      r.b = cb;
    }
  };
  std::string inputs;
  if (src != mx::InType::f32) {
    for (std::uint32_t h = 0; h <= 0xFFFF; ++h) one(h);
    inputs = "every " + std::string(mx::in_type_name(src)) + " pattern";
  } else if (g.exhaustive) {
    for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; ++u) one(static_cast<std::uint32_t>(u));
    inputs = "every fp32 pattern";
  } else {
    for (std::uint32_t u : fp32_structured(fmt)) one(u);
    inputs = "structured fp32 set (every exponent x rounding-position mantissas, every code and midpoint +-1 ulp, "
             "both signs; --exhaustive for all 2^32)";
  }
  const int w = src == mx::InType::f32 ? 8 : 4;
  std::cout << "diff-profiles " << mx::in_type_name(src) << " -> " << mx::desc(fmt).name << "\n  A: " << a.label
            << "\n  B: " << b.label << "\n  inputs: " << inputs << "\n";
  if (differ == 0) {
    std::cout << "A and B agree on all " << compared << " inputs\n";
    return 0;
  }
  std::cout << "A and B differ on " << differ << " of " << compared << " inputs:\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-52s %10s  %-10s %4s %4s\n", "input class", "count", "example", "A", "B");
  std::cout << line;
  for (const auto& [cls, r] : rows) {
    std::snprintf(line, sizeof line, "  %-52s %10llu  0x%-8s 0x%02x 0x%02x\n", cls.c_str(),
                  static_cast<unsigned long long>(r.count), hex(r.input, w).c_str(), r.a, r.b);
    std::cout << line;
  }
  return g.check ? 1 : 0;
}

int run_list() {
  std::cout << "Profiles (C13); basis: measured = compared byte for byte with the library, source = read from\n"
               "its code or documentation, pending = provisional until the survey (conformance/survey/)\n";
  for (const auto& i : mx::profile_infos()) std::cout << "  " << i.name << ": " << i.description << "\n";
  std::cout << "\nprofile     source format mode          policy                                           basis\n";
  for (const auto& e : mx::profile_entries()) {
    if (!g.profile.empty() && g.profile != "ocp" && e.profile != g.profile) continue;
    if (!g.format.empty() && e.fmt != element_format(g.format)) continue;
    char line[400];
    std::snprintf(line, sizeof line, "%-11s %-6s %-6s %-13s %-48s %s\n", std::string(e.profile).c_str(),
                  std::string(mx::in_type_name(e.source)).c_str(), std::string(mx::desc(e.fmt).name).c_str(),
                  std::string(e.mode).c_str(),
                  e.offered ? mx::policy_string(e.policy).c_str() : ("not offered: " + std::string(e.note)).c_str(),
                  e.offered ? std::string(mx::profile_basis_name(e.basis)).c_str() : "-");
    std::cout << line;
  }
  return 0;
}

}  // namespace

ProfileCommands add_profile_commands(CLI::App& app) {
  ProfileCommands c;
  const std::string policies =
      "Policy values (C2, C13) for --policy, ':'-joined: rne rtz rna sr ru, saturate propagate, nan_canonical "
      "nan_keep_sign nan_to_max nan_to_zero, int8_symmetric, flush_input_subnormals";
  std::string c13;
  for (const auto& n : mx::c13_value_names()) c13 += " " + n;
  c.encode = app.add_subcommand("encode", "Convert float32/float16/bf16 .npy elements to codes under a profile or policy");
  c.encode->add_option("--format", g.format, "e4m3, e5m2, e3m2, e2m3, e2m1, int8, ue8m0 (or e8m0), ue4m3")->required();
  c.encode->add_option("--profile", g.profile, "ocp (C2 defaults), torch-cpu, torch-cuda, ml_dtypes, jax-cpu, jax-gpu, "
                                               "triton, cuda; NAME:MODE picks an API mode (mxconform profiles)")
      ->capture_default_str();
  c.encode->add_option("--rounding", g.rounding, "rne, rtz, rna, sr, ru (ocp; triton/cuda: a mode the API offers)");
  c.encode->add_option("--overflow", g.overflow, "saturate or propagate (ocp; cuda: __NV_SATFINITE / __NV_NOSAT)");
  c.encode->add_option("--nan", g.nan, "nan_canonical, nan_keep_sign, nan_to_max, nan_to_zero (ocp only)");
  c.encode->add_option("--policy", g.policy, "further policy values, ':'-joined (ocp only), e.g. nan_sign_input:zero_positive");
  c.encode->add_option("--source", g.source, "fp32, fp16, or bf16 (required for uint16 arrays of bf16 bits)");
  c.encode->add_option("--in", g.in, "input .npy (float32, float16, or uint16 bf16 bits)")->required();
  c.encode->add_option("--out", g.out, "output .npy of uint8 codes, same shape")->required();
  c.encode->footer("Examples:\n"
                   "  mxconform encode --format e5m2 --profile torch-cpu --in x.npy --out c.npy\n"
                   "  mxconform encode --format ue8m0 --profile cuda --rounding rtz --overflow propagate --in x.npy --out s.npy\n"
                   "  mxconform encode --format e2m1 --policy nan_to_zero:overflow_as_nan --in x.npy --out c.npy\n"
                   "  mxconform encode --format e4m3 --source bf16 --in bf16_bits_u16.npy --out c.npy\n" +
                   policies + ";\nC13:" + c13 + " (reference/SPEC.md C13).\nExit codes: 0 ok, 2 bad input or usage.");

  c.decode = app.add_subcommand("decode", "Decode uint8 codes of a format to float32 (exact), bf16 or fp16 .npy");
  c.decode->add_option("--format", g.format, "e4m3, e5m2, e3m2, e2m3, e2m1, int8, ue8m0 (or e8m0), ue4m3")->required();
  c.decode->add_option("--in", g.in, "input .npy of uint8 codes")->required();
  c.decode->add_option("--out", g.out, "output .npy")->required();
  c.decode->add_option("--out-type", g.out_type, "fp32 (exact), bf16 (uint16 bits) or fp16 (RNE)")->capture_default_str();
  c.decode->footer("NaN codes decode to a quiet NaN, Inf codes to Inf. A code wider than the format is an error.\n"
                   "Example:\n  mxconform decode --format e4m3 --in c.npy --out y.npy");

  c.diff = app.add_subcommand("diff-profiles", "List the input classes where two profiles (or one and ocp) differ");
  c.diff->add_option("a", g.a, "profile A (NAME or NAME:MODE)")->required();
  c.diff->add_option("b", g.b, "profile B; default ocp")->capture_default_str();
  c.diff->add_option("--format", g.format, "element or scale format")->required();
  c.diff->add_option("--source", g.source, "fp32 (default), bf16 or fp16 (every pattern)");
  c.diff->add_flag("--exhaustive", g.exhaustive, "fp32: every 2^32 pattern (minutes) instead of the structured set");
  c.diff->add_flag("--check", g.check, "exit 1 when the profiles differ");
  c.diff->footer("Each class shows its count, one example input (hex bits of the source type) and both codes.\n"
                 "Examples:\n  mxconform diff-profiles torch-cpu --format ue8m0\n"
                 "  mxconform diff-profiles ml_dtypes torch-cpu --format e5m2 --source fp16\n"
                 "  mxconform diff-profiles cuda:nosat-rz cuda:satfinite-rp --format ue8m0 --source bf16");
  g.b = "ocp";

  c.list = app.add_subcommand("profiles", "List every library profile entry: policy, API mode, basis, version");
  c.list->add_option("--profile", g.profile, "only this profile");
  c.list->add_option("--format", g.format, "only this format");
  return c;
}

int run_profile_commands(const ProfileCommands& c) {
  if (c.encode && *c.encode) return run_encode();
  if (c.decode && *c.decode) return run_decode();
  if (c.diff && *c.diff) return run_diff();
  if (c.list && *c.list) return run_list();
  return -1;
}

}  // namespace mxv
