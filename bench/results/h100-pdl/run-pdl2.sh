#!/usr/bin/env bash
# run-pdl2.sh - run 15 lead, second call: the final PDL rule (no PDL for the
# flat forms of at most STX stages): the mma.sync gate tests, memcheck and
# racecheck on GemmGateSanitizer.W4a16Mma, and the decode shapes once.
set -uo pipefail
O=${OUT:-/tmp/pdl2}; mkdir -p $O; S=$O/summary.txt; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
cp -r .devrun/pdl/overlay/. ./
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S 2>&1
B=.gpu-bin/pdl; gt=-DMX_GTEST_SRC=$PWD/.gtest-src
{ cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $B -j 16 --target mx_gemm_gate mxgemmbench; } > $O/build.log 2>&1; echo "== build rc=$? at $(el) s" >> $S
G=$(find $B -name mxgemmbench -type f | head -1); gg=$(find $B -name mx_gemm_gate -type f | head -1)
[ -x "$G" ] && [ -x "$gg" ] || { tail -30 $O/build.log >> $S; cat $S; exit 1; }
for shp in "1 7168 2048" "16 7168 2048" "16 2048 7168" "64 7168 2048"; do timeout 10 $G time w4a16 $shp 200 2>&1; done > $O/bench.txt
echo "== bench at $(el) s" >> $S
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter=GemmGateSanitizer.W4a16Mma > $O/mem.log 2>&1 & p1=$!
timeout 60 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter=GemmGateSanitizer.W4a16Mma > $O/race.log 2>&1 & p2=$!
timeout 60 $gg --gtest_filter='GemmGate.W4a16Mma*:GemmGate.W4a16DecodeAndLargeTiles:GemmGate.Errors' > $O/gate.log 2>&1; g=$?
wait $p1; m=$?; wait $p2; r=$?
echo "== gate rc=$g at $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED|tests? ran' $O/gate.log | tr '\n' ' ')" >> $S
echo "memcheck rc=$m $(grep 'ERROR SUMMARY' $O/mem.log | tail -1); racecheck rc=$r $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/race.log | tail -1)" >> $S
cat $O/bench.txt >> $S; rm -f $O/build.log; cat $S
