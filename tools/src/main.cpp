// main.cpp - the `mxconform` command line (issue 3): golden vectors
// (gen, check, fill, verify-manifest), tensors in files (quantize,
// dequantize, check-tensor), the contract's tables (formats), and, when built
// with CUDA kernels, bench and probe. Long commands show a progress line on
// stderr when it is a terminal (progress.hpp).
//
// Exit codes: 0 success, 1 a mismatch was found, 2 bad input or usage (one
// line on stderr naming the file, line and column where they apply).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "cmd_profile.hpp"
#include "commands.hpp"
#include "mx/error.hpp"
#include "mx/layout.hpp"
#include "mx/pack.hpp"
#include "mx/recipe.hpp"
#include "progress.hpp"
#include "util.hpp"
#include "vecfile.hpp"
#if defined(MX_HAVE_KERNELS) || defined(MX_HAVE_PROBES)
#include "mxk/api.hpp"
#endif

namespace {

constexpr const char* kDescription = R"(mxconform - bit-exact reference and conformance suite for the OCP MX formats.

Every answer comes from the reference library, as specified in reference/SPEC.md
(version 2, clauses C1-C13; run `mxconform formats` for the clause of each name).
Typical session:
  mxconform gen --out vec                      # golden vectors (level 1, fixed seed)
  mxconform verify-manifest --manifest vectors/MANIFEST --dir vec
  python3 tools/examples/fill_vectors.py vec/convert/e2m1_from_fp32.csv mine.csv
                                               # your implementation fills observed
  mxconform check mine.csv                     # byte-exact verdict per row
  mxconform quantize --recipe mxfp8_e4m3:rceil --in x.npy --out q
  mxconform check-tensor q.json mine.json      # first differing coordinates
  mxconform formats                            # formats, recipes, policies, layouts
Exit codes: 0 ok, 1 mismatch, 2 bad input or usage.)";

std::string human(std::int64_t bytes) {
  std::ostringstream s;
  s.precision(2);
  s << std::fixed << static_cast<double>(bytes) / 1e6 << " MB";
  return s.str();
}

int cmd_gen(const std::string& out, int level, const std::string& seed_s, const std::vector<std::string>& recipes) {
  mxv::GenOptions o;
  o.level = level;
  o.recipes = recipes;
  if (!seed_s.empty()) {
    std::size_t pos = 0;
    unsigned long long v = 0;
    try {
      v = std::stoull(seed_s, &pos, 0);
    } catch (const std::exception&) {
      pos = 0;
    }
    if (pos != seed_s.size() || seed_s.empty()) throw mx::InvalidArgument("--seed must be an integer (decimal or 0x hex), got '" + seed_s + "'");
    o.seed = v;
  }
  std::vector<mxv::VecFile> files;
  {
    mxv::Progress prog("mxconform gen: building", 0, "files");
    o.on_file = [&](const std::string&) { prog.add(1); };
    files = mxv::generate(o);
  }
  mxv::make_dirs(out);
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> per_kind;  // files, rows
  std::set<std::string> dirs;
  std::int64_t bytes = 0, rows = 0;
  std::vector<std::pair<std::string, std::string>> writes;
  for (const auto& f : files) {
    const std::filesystem::path p = std::filesystem::path(out) / f.relpath;
    dirs.insert(p.parent_path().string());
    per_kind[f.kind].first++;
    per_kind[f.kind].second += f.rows;
    bytes += static_cast<std::int64_t>(f.content.size());
    rows += f.rows;
  }
  for (const auto& d : dirs) mxv::make_dirs(d);
  {
    mxv::Progress prog("mxconform gen: writing", static_cast<std::int64_t>(files.size()), "files");
    for (const auto& f : files) {
      mxv::write_file_atomic((std::filesystem::path(out) / f.relpath).string(), f.content);
      prog.add(1);
    }
  }
  mxv::write_file_atomic((std::filesystem::path(out) / "MANIFEST").string(), mxv::manifest_text(files));
  std::cout << "gen: level " << level << ", seed 0x" << mxv::hex(o.seed, 16) << ", " << files.size() << " files, " << rows
            << " rows, " << human(bytes) << " in " << out << "\n";
  for (const auto& [k, v] : per_kind) std::cout << "  " << k << ": " << v.first << " files, " << v.second << " rows\n";
  return 0;
}

