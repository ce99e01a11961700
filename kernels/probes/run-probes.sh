#!/usr/bin/env bash
# run-probes.sh - everything issue 5 needs from one device call: configure the
# stand-alone probe build for sm_90a, build mxprobe and the probe tests, list
# the forms, run every probe (maps, numerics fit and 10^6-case validation),
# run the gpu tests, and pack logs, CSV, SVG and numerics data into
# $OUT/probe.tgz (one file: the device returns at most 8).
# Usage (repository root): kernels/probes/run-probes.sh [mxprobe options]
# Env: GPU_FILTER (gtest filter for probes_gpu_test, default all);
# SASS_KERNEL (template index of the mma.sync probe kernel whose machine code
# is printed: 3 = e4m3 (default), 6 = f64).
set -uo pipefail
OUT=${OUT:-/tmp/probe-out}
R=$OUT/probe
mkdir -p "$R"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
B=/tmp/build-probes
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
pack() { tar czf "$OUT/probe.tgz" -C "$OUT" probe && rm -rf "$R"; }
t0=$(date +%s)
if ! { cmake -S kernels/probes/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a \
         -DCMAKE_CUDA_COMPILER="$NVCC" "${GT[@]}" &&
       cmake --build $B -j16 --target mxprobe probes_gpu_test probes_cpu_test probes_emu_test; } >"$R/build.log" 2>&1; then
  tail -40 "$R/build.log"; pack; exit 1
fi
echo "build: $(( $(date +%s) - t0 )) s"
nvidia-smi -L >"$R/device.txt" 2>&1
$B/probes/mxprobe --list 2>&1 | tee "$R/list.txt"
t1=$(date +%s)
$B/probes/mxprobe --out "$R" "$@" >"$R/probe.log" 2>&1
echo "probe rc=$? in $(( $(date +%s) - t1 )) s"
grep -E "^(VERDICT|NUMERICS|SKIP)|DIFF|NOTE|exact:|best:|validation" "$R/probe.log" | head -150
t2=$(date +%s)
$B/cprobes/probes_gpu_test --gtest_filter="${GPU_FILTER:-*}" >"$R/gpu_test.log" 2>&1
echo "gpu test rc=$? in $(( $(date +%s) - t2 )) s"
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|Failure|model " "$R/gpu_test.log" | head -60
$B/cprobes/probes_cpu_test >"$R/cpu_test.log" 2>&1; echo "cpu test rc=$?"
# Machine code of one mma.sync probe kernel (which SASS ops run it).
SK=${SASS_KERNEL:-3}
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $B/probes/mxprobe >"$R/sass.txt" 2>&1
  grep -oE "\b(HMMA|QMMA|IMMA|DMMA|HGMMA|QGMMA|F2FP|F2F|I2F|HADD2|PRMT)[.A-Z0-9_]*" "$R/sass.txt" | sort | uniq -c | head -40
  awk -v k="mma_kernelILi${SK}E" '$0 ~ "Function : .*"k{f=1} f&&/(MMA|F2FP|PRMT|HADD2|FADD|FFMA|DFMA|DADD)/{print} /Function : /&&$0 !~ k{f=0}' "$R/sass.txt" | head -40
fi
pack
