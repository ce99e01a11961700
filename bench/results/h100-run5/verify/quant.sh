#!/usr/bin/env bash
# Call A: build the quantization gate and mxbench HERE (sm_90a, -j16), then
# ctest -L gpu over every gate test, memcheck + racecheck, and mxbench.
set -uo pipefail
O=${OUT:-$PWD/vout}; mkdir -p "$O"; T0=$(date +%s)
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; git log --oneline -1 2>/dev/null; } > $O/summary.txt 2>&1
B=/tmp/bq
{ cmake -S bench/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$PWD/.gtest-src &&
  cmake --build $B -j16 --target mx_gpu_gate mxbench; } > $O/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $O/build.log; exit 1; }
echo "build: $(( $(date +%s) - T0 )) s" >> $O/summary.txt
gate=$B/gpu/mx_gpu_gate; ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout 200 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/memcheck.log 2>&1 & mp=$!
timeout 200 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout 200 ctest -L gpu -j 16 --output-on-failure) > $O/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate (ctest -L gpu -j 16) rc=$grc in $(( $(date +%s) - tg )) s; memcheck rc=$mrc racecheck rc=$rrc"
  grep -E "tests passed|tests failed" $O/ctest.log; echo "skipped: $(grep -c 'Skipped' $O/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout" $O/ctest.log | head -20
  echo "memcheck: $(grep 'ERROR SUMMARY' $O/memcheck.log | tail -1)"
  echo "racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/racecheck.log | tail -1)"; } >> $O/summary.txt
timeout 40 $B/kernels/bench/mxbench --out $O/bench.csv --size 16384x16384 --size 8192x7168 --size 128x7168 > $O/bench.txt 2>&1
echo "mxbench rc=$? at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
gzip -9 $O/ctest.log $O/build.log
cat $O/summary.txt
