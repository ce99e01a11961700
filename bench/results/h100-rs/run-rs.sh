#!/usr/bin/env bash
# run-rs.sh - issue 10 at 64 x 2048 x 7168 (helper rs, run 15): the wgmma
# decode kernel's instruction count. One device call (< 220 s): main's
# mxgemmbench and this tree's (+ mx_gemm_gate) built side by side (90a-real,
# -j16), the decode gate's sanitizer subset as a smoke test, main / new
# alternated at the six decode shapes (launcher forms, two rounds, cuBLAS bf16
# by torch_bench.py 50 after each), then the whole GEMM gate (one process per
# test) beside compute-sanitizer memcheck / racecheck on
# GemmGateSanitizer.W4a16Small, and the SASS of the bf16-out 316 kernel of
# both trees (opcode counts; the files come back gzipped), Nsight Compute of
# the 316 kernel of both (stall reasons) if time is left.
# Run from the root of a main checkout with this branch's changed files in
# .devrun/rs/overlay:  bash .devrun/rs/overlay/kernels/gemm/run-rs.sh
# Env: FORMS (decode_cols forced at 64 x 2048 x 7168 in the new binary).
# (A record: it ran on the device as .devrun/rs/overlay/kernels/gemm/run-rs.sh,
# twice: call 1 on b55266f (the launcher's 316 with both PRMT-addressed
# tables, before FORMS and ncu were added), call 2 on 1f641f9 as here; both
# landed on an H200. Moved from kernels/gemm/ to bench/results/h100-rs/.)
set -uo pipefail
O=${OUT:-/tmp/rs-out}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" | tee -a "$S" >/dev/null; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
log "tree: main $(git rev-parse --short HEAD 2>/dev/null) + overlay: $(cd .devrun/rs/overlay && find . -type f | tr '\n' ' ')"
mkdir -p /tmp/mainsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./.gtest-src --exclude=./vectors -cf - . | tar -C /tmp/mainsrc -xf -
cp -r .devrun/rs/overlay/. ./
CF=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC="$R/.gtest-src")
{ cmake -S /tmp/mainsrc/kernels/gemm/standalone -B /tmp/b-main "${CF[@]}" && cmake --build /tmp/b-main -j16 --target mxgemmbench; } >/tmp/build-main.log 2>&1 &
p1=$!
{ cmake -S kernels/gemm/standalone -B /tmp/b-new "${CF[@]}" && cmake --build /tmp/b-new -j16 --target mxgemmbench mx_gemm_gate -- -k 0; } >/tmp/build-new.log 2>&1 &
p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
log "build main rc=$r1, new rc=$r2: $(el) s"
[ $r1 = 0 ] || tail -5 /tmp/build-main.log >>"$S"
[ $r2 = 0 ] || { grep -E "error" /tmp/build-new.log | head -20 >>"$S"; cp /tmp/build-new.log "$O/"; cat "$S"; exit 1; }
BM=$(find /tmp/b-main -name mxgemmbench -type f | head -1); BN=$(find /tmp/b-new -name mxgemmbench -type f | head -1)
GATE=$(find /tmp/b-new -name mx_gemm_gate -type f | head -1)
SAN=GemmGateSanitizer.W4a16Small
timeout 40 $GATE --gtest_filter="$SAN" >/tmp/smoke.log 2>&1; rc=$?
log "smoke ($SAN) rc=$rc: $(grep -E '^\[  PASSED|^\[  FAILED' /tmp/smoke.log | tr '\n' ' ') $(el) s"
grep -E "Failure|differ|Which is|w4a16 m=" /tmp/smoke.log | head -8 >>"$S"
[ $rc = 124 ] && { log "HANG: stop"; cat "$S"; exit 1; }
# SASS (CPU only) while the GPU times.
( for x in main new; do
    f=$(find /tmp/b-$x -name 'gemm_w4a16_decode.cu.o' | head -1)
    timeout 20 cuobjdump -sass "$f" 2>/dev/null |
      awk '/Function : /{on = ($0 ~ /w4a16_rs_kernel/ && $0 ~ /W4RsILi16ELi3ELi3ELi256E(Li1E)?EELb1E/)} on' >"$O/sass316-$x.txt"
  done ) &
q0=$!
log "## us per call (kernel,M,N,K,us,tflops), bf16 out; main = main's binary, new = this tree's; cols in ()"
b() { printf "%-4s " "$1" >>"$S"; timeout 15 ${!1} time w4a16 $2 $3 $4 200 0 $5 2>&1 | tail -1 | sed "s/^w4a16,/w4a16(cols$5),/" >>"$S"; }
B_main=$BM; B_new=$BN
SH=("64 2048 7168" "64 7168 2048" "16 2048 7168" "16 7168 2048" "1 2048 7168" "1 7168 2048")
for round in 1 2; do
  log "# round $round ($(el) s)"
  for s in "${SH[@]}"; do
    if [ $round = 1 ]; then b B_main $s 0; b B_new $s 0; else b B_new $s 0; b B_main $s 0; fi
  done
  for c in ${FORMS:-616 716}; do b B_new 64 2048 7168 $c; done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16|64),|Error" >>"$S"
done
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
grep -E "^\[  FAILED  \] [A-Z]|Failure|Which is|w4a16 m=" "$O/gate.log" | head -30 >>"$S"
wait $q1; m1=$?; wait $q2; m2=$?
log "memcheck rc=$m1: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$O/memcheck.log" | tr '\n' ' ')"
log "racecheck rc=$m2: $(grep -E 'RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$O/racecheck.log" | tr '\n' ' ')"
wait $q0
if [ "${NCU:-1}" = 1 ]; then  # stall reasons of the 316 kernel, main / new (one launch each)
  NM=smsp__inst_executed.sum,sm__cycles_active.avg
  for r in short_scoreboard mio_throttle long_scoreboard barrier wait math_pipe_throttle not_selected selected dispatch_stall lg_throttle membar no_instruction branch_resolving sleeping; do
    NM=$NM,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
  for x in main new; do
    [ $(el) -gt ${NCU_BY:-175} ] && { log "ncu $x skipped (time)"; continue; }
    B=B_$x; timeout 25 ncu --clock-control none -k regex:w4a16_rs_kernel --launch-skip 3 -c 1 --section SpeedOfLight \
      --section WarpStateStats --section SchedulerStats --metrics "$NM" ${!B} time w4a16 64 2048 7168 2 0 316 >"$O/ncu-$x.txt" 2>&1
    log "ncu $x rc=$? $(el) s: $(grep -E 'Elapsed Cycles|Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued|inst_executed|cycles_active|stalled' "$O/ncu-$x.txt" | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | tr -s ' ' | tr '\n' ';')"
  done
fi
for x in main new; do
  f=$O/sass316-$x.txt
  log "SASS 316 $x: $(grep -cE '^ +/\*[0-9a-f]+\*/' "$f") instructions; $(grep -oE '^ +/\*[0-9a-f]+\*/ +(@!?U?P[0-9T] +)?[A-Z0-9]+' "$f" | awk '{print $NF}' | sort | uniq -c | sort -rn | head -14 | awk '{printf "%s %s, ", $2, $1}')"
done
gzip -f "$O/racecheck.log" "$O/gate.log" "$O"/sass316-*.txt "$O"/ncu-*.txt 2>/dev/null
log "total: $(el) s"
cat "$S"
