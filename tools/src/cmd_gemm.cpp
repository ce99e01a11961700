// cmd_gemm.cpp - `mxconform gemm`: the block-scaled GEMMs of reference/SPEC.md
// C11 on operands written by `mxconform quantize` (side file P.json with
// P.data.npy and P.scales.npy). --device cpu runs the C11 model (libmxref),
// --device cuda the sm_90a kernel (kernels/gemm), --model exact the C9
// `exact` result (cpu only). Output: .npy float32 (fp32) or uint16 (bf16 bits).
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mx/convert.hpp"
#include "mx/error.hpp"
#include "mx/gemm.hpp"
#include "mx/gemm_c11.hpp"
#include "npy.hpp"
#include "tensor_io.hpp"
#include "util.hpp"
#ifdef MX_HAVE_KERNELS
#include "mxk/gemm.hpp"
#endif

namespace mxv {
namespace {

struct GemmOpts {
  std::string kind = "mxfp8", a, b, c, out, out_type = "fp32", device = "cpu", model = "c11";
  int threads = 4;
};
GemmOpts g_opts;

void check_out_dir(const std::string& out) {
  const std::filesystem::path d = std::filesystem::path(out).parent_path();
  std::error_code ec;
  if (!d.empty() && !std::filesystem::is_directory(d, ec))
    throw mx::Error("cannot write '" + out + "': directory '" + d.string() + "' does not exist");
}
CLI::App* g_cmd = nullptr;

std::vector<std::uint16_t> load_bf16(const std::string& path, std::int64_t* m, std::int64_t* k) {
  const LoadedTensor t = load_tensor(path, "", "");
  if (t.batch != 1) throw mx::ShapeError(path + ": A must be 1-D or 2-D");
  *m = t.rows;
  *k = t.cols;
  std::vector<std::uint16_t> a(static_cast<std::size_t>(t.rows * t.cols));
  for (std::int64_t i = 0; i < t.rows * t.cols; ++i) {
    const std::uint32_t f = mx::load_as_f32_bits(t.data, t.type, i);
    // bf16 input is taken as is; fp32 / fp16 are rounded to bf16 with RNE.
    a[static_cast<std::size_t>(i)] = t.type == mx::InType::bf16 ? static_cast<std::uint16_t>(f >> 16)
                                                                 : mx::f32_to_bf16_rne(mx::bits_f32(f));
  }
  return a;
}

std::vector<float> load_c(const std::string& path, std::int64_t m, std::int64_t n) {
  const NpyArray c = parse_npy(path, read_file(path));
  if (c.dtype != DType::f4) throw mx::ParseError(path + ": C must be float32");
  if (c.count() != m * n || c.shape.size() != 2 || c.shape[0] != m || c.shape[1] != n)
    throw mx::ShapeError(path + ": C must have shape [" + std::to_string(m) + ", " + std::to_string(n) + "]");
  std::vector<float> v(static_cast<std::size_t>(m * n));
  std::memcpy(v.data(), c.data.data(), v.size() * 4);
  return v;
}

int run(const GemmOpts& o) {
  const mx::Fmt out = mx::parse_format(o.out_type);
  if (out != mx::Fmt::fp32 && out != mx::Fmt::bf16)
    throw mx::UnknownName("--out-type must be fp32 or bf16 (got '" + o.out_type + "')");
  if (o.kind != "mxfp8" && o.kind != "w4a16") throw mx::UnknownName("--kind must be mxfp8 or w4a16");
  if (o.device != "cpu" && o.device != "cuda") throw mx::UnknownName("--device must be cpu or cuda");
  if (o.model != "c11" && o.model != "exact") throw mx::UnknownName("--model must be c11 or exact");
  if (o.model == "exact" && o.device != "cpu") throw mx::InvalidArgument("--model exact runs on --device cpu only");
  const mx::Quantized b = load_quantized(o.b);
  const mx::C11Operand ub = mx::c11_unpack(b);
  std::int64_t m = 0, k = 0;
  std::vector<std::uint16_t> a16;
  mx::Quantized a;
  if (o.kind == "w4a16") {
    a16 = load_bf16(o.a, &m, &k);
  } else {
    a = load_quantized(o.a);
    m = a.rows;
    k = a.cols;
  }
  if (k != b.cols) throw mx::ShapeError("A has K = " + std::to_string(k) + ", B has K = " + std::to_string(b.cols));
  const std::int64_t n = b.rows;
  std::vector<float> c;
  if (!o.c.empty()) c = load_c(o.c, m, n);
  const float* cp = o.c.empty() ? nullptr : c.data();
  check_out_dir(o.out);
  std::vector<std::uint32_t> d;
  if (o.device == "cuda") {
#ifdef MX_HAVE_KERNELS
    d = o.kind == "w4a16" ? mxk::w4a16_gemm_device(a16.data(), m, b, cp, out) : mxk::mxfp8_gemm_device(a, b, cp, out);
#else
    throw mx::InvalidArgument("--device cuda: built without CUDA kernels (configure with -DMX_CUDA=ON)");
#endif
  } else if (o.model == "c11") {
    d = o.kind == "w4a16" ? mx::c11_w4a16_gemm(a16.data(), m, ub, cp, out, o.threads)
                          : mx::c11_mxfp8_gemm(mx::c11_unpack(a), ub, cp, out, o.threads);
  } else {  // C9 exact (fp32), then RNE to bf16 if asked
    if (o.kind == "w4a16") {
      d = mx::c11_w4a16_exact(a16.data(), m, ub, cp, o.threads);
    } else {
      const mx::C11Operand ua = mx::c11_unpack(a);
      for (float f : mx::exact_gemm(ua.view(), ub.view(), cp)) d.push_back(mx::f32_bits(f));
    }
    for (auto& x : d) x = mx::c11_output_bits(mx::bits_f32(x), out);
  }
  NpyArray r;
  r.dtype = out == mx::Fmt::bf16 ? DType::u2 : DType::f4;
  r.shape = {m, n};
  r.data.resize(d.size() * (out == mx::Fmt::bf16 ? 2 : 4));
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (out == mx::Fmt::bf16) {
      const auto h = static_cast<std::uint16_t>(d[i]);
      std::memcpy(r.data.data() + 2 * i, &h, 2);
    } else {
      std::memcpy(r.data.data() + 4 * i, &d[i], 4);
    }
  }
  write_file_atomic(o.out, write_npy(r));
  std::cout << "gemm " << o.kind << " (" << (o.model == "exact" ? "C9 exact" : "C11 model") << ", " << o.device
            << ") " << m << "x" << n << "x" << k << " -> " << o.out << "\n";
  return 0;
}

}  // namespace

