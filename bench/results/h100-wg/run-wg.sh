#!/usr/bin/env bash
# run-wg.sh - the wgmma m64n16k16 producer kernel (gemm_w4a16_wg.cu, decode_cols
# 3000 + form) on an H100 in one device call (< 240 s): build the stand-alone
# GEMM targets (-j16); a smoke test (GemmGateSanitizer.W4a16Wg, hang guard);
# the six decode shapes timed by mxgemmbench (bf16 out, median of 5 x 200
# calls, B rotated over >= 128 MB): the launcher (cols 0), the wgmma decode
# kernel (cols 1000), the mma.sync forms (2000 + form), the wgmma producer forms
# (3000 + form); cuBLAS bf16 through torch_bench.py (CUDA graph) in the same
# call; the GEMM gate (GATE_FILTER) beside compute-sanitizer memcheck and
# racecheck (SAN); Nsight Compute of one launch (if time is left).
# Usage (repository root): OUT=<dir> bash kernels/gemm/run-wg.sh
set -uo pipefail
OUT=${OUT:-/tmp/wg-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
B=/tmp/build-wg
log() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
if ! { cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a "${GT[@]}" &&
       timeout 130 cmake --build $B -j16 --target mx_gemm_gate mxgemmbench; } >"$OUT/build.log" 2>&1; then
  log "BUILD FAILED"; grep -E "error" "$OUT/build.log" | head -20 | tee -a "$S"; tail -20 "$OUT/build.log" | tee -a "$S"; exit 1
fi
log "build: $(( $(date +%s) - t0 )) s"
grep -E "C7515|C7510|warning.*wgmma" "$OUT/build.log" | head -3 | tee -a "$S"
GATE=$B/cgemm/mx_gemm_gate BENCH=$B/mxgemmbench
SAN=${SAN:-GemmGateSanitizer.W4a16Wg:GemmGateSanitizer.W4a16Mma}
timeout 40 $GATE --gtest_filter=GemmGateSanitizer.W4a16Wg >"$OUT/smoke.log" 2>&1
rc=$?
log "smoke (GemmGateSanitizer.W4a16Wg) rc=$rc: $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/smoke.log" | tr '\n' ' ')"
grep -E "Failure|differ|Which is|w4a16 m=" "$OUT/smoke.log" | head -12 | tee -a "$S"
[ $rc = 124 ] && { log "HANG: stop"; exit 1; }
log "## decode shapes (kernel,M,N,K,us_per_call,tflops; bf16 out; cols0 launcher, 1000 wgmma decode, 2XYZ mma.sync form, 3XYZ wgmma producer form)"
bench() { timeout 15 $BENCH time w4a16 $1 $2 $3 200 0 $4 2>&1 | sed "s/^w4a16,/w4a16(cols$4),/" | tee -a "$S"; }
for c in 0 2411 3141; do bench 1 7168 2048 $c; done
for c in 0 2811 3131 3141 3151 3161; do bench 1 2048 7168 $c; done
for c in 0 2412 3142; do bench 16 7168 2048 $c; done
for c in 0 2812 3132 3142 3152 3232; do bench 16 2048 7168 $c; done
for c in 0 2418 3128; do bench 64 7168 2048 $c; done
for c in 0 2724 3128 3218; do bench 64 2048 7168 $c; done
for c in 0 2814 3134; do bench 32 2048 7168 $c; done
for c in 0 2811 3151; do bench 8 2048 7168 $c; done
log "bench done: $(( $(date +%s) - t0 )) s"
timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16|64),|graph|Error" | tee -a "$S"
log "torch done: $(( $(date +%s) - t0 )) s"
timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$OUT/memcheck.log" 2>&1 &
p1=$!
timeout 110 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 50 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$OUT/racecheck.log" 2>&1 &
p2=$!
t1=$(date +%s)
GF=${GATE_FILTER:-GemmGate.W4a16WgKernel:GemmGate.W4a16Mma*:GemmGate.W4a16DecodeKernel:GemmGate.W4a16SmallM:GemmGate.Errors}
timeout 100 $GATE --gtest_filter="$GF" >"$OUT/gate.log" 2>&1
log "gate ($GF) rc=$? in $(( $(date +%s) - t1 )) s: $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/gate.log" | tr '\n' ' ')"
grep -E "^\[  FAILED|^\[       OK|Failure|differ|Which is|w4a16 m=|cols " "$OUT/gate.log" | head -30 | tee -a "$S"
CUOBJ=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$CUOBJ" ]; then
  $CUOBJ -sass $BENCH 2>/dev/null | awk '/Function : /{p = ($0 ~ /w4a16_wg_kernel/)} p' >"$OUT/wg.sass"
  log "SASS wg kernels: $(grep -oE '(HGMMA[.A-Z0-9x]*|WARPGROUP[.A-Z]*|LDL[.A-Z0-9]*|STL[.A-Z0-9]*|SYNCS[.A-Z0-9]*|BAR[.A-Z]*)' "$OUT/wg.sass" | sort | uniq -c | sort -rn | tr -s ' ' | tr '\n' ';')"
  gzip -9 "$OUT/wg.sass"
fi
wait $p1; log "memcheck ($SAN) rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/memcheck.log" | tr '\n' ' ')"
wait $p2; log "racecheck ($SAN) rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/racecheck.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/racecheck.log" | tr '\n' ' ')"
gzip -9 "$OUT/racecheck.log"
if command -v ncu >/dev/null && [ $(( $(date +%s) - t0 )) -lt 200 ]; then
  job=${NCU_JOB:-1 2048 7168 1 0 3151}
  echo "### w4a16 $job" >>"$OUT/ncu.txt"
  timeout $(( 228 - $(date +%s) + t0 )) ncu --clock-control none -c 1 -k regex:w4a16_wg --section SpeedOfLight \
    --metrics 'smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__inst_executed.sum,sm__cycles_elapsed.max,smsp__cycles_active.avg' \
    $BENCH time w4a16 $job >>"$OUT/ncu.txt" 2>&1
  log "ncu ($job): $(grep -E 'Duration|Elapsed Cycles|SM Frequency|stalled|inst_executed|cycles_active' "$OUT/ncu.txt" | tr -s ' ' | tr '\n' ';')"
fi
log "total: $(( $(date +%s) - t0 )) s"