int cmd_check(const std::vector<std::string>& args, long long max_errors, bool require_all) {
  std::vector<std::string> files;
  for (const auto& a : args) {
    std::error_code ec;
    if (!std::filesystem::is_directory(a, ec)) {
      files.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = std::filesystem::recursive_directory_iterator(a, ec); !ec && it != std::filesystem::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file() && it->path().extension() == ".csv") found.push_back(it->path().string());
    }
    if (ec) throw mx::ParseError("cannot list directory '" + a + "': " + ec.message());
    if (found.empty()) throw mx::ParseError(a + ": directory holds no .csv vector files");
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  mxv::CheckOptions o;
  o.max_errors = max_errors;
  o.require_all = require_all;
  std::int64_t bad = 0, rows = 0, filled = 0;
  mxv::Progress prog("mxconform check", static_cast<std::int64_t>(files.size()), "files");
  for (const auto& f : files) {
    const std::string content = mxv::read_file(f);
    const auto r = mxv::check_content(f, content, o, std::cout);
    prog.add(1);
    rows += r.rows;
    filled += r.filled;
    std::cout << f << ": " << r.kind << ", " << r.rows << " rows, " << r.filled << " filled, " << r.unfilled
              << " unfilled, " << r.mismatches << " mismatches";
    if (r.bad_expected) std::cout << ", " << r.bad_expected << " rows whose expected/row_sha disagree with the reference";
    std::cout << (r.ok() ? "  OK" : "  FAIL") << "\n";
    if (!r.ok()) ++bad;
  }
  std::cout << "check: " << files.size() << " files, " << rows << " rows, " << filled << " filled; "
            << (bad ? std::to_string(bad) + " files FAIL" : std::string("all OK")) << "\n";
  return bad ? 1 : 0;
}

int cmd_fill(const std::string& in, const std::string& out) {
  const std::string c = mxv::read_file(in);
  const std::string r = mxv::fill_content(in, c);
  mxv::write_file_atomic(out, r);
  std::cout << "fill: wrote " << out << " with the reference's answers in the observed columns\n";
  return 0;
}

int cmd_verify_manifest(const std::string& manifest, const std::string& dir) {
  const std::string m = mxv::read_file(manifest);
  if (m.empty()) throw mx::ParseError(manifest + ": file is empty (0 bytes); expected 'sha256  path' lines");
  std::istringstream in(m);
  std::string line;
  unsigned ln = 0;
  std::int64_t n = 0, bytes = 0;
  std::set<std::string> listed;
  while (std::getline(in, line)) {
    ++ln;
    std::uint64_t tmp = 0;
    if (line.size() < 67 || line.substr(64, 2) != "  " || !mxv::parse_hex(line.substr(0, 16), 16, &tmp)) {
      throw mx::ParseError(manifest + ":" + std::to_string(ln) + ":1: expected '<64 hex sha256>  <relative path>'");
    }
    const std::string path = line.substr(66);
    const std::string file = (std::filesystem::path(dir) / path).string();
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      throw mx::ParseError(manifest + ":" + std::to_string(ln) + ": manifest mismatch: " + file + " is missing");
    }
    const std::string c = mxv::read_file(file);
    const std::string h = mxv::sha256_hex(c);
    if (h != line.substr(0, 64)) {
      throw mx::ParseError(manifest + ":" + std::to_string(ln) + ": manifest mismatch: " + file + " has sha256 " + h +
                           ", manifest says " + line.substr(0, 64));
    }
    listed.insert(std::filesystem::path(path).lexically_normal().string());
    ++n;
    bytes += static_cast<std::int64_t>(c.size());
  }
  // Every .csv under dir must be listed.
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".csv") {
      const std::string rel = std::filesystem::relative(it->path(), dir).lexically_normal().string();
      if (!listed.count(rel)) throw mx::ParseError(manifest + ": manifest mismatch: " + rel + " in " + dir + " is not listed");
    }
  }
  if (ec) throw mx::ParseError("cannot list directory '" + dir + "': " + ec.message());
  std::cout << "verify-manifest: " << n << " files (" << human(bytes) << ") in " << dir << " match " << manifest << "\n";
  return 0;
}

