// commands.hpp - the subcommands of mxconform that work on tensors in files.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace mxv {

struct QuantizeCmd {
  std::string input, shape, in_type, recipe = "mxfp8_e4m3", axis = "rowwise", data_order = "source",
              layout = "dense", packing = "packed", out, device = "cpu", out_format = "npy";
};
int run_quantize(const QuantizeCmd& c);

struct DequantizeCmd {
  std::string meta, out, out_type = "fp32", out_format = "npy", device = "cpu";
};
int run_dequantize(const DequantizeCmd& c);

struct CheckTensorCmd {
  std::string expected, actual, input;
  long long max_errors = 10;
};
int run_check_tensor(const CheckTensorCmd& c);

// `mxconform gemm` (C11; cmd_gemm.cpp): registered, then run (-1 when not selected).
CLI::App* add_gemm_command(CLI::App& app);
int run_gemm_command();

}  // namespace mxv
