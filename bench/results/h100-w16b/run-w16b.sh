#!/usr/bin/env bash
# run-w16b.sh - issue 10, the decode shapes left by run 14 w16: main's
# mxgemmbench and this tree's built in the same device call (< 200 s), both
# alternated at every decode shape (M = 1, 16, 64 x N = 7168 / 2048, and the
# producer forms' M = 8, 32 at N = 2048), the five-producer forms 1012 / 5012
# forced at 16 x 2048 x 7168 (cols 3012, 7012), cuBLAS bf16 (torch_bench.py
# 50) after each round, two rounds (call 1: h100-w16b, 159 s); then the whole GEMM gate (one process per test) beside
# compute-sanitizer memcheck / racecheck on GemmGateSanitizer.W4a16Mma, the
# SASS size of the forms in both binaries, and (if time is left) Nsight
# Compute source counters of 812 at 16 x 2048 x 7168. A trimmed run-w16.sh.
# Run from the root of a main checkout with this branch's changed files in
# .devrun/w16b/overlay:  bash .devrun/w16b/overlay/kernels/gemm/run-w16b.sh
# (A record: it ran on the device as .devrun/w16b/overlay/kernels/gemm/run-w16b.sh;
# moved from kernels/gemm/ to bench/results/h100-w16b/ when main took the branch.)
set -uo pipefail
O=${OUT:-/tmp/w16b-out}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
log "tree: main $(git rev-parse --short HEAD 2>/dev/null) + overlay: $(cd .devrun/w16b/overlay && find . -type f | tr '\n' ' ')"
mkdir -p /tmp/mainsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./.gtest-src --exclude=./vectors -cf - . | tar -C /tmp/mainsrc -xf -
cp -r .devrun/w16b/overlay/. ./
CF=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC="$R/.gtest-src")
{ cmake -S /tmp/mainsrc/kernels/gemm/standalone -B /tmp/b-main "${CF[@]}" && cmake --build /tmp/b-main -j16 --target mxgemmbench; } >/tmp/build-main.log 2>&1 &
p1=$!
{ cmake -S kernels/gemm/standalone -B /tmp/b-new "${CF[@]}" && cmake --build /tmp/b-new -j16 --target mxgemmbench mx_gemm_gate; } >/tmp/build-new.log 2>&1 &
p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
log "build main rc=$r1, new rc=$r2: $(el) s"
[ $r1 = 0 ] || tail -5 /tmp/build-main.log >>"$S"
[ $r2 = 0 ] || { grep -E "error" /tmp/build-new.log | head -20 | tee -a "$S"; exit 1; }
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
  for shp in "16 2048 7168" "64 7168 2048" "1 2048 7168" "16 7168 2048" "1 7168 2048" "64 2048 7168" "8 2048 7168" "32 2048 7168"; do
    b B_main $shp 0; b B_new $shp 0
  done
  b B_new 16 2048 7168 3012; b B_new 16 2048 7168 7012  # 5 producers, 16 tokens (4 scale-table copies)
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
grep -E "^\[  FAILED  \] [A-Z]|Failure|Which is|w4a16 m=" "$O/gate.log" | head -30 | tee -a "$S"
wait $q1; m1=$?; wait $q2; m2=$?
log "memcheck rc=$m1: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$O/memcheck.log" | tr '\n' ' ')"
log "racecheck rc=$m2: $(grep -E 'RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$O/racecheck.log" | tr '\n' ' ')"
gzip -f "$O/racecheck.log"
if command -v cuobjdump >/dev/null; then  # SASS instructions per bf16-out mma kernel, main / new
  for x in main new; do
    f=$(find /tmp/b-$x -name 'gemm_w4a16_mma.cu.o' | head -1)
    # (this pattern stops at 4096: addresses of 5 hex digits are not matched; call 1 ran with it)
    cuobjdump -sass "$f" 2>/dev/null | awk -v tag=$x '/Function : /{fn=$3} /^ +\/\*[0-9a-f]{4}\*\//{n[fn]++} END{for(k in n) if (k ~ /Lb1EEEvN/) print tag, n[k], k}'
  done | sed -E 's/_ZN3mxk4gemm[0-9]+_GLOBAL__N__[0-9a-f_]+gemm_w4a16_mma_cu_[0-9a-f]+//' | sort -k3 >"$O/sass-counts.txt"
  log "SASS (instructions, main / new): $(grep -E 'ILi1ELi1ELi2ELi3ELb0ELi0E|ILi1ELi1ELi1ELi6ELb1ELi0E|ILi4ELi1ELi8ELi0ELb0ELi0E' "$O/sass-counts.txt" | awk '{print $1, $2}' | tr '\n' ' ') (812, 5111, 418 in name order)"
fi
if [ $(el) -lt ${NCU_BY:-150} ]; then
  timeout 25 ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SourceCounters \
    -k regex:w4a16_mma --launch-skip 2 -c 1 -f -o /tmp/n812 $BN time w4a16 16 2048 7168 3 0 2812 >/tmp/n812.log 2>&1
  log "ncu 812 rc=$? $(el) s"
  timeout 10 ncu -i /tmp/n812.ncu-rep --page details >"$O/ncu812.txt" 2>&1
  timeout 10 ncu -i /tmp/n812.ncu-rep --page source --csv --print-source sass >"$O/src812.csv" 2>&1
  gzip -f "$O/src812.csv"
  grep -E "Duration|Elapsed Cycles|DRAM Throughput|Warp Cycles Per Issued|Registers Per" "$O/ncu812.txt" | sed 's/  */ /g' | tee -a "$S"
fi
log "total: $(el) s"
cat "$S"
