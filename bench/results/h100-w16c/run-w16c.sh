#!/usr/bin/env bash
# run-w16c.sh - issue 10, 16 x 2048 x 7168 (run 14 w16c): main's mxgemmbench
# and this tree's (commit 0c15ced: the producers' whole-block copy
# pc_fast_load, measured slower and reverted after this call) built in the
# same device call (< 170 s), then the GEMM gate binary's smoke test; main /
# new alternated at 16 x 2048 x 7168 (three rounds), 1 / 8 / 32 x 2048 x 7168
# and 16 x 7168 x 2048 (twice: run 14 w16b's unexplained 27.05 us); cuBLAS
# bf16 (torch_bench.py 50) after; then the whole GEMM gate (one process per
# test) beside compute-sanitizer memcheck / racecheck on
# GemmGateSanitizer.W4a16Mma; SASS of form 1012 (main / new) if time is left.
# A trimmed run-w16b.sh (no ncu). Run from the root of a main checkout with
# this branch's changed files in .devrun/w16c/overlay:
#   bash .devrun/w16c/overlay/kernels/gemm/run-w16c.sh
# (A record: it ran on the device as .devrun/w16c/overlay/kernels/gemm/run-w16c.sh;
# moved from kernels/gemm/ to bench/results/h100-w16c/ when main took the branch.)
set -uo pipefail
O=${OUT:-/tmp/w16c-out}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
log "tree: main $(git rev-parse --short HEAD 2>/dev/null) + overlay: $(cd .devrun/w16c/overlay && find . -type f | tr '\n' ' ')"
mkdir -p /tmp/mainsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./.gtest-src --exclude=./vectors -cf - . | tar -C /tmp/mainsrc -xf -
cp -r .devrun/w16c/overlay/. ./
CF=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC="$R/.gtest-src")
{ cmake -S /tmp/mainsrc/kernels/gemm/standalone -B /tmp/b-main "${CF[@]}" && cmake --build /tmp/b-main -j16 --target mxgemmbench; } >/tmp/build-main.log 2>&1 &
p1=$!
{ cmake -S kernels/gemm/standalone -B /tmp/b-new "${CF[@]}" && cmake --build /tmp/b-new -j16 --target mxgemmbench mx_gemm_gate -- -k 0; } >/tmp/build-new.log 2>&1 &
p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
log "build main rc=$r1, new rc=$r2: $(el) s"
[ $r1 = 0 ] || tail -5 /tmp/build-main.log >>"$S"
[ $r2 = 0 ] || { grep -E "error" /tmp/build-new.log | head -20 | tee -a "$S"; }
BM=$(find /tmp/b-main -name mxgemmbench -type f | head -1); BN=$(find /tmp/b-new -name mxgemmbench -type f | head -1)
GATE=$(find /tmp/b-new -name mx_gemm_gate -type f | head -1)
SAN=GemmGateSanitizer.W4a16Mma
timeout 40 $GATE --gtest_filter="$SAN" >/tmp/smoke.log 2>&1; rc=$?
log "smoke ($SAN) rc=$rc: $(grep -E '^\[  PASSED|^\[  FAILED' /tmp/smoke.log | tr '\n' ' ') $(el) s"
grep -E "Failure|differ|Which is|w4a16 m=" /tmp/smoke.log | head -8 | tee -a "$S"
[ $rc = 124 ] && { log "HANG: stop"; cat "$S"; exit 1; }
log "## us per call (kernel,M,N,K,us,tflops), bf16 out, launcher forms (cols 0); main = main's binary, new = this tree's"
b() { printf "%-4s " "$1" >>"$S"; timeout 15 ${!1} time w4a16 $2 $3 $4 200 0 $5 2>&1 | tail -1 | sed "s/^w4a16,/w4a16(cols$5),/" >>"$S"; }
B_main=$BM; B_new=$BN
for round in 1 2 3; do b B_main 16 2048 7168 0; b B_new 16 2048 7168 0; done
for shp in "1 2048 7168" "8 2048 7168" "32 2048 7168" "16 7168 2048"; do b B_main $shp 0; b B_new $shp 0; done
b B_new 16 7168 2048 0; b B_main 16 7168 2048 0
log "# cuBLAS ($(el) s)"
timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16|64),|Error" >>"$S"
log "bench done: $(el) s"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$O/memcheck.log" 2>&1 &
q1=$!
timeout 60 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 50 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$O/racecheck.log" 2>&1 &
q2=$!
mkdir -p /tmp/gate; $GATE --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' >/tmp/gate/list
log "gate: $(wc -l </tmp/gate/list) tests"
xargs -P 12 -I{} sh -c "timeout 55 $GATE --gtest_filter={} >/tmp/gate/{}.log 2>&1; echo \"{} rc=\$?\" >>/tmp/gate/rc" </tmp/gate/list
for t in $(cat /tmp/gate/list); do cat /tmp/gate/$t.log; done >"$O/gate.log"
log "gate (whole binary, one process per test) $(el) s: passed $(grep -c '^\[  PASSED  \] 1 test' "$O/gate.log"), failed $(grep -c '^\[  FAILED  \] 1 test' "$O/gate.log"), skipped $(grep -c '^\[  SKIPPED' "$O/gate.log"); rc != 0: $(grep -v 'rc=0$' /tmp/gate/rc | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [A-Z]|Failure|Which is|w4a16 m=" "$O/gate.log" | head -30 | tee -a "$S"
wait $q1; m1=$?; wait $q2; m2=$?
log "memcheck rc=$m1: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$O/memcheck.log" | tr '\n' ' ')"
log "racecheck rc=$m2: $(grep -E 'RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$O/racecheck.log" | tr '\n' ' ')"
gzip -f "$O/racecheck.log"
if command -v cuobjdump >/dev/null && [ $(el) -lt 160 ]; then  # SASS of the bf16-out 1012 kernel, main / new
  for x in main new; do
    f=$(find /tmp/b-$x -name 'gemm_w4a16_mma.cu.o' | head -1)
    timeout 5 cuobjdump -sass "$f" 2>/dev/null | awk '/Function : /{on = ($3 ~ /pc_kernel/ && $3 ~ /Li1ELi1ELi2ELi5ELb0ELi0EEELb1E/)} on' >"$O/sass1012-$x.txt"
    log "SASS 1012 $x: $(grep -cE '^ +/\*[0-9a-f]+\*/' "$O/sass1012-$x.txt") instructions, LDGSTS $(grep -c LDGSTS "$O/sass1012-$x.txt")"
    gzip -f "$O/sass1012-$x.txt"
  done
fi
log "total: $(el) s"
cat "$S"
