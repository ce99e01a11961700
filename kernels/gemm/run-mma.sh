#!/usr/bin/env bash
# run-mma.sh - the mma.sync w4a16 decode kernel (gemm_w4a16_mma.cu) on an H100
# in one device call (~3 min): build the stand-alone GEMM targets (-j16); a
# numerics smoke test (GemmGateSanitizer.W4a16Mma); the six decode shapes
# timed by mxgemmbench (bf16 out, median of 5 x 200 calls, B rotated over
# >= 128 MB): the launcher's choice (cols 0), the wgmma decode kernel with its
# own choice (cols 1000: the "before"), every mma.sync form that fits the
# shape (cols 2000 + form); cuBLAS bf16 through torch_bench.py (CUDA graph) in
# the same call; then the GEMM gate (GATE_FILTER) beside compute-sanitizer
# memcheck and racecheck on GemmGateSanitizer.W4a16Mma (SAN), the kernel's
# SASS instruction mix, and (NCU=1) Nsight Compute of one launch.
# Output in $OUT (summary.txt last lines = the summary).
# Usage (repository root): OUT=<dir> bash kernels/gemm/run-mma.sh
set -uo pipefail
OUT=${OUT:-/tmp/mma-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
B=/tmp/build-mma
log() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
if ! { cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a "${GT[@]}" &&
       timeout 150 cmake --build $B -j16 --target mx_gemm_gate mxgemmbench; } >"$OUT/build.log" 2>&1; then
  log "BUILD FAILED"; grep -E "error" "$OUT/build.log" | head -20 | tee -a "$S"; tail -20 "$OUT/build.log" | tee -a "$S"; exit 1
fi
grep -E "C7515|warning" "$OUT/build.log" | head -5 | tee -a "$S"
log "build: $(( $(date +%s) - t0 )) s"
GATE=$B/cgemm/mx_gemm_gate BENCH=$B/mxgemmbench
SAN=${SAN:-GemmGateSanitizer.W4a16Mma}
timeout 40 $GATE --gtest_filter="$SAN" >"$OUT/smoke.log" 2>&1
log "smoke ($SAN) rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/smoke.log" | tr '\n' ' ')"
grep -E "Failure|differ|Which is|w4a16 m=" "$OUT/smoke.log" | head -8 | tee -a "$S"
log "## decode shapes (CSV: kernel,M,N,K,us_per_call,tflops; bf16 out; (cols0) launcher, (cols1000) wgmma decode kernel, (cols2XYZ) mma.sync form XYZ: TR TG NT, 8TN = 3 producers + T consumers of N n8 tiles)"
bench() { timeout 20 $BENCH time w4a16 $1 $2 $3 200 0 $4 2>&1 | sed "s/^w4a16,/w4a16(cols$4),/" | tee -a "$S"; }
for c in 0 1000 2811 2411; do bench 1 7168 2048 $c; done
for c in 0 1000 2811 2411; do bench 1 2048 7168 $c; done
for c in 0 1000 2812 2821 2412; do bench 16 7168 2048 $c; done
for c in 0 1000 2812 2821; do bench 16 2048 7168 $c; done
for c in 0 1000 2418; do bench 64 7168 2048 $c; done
for c in 0 1000 2724 2224; do bench 64 2048 7168 $c; done
log "bench done: $(( $(date +%s) - t0 )) s"
timeout 60 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16|64),|graph|Error" | tee -a "$S"
log "torch done: $(( $(date +%s) - t0 )) s"
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$OUT/memcheck.log" 2>&1 &
p1=$!
timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 50 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$OUT/racecheck.log" 2>&1 &
p2=$!
t1=$(date +%s)
GF=${GATE_FILTER:-GemmGate.W4a16Mma*:GemmGate.W4a16SmallM:GemmGate.W4a16RaggedShapesAndTiles:GemmGate.W4a16DecodeKernel:GemmGate.W4a16Specials:GemmGate.Errors:GemmGateSanitizer.W4a16Small}
timeout 80 $GATE --gtest_filter="$GF" >"$OUT/gate.log" 2>&1
log "gate ($GF) rc=$? in $(( $(date +%s) - t1 )) s: $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/gate.log" | tr '\n' ' ')"
grep -E "^\[  FAILED|^\[       OK|Failure|differ|Which is|w4a16 m=|cols " "$OUT/gate.log" | head -30 | tee -a "$S"
wait $p1; log "memcheck ($SAN) rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/memcheck.log" | tr '\n' ' ')"
wait $p2; log "racecheck ($SAN) rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/racecheck.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/racecheck.log" | tr '\n' ' ')"
gzip -9 "$OUT/racecheck.log"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $BENCH 2>/dev/null | awk '/Function : /{p = ($0 ~ /w4a16_mma/)} p' >"$OUT/mma.sass"
  for f in 'W4MmaILi1ELi1ELi1ELi3EEELb1' 'W4MmaILi4ELi1ELi8ELi0EEELb1'; do
    log "SASS $f: $(awk -v f="$f" '/Function : /{p = index($0, f) > 0} p' "$OUT/mma.sass" | grep -oE '(HMMA[.A-Z0-9]*|HMUL2[.A-Z0-9]*|LDS[.A-Z0-9]*|LDL[.A-Z0-9]*|STL[.A-Z0-9]*|LDGSTS[.A-Z0-9]*|PRMT|LOP3[.A-Z]*|IMAD[.A-Z]*|LEA[.A-Z]*|SHF[.A-Z0-9]*|BAR[.A-Z]*|BRA)' | sort | uniq -c | sort -rn | tr -s ' ' | tr '\n' ';')"
  done
  gzip -9 "$OUT/mma.sass"
fi
if [ -n "${NCU:-}" ] && command -v ncu >/dev/null && [ $(( $(date +%s) - t0 )) -lt 190 ]; then
  for job in "1 2048 7168 1 0 2811" "16 7168 2048 1 0 2812"; do
    echo "### w4a16 $job" >>"$OUT/ncu.txt"
    timeout 20 ncu --clock-control none -c 1 -k regex:w4a16_mma --section SpeedOfLight --section WarpStateStats \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      $BENCH time w4a16 $job >>"$OUT/ncu.txt" 2>&1
  done
  log "ncu: $(grep -c 'Section: ' "$OUT/ncu.txt") sections"
fi
log "total: $(( $(date +%s) - t0 )) s"
