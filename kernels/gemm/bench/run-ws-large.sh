#!/usr/bin/env bash
# run-ws-large.sh - one short device call for the warp-specialized M > 64
# GEMMs (issue 10): build mx_gemm_gate + mxgemmbench (-j16), the full gate,
# memcheck + racecheck on GemmGateSanitizer.*, the large shapes timed for the
# new kernels and the kernels without TMA (w4a16 bn = 128, mxfp8 bn = 1)
# beside cuBLAS through torch, and the SASS of the new kernels.
# Usage (repository root): OUT=<dir> kernels/gemm/bench/run-ws-large.sh
# Env: SKIP_SAN=1, SKIP_GATE=1, SKIP_TORCH=1, EXTRA_SHAPES="M N K;..." (timed as well),
#   W4_BNS / FP8_BNS (bn arguments timed, default "0 128" / "0 1"), NCU=1 (Nsight Compute of
#   one launch each at 4096 x 7168 x 2048), FALLBACK_SED (a sed script applied to gemm_config.hpp,
#   then rebuilt and gated again, if the gate fails).
set -uo pipefail
OUT=${OUT:-/tmp/ws-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
B=/tmp/build-ws
log() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
if ! { cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a "${GT[@]}" &&
       cmake --build $B -j16 --target mx_gemm_gate mxgemmbench; } >"$OUT/build.log" 2>&1; then
  log "BUILD FAILED"; grep -E "error|warning" "$OUT/build.log" | head -30 | tee -a "$S"; exit 1
fi
grep -E "C751|spill stores" "$OUT/build.log" | sort | uniq -c | head -8 >>"$S"
log "build: $(( $(date +%s) - t0 )) s"
GATE=$B/cgemm/mx_gemm_gate BENCH=$B/mxgemmbench
san=0
if [ -z "${SKIP_SAN:-}" ]; then
  timeout ${SAN_TIMEOUT:-120} compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$OUT/memcheck.log" 2>&1 &
  p1=$!
  timeout ${SAN_TIMEOUT:-120} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$OUT/racecheck.log" 2>&1 &
  p2=$!
  san=1
fi
if [ -z "${SKIP_GATE:-}" ]; then
  t1=$(date +%s)
  timeout ${GATE_TIMEOUT:-90} $GATE >"$OUT/gate.log" 2>&1
  grc=$?
  log "gate rc=$grc in $(( $(date +%s) - t1 )) s"
  if [ $grc != 0 ] && [ -n "${FALLBACK_SED:-}" ]; then  # a tuning step failed the gate: rebuild without it
    grep -E "^\[  (FAILED|PASSED) |differing|Failure" "$OUT/gate.log" | head -20 | tee -a "$S"
    log "FALLBACK: sed '$FALLBACK_SED' kernels/gemm/gemm_config.hpp, rebuild, gate again"
    [ $san = 1 ] && { kill $p1 $p2 2>/dev/null; wait $p1 $p2 2>/dev/null; }
    sed -i "$FALLBACK_SED" kernels/gemm/gemm_config.hpp
    cmake --build $B -j16 --target mx_gemm_gate mxgemmbench >>"$OUT/build.log" 2>&1 || log "FALLBACK BUILD FAILED"
    [ $san = 1 ] && {
      timeout ${SAN_TIMEOUT:-120} compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$OUT/memcheck.log" 2>&1 &
      p1=$!
      timeout ${SAN_TIMEOUT:-120} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $GATE --gtest_filter='GemmGateSanitizer.*' >"$OUT/racecheck.log" 2>&1 &
      p2=$!; }
    timeout ${GATE_TIMEOUT:-90} $GATE >"$OUT/gate.log" 2>&1
    grc=$?
    log "gate (fallback) rc=$grc"
  fi
  [ $grc = 124 ] && SKIP_BENCH=1 && log "gate timed out (a hang?): no benchmark"
  grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |tests ran|differing|Failure" "$OUT/gate.log" | head -40 | tee -a "$S"
fi
if [ $san = 1 ]; then
  wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tail -1)"
fi
[ -n "${SKIP_BENCH:-}" ] && { log "total: $(( $(date +%s) - t0 )) s"; exit 0; }
log ""
log "## benchmark (CSV: kernel,M,N,K,us_per_call,tflops); (bn128) / (bn1) = the M > 64 kernels without TMA (mxfp8 bn1: rows of K + 8 bytes)"
IFS=';' read -ra extra <<<"${EXTRA_SHAPES:-}"
for shp in "8192 8192 8192" "4096 7168 2048" "${extra[@]}"; do
  [ -z "$shp" ] && continue
  for bn in ${W4_BNS:-0 128}; do timeout 30 $BENCH time w4a16 $shp 20 $bn 2>&1 | tee -a "$S"; done
  for bn in ${FP8_BNS:-0 1}; do timeout 30 $BENCH time mxfp8 $shp 20 $bn 2>&1 | tee -a "$S"; done
done
[ -z "${SKIP_TORCH:-}" ] && timeout 60 python3 kernels/gemm/bench/torch_bench.py 20 2>&1 | grep -E "^cublas_[a-z0-9_]+,(8192|4096)," | tee -a "$S"
if [ -n "${NCU:-}" ] && command -v ncu >/dev/null; then
  for job in "w4a16 4096 7168 2048" "mxfp8 4096 7168 2048"; do
    echo "### $job" >>"$OUT/ncu.txt"
    timeout 60 ncu --clock-control none -c 1 -k regex:'_ws_kernel' --section SpeedOfLight --section WarpStateStats \
      --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,lts__t_bytes.sum.per_second' \
      $BENCH time $job 1 >>"$OUT/ncu.txt" 2>&1
  done
  log "ncu: $(grep -c 'Section: ' "$OUT/ncu.txt") sections in ncu.txt"
fi
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $BENCH >"$OUT/sass-all.txt" 2>&1
  # the warp-specialized kernels only
  awk '/Function : /{p = ($0 ~ /_ws_kernel/)} p' "$OUT/sass-all.txt" >"$OUT/sass-ws.txt"
  rm -f "$OUT/sass-all.txt"
  for k in w4a16_ws_kernel mxfp8_ws_kernel; do
    log "## SASS op counts, $k"
    awk -v k="$k" '/Function : /{n++; p = (index($0, k) > 0 && n < 99)} p' "$OUT/sass-ws.txt" |
      grep -oE "\b(HGMMA|QGMMA|FFMA|FMUL|HMUL2|HFMA2|PRMT|LOP3|SHF|LDS|STS|LDSM|SYNCS|UTMALDG|LDGSTS|LDL|STL|BAR|WARPGROUP|USETMAXREG)[.A-Z0-9_]*" |
      sort | uniq -c | sort -rn | head -24 >>"$S"
  done
  gzip -9 "$OUT/sass-ws.txt"
fi
log "total: $(( $(date +%s) - t0 )) s"
