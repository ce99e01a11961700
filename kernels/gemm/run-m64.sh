#!/usr/bin/env bash
# run-m64.sh - issue 10 at M = 64 (helper m64), one device call: build main's
# mxgemmbench (kernels/gemm/standalone, 90a-real, -j16), copy it aside, apply
# the overlay (.devrun/m64/overlay), rebuild mxgemmbench + mx_gemm_gate, time
# both binaries alternately at the six decode shapes (+ this branch's decode
# forms at the M = 64 shapes), cuBLAS bf16 (torch_bench.py, CUDA graph) in the
# same call, Nsight Compute of the decode kernel at 64 x 2048 x 7168, then the
# decode gate cases beside memcheck / racecheck. Summary last in $OUT/summary.txt.
# Usage (repository root, main's tree): OUT=<dir> bash .devrun/m64/overlay/kernels/gemm/run-m64.sh
# Env: FORMS (decode_cols forced at the M = 64 shapes), NCU_COLS (forms profiled), GATE_FILTER.
set -uo pipefail
O=${OUT:-/tmp/m64}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"; R=$PWD; GB=/tmp/m64-build
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" >>"$S"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$S" 2>&1
cfg() { cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real \
  -DMX_GTEST_SRC=$R/.gtest-src >/dev/null; }
{ cfg && cmake --build $GB -j 16 --target mxgemmbench; } >"$O/build.log" 2>&1 || { log "MAIN BUILD FAILED"; tail -20 "$O/build.log" >>"$S"; exit 1; }
cp "$(find $GB -name mxgemmbench -type f | head -1)" /tmp/bench_main; log "main built $(el) s"
cp -r .devrun/m64/overlay/. ./
{ cfg && cmake --build $GB -j 16 --target mxgemmbench mx_gemm_gate; } >>"$O/build.log" 2>&1 ||
  { log "BUILD FAILED"; grep -E "error|FAILED" "$O/build.log" | head -20 >>"$S"; exit 1; }
NEW=$(find $GB -name mxgemmbench -type f | head -1); GATE=$(find $GB -name mx_gemm_gate -type f | head -1)
log "branch built $(el) s"
t() { printf "%s %-6s %s " "$1" "$2" "$3" >>"$S"; timeout 20 $1 time w4a16 $2 200 0 $3 2>&1 | tail -1 | cut -d, -f2- >>"$S"; }
SH=("1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" "64 7168 2048" "64 2048 7168")
for round in 1 2; do
  log "## round $round (binary shape cols: M,N,K,us,TFLOP/s)"
  for s in "${SH[@]}"; do [ $round = 2 ] && [ "${s%% *}" != 64 ] && continue; t /tmp/bench_main "$s" 0; t "$NEW" "$s" 0; done
  for c in ${FORMS:-1016 316 516 16 1032}; do t "$NEW" "64 2048 7168" $c; done
  for c in ${FORMS7:-2418 1064}; do t "$NEW" "64 7168 2048" $c; done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,(1|16|64)," >>"$S"
  log "round $round done $(el) s"
done
F=${GATE_FILTER:-GemmGate.W4a16DecodeKernel:GemmGateSanitizer.W4a16Small:GemmGate.Errors}
SAN=GemmGateSanitizer.W4a16Small
timeout ${GT:-60} compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter=$SAN >"$O/memcheck.log" 2>&1 & p1=$!
timeout ${GT:-60} compute-sanitizer --tool racecheck --racecheck-report hazard --error-exitcode 9 $GATE --gtest_filter=$SAN >"$O/racecheck.log" 2>&1 & p2=$!
timeout ${GT:-60} $GATE --gtest_filter=$F >"$O/gate.log" 2>&1
log "gate rc=$? $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED|^\[       OK' "$O/gate.log" | tr '\n' ' ')"
grep -E "Failure|w4a16 m=" "$O/gate.log" | head -6 >>"$S"
wait $p1; log "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$O/memcheck.log" | tail -1) $(grep -cE '^\[       OK' "$O/memcheck.log") ok"
wait $p2; log "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY' "$O/racecheck.log" | tail -1) $(grep -cE '^\[       OK' "$O/racecheck.log") ok"
if [ "${NCU:-1}" = 1 ]; then
  for c in ${NCU_COLS:-1016 516}; do
    [ $(el) -gt ${NCU_BY:-175} ] && { log "ncu $c skipped (time)"; continue; }
    timeout 30 ncu --clock-control none -k regex:w4a16_rs_kernel --launch-skip 3 -c 1 --section SpeedOfLight \
      --section WarpStateStats --section SchedulerStats --section SourceCounters \
      "$NEW" time w4a16 64 2048 7168 2 0 $c >"$O/ncu_$c.txt" 2>&1
    log "ncu $c rc=$? $(el) s: $(grep -E 'Elapsed Cycles|Executed Ipc A|No Eligible|Warp Cycles Per Issued' "$O/ncu_$c.txt" | tr -s ' ' | tr '\n' ';')"
  done
  command -v cuobjdump >/dev/null && cuobjdump -sass "$NEW" 2>/dev/null |
    awk '/Function : /{p = ($0 ~ /w4a16_rs_kernel.*W4RsILi16ELi2ELi4ELi256EEELb1E/)} p' >"$O/rs16.sass"
fi
gzip -9 "$O/racecheck.log" "$O/build.log"
log "end $(el) s"
cat "$S"
