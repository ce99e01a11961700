#!/usr/bin/env bash
# run-w4rs.sh - one short device call for the register-A w4a16 kernel
# (gemm_w4a16_rs.cu, issue 10): build mx_gemm_gate + mxgemmbench (-j16), the
# full gate, memcheck + racecheck on GemmGateSanitizer.*, and the large
# shapes timed for the register-A kernel (bn 512), the warp-specialized one
# (bn 256) and the dispatch (bn 0) beside cuBLAS bf16 through torch, all in
# the same call; SASS op counts of the new kernel; optional Nsight Compute.
# Usage (repository root): OUT=<dir> kernels/gemm/bench/run-w4rs.sh
# Env: SKIP_SAN=1, NCU=1 (one launch of each M > 64 kernel at 4096 x 7168 x 2048),
#   VARIANT_SED=<sed script for gemm_config.hpp> (after the benchmark: rebuild
#   mxgemmbench and the gate with it, gate W4a16RegisterA, time bn 512 again).
set -uo pipefail
OUT=${OUT:-/tmp/w4rs-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
B=/tmp/build-w4rs
log() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
if ! { cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a "${GT[@]}" &&
       cmake --build $B -j16 --target mx_gemm_gate mxgemmbench; } >"$OUT/build.log" 2>&1; then
  log "BUILD FAILED"; grep -E "error|warning" "$OUT/build.log" | head -30 | tee -a "$S"; exit 1
fi
grep -E "C751|spill stores|warning" "$OUT/build.log" | sort | uniq -c | head -12 >>"$S"
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
t1=$(date +%s)
timeout ${GATE_TIMEOUT:-90} $GATE >"$OUT/gate.log" 2>&1
grc=$?
log "gate rc=$grc in $(( $(date +%s) - t1 )) s"
grep -E "^\[  (FAILED|PASSED|SKIPPED) |tests ran|differing|Failure" "$OUT/gate.log" | head -30 | tee -a "$S"
[ $grc = 124 ] && SKIP_BENCH=1 && log "gate timed out (a hang?): no benchmark"
if [ $san = 1 ]; then
  wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
  wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log" | tail -1)"
  grep -E "PASSED|FAILED" "$OUT/memcheck.log" | tail -3 >>"$S"
fi
[ -n "${SKIP_BENCH:-}" ] && { log "total: $(( $(date +%s) - t0 )) s"; exit 0; }
log ""
log "## benchmark (CSV: kernel,M,N,K,us_per_call,tflops): (bn512) register-A, (bn256) warp-specialized, w4a16 = dispatch"
for shp in "8192 8192 8192" "4096 7168 2048"; do
  for bn in 512 256 0 512; do timeout 30 $BENCH time w4a16 $shp 20 $bn 2>&1 | tee -a "$S"; done
done
timeout 60 python3 kernels/gemm/bench/torch_bench.py 20 2>&1 | grep -E "^cublas_bf16[a-z_]*,(8192|4096)," | tee -a "$S"
for shp in "8192 8192 8192"; do
  for bn in 512 256; do timeout 30 $BENCH time w4a16 $shp 20 $bn 2>&1 | tee -a "$S"; done
done
if [ -n "${NCU:-}" ] && command -v ncu >/dev/null; then
  for bn in 512 256; do
    echo "### w4a16 4096 7168 2048 bn $bn" >>"$OUT/ncu.txt"
    timeout 40 ncu --clock-control none -c 1 -k regex:'w4a16_(rega|ws)_kernel' --section SpeedOfLight --section WarpStateStats \
      --section SchedulerStats --section ComputeWorkloadAnalysis \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active' \
      $BENCH time w4a16 4096 7168 2048 1 $bn >>"$OUT/ncu.txt" 2>&1
  done
  log "ncu: $(grep -c 'Section: ' "$OUT/ncu.txt") sections in ncu.txt"
fi
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $BENCH 2>/dev/null | awk '/Function : /{p = ($0 ~ /w4a16_rega_kernel/)} p' >"$OUT/sass-rega.txt"
  log "## SASS op counts, w4a16_rega_kernel (both outputs)"
  grep -oE "(HGMMA|HMUL2|PRMT|LOP3|SHF|LDS|STS|SYNCS|UTMALDG|LDGSTS|LDL|STL|BAR|WARPGROUP|WARPSYNC|SHFL|STG|USETMAXREG)[.A-Z0-9_]*" "$OUT/sass-rega.txt" |
    sort | uniq -c | sort -rn | head -24 >>"$S"
  gzip -9 "$OUT/sass-rega.txt"
fi
if [ -n "${VARIANT_SED:-}" ]; then
  log "## variant: sed '$VARIANT_SED' kernels/gemm/gemm_config.hpp"
  sed -i "$VARIANT_SED" kernels/gemm/gemm_config.hpp
  if cmake --build $B -j16 --target mx_gemm_gate mxgemmbench >>"$OUT/build-variant.log" 2>&1; then
    grep -E "C751|spill stores" "$OUT/build-variant.log" | sort | uniq -c | head -6 >>"$S"
    timeout 60 $GATE --gtest_filter='*RegisterA*' >"$OUT/gate-variant.log" 2>&1
    log "variant gate rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$OUT/gate-variant.log" | head -3 | tr '\n' ' ')"
    for shp in "8192 8192 8192" "4096 7168 2048"; do
      for bn in 512 256; do timeout 30 $BENCH time w4a16 $shp 20 $bn 2>&1 | sed 's/^/variant /' | tee -a "$S"; done
    done
  else
    log "VARIANT BUILD FAILED"; grep -E "error" "$OUT/build-variant.log" | head -10 | tee -a "$S"
  fi
fi
log "total: $(( $(date +%s) - t0 )) s"
