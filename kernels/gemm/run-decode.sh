#!/usr/bin/env bash
# run-decode.sh - the w4a16 decode kernel (gemm_w4a16_decode.cu) on an H100 in
# one device call (~3-4 min): build the stand-alone GEMM targets (-j16), time
# the six decode shapes with the decode kernel (bn 0, widths chosen and
# forced), the shared-memory kernel as main chooses it (explicit bn: the
# "before") and cuBLAS bf16 through torch, all in this call; then the w4a16
# gate cases (every output bit == the C11 model) beside memcheck and racecheck
# on GemmGateSanitizer.* (racecheck --racecheck-report hazard, the displayed
# hazards counted by access pair and launch). Output in $OUT (summary.txt).
# Usage (repository root): OUT=<dir> kernels/gemm/run-decode.sh
# Env: NCU=1 (Nsight Compute of one decode launch), GATE_FILTER, BEFORE=<a gemm_w4a16_decode.cu> (rebuilt
# last and timed on the six shapes: a same-call before/after).
set -uo pipefail
OUT=${OUT:-/tmp/decode-out}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
B=/tmp/build-decode
log() { echo "$*" | tee -a "$S"; }
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
GT=()
[ -d .gtest-src ] && GT=(-DMX_GTEST_SRC="$PWD/.gtest-src")
if ! { cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a "${GT[@]}" &&
       timeout 140 cmake --build $B -j16 --target mx_gemm_gate mxgemmbench; } >"$OUT/build.log" 2>&1; then
  log "BUILD FAILED"; tail -30 "$OUT/build.log" | tee -a "$S"; exit 1
fi
grep -E "C7515|warning" "$OUT/build.log" | head -5 | tee -a "$S"
log "build: $(( $(date +%s) - t0 )) s"
GATE=$B/cgemm/mx_gemm_gate BENCH=$B/mxgemmbench
log "## decode shapes (CSV: kernel,M,N,K,us_per_call,tflops; bf16 out; (bnX) = the shared-memory kernel as main picks it; (colsX) forced rows of A per block, +1000 = the two-warpgroup variant)"
bench() { timeout 30 $BENCH time w4a16 $1 $2 $3 200 $4 ${5:-} 2>&1 | tee -a "$S"; }
for c in 0 1008; do bench 1 7168 2048 0 $c; done; bench 1 7168 2048 32
for c in 0 1008; do bench 1 2048 7168 0 $c; done; bench 1 2048 7168 16
for c in 0 1016 8; do bench 16 7168 2048 0 $c; done; bench 16 7168 2048 32
for c in 0 16 1008; do bench 16 2048 7168 0 $c; done; bench 16 2048 7168 16
for c in 0 32 1032; do bench 64 7168 2048 0 $c; done; bench 64 7168 2048 64
for c in 0 1016 32; do bench 64 2048 7168 0 $c; done; bench 64 2048 7168 16
timeout 100 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16,(1|16|64)," | tee -a "$S"
SAN='GemmGateSanitizer.*'
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$OUT/memcheck.log" 2>&1 &
p1=$!
timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 400 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$OUT/racecheck.log" 2>&1 &
p2=$!
t1=$(date +%s)
timeout 75 $GATE --gtest_filter="${GATE_FILTER:-*}" >"$OUT/gate.log" 2>&1
log "gate rc=$? in $(( $(date +%s) - t1 )) s: $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/gate.log" | tr '\n' ' ')"
grep -E "^\[  FAILED|Failure|differ|Expected|Which is|w4a16 m=" "$OUT/gate.log" | head -12 | tee -a "$S"
wait $p1; log "memcheck ($SAN) rc=$? $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' "$OUT/memcheck.log" | tr '\n' ' ')"
wait $p2; log "racecheck ($SAN) rc=$? $(grep -E 'RACECHECK SUMMARY' "$OUT/racecheck.log" | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED|^\[ RUN' "$OUT/racecheck.log" | tr '\n' ' ')"
# Attribution of the displayed hazards: kind, the two accesses (source line), the launch.
awk 'function flush() { if (k != "") print k " | " w " | " r " | " (l == "" ? "?" : l); k = "" }
  /Potential .* hazard/ { flush(); k = $4; w = ""; r = ""; l = "" }
  /Write Thread|Read Thread/ { x = $0; sub(/.*\) at /, "", x); sub(/\+0x[0-9a-f]+/, "", x); sub(/.*::/, "", x); if (w == "") w = x; else r = x }
  /Host Frame:.*launch/ { if (l == "") { l = $0; sub(/.*Host Frame: */, "", l); sub(/ \[0x.*/, "", l); sub(/.*::rs_launch/, "rs_launch", l) } }
  END { flush() }' "$OUT/racecheck.log" | sort | uniq -c | sort -rn | head -12 | tee -a "$S"
gzip -9 "$OUT/racecheck.log"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass $BENCH 2>/dev/null | awk '/Function : /{p = ($0 ~ /w4a16_rs_kernel/)} p' >"$OUT/rs.sass"
  log "decode kernel SASS (all instances): $(grep -oE '(HGMMA[.A-Z0-9]*|WARPGROUP\.[A-Z]+|BAR\.[A-Z]+|HMUL2[.A-Z0-9]*|LDS[.A-Z0-9]*|LDL[.A-Z0-9]*|STL[.A-Z0-9]*|LDGSTS[.A-Z0-9]*|PRMT|LOP3[.A-Z]*|IMAD[.A-Z]*|LEA[.A-Z]*)' "$OUT/rs.sass" | sort | uniq -c | sort -rn | tr -s ' ' | tr '\n' ';')"
  gzip -9 "$OUT/rs.sass"
fi
if [ -n "${NCU:-}" ] && command -v ncu >/dev/null; then
  for job in "64 7168 2048" "1 7168 2048"; do  # same grid (112 blocks of 2 warpgroups), NA 64 against NA 8
    echo "### w4a16 $job" >>"$OUT/ncu.txt"
    timeout 30 ncu --clock-control none -c 1 -k regex:w4a16_rs_kernel --section SpeedOfLight --section WarpStateStats \
      --section Occupancy --section InstructionStats --section SourceCounters --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      $BENCH time w4a16 $job 1 0 0 >>"$OUT/ncu.txt" 2>&1
  done
  log "ncu: $(grep -c 'Section: ' "$OUT/ncu.txt") sections"
fi
if [ -n "${BEFORE:-}" ] && [ -f "$BEFORE" ]; then  # the launcher's choice with another gemm_w4a16_decode.cu, same call
  cp "$BEFORE" kernels/gemm/gemm_w4a16_decode.cu
  if timeout 60 cmake --build $B -j16 --target mxgemmbench >"$OUT/build-before.log" 2>&1; then
    log "## before ($BEFORE), the launcher's choice"
    for s in "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" "64 7168 2048" "64 2048 7168"; do
      timeout 30 $BENCH time w4a16 $s 200 0 0 2>&1 | sed 's/^w4a16,/w4a16(before),/' | tee -a "$S"
    done
  else
    log "before build FAILED"
  fi
fi
log "total: $(( $(date +%s) - t0 )) s"
