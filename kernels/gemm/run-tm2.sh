#!/usr/bin/env bash
# run-tm2.sh - issue 10 at M = 64 (helper tm2), one device call: the warp-
# specialized kernel's BM = 64 forms with BN 56 (6356: 128 blocks at N = 7168)
# and deep raw rings (6200 / 6400 + BN). Applies the overlay (.devrun/tm2/overlay),
# builds mxgemmbench + mx_gemm_gate (kernels/gemm/standalone, 90a-real, -j16),
# times the launcher (cols 0), 6364 and the new forms alternately at 64 x 7168 x
# 2048 (6016 and 6216 at 64 x 2048 x 7168), two rounds, cuBLAS bf16
# (torch_bench.py 50, CUDA graph) after each; then the whole gate beside memcheck
# / racecheck of GemmGateSanitizer.W4a16WsDecode; ncu if time is left.
# Summary last in $OUT/summary.txt.
# Usage (repository root, main's tree): OUT=<dir> bash .devrun/tm2/overlay/kernels/gemm/run-tm2.sh
set -uo pipefail
O=${OUT:-/tmp/tm2}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"; R=$PWD; GB=/tmp/tm2-build
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" >>"$S"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$S" 2>&1
cp -r .devrun/tm2/overlay/. ./
{ cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real \
    -DMX_GTEST_SRC=$R/.gtest-src && cmake --build $GB -j 16 --target mxgemmbench mx_gemm_gate; } >"$O/build.log" 2>&1 ||
  { log "BUILD FAILED"; grep -E "error|FAILED" "$O/build.log" | head -20 >>"$S"; cat "$S"; exit 1; }
NEW=$(find $GB -name mxgemmbench -type f | head -1); GATE=$(find $GB -name mx_gemm_gate -type f | head -1)
log "built $(el) s"
BAD=" "
t() {  # shape, cols
  case "$BAD" in *" $2 "*) log "skip $1 $2 (timed out before)"; return;; esac
  printf "%-14s %-5s " "$1" "$2" >>"$S"
  out=$(timeout 15 $NEW time w4a16 $1 200 0 $2 2>&1); rc=$?
  [ $rc = 124 ] && BAD="$BAD$2 "
  echo "$out" | tail -1 | cut -c1-160 >>"$S"
}
W7=${W7:-0 6364 6356 6456 6464 6256}; W2=${W2:-0 6016 6216}
for round in 1 2; do
  log "## round $round (shape cols: M,N,K,us,TFLOP/s; cols 0 = the launcher)"
  for c in $W7; do t "64 7168 2048" $c; done
  for c in $W2; do t "64 2048 7168" $c; done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,64," >>"$S"
  log "round $round done $(el) s"
done
SAN=GemmGateSanitizer.W4a16WsDecode
timeout ${GT:-120} compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter=$SAN >"$O/memcheck.log" 2>&1 & p1=$!
timeout ${GT:-120} compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 9 $GATE --gtest_filter=$SAN >"$O/racecheck.log" 2>&1 & p2=$!
timeout ${GT:-120} $GATE >"$O/gate.log" 2>&1
log "gate rc=$? $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED' "$O/gate.log" | tr '\n' ' ') ok=$(grep -cE '^\[       OK' "$O/gate.log")"
grep -E "Failure|w4a16 m=|^\[  FAILED" "$O/gate.log" | head -8 >>"$S"
wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$O/memcheck.log" | tail -1) $(grep -cE '^\[       OK' "$O/memcheck.log") ok"
wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$O/racecheck.log" | tail -1) $(grep -cE '^\[       OK' "$O/racecheck.log") ok"
for c in ${NCU_COLS:-6016}; do
  [ $(el) -gt ${NCU_BY:-165} ] && { log "ncu $c skipped (time)"; continue; }
  timeout 20 ncu --clock-control none -k regex:w4a16_ws_kernel --launch-skip 3 -c 1 --section SpeedOfLight \
    --section WarpStateStats --section SourceCounters \
    "$NEW" time w4a16 64 2048 7168 2 0 $c >"$O/ncu_$c.txt" 2>&1
  log "ncu $c rc=$? $(el) s: $(grep -E 'Duration|Elapsed Cycles|L2 Cache Throughput|DRAM Throughput|Compute \(SM\) Throughput|Warp Cycles Per Issued' "$O/ncu_$c.txt" | tr -s ' ' | tr '\n' ';')"
done
gzip -9 "$O/racecheck.log" "$O/build.log" "$O/memcheck.log"
log "end $(el) s"
cat "$S"
