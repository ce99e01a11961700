#!/usr/bin/env bash
# tools/gpu-check.sh - issue 4 on a GPU machine in one call: the `gpu` gate
# (ctest -L gpu), compute-sanitizer memcheck and racecheck on a gate subset,
# and the benchmark. Logs and CSV go to $OUT (default ./gpu-out).
# Since issue 11 the gate runs every case over two poisons (0xA5, then 0x5A:
# a byte the kernels do not write differs and fails the case), every recipe
# under every policy the launchers accept (GpuGate/OptionRecipes.*), empty
# tensors (GpuGateEmpty.*), container8 dequantize, per-tensor FP8 e4m3/e5m2
# with the device's amax/scale/scale_inv bits (GpuGatePerTensor.*), and a
# check of the two-poison run itself (GpuGatePoison.*); the sanitizer subset
# (GpuGateSanitizer.*, one poison) covers the new paths too (NewPaths).
#
#   tools/gpu-check.sh --prepare   (here, no GPU needed) configure bench/standalone
#                                  for 90a-real (SASS only) in build-gpu, build the gate and mxbench,
#                                  copy them to .gpu-bin/ (carry that folder)
#   tools/gpu-check.sh             (on the GPU machine) use .gpu-bin/ if present,
#                                  else configure and build (-j16, 90a) there first
# Env: NCU=1 adds a short Nsight Compute profile of the main kernels.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
bin=.gpu-bin

build() {  # $1 = build dir, $2 = -j
  local gt=()
  [ -d .gtest-src ] && gt=(-DMX_GTEST_SRC="$PWD/.gtest-src")  # no GoogleTest on the GPU machine: carry a copy
  cmake -S bench/standalone -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real "${gt[@]}" >/dev/null &&
    cmake --build "$1" -j "$2" --target mx_gpu_gate mxbench
}

if [ "${1:-}" = "--prepare" ]; then
  build build-gpu 2 || exit 1
  mkdir -p "$bin"
  rm -f "$bin"/mx_gpu_gate "$bin"/mxbench "$bin"/bins.tar.gz
  cp build-gpu/gpu/mx_gpu_gate build-gpu/kernels/bench/mxbench "$bin"/
  strip "$bin"/mx_gpu_gate "$bin"/mxbench 2>/dev/null || true
  # compressed: the two binaries (sm_90a SASS) are ~30 MB each, the carry limit is 64 MiB
  tar -C "$bin" -czf "$bin"/bins.tar.gz mx_gpu_gate mxbench && rm -f "$bin"/mx_gpu_gate "$bin"/mxbench
  mkdir -p .git/info && { grep -qx "/$bin/" .git/info/exclude 2>/dev/null || echo "/$bin/" >> .git/info/exclude; }
  ls -la "$bin"
  exit 0
fi

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } 2>&1 | tee "$OUT/device.txt"
[ -f "$bin/bins.tar.gz" ] && [ ! -x "$bin/mx_gpu_gate" ] && tar -C "$bin" -xzf "$bin/bins.tar.gz"
if [ ! -x "$bin/mx_gpu_gate" ]; then
  echo "gpu-check: no prebuilt binaries in $bin; building here (90a, -j16)"
  build build-gpu 16 2>&1 | tail -20 || exit 1
  mkdir -p "$bin" && cp build-gpu/gpu/mx_gpu_gate build-gpu/kernels/bench/mxbench "$bin"/
fi
gate=$PWD/$bin/mx_gpu_gate

# ctest -L gpu: one CTest test per gtest case, labelled gpu; a GTEST_SKIP
# counts as skipped (as conformance/CMakeLists.txt registers them).
ct=$(mktemp -d)
{
  "$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
    echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
    echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
  done
} > "$ct/CTestTestfile.cmake"
# The sanitizers run beside the gate (separate processes; the bytes they
# check do not depend on timing), the benchmark after both, alone on the GPU.
# Each step has a time limit (env GATE_S, SAN_S, BENCH_S) so that one call of
# 240 s returns every log; a step cut short fails the check (rc 124).
san_filter='GpuGateSanitizer.*:GpuGateErrors.*'
t0=$(date +%s)
timeout "${SAN_S:-140}" compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$san_filter" > "$OUT/memcheck.log" 2>&1 &
mem_pid=$!
timeout "${SAN_S:-140}" compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$san_filter" > "$OUT/racecheck.log" 2>&1 &
race_pid=$!
(cd "$ct" && timeout "${GATE_S:-180}" ctest -L gpu -j 12 --output-on-failure) > "$OUT/ctest.log" 2>&1
gate_rc=$?
t1=$(date +%s)
echo "ctest -L gpu: rc=$gate_rc in $((t1 - t0)) s" | tee -a "$OUT/ctest.log"
wait $mem_pid
mem_rc=$?
wait $race_pid
race_rc=$?
t2=$(date +%s)
echo "sanitizers: memcheck rc=$mem_rc racecheck rc=$race_rc, both done $((t2 - t0)) s after the start" | tee "$OUT/sanitizers-time.txt"

