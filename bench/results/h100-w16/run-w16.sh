#!/usr/bin/env bash
# run-w16.sh - issue 10 at N = 7168, K = 2048 (16 x 7168 x 2048 first): where
# the flat form 412's time goes, and the flat forms with more warps per SM
# (421, 424, 442: token groups) or fewer stages (+ 10000 STX: at most 3 / 4
# k-tiles in flight, small enough for two blocks per SM), on one GPU in one
# device call (< 220 s). Run from the root of a main checkout with this
# branch's changed files in .devrun/w16/overlay (main's sources are copied
# aside first, then the overlay is applied):
#   bash .devrun/w16/overlay/kernels/gemm/run-w16.sh
# Builds (-j16, concurrently) main's mxgemmbench and this tree's mxgemmbench +
# mx_gemm_gate (kernels/gemm/standalone, 90a-real); times both binaries
# alternately at the six decode shapes (`mxgemmbench time w4a16 M N K 200 0
# COLS`, cols 0 launcher, 2000 + form), the forms at N = 7168 (FORMS_*),
# cuBLAS bf16 (torch_bench.py 50) after each round, two rounds; then the whole
# GEMM gate (each test its own process, in parallel) beside compute-sanitizer
# memcheck / racecheck on GemmGateSanitizer.W4a16Mma, and Nsight Compute
# (warp states, source counters, memory) on 30412 (NCU_COLS) at 16 x 7168 x
# 2048. Call 1 (bench/results/h100-w16/call1) ran it with FORMS_16 = 2412 2421
# 32412 42412 32212 32221 32421, FORMS_1 = 2411 32411 32211, FORMS_64 = 2418
# 2424 2442, ncu on 2412 and the SASS of 412 (STX 0).
# (A record: it ran on the device as .devrun/w16/overlay/kernels/gemm/run-w16.sh;
# moved from kernels/gemm/ to bench/results/h100-w16/ when main took the branch.)
set -uo pipefail
O=${OUT:-/tmp/w16-out}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
log "tree: main $(git rev-parse --short HEAD 2>/dev/null) + overlay: $(cd .devrun/w16/overlay && find . -type f | tr '\n' ' ')"
mkdir -p /tmp/mainsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./.gtest-src --exclude=./vectors -cf - . | tar -C /tmp/mainsrc -xf -
cp -r .devrun/w16/overlay/. ./
GT=(-DMX_GTEST_SRC="$R/.gtest-src")
CF=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real "${GT[@]}")
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
FORMS_16=${FORMS_16:-2412 32412 42412 32421}; FORMS_1=${FORMS_1:-2411 32411}
FORMS_64=${FORMS_64:-2418 32418}
for round in 1 2; do
  log "# round $round ($(el) s)"
  for shp in "16 7168 2048" "1 7168 2048" "64 7168 2048" "16 2048 7168" "1 2048 7168" "64 2048 7168"; do
    b B_main $shp 0; b B_new $shp 0
  done
  for f in $FORMS_16; do b B_new 16 7168 2048 $f; done
  for f in $FORMS_1; do b B_new 1 7168 2048 $f; done
  for f in $FORMS_64; do b B_new 64 7168 2048 $f; done
  b B_main 16 7168 2048 0
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16|64),|Error" >>"$S"
done
log "bench done: $(el) s"
if [ "${NCU:-1}" = 1 ] && [ $(el) -lt ${NCU_BY:-150} ]; then  # before the gate: nothing else on the GPU
  timeout 45 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SourceCounters --section LaunchStats --section Occupancy -k regex:w4a16_mma --launch-skip 2 -c 1 -f \
    -o /tmp/n412 $BN time w4a16 16 7168 2048 3 0 ${NCU_COLS:-32412} >/tmp/n412.log 2>&1
  log "ncu cols ${NCU_COLS:-32412} rc=$? $(el) s"
  timeout 20 ncu -i /tmp/n412.ncu-rep --page details >"$O/ncu412.txt" 2>&1
  timeout 20 ncu -i /tmp/n412.ncu-rep --page source --csv --print-source sass >"$O/src412.csv" 2>&1
  gzip -f "$O/src412.csv"
  grep -E "Duration|Elapsed Cycles|DRAM Throughput|Memory Throughput|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|L2 Hit|Mem Busy|Max Bandwidth" "$O/ncu412.txt" | sed 's/  */ /g' | tee -a "$S"
fi
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$O/memcheck.log" 2>&1 &
q1=$!
timeout 90 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 50 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$O/racecheck.log" 2>&1 &
q2=$!
# the whole gate: every test its own process (the tests are independent; 16 cores)
mkdir -p /tmp/gate; $GATE --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' >/tmp/gate/list
log "gate: $(wc -l </tmp/gate/list) tests"
xargs -P 12 -I{} sh -c "timeout 85 $GATE --gtest_filter={} >/tmp/gate/{}.log 2>&1; echo \"{} rc=\$?\" >>/tmp/gate/rc" </tmp/gate/list
for t in $(cat /tmp/gate/list); do cat /tmp/gate/$t.log; done >"$O/gate.log"
log "gate (whole binary, one process per test) $(el) s: passed $(grep -c '^\[  PASSED  \] 1 test' "$O/gate.log"), failed $(grep -c '^\[  FAILED  \] 1 test' "$O/gate.log"), skipped $(grep -c '^\[  SKIPPED' "$O/gate.log"); rc != 0: $(grep -v 'rc=0$' /tmp/gate/rc | tr '\n' ' ')"
grep -E "^\[       OK|^\[  FAILED  \] [A-Z]|Failure|Which is|w4a16 m=" "$O/gate.log" | head -40 | tee -a "$S"
if command -v cuobjdump >/dev/null; then  # SASS of 412 (bf16 out): opcode counts
  # (call 2 ran with ${SASS_STX:-3} inside the single quotes, unexpanded: no SASS came back; fixed after it)
  cuobjdump -sass "$BN" 2>/dev/null | awk -v x="W4MmaILi4ELi1ELi2ELi0ELb0ELi${SASS_STX:-3}EEELb1" '/Function : /{p = index($0, x) > 0 && /w4a16_mma_kernel/} p' >"$O/k412.sass"
  log "SASS 412 (STX ${SASS_STX:-3}): $(grep -cE '^ +/\*[0-9a-f]{4}\*/' "$O/k412.sass") instructions; $(grep -oE '(HMMA|LDS|STS|LDGSTS|HMUL2|BAR|DEPBAR|LDGDEPBAR|LEA|IMAD|LOP3|PRMT|IADD3|BRA)[.A-Z0-9]*' "$O/k412.sass" | sed 's/\..*//' | sort | uniq -c | tr '\n' ' ')"
  gzip -f "$O/k412.sass"
fi
wait $q1; m1=$?; wait $q2; m2=$?
log "memcheck rc=$m1: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$O/memcheck.log" | tr '\n' ' ')"
log "racecheck rc=$m2: $(grep -E 'RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$O/racecheck.log" | tr '\n' ' ')"
gzip -f "$O/racecheck.log"
log "total: $(el) s"
cat "$S"
