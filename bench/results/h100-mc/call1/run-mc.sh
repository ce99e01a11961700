#!/usr/bin/env bash
# run-mc.sh - issue 10, w4a16 decode at M = 64 / 16 on N = 2048 with clusters
# that copy A once per cluster (branch wip/mc, run 15 mc). One device call:
# main's mxgemmbench and this tree's built in the same call; the cluster
# sanitizer cases as a smoke test; the whole GEMM gate (one process per test)
# beside compute-sanitizer memcheck / racecheck on GemmGateSanitizer.
# W4a16MmaCluster; then both binaries alternated at every decode shape (M = 1,
# 16, 64 x N = 2048 / 7168), the new forms forced (cols 2000 + form), cuBLAS
# bf16 (torch_bench.py 50) after each round, two rounds (the second if time is
# left); Nsight Compute L2 figures of 724 / 200724 if time is left.
# Run from the root of a main checkout with this branch's changed files in
# .devrun/mc/overlay:  bash .devrun/mc/overlay/kernels/gemm/run-mc.sh
set -uo pipefail
O=${OUT:-/tmp/mc-out}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
log "tree: main $(git rev-parse --short HEAD 2>/dev/null) + overlay: $(cd .devrun/mc/overlay && find . -type f | tr '\n' ' ')"
mkdir -p /tmp/mainsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./.gtest-src --exclude=./vectors -cf - . | tar -C /tmp/mainsrc -xf -
cp -r .devrun/mc/overlay/. ./
CF=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC="$R/.gtest-src")
{ cmake -S /tmp/mainsrc/kernels/gemm/standalone -B /tmp/b-main "${CF[@]}" && cmake --build /tmp/b-main -j8 --target mxgemmbench; } >/tmp/build-main.log 2>&1 &
p1=$!
{ cmake -S kernels/gemm/standalone -B /tmp/b-new "${CF[@]}" && cmake --build /tmp/b-new -j12 --target mxgemmbench mx_gemm_gate; } >/tmp/build-new.log 2>&1 &
p2=$!
wait $p2; r2=$?
log "build new rc=$r2: $(el) s"
[ $r2 = 0 ] || { grep -E "error" /tmp/build-new.log | head -20 | tee -a "$S"; exit 1; }
BN=$(find /tmp/b-new -name mxgemmbench -type f | head -1)
GATE=$(find /tmp/b-new -name mx_gemm_gate -type f | head -1)
SAN=GemmGateSanitizer.W4a16MmaCluster
timeout 40 $GATE --gtest_filter="$SAN" >/tmp/smoke.log 2>&1; rc=$?
log "smoke ($SAN) rc=$rc: $(grep -E '^\[  PASSED|^\[  FAILED' /tmp/smoke.log | tr '\n' ' ') $(el) s"
grep -E "Failure|differ|Which is|w4a16 m=|what|rror" /tmp/smoke.log | head -8 | tee -a "$S"
[ $rc = 124 ] && { log "HANG: stop"; exit 1; }
# the gate and the sanitizers while main's benchmark builds (correctness only: nothing is timed meanwhile)
timeout 70 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$O/memcheck.log" 2>&1 &
q1=$!
timeout 70 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 50 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$O/racecheck.log" 2>&1 &
q2=$!
mkdir -p /tmp/gate; $GATE --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' >/tmp/gate/list
log "gate: $(wc -l </tmp/gate/list) tests"
xargs -P 12 -I{} sh -c "timeout 80 $GATE --gtest_filter={} >/tmp/gate/{}.log 2>&1; echo \"{} rc=\$?\" >>/tmp/gate/rc" </tmp/gate/list
for t in $(cat /tmp/gate/list); do cat /tmp/gate/$t.log; done >"$O/gate.log"
log "gate (whole binary, one process per test) $(el) s: passed $(grep -c '^\[  PASSED  \] 1 test' "$O/gate.log"), failed $(grep -c '^\[  FAILED  \] 1 test' "$O/gate.log"), skipped $(grep -c '^\[  SKIPPED' "$O/gate.log"); rc != 0: $(grep -v 'rc=0$' /tmp/gate/rc | tr '\n' ' ')"
grep -E "^\[  FAILED  \] [A-Z]|Failure|Which is|w4a16 m=" "$O/gate.log" | head -30 | tee -a "$S"
wait $q1; m1=$?; wait $q2; m2=$?
log "memcheck rc=$m1: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$O/memcheck.log" | tr '\n' ' ')"
log "racecheck rc=$m2: $(grep -E 'RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$O/racecheck.log" | tr '\n' ' ')"
gzip -f "$O/racecheck.log"
wait $p1; r1=$?
log "build main rc=$r1: $(el) s"
[ $r1 = 0 ] || tail -5 /tmp/build-main.log >>"$S"
BM=$(find /tmp/b-main -name mxgemmbench -type f | head -1)
log "## us per call (kernel,M,N,K,us,tflops), bf16 out; main = main's binary, new = this tree's; cols 0 launcher, 2000 + form"
b() { printf "%-4s " "$1" >>"$S"; timeout 15 ${!1} time w4a16 $2 $3 $4 200 0 $5 2>&1 | tail -1 | sed "s/^w4a16,/w4a16(cols$5),/" >>"$S"; }
B_main=$BM; B_new=$BN
for round in 1 2; do
  [ $round = 2 ] && [ $(el) -gt ${R2_BY:-175} ] && { log "round 2 skipped (time)"; break; }
  log "# round $round ($(el) s)"
  for shp in "64 2048 7168" "16 2048 7168" "1 2048 7168" "64 7168 2048" "16 7168 2048" "1 7168 2048"; do
    b B_main $shp 0; b B_new $shp 0
  done
  for f in 2724 2742 202724 402724 202742 402742; do b B_new 64 2048 7168 $f; done
  for f in 203012 403012; do b B_new 16 2048 7168 $f; done
  b B_new 64 7168 2048 202724
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16|64),|Error" >>"$S"
done
log "bench done: $(el) s"
if [ $(el) -lt ${NCU_BY:-178} ]; then  # L2 -> SM traffic of 724 and 200724 at 64 x 2048 x 7168 (one launch each)
  for f in 2724 202724; do
    timeout 18 ncu --clock-control none --section SpeedOfLight --metrics lts__t_sectors_srcunit_tex.sum,lts__t_bytes.sum.per_second \
      -k regex:w4a16_mma --launch-skip 2 -c 1 $BN time w4a16 64 2048 7168 3 0 $f >"$O/ncu$f.txt" 2>&1
    grep -E "Duration|Elapsed Cycles|L2 Cache Throughput|DRAM Throughput|lts__t" "$O/ncu$f.txt" | sed 's/  */ /g' | sed "s/^/$f /" | tee -a "$S"
  done
fi
log "total: $(el) s"
cat "$S"