# required sizes first (16384^2, 2048^2, the 128x7168 launch), then 8192x7168
timeout "${BENCH_S:-45}" "$bin/mxbench" --out "$OUT/bench.csv" --size 16384x16384 --size 2048x2048 --size 128x7168 \
  --size 8192x7168 > "$OUT/bench.txt" 2>&1
bench_rc=$?
echo "bench: rc=$bench_rc in $(($(date +%s) - t2)) s" | tee -a "$OUT/sanitizers-time.txt"

if [ "${NCU:-0}" = "1" ] && command -v ncu >/dev/null; then
  # one launch each (the first match: a warm-up launch at 16384x16384) of the
  # main kernels, by mangled name: MXFP8 rowwise (hw cvt), MXFP4 rowwise,
  # colwise (source, dense_colwise), fused; bf16 input
  : > "$OUT/ncu.txt"
  for k in 'mxk3dev9k_rowwiseI13__nv_bfloat16NS0_3MxQILi0ELb1E' 'mxk3dev9k_rowwiseI13__nv_bfloat16NS0_3MxQILi4ELb1E' \
           'mxk3dev6k_tileI13__nv_bfloat16NS0_3MxQILi0ELb1EEELb0ELb1E' 'mxk3dev6k_tileI13__nv_bfloat16NS0_3MxQILi0ELb1EEELb1ELb1E'; do
    timeout 150 ncu --clock-control none --kernel-name-base mangled -k "regex:$k" -c 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis "$bin/mxbench" --size 16384x16384 --iters 5 >> "$OUT/ncu.txt" 2>&1 || true
  done
fi

{
  echo "== gpu-check summary =="
  head -1 "$OUT/device.txt"
  grep -E "tests passed|tests failed|Total Test time" "$OUT/ctest.log"
  grep -c "(Skipped)" "$OUT/ctest.log" | sed 's/^/skipped: /'
  grep -E "\*\*\*Failed|Failed  |Exception" "$OUT/ctest.log" | head -20
  echo "memcheck rc=$mem_rc: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  echo "racecheck rc=$race_rc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tail -1)"
  echo "bench rc=$bench_rc"
  grep -E "^device|^16384x16384|^128x7168" "$OUT/bench.txt"
} | tee "$OUT/summary.txt"
# ---- peers (issue 9 point 2; owner: bench/peers.py) ----------------------
# torch's plain fp8 cast and torch.compile MX quantizers timed beside mxbench
# in this same call, their bytes checked against the reference CLI
# (.gpu-bin/mxconform, from bench/peers-prepare.sh; else the NumPy twin).
# One file comes back, $OUT/peers.tgz (peers.csv, peers.md, peers.txt,
# peers.log); the table is appended to summary.txt. PEERS=0 skips it, PEERS_S
# limits it (default 150 s). Informational: it does not change the exit status.
if [ "${PEERS:-1}" = "1" ]; then
  pdir=$(mktemp -d)
  tp=$(date +%s)
  PYTHONUNBUFFERED=1 timeout "${PEERS_S:-150}" python3 bench/peers.py --mxbench-csv "$OUT/bench.csv" --out "$pdir" \
    --budget-s $(( ${PEERS_S:-150} - 15 )) > "$pdir/peers.txt" 2>&1
  peers_rc=$?
  tar -C "$pdir" -czf "$OUT/peers.tgz" . && rm -rf "$pdir"
  { echo "peers: rc=$peers_rc in $(($(date +%s) - tp)) s (bench/peers.py; files in peers.tgz)"
    tar -xzOf "$OUT/peers.tgz" ./peers.md 2>/dev/null || echo "(no peers.md)"; } | tee -a "$OUT/summary.txt"
fi
# ---- end peers ---------------------------------------------------------------
[ $gate_rc -eq 0 ] && [ $mem_rc -eq 0 ] && [ $race_rc -eq 0 ] && [ $bench_rc -eq 0 ]