CLI::App* add_gemm_command(CLI::App& app) {
  g_cmd = app.add_subcommand("gemm", "Block-scaled GEMM D = A * B^T (+ C) by the C11 model, the sm_90a kernel, or C9 exact");
  g_cmd->add_option("--kind", g_opts.kind, "mxfp8 (A, B MXFP8 side files) or w4a16 (A bf16 .npy, B MXFP4 side file)")
      ->capture_default_str();
  g_cmd->add_option("--a", g_opts.a, "A: side file from quantize (mxfp8) or .npy uint16 bf16 bits / float32 (w4a16)")
      ->required();
  g_cmd->add_option("--b", g_opts.b, "B [N][K]: side file from quantize (rowwise, dense or tcgen05 scales)")->required();
  g_cmd->add_option("--c", g_opts.c, "C [M][N]: float32 .npy (optional)");
  g_cmd->add_option("--out", g_opts.out, "Output .npy (float32, or uint16 bf16 bits)")->required();
  g_cmd->add_option("--out-type", g_opts.out_type, "fp32 or bf16")->capture_default_str();
  g_cmd->add_option("--device", g_opts.device, "cpu (C11 model) or cuda (kernel; sm_90 GPUs only, built for sm_90a)")
      ->capture_default_str();
  g_cmd->add_option("--model", g_opts.model, "c11 (default) or exact (C9, cpu only)")->capture_default_str();
  g_cmd->add_option("--threads", g_opts.threads, "CPU threads for the model")->capture_default_str();
  g_cmd->footer(
      "Examples:\n  mxconform quantize --recipe mxfp8_e4m3 --in a.npy --out qa && mxconform quantize --recipe mxfp8_e4m3 "
      "--in b.npy --out qb\n  mxconform gemm --a qa.json --b qb.json --out d.npy --device cuda\n"
      "  mxconform gemm --kind w4a16 --a a_bf16.npy --b qw.json --out d.npy --model exact");
  return g_cmd;
}

int run_gemm_command() {
  if (g_cmd == nullptr || !*g_cmd) return -1;
  return run(g_opts);
}

}  // namespace mxv
