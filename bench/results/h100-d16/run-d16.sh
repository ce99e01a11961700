#!/usr/bin/env bash
# run-d16.sh - issue 10 at 16 x 2048 x 7168: the 6-producer form with A apart
# from the stages (5112, 1112; gemm_w4a16_mma.cu MmaLayout::ASEP, in commit
# 8505ed9 of branch wip/d16 only: measured slower and reverted, so the forced
# forms 7112 / 3112 below exist only with that commit's sources) against
# main's, on one GPU in one device call (< 200 s). Run from the root of a main
# checkout with this branch's changed files in .devrun/d16/overlay (main's
# sources are copied aside first, then the overlay is applied):
#   bash .devrun/d16/overlay/kernels/gemm/run-d16.sh
# Builds (-j16, concurrently) main's mxgemmbench and this tree's mxgemmbench +
# mx_gemm_gate (kernels/gemm/standalone, 90a-real); times both binaries
# alternately (two rounds; `mxgemmbench time w4a16 M N K 200 0 COLS`, cols 0
# launcher, 2000 + form) at 16 x 2048 x 7168 (launchers, 5112, 1112, 812
# forced), 1 x 2048 x 7168 and 16 x 7168 x 2048, cuBLAS bf16 (torch_bench.py
# 50) after each round; then the whole GEMM gate (each test its own process,
# in parallel) beside compute-sanitizer memcheck / racecheck on
# GemmGateSanitizer.W4a16Mma; Nsight Compute on 5112 / 812 if time is left.
# (Kept under bench/results/h100-d16/ as the record of the call; it ran as
# kernels/gemm/run-d16.sh from the overlay of branch wip/d16, commit 8505ed9.)
set -uo pipefail
O=${OUT:-/tmp/d16-out}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
log "tree: main $(git rev-parse --short HEAD 2>/dev/null) + overlay: $(cd .devrun/d16/overlay && find . -type f | tr '\n' ' ')"
mkdir -p /tmp/mainsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./.gtest-src --exclude=./vectors -cf - . | tar -C /tmp/mainsrc -xf -
cp -r .devrun/d16/overlay/. ./
GT=(-DMX_GTEST_SRC="$R/.gtest-src")
CF=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real "${GT[@]}")
{ cmake -S /tmp/mainsrc/kernels/gemm/standalone -B /tmp/b-main "${CF[@]}" && cmake --build /tmp/b-main -j16 --target mxgemmbench; } >/tmp/build-main.log 2>&1 &
p1=$!
{ cmake -S kernels/gemm/standalone -B /tmp/b-new "${CF[@]}" && cmake --build /tmp/b-new -j16 --target mxgemmbench mx_gemm_gate; } >"$O/build.log" 2>&1 &
p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
log "build main rc=$r1, new rc=$r2: $(el) s"
[ $r1 = 0 ] || tail -5 /tmp/build-main.log >>"$S"
[ $r2 = 0 ] || { grep -E "error" "$O/build.log" | head -20 | tee -a "$S"; exit 1; }
BM=$(find /tmp/b-main -name mxgemmbench -type f | head -1); BN=$(find /tmp/b-new -name mxgemmbench -type f | head -1)
GATE=$(find /tmp/b-new -name mx_gemm_gate -type f | head -1)
SAN=GemmGateSanitizer.W4a16Mma
timeout 40 $GATE --gtest_filter="$SAN" >/tmp/smoke.log 2>&1; rc=$?
log "smoke ($SAN) rc=$rc: $(grep -E '^\[  PASSED|^\[  FAILED' /tmp/smoke.log | tr '\n' ' ') $(el) s"
grep -E "Failure|differ|Which is|w4a16 m=" /tmp/smoke.log | head -8 | tee -a "$S"
[ $rc = 124 ] && { log "HANG: stop"; exit 1; }
log "## us per call (kernel,M,N,K,us,tflops), bf16 out; main = main's binary, new = this tree's; cols 0 launcher, 2000 + form"
b() { printf "%-4s " "$1" >>"$S"; timeout 15 ${!1} time w4a16 $2 $3 $4 200 0 $5 2>&1 | tail -1 | sed "s/^w4a16,/w4a16(cols$5),/" >>"$S"; }
B_main=$BM; B_new=$BN
for round in 1 2; do
  log "# round $round ($(el) s)"
  b B_main 16 2048 7168 0; b B_new 16 2048 7168 0; b B_new 16 2048 7168 7112; b B_new 16 2048 7168 3112
  b B_new 16 2048 7168 2812; b B_main 16 2048 7168 0
  for shp in "1 2048 7168" "16 7168 2048"; do b B_main $shp 0; b B_new $shp 0; done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16),|Error" >>"$S"
done
log "bench done: $(el) s"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$O/memcheck.log" 2>&1 &
q1=$!
timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 50 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$O/racecheck.log" 2>&1 &
q2=$!
# the whole gate: every test its own process (the tests are independent; 16 cores)
mkdir -p /tmp/gate; $GATE --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' >/tmp/gate/list
log "gate: $(wc -l </tmp/gate/list) tests"
xargs -P 12 -I{} sh -c "timeout 110 $GATE --gtest_filter={} >/tmp/gate/{}.log 2>&1; echo \"{} rc=\$?\" >>/tmp/gate/rc" </tmp/gate/list
for t in $(cat /tmp/gate/list); do cat /tmp/gate/$t.log; done >"$O/gate.log"
log "gate (whole binary, one process per test) $(el) s: passed $(grep -c '^\[  PASSED  \] 1 test' "$O/gate.log"), failed $(grep -c '^\[  FAILED  \] 1 test' "$O/gate.log"), skipped $(grep -c '^\[  SKIPPED' "$O/gate.log"); rc != 0: $(grep -v 'rc=0$' /tmp/gate/rc | tr '\n' ' ')"
grep -E "^\[       OK|^\[  FAILED  \] [A-Z]|Failure|Which is|w4a16 m=" "$O/gate.log" | head -40 | tee -a "$S"
if [ "${NCU:-1}" = 1 ] && [ $(el) -lt ${NCU_BY:-150} ]; then
  M="sm__cycles_elapsed.max,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,gpu__time_duration.sum"
  for f in 7112 2812; do
    echo "=== ncu 16 2048 7168 cols $f" >>"$O/ncu.txt"
    timeout 25 ncu --clock-control none -k regex:w4a16_mma --launch-skip 3 -c 1 --metrics $M $BN time w4a16 16 2048 7168 5 0 $f 2>&1 |
      grep -E "cycles|inst_executed|stalled|duration" >>"$O/ncu.txt"
  done
  sed 's/  */ /g' "$O/ncu.txt" >>"$S"
fi
wait $q1; m1=$?; wait $q2; m2=$?
log "memcheck rc=$m1: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$O/memcheck.log" | tr '\n' ' ')"
log "racecheck rc=$m2: $(grep -E 'RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$O/racecheck.log" | tr '\n' ' ')"
gzip -f "$O/racecheck.log"
log "total: $(el) s"
cat "$S"
