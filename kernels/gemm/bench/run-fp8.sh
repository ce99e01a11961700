#!/usr/bin/env bash
# run-fp8.sh - one short device call for the warp-specialized mxfp8 GEMM
# (issue 10): main's mxgemmbench built first (the "before"), then the overlay
# .devrun/fp8/overlay copied in and mx_gemm_gate + mxgemmbench rebuilt (-j16);
# the full gate, memcheck + racecheck on GemmGateSanitizer.*, the gate's mxfp8
# cases again for each tuning variant (MXK_FP8WS), timings of before / each
# variant at 8192^3 and 4096 x 7168 x 2048 beside cuBLAS (torch) in the same
# call, the SASS of the mxfp8 kernels, Nsight Compute of variant NCU_VAR.
# Usage (repository root, main's tree): OUT=<dir> bash .devrun/fp8/overlay/kernels/gemm/bench/run-fp8.sh
# Env: VARS (MXK_FP8WS tuning variants, if the launcher has them; default 0), SKIP_BASE=1, SKIP_SAN=1, NCU_VAR (default 0, "" = none).
set -uo pipefail
OUT=${OUT:-/tmp/fp8-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
log() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
B=/tmp/build-fp8
cfg() { cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a "${GT[@]}"; }
if [ -z "${SKIP_BASE:-}" ]; then
  if { cfg && cmake --build $B -j16 --target mxgemmbench; } >"$OUT/build-base.log" 2>&1; then
    cp $B/mxgemmbench /tmp/mxgemmbench-base
  else
    log "BASE BUILD FAILED"
  fi
  log "base build: $(( $(date +%s) - t0 )) s"
fi
cp -r .devrun/fp8/overlay/. ./
if ! { cfg && cmake --build $B -j16 --target mx_gemm_gate mxgemmbench; } >"$OUT/build.log" 2>&1; then
  log "BUILD FAILED"; grep -E "error|warning" "$OUT/build.log" | head -30 | tee -a "$S"; exit 1
fi
grep -E "C751|spill stores|stack frame" "$OUT/build.log" | sort | uniq -c | head -8 >>"$S"
log "build: $(( $(date +%s) - t0 )) s"
GATE=$B/cgemm/mx_gemm_gate BENCH=$B/mxgemmbench
san=0
if [ -z "${SKIP_SAN:-}" ]; then
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$OUT/memcheck.log" 2>&1 &
  p1=$!
  timeout 120 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$OUT/racecheck.log" 2>&1 &
  p2=$!
  san=1
fi
t1=$(date +%s)
declare -A gp
for v in ${VARS:-0}; do
  [ "$v" = 0 ] && continue
  MXK_FP8WS=$v timeout 100 $GATE --gtest_filter='GemmGate.Mxfp8WarpSpecialized:GemmGateSanitizer.Mxfp8*' >"$OUT/gate-v$v.log" 2>&1 &
  gp[$v]=$!
done
timeout 100 $GATE >"$OUT/gate.log" 2>&1
grc=$?
log "gate (variant 0) rc=$grc in $(( $(date +%s) - t1 )) s: $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gate.log" | tr '\n' ' ')"
grep -E "^\[  FAILED |differing|Failure" "$OUT/gate.log" | head -12 | tee -a "$S"
for v in "${!gp[@]}"; do
  wait ${gp[$v]}
  log "gate (variant $v) rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gate-v$v.log" | tr '\n' ' ')"
  grep -E "^\[  FAILED |differing" "$OUT/gate-v$v.log" | head -4 | tee -a "$S"
done
[ $grc = 124 ] && { log "gate timed out (a hang?): stop"; tar czf /tmp/fp8-logs.tgz -C "$OUT" --exclude=summary.txt . && mv /tmp/fp8-logs.tgz "$OUT/logs.tgz"; exit 1; }
if [ $san = 1 ]; then
  wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tail -1)"
fi
# at most 8 files come back: the logs in one archive
tar czf /tmp/fp8-logs.tgz -C "$OUT" --exclude=summary.txt . && mv /tmp/fp8-logs.tgz "$OUT/logs.tgz" && \
  find "$OUT" -maxdepth 1 -type f ! -name summary.txt ! -name ncu.txt ! -name logs.tgz ! -name 'sass-*' -delete
log "## benchmark (CSV: kernel,M,N,K,us_per_call,tflops); base = main's kernel, wsV = variant V"
for shp in "8192 8192 8192" "4096 7168 2048"; do
  [ -x /tmp/mxgemmbench-base ] && timeout 30 /tmp/mxgemmbench-base time mxfp8 $shp 20 2>&1 | sed 's/^mxfp8/mxfp8(base)/' | tee -a "$S"
  for v in ${VARS:-0}; do MXK_FP8WS=$v timeout 30 $BENCH time mxfp8 $shp 20 2>&1 | sed "s/^mxfp8/mxfp8(ws$v)/" | tee -a "$S"; done
done
timeout 60 python3 kernels/gemm/bench/torch_bench.py 20 2>&1 | grep -E "^cublas_fp8[a-z0-9_]*,(8192|4096)," | tee -a "$S"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $BENCH 2>&1 | awk '/Function : /{p = ($0 ~ /mxfp8_ws_kernel/ && $0 ~ /Lb0ELb1E/)} p' >"$OUT/sass-fp8.txt"
  [ -x /tmp/mxgemmbench-base ] && cuobjdump -sass /tmp/mxgemmbench-base 2>&1 | awk '/Function : /{p = ($0 ~ /mxfp8_ws_kernel/ && $0 ~ /Lb0ELb1E/)} p' >"$OUT/sass-base.txt"
  gzip -9 "$OUT"/sass-*.txt
fi
if [ -n "${NCU_VAR-0}" ] && command -v ncu >/dev/null; then
  for v in ${NCU_VAR-0}; do
    echo "### variant $v mxfp8 4096 7168 2048" >>"$OUT/ncu.txt"
    MXK_FP8WS=$v timeout 45 ncu --clock-control none -c 1 -k regex:'mxfp8_ws_kernel' --section SpeedOfLight --section WarpStateStats \
      --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg' \
      $BENCH time mxfp8 4096 7168 2048 1 >>"$OUT/ncu.txt" 2>&1
    echo "### variant $v per opcode" >>"$OUT/ncu.txt"
    MXK_FP8WS=$v timeout 40 ncu --clock-control none -c 1 -k regex:'mxfp8_ws_kernel' --metrics sass__inst_executed_per_opcode \
      --print-metric-instances values $BENCH time mxfp8 4096 7168 2048 1 >>"$OUT/ncu.txt" 2>&1
  done
  if [ -x /tmp/mxgemmbench-base ]; then
    echo "### base per opcode" >>"$OUT/ncu.txt"
    timeout 40 ncu --clock-control none -c 1 -k regex:'mxfp8_ws_kernel' --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum \
      --print-metric-instances values /tmp/mxgemmbench-base time mxfp8 4096 7168 2048 1 >>"$OUT/ncu.txt" 2>&1
  fi
  log "ncu: $(grep -c 'Section: ' "$OUT/ncu.txt") sections"
fi
log "total: $(( $(date +%s) - t0 )) s"
