#!/usr/bin/env bash
# run-f8.sh - run 12 f8's device calls (issue 10, the warp-specialized mxfp8
# GEMM). Call 2 (this form): main's mxgemmbench built from a copy of main's
# tree beside the overlay build (.devrun/f8/overlay copied in, mx_gemm_gate +
# mxgemmbench, -j16); the full gate + memcheck + racecheck on
# GemmGateSanitizer.* for the default configuration; timings of base / the
# MXK_FP8WS variants (VARS at 8192^3, VARS4096 at 4096x7168x2048) beside
# cuBLAS fp8 (torch) in the same call; the SASS; ncu (warp states, source
# counters) of NCU_VARS if time is left. Call 1 ran each variant's gate
# cases and sanitizers in parallel instead (git history of this file).
# Usage (repository root, main's tree): OUT=<dir> bash .devrun/f8/overlay/bench/results/h100-f8/run-f8.sh
# Env: VARS, VARS4096, NCU_VARS, BUDGET (s, default 205).
set -uo pipefail
OUT=${OUT:-/tmp/f8-out}; mkdir -p "$OUT"; S=$OUT/summary.txt; : >"$S"
L=/tmp/f8-logs; rm -rf $L; mkdir -p $L
log() { echo "$*" | tee -a "$S"; }
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
VARS=${VARS:-0 4 6 1 2 3}; BUDGET=${BUDGET:-205}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
GT=(); [ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
B=/tmp/build-f8
cfg() { cmake -S $1/kernels/gemm/standalone -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real "${GT[@]}"; }
# main's tree (before the overlay) built beside this one
mkdir -p /tmp/base-src && cp -r kernels reference conformance cmake /tmp/base-src/
{ cfg /tmp/base-src /tmp/build-base && cmake --build /tmp/build-base -j16 --target mxgemmbench; } >"$L/build-base.log" 2>&1 &
pb=$!
cp -r .devrun/f8/overlay/. ./
if ! { cfg . $B && cmake --build $B -j16 --target mx_gemm_gate mxgemmbench; } >"$L/build.log" 2>&1; then
  log "BUILD FAILED"; grep -E "error" "$L/build.log" | head -30 | tee -a "$S"; tar czf $OUT/logs.tgz -C $L .; exit 1
fi
log "build: $(el) s"
wait $pb && cp /tmp/build-base/mxgemmbench /tmp/mxgemmbench-base || log "BASE BUILD FAILED"
log "base build: $(el) s"
GATE=$B/cgemm/mx_gemm_gate BENCH=$B/mxgemmbench
timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$L/memcheck-v0.log" 2>&1 & p1=$!
timeout 110 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$L/racecheck-v0.log" 2>&1 & p2=$!
timeout 110 $GATE >"$L/gate-v0.log" 2>&1; grc=$?
log "gate v0 (full) rc=$grc at $(el) s: $(grep -E '^\[  (PASSED|FAILED) ' "$L/gate-v0.log" | tr '\n' ' ')"
grep -E "^\[  FAILED |differing|Failure" "$L/gate-v0.log" | head -8 | tee -a "$S"
wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $L/memcheck-v0.log | tail -1)"
wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' $L/racecheck-v0.log | tail -1)"
log "checks done: $(el) s"
tar czf $OUT/logs.tgz -C $L .
log "## benchmark (CSV: kernel,M,N,K,us_per_call,tflops); base = main's kernel, wsV = variant V"
for shp in "8192 8192 8192" "4096 7168 2048"; do
  [ -x /tmp/mxgemmbench-base ] && timeout 30 /tmp/mxgemmbench-base time mxfp8 $shp 20 2>&1 | sed 's/^mxfp8/mxfp8(base)/' | tee -a "$S"
  vs=$VARS; [ "$shp" != "8192 8192 8192" ] && vs=${VARS4096:-0 4 6}
  for v in $vs; do MXK_FP8WS=$v timeout 30 $BENCH time mxfp8 $shp 20 2>&1 | sed "s/^mxfp8/mxfp8(ws$v)/" | tee -a "$S"; done
done
timeout 60 python3 kernels/gemm/bench/torch_bench.py 20 2>&1 | grep -E "^cublas_fp8[a-z0-9_]*,(8192|4096)," | tee -a "$S"
log "bench done: $(el) s"
cuobjdump -sass $BENCH 2>&1 | awk '/Function : /{p = ($0 ~ /mxfp8_ws_kernel/ && $0 ~ /Lb0ELb1E/)} p' | gzip -9 >"$OUT/sass-f8.txt.gz"
tar czf $OUT/logs.tgz -C $L .
for v in ${NCU_VARS-0}; do
  [ $(el) -gt $((BUDGET - 30)) ] && { log "ncu v$v skipped (time)"; continue; }
  MXK_FP8WS=$v timeout 30 ncu --clock-control none -c 1 -k regex:'mxfp8_ws_kernel' --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section SourceCounters -o /tmp/ncu-v$v $BENCH time mxfp8 4096 7168 2048 1 >"$L/ncu-v$v.log" 2>&1
  ncu -i /tmp/ncu-v$v.ncu-rep --print-summary none >"$L/ncu-details-v$v.txt" 2>&1
  ncu -i /tmp/ncu-v$v.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip -9 >"$L/ncu-src-v$v.csv.gz"
  log "ncu v$v: $(grep -E 'Issue Slots Busy|No Eligible|Duration' $L/ncu-details-v$v.txt | tr -s ' ' | tr '\n' ';')"
done
tar czf $OUT/logs.tgz -C $L .
log "total: $(el) s"