int cmd_formats() {
  std::cout << "Specification: reference/SPEC.md v2 (clause numbers below)\n\n";
  std::cout << "Element and scale formats (C1)\n";
  std::cout << "  name    bits ebits mbits  bias  max finite (code)      min subnormal   NaN / Inf\n";
  for (mx::Fmt f : mx::kMxFormats) {
    const auto& d = mx::desc(f);
    char mf[64], line[200];
    std::snprintf(mf, sizeof mf, "%g (0x%02x)", mx::max_finite(d), static_cast<unsigned>(mx::max_finite_code(d)));
    std::snprintf(line, sizeof line, "  %-7s %4d %5d %5d %5d  %-22s %-15g %s", std::string(d.name).c_str(), d.bits,
                  d.ebits, d.mbits, d.bias, mf, mx::min_subnormal(d),
                  d.special == mx::Special::none ? "none" : d.special == mx::Special::ieee ? "Inf + NaN" : "NaN only");
    std::cout << line << "\n";
  }
  std::cout << "  (int8: two's complement, code c means c/64; ue8m0: code c means 2^(c-127), 0xff NaN)\n";
  std::cout << "\nRecipes (C4, C5); modifiers append with ':' (e.g. mxfp8_e4m3:rceil:propagate)\n";
  for (const auto& r : mx::recipe_names()) {
    const mx::Recipe rr = mx::parse_recipe(r);
    std::cout << "  " << r;
    for (std::size_t i = r.size(); i < 22; ++i) std::cout << ' ';
    std::cout << mx::desc(rr.elem).name << ", V=" << rr.block << ", "
              << (rr.is_nvfp4() ? std::string("ue4m3 x fp32 tensor scale (C5)")
                                : "ue8m0 " + std::string(mx::scale_rule_name(rr.rule)) + " (C3)")
              << "\n";
  }
  std::cout << "\nPolicies\n"
               "  rounding (C2):        rne (default), rtz, rna, sr\n"
               "  overflow (C2):        saturate (default), propagate\n"
               "  NaN (C2):             nan_canonical (default e4m3/e5m2), nan_keep_sign, nan_to_max (default others), nan_to_zero\n"
               "  int8 range (C2):      int8_full (default), int8_symmetric\n"
               "  inputs (C2):          flush_input_subnormals (off by default)\n"
               "  scale rule (C3):      floor (default), ceil, even, rceil\n"
               "  non-finite (C3):      nonfinite_block_nan (default), nonfinite_block_ignore\n"
               "  nvfp4 order (C5):     nvfp4 (TransformerEngine), nvfp4:torchao\n"
               "\nPacking (C6): packed (default), container8\n"
               "Scale layouts (C7): dense, dense_colwise, tcgen05\n"
               "Axes (C4): rowwise, colwise (data order source or transposed)\n"
               "Dequantization (C8): fp32, bf16, fp16;  dot products (C9): exact\n";
  return 0;
}

