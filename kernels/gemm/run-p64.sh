#!/usr/bin/env bash
# run-p64.sh - issue 10 at M = 64 (helper p64), one device call: the warp-
# specialized kernel's BM = 64 forms with two k-tiles of wgmma in flight
# (decode_cols + 10000000) and one barrier arrival per warp (+ 100000000)
# against the launcher's forms 6356 / 6016 and cuBLAS bf16 (call 1 had consumer
# warpgroups splitting N at + 1000000 (NS - 1): W7="0 6356 1006364 3006364
# 3006164 10006356 6364" W2="0 6016 1006016 10006016 1006332").
# This is the script of call 2, as it ran (tree: commit 48c81f2 with the NS forms
# replaced by the WA forms, bench/results/h200-p64/call2/call2-tree.patch); the
# NS (+ 1000000) and WA (+ 100000000) forms and 10006016 were
# removed after the calls (slower or no faster, bench/results/gemm-decode.md
# "run 17 p64"): of the two calls' lists only 0 (the launcher), 6356, 10006356, 6364
# and 6016 remain.
# Applies the overlay (.devrun/p64/overlay), builds mxgemmbench + mx_gemm_gate
# (kernels/gemm/standalone, 90a-real, -j16), times the forms alternately, three
# rounds, cuBLAS bf16 (torch_bench.py 50, CUDA graph) after each; then the gate's
# W4a16WsDecode tests beside memcheck / racecheck of GemmGateSanitizer.W4a16WsDecode.
# Summary last in $OUT/summary.txt.
# Usage (repository root, main's tree): OUT=<dir> bash .devrun/p64/overlay/kernels/gemm/run-p64.sh
set -uo pipefail
O=${OUT:-/tmp/p64}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"; R=$PWD; GB=/tmp/p64-build
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" >>"$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
cp -r .devrun/p64/overlay/. ./
{ cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real \
    -DMX_GTEST_SRC=$R/.gtest-src && cmake --build $GB -j 16 --target mxgemmbench mx_gemm_gate; } >"$O/build.log" 2>&1 ||
  { log "BUILD FAILED"; grep -E "error|FAILED" "$O/build.log" | head -20 >>"$S"; cat "$S"; exit 1; }
NEW=$(find $GB -name mxgemmbench -type f | head -1); GATE=$(find $GB -name mx_gemm_gate -type f | head -1)
log "built $(el) s"
BAD=" "
t() {  # shape, cols
  case "$BAD" in *" $2 "*) log "skip $1 $2 (timed out before)"; return;; esac
  printf "%-14s %-8s " "$1" "$2" >>"$S"
  out=$(timeout 15 $NEW time w4a16 $1 200 0 $2 2>&1); rc=$?
  [ $rc = 124 ] && BAD="$BAD$2 "
  echo "$out" | tail -1 | cut -c1-160 >>"$S"
}
W7=${W7:-0 6356 10006356 100006356 110006356 100006364}; W2=${W2:-0 6016 100006016 100006116}
W48=${W48:-6356 10006356 100006356 110006356}; W48N=${W48N:-6016 100006016}
for round in 1 2 3; do
  [ $(el) -gt ${ROUND_BY:-125} ] && { log "round $round skipped (time)"; continue; }
  log "## round $round (shape cols: M,N,K,us,TFLOP/s; cols 0 = the launcher)"
  for c in $W7; do t "64 7168 2048" $c; done
  for c in $W2; do t "64 2048 7168" $c; done
  for c in $W48; do t "48 7168 2048" $c; done
  for c in $W48N; do t "48 2048 7168" $c; done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,64," >>"$S"
  log "round $round done $(el) s"
done
LEFT=$(( ${END_BY:-175} - $(el) )); [ $LEFT -lt 20 ] && LEFT=20
SAN=GemmGateSanitizer.W4a16WsDecode
timeout $LEFT compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter=$SAN >"$O/memcheck.log" 2>&1 & p1=$!
timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 9 $GATE --gtest_filter=$SAN >"$O/racecheck.log" 2>&1 & p2=$!
timeout $LEFT $GATE --gtest_filter='*W4a16WsDecode*:GemmGate.Errors' >"$O/gate.log" 2>&1
log "gate rc=$? $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED' "$O/gate.log" | tr '\n' ' ') ok=$(grep -cE '^\[       OK' "$O/gate.log")"
grep -E "Failure|w4a16 m=|^\[  FAILED" "$O/gate.log" | head -8 >>"$S"
wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$O/memcheck.log" | tail -1) $(grep -cE '^\[       OK' "$O/memcheck.log") ok"
wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$O/racecheck.log" | tail -1) $(grep -cE '^\[       OK' "$O/racecheck.log") ok"
for c in ${NCU_COLS:-6016 100006016}; do
  [ $(el) -gt ${NCU_BY:-185} ] && { log "ncu $c skipped (time)"; continue; }
  timeout 15 ncu --clock-control none -k regex:w4a16_ws_kernel --launch-skip 3 -c 1 --section SpeedOfLight \
    --section WarpStateStats --section SchedulerStats --section SourceCounters \
    "$NEW" time w4a16 64 2048 7168 2 0 $c >"$O/ncu_$c.txt" 2>&1
  log "ncu $c rc=$? $(el) s: $(grep -E 'Duration|Elapsed Cycles|L2 Cache Throughput|L1/TEX Cache|Issued Warp Per|Warp Cycles Per Issued' "$O/ncu_$c.txt" | tr -s ' ' | tr '\n' ';')"
done
gzip -9 "$O/racecheck.log" "$O/build.log" "$O/memcheck.log"
log "end $(el) s"
cat "$S"
