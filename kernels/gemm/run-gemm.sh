#!/usr/bin/env bash
# run-gemm.sh - issue 10 on an H100 in one device call (~5-7 min): build the
# C11 GEMMs stand-alone for sm_90a (-j16), run the CPU model tests and the
# gpu gate (every output bit == the C11 model), memcheck + racecheck on the
# gate's sanitizer subset, the model-vs-exact distance report, and the
# benchmark beside cuBLAS (torch). Everything goes to $OUT:
#   $OUT/summary.txt   step results, distance report, benchmark CSV (read this first)
#   $OUT/gemm-logs.tgz build log, gate log, sanitizer logs, SASS op counts
# Usage (repository root): OUT=<dir> kernels/gemm/run-gemm.sh
# Env: GATE_FILTER (gtest filter, default all), SKIP_BENCH=1, SKIP_SAN=1,
#   SKIP_DIST=1 (no model-vs-exact report), SAN_TIMEOUT / GATE_TIMEOUT / DIST_TIMEOUT (s),
#   PROFILE=1 (ncu: speed of light, warp states, pipes of one launch each of
#   mxfp8 8192^3, w4a16 8192^3 and w4a16 16 x 2048 x 7168, to $OUT/ncu.txt),
#   GEMM_BIN=<dir>: use prebuilt mx_gemm_gate, mxgemmbench (and
#   mx_c11_cpu_test if present) from <dir> (or <dir>.tar.gz, unpacked) instead
#   of building here (saves device time: build on a CPU machine with
#   `cmake -S kernels/gemm/standalone -B build-gemm -DMX_CUDA_ARCHS=90a`).
# GoogleTest: the installed one, or a source tree at .gtest-src (carry it).
set -uo pipefail
OUT=${OUT:-/tmp/gemm-out}
L=$OUT/gemm-logs
mkdir -p "$L"
S=$OUT/summary.txt
: >"$S"
B=/tmp/build-gemm
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
[ -d /usr/src/googletest ] && [ ${#GT[@]} -eq 0 ] && GT=(-DMX_GTEST_SRC=/usr/src/googletest)
log() { echo "$*" | tee -a "$S"; }
pack() { tar czf "$OUT/gemm-logs.tgz" -C "$OUT" gemm-logs && rm -rf "$L"; }
t0=$(date +%s)
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } >>"$S" 2>&1
if [ -n "${GEMM_BIN:-}" ]; then
  if [ ! -d "$GEMM_BIN" ] && [ -f "$GEMM_BIN.tar.gz" ]; then mkdir -p /tmp/gemm-bin && tar xzf "$GEMM_BIN.tar.gz" -C /tmp/gemm-bin && GEMM_BIN=/tmp/gemm-bin; fi
  GATE=$GEMM_BIN/mx_gemm_gate CPUT=$GEMM_BIN/mx_c11_cpu_test BENCH=$GEMM_BIN/mxgemmbench PROBE=$GEMM_BIN/mxwgmmaprobe
  log "prebuilt binaries: $GEMM_BIN ($(ls "$GEMM_BIN" | tr '\n' ' '))"
else
  if ! { cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a \
           -DCMAKE_CUDA_COMPILER="$NVCC" "${GT[@]}" &&
         cmake --build $B -j16 --target mx_gemm_gate mx_c11_cpu_test mxgemmbench mxwgmmaprobe; } >"$L/build.log" 2>&1; then
    log "BUILD FAILED"; tail -40 "$L/build.log" | tee -a "$S"; pack; exit 1
  fi
  GATE=$B/cgemm/mx_gemm_gate CPUT=$B/cgemm/mx_c11_cpu_test BENCH=$B/mxgemmbench PROBE=$B/mxwgmmaprobe
  log "build: $(( $(date +%s) - t0 )) s"
fi
if [ -x "$CPUT" ]; then
  $CPUT >"$L/cpu_test.log" 2>&1; log "cpu model tests rc=$? ($(grep -E '^\[  PASSED|^\[  FAILED' "$L/cpu_test.log" | head -3 | tr '\n' ' '))"
fi
# The gate and the two sanitizers run side by side (separate processes).
san=0
if [ -z "${SKIP_SAN:-}" ]; then
  timeout ${SAN_TIMEOUT:-240} compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$L/memcheck.log" 2>&1 &
  p1=$!
  timeout ${SAN_TIMEOUT:-240} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$L/racecheck.log" 2>&1 &
  p2=$!
  san=1
fi
t1=$(date +%s)
timeout ${GATE_TIMEOUT:-300} $GATE --gtest_filter="${GATE_FILTER:-*}" >"$L/gate.log" 2>&1
log "gate rc=$? in $(( $(date +%s) - t1 )) s"
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|differing|Failure" "$L/gate.log" | head -40 | tee -a "$S"
if [ $san = 1 ]; then
  wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tail -1)"
  wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$L/racecheck.log" | tail -1)"
fi
if [ -z "${SKIP_DIST:-}" ]; then
  log ""
  log "## C11 model vs C9 exact (realistic data), and kernel vs model on the same data"
  for kind in mxfp8 mxfp8_e5m2 w4a16; do
    timeout ${DIST_TIMEOUT:-120} $BENCH distance $kind 256 512 2048 16 2>&1 | tee -a "$S"
  done
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  log ""
  log "## benchmark (CSV: kernel,M,N,K,us_per_call,tflops)"
  for shp in "8192 8192 8192" "4096 7168 2048" "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" \
             "64 7168 2048" "64 2048 7168"; do
    it=200; [ "${shp%% *}" -gt 64 ] && it=20
    for kind in mxfp8 w4a16; do
      timeout 60 $BENCH time $kind $shp $it 2>&1 | tee -a "$S"
    done
  done
  timeout 150 python3 "$(dirname "$0")/bench/torch_bench.py" 50 2>&1 | tee -a "$S"
  if [ -n "${TUNE:-}" ]; then  # w4a16 decode tile widths
    for shp in "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" "64 7168 2048" "64 2048 7168"; do
      for bn in 16 32 64; do timeout 30 $BENCH time w4a16 $shp 200 $bn 2>&1 | tee -a "$S"; done
    done
  fi
fi
if [ -x "${PROBE:-}" ]; then
  log ""
  log "## cycles per wgmma (chains into one accumulator; no swizzle = the kernels' layout)"
  timeout 60 $PROBE 2>&1 | tee -a "$S"
fi
if [ -n "${PROFILE:-}" ] && command -v ncu >/dev/null; then
  for job in "mxfp8 8192 8192 8192" "w4a16 8192 8192 8192" "w4a16 16 2048 7168"; do
    echo "### $job" >>"$OUT/ncu.txt"
    timeout 60 ncu --clock-control none -c 1 -k regex:'mxfp8_(ws_)?kernel|w4a16_(ws_)?kernel' --section SpeedOfLight \
      --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy --section InstructionStats \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active' \
      $BENCH time $job 1 >>"$OUT/ncu.txt" 2>&1
  done
  log "ncu: $(grep -c 'Section: ' "$OUT/ncu.txt") sections in ncu.txt"
fi
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $BENCH 2>/dev/null | gzip -9 >"$OUT/sass.txt.gz"
  cuobjdump -sass $BENCH >"$L/sass.txt" 2>&1
  grep -oE "\b(HGMMA|QGMMA|HMMA|FFMA|FMUL|LDGSTS|LDL|STL)[.A-Z0-9_]*" "$L/sass.txt" | sort | uniq -c | sort -rn | head -20 >>"$S"
  rm -f "$L/sass.txt"
fi
log "total: $(( $(date +%s) - t0 )) s"
pack