int forward(const char* what, const std::vector<std::string>& args) {
#if defined(MX_HAVE_KERNELS) || defined(MX_HAVE_PROBES)
  if (std::string(what) == "bench") {
#if defined(MX_HAVE_KERNELS)
    return mxk::bench_main(args);
#endif
  } else {
#if defined(MX_HAVE_PROBES)
    return mxk::probe_main(args);
#endif
  }
#endif
  (void)args;
  std::cerr << "mxconform " << what << ": built without CUDA kernels (configure with -DMX_CUDA=ON on a machine with nvcc)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kDescription, "mxconform"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.footer("Run 'mxconform SUBCOMMAND --help' for the options and examples of one subcommand.");

  // gen
  std::string gen_out = "vectors";
  int gen_level = 1;
  std::string gen_seed;
  std::vector<std::string> gen_recipes;
  auto* gen = app.add_subcommand("gen", "Write golden vector files (deterministic)");
  gen->add_option("--out", gen_out, "Output directory (created)")->capture_default_str();
  gen->add_option("--level", gen_level, "1: the checked-in set (a few MB); 2: larger, on demand")
      ->check(CLI::Range(1, 2))->capture_default_str();
  gen->add_option("--seed", gen_seed, "Seed of the random inputs (default 0x" + mxv::hex(mxv::kDefaultSeed, 16) + ")");
  gen->add_option("--recipes", gen_recipes,
                  "Only the files for these recipes and their element formats (MANIFEST lists what was written)")
      ->delimiter(',');
  gen->footer(
      "Examples:\n  mxconform gen --out /tmp/vec\n  mxconform gen --out /tmp/vec2 --level 2\n"
      "  mxconform gen --out /tmp/fp4 --recipes mxfp4,nvfp4:torchao\n"
      "Files: convert/ (C2) scale/ (C3) quantize/<axis>/ (C4, C5) pack/ (C6) layout/ (C7)\n"
      "dequant/ (C8, C5) dot/ (C9), and MANIFEST (SHA-256 of every file). Schema: vectors/README.md");

  // check
  std::vector<std::string> check_files;
  long long check_max = 20;
  bool check_all = false;
  auto* check = app.add_subcommand("check", "Verify vector files whose observed_* columns another implementation filled");
  check->add_option("files", check_files, "Vector files (.csv), or directories searched for *.csv")
      ->required()
      ->check(CLI::ExistingPath);
  check->add_option("--max-errors", check_max, "Mismatch lines printed per file (all are counted)")->capture_default_str();
  check->add_flag("--require-all", check_all, "Treat a row with empty observed columns as a mismatch");
  check->footer(
      "Every row is recomputed with the reference. A mismatch prints\n"
      "  FILE:LINE: inputs => observed, expected: want  [clause and case]\n"
      "Rows whose observed columns are empty are counted as unfilled, not failed.\n"
      "Examples:\n  mxconform check vec/convert/e4m3_from_fp32.csv --max-errors 5\n  mxconform check vec/   # every .csv below");

  // fill
  std::string fill_in, fill_out;
  auto* fill = app.add_subcommand("fill", "Fill the observed columns with the reference's answers (to test a harness)");
  fill->add_option("file", fill_in, "Vector file")->required()->check(CLI::ExistingFile);
  fill->add_option("--out", fill_out, "Output file")->required();

  // verify-manifest
  std::string vm_manifest = "vectors/MANIFEST", vm_dir;
  auto* vm = app.add_subcommand("verify-manifest", "Check a directory of vectors against a MANIFEST of SHA-256 sums");
  vm->add_option("--manifest", vm_manifest, "MANIFEST file")->capture_default_str();
  vm->add_option("--dir", vm_dir, "Directory holding the files")->required();
  vm->footer("Example:\n  mxconform gen --out /tmp/vec && mxconform verify-manifest --manifest vectors/MANIFEST --dir /tmp/vec");

  // quantize
  mxv::QuantizeCmd q;
  auto* qz = app.add_subcommand("quantize", "Quantize a tensor file with a recipe; write data, scales and a JSON side file");
  qz->add_option("--in", q.input, "Input .npy (float32, float16, uint16 = bf16 bits) or raw little-endian with --shape")->required();
  qz->add_option("--shape", q.shape, "Raw input shape, e.g. 128x256 or 4x128x256 (makes --in raw)");
  qz->add_option("--in-type", q.in_type, "Input element type: fp32, bf16, fp16");
  qz->add_option("--recipe", q.recipe, "Recipe (C4/C5), e.g. mxfp8_e4m3:rceil, mxfp4, nvfp4:torchao")->capture_default_str();
  qz->add_option("--axis", q.axis, "rowwise or colwise")->capture_default_str();
  qz->add_option("--data-order", q.data_order, "colwise data: source [M][K] or transposed [K][M]")->capture_default_str();
  qz->add_option("--layout", q.layout, "Scale layout: dense, dense_colwise, tcgen05")->capture_default_str();
  qz->add_option("--packing", q.packing, "packed or container8")->capture_default_str();
  qz->add_option("--device", q.device,
                 "cpu (the reference's bytes, every core) or cuda (kernel library, same bytes)")->capture_default_str();
  qz->add_option("--out", q.out, "Output prefix: PREFIX.data.npy, PREFIX.scales.npy, PREFIX.json")->required();
  qz->add_option("--out-format", q.out_format, "npy, or raw (PREFIX.data.bin, PREFIX.scales.bin: little-endian bytes)")
      ->capture_default_str();
  qz->footer(
      "Examples:\n  mxconform quantize --recipe mxfp8_e4m3 --in x.npy --out q\n"
      "  mxconform quantize --recipe mxfp4 --axis colwise --layout tcgen05 --in x.bin --shape 256x512 --in-type bf16 --out q4\n"
      "Large tensors: the input is read in row chunks, never copied whole; outputs appear only when complete.\n"
      "  cpu: chunks on every core (MXCONFORM_THREADS=N to set the count), fast path for the element\n"
      "       recipes under rne/rna/rtz, proven equal to the reference (conformance/fast).\n"
      "  cuda: a ring of MXCONFORM_DEVICE_SLOTS (4) pinned staging slots: reads, transfers, kernels\n"
      "        and writes of different chunks overlap; memory is bounded by the ring.\n"
      "  MXCONFORM_CHUNK_BYTES sets the chunk size (cpu 8 MiB, cuda 4 MiB). Errors: one line, exit 2, no output files.");

  // dequantize
  mxv::DequantizeCmd dq;
  auto* dz = app.add_subcommand("dequantize", "Dequantize a quantized tensor (JSON side file) to fp32, bf16 or fp16 .npy");
  dz->add_option("meta", dq.meta, "JSON side file written by quantize")->required();
  dz->add_option("--out", dq.out, "Output .npy")->required();
  dz->add_option("--out-type", dq.out_type, "fp32, bf16 (stored as uint16) or fp16")->capture_default_str();
  dz->add_option("--out-format", dq.out_format, "npy, or raw little-endian elements")->capture_default_str();
  dz->add_option("--device", dq.device,
                 "cpu (the reference's bytes, every core) or cuda (kernel library, same bytes)")->capture_default_str();
  dz->footer(
      "Example:\n  mxconform dequantize q.json --out y.npy --out-type bf16\n  mxconform dequantize q.json --out y.npy --device cuda\n"
      "Chunks, threads and the device ring as for quantize (see mxconform quantize --help).\n"
      "A bad side file is named as FILE:LINE:COLUMN: a missing key at its object's '{', a wrong type or value at the value.");

  // check-tensor
  mxv::CheckTensorCmd ct;
  auto* ctz = app.add_subcommand("check-tensor", "Compare two quantized tensors (JSON side files) or two .npy arrays");
  ctz->add_option("expected", ct.expected, "Expected: side file from mxconform quantize, or .npy")->required();
  ctz->add_option("actual", ct.actual, "Actual: side file naming your data/scales .npy files, or .npy")->required();
  ctz->add_option("--input", ct.input, "Input tensor, to print the inputs of the first differing block");
  ctz->add_option("--max-errors", ct.max_errors, "Differences printed for .npy arrays")->capture_default_str();
  ctz->footer(
      "Codes are compared logically, so the two sides may use different scale layouts,\n"
      "packings or data orders. Example:\n  mxconform check-tensor q.json mine.json --input x.npy");

  mxv::add_gemm_command(app);  // C11 block-scaled GEMM
  auto* fm = app.add_subcommand("formats", "Print every format, recipe, policy and layout with its clause of reference/SPEC.md");
  const mxv::ProfileCommands profile_cmds = mxv::add_profile_commands(app);  // encode, decode, diff-profiles, profiles

  auto* bench = app.add_subcommand("bench", "Benchmark the CUDA kernels (arguments go to the kernel library)");
  bench->allow_extras()->prefix_command();
  bench->set_help_flag();
  auto* probe = app.add_subcommand("probe", "Run MMA fragment / scale-lane / numerics probes on this GPU");
  probe->allow_extras()->prefix_command();
  probe->set_help_flag();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "mxconform: " << e.what() << " (run mxconform --help)\n";
    return 2;
  }
  try {
    if (*gen) return cmd_gen(gen_out, gen_level, gen_seed, gen_recipes);
    if (*check) return cmd_check(check_files, check_max, check_all);
    if (*fill) return cmd_fill(fill_in, fill_out);
    if (*vm) return cmd_verify_manifest(vm_manifest, vm_dir);
    if (*qz) return mxv::run_quantize(q);
    if (*dz) return mxv::run_dequantize(dq);
    if (*ctz) return mxv::run_check_tensor(ct);
    if (*fm) return cmd_formats();
    if (const int rc = mxv::run_gemm_command(); rc >= 0) return rc;
    if (const int rc = mxv::run_profile_commands(profile_cmds); rc >= 0) return rc;
    if (*bench) return forward("bench", bench->remaining());
    if (*probe) return forward("probe", probe->remaining());
  } catch (const mx::Error& e) {
    std::cerr << "mxconform: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mxconform: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
