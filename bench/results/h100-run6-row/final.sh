#!/usr/bin/env bash
# Final device call of helper "row" (issue 9): build the gate and mxbench
# (sm_90a, -j16) from main + this overlay; mxbench (automatic kernel choice)
# at 16384^2, 8192x7168, 128x7168, then the same binary with the rowwise
# kernel forced to the cp.async ring (= main's rowwise kernel) and to
# k_rowstream; torch's plain fp8 cast (bench/peers.py, copy + cast only);
# ncu counters of k_rowstream (mxfp8 dense) and k_amax; then the gate
# (rowwise, NVFP4 and shared suites; colwise-only suites left out) with
# compute-sanitizer memcheck + racecheck beside it, time-boxed to the call.
set -uo pipefail
O=${OUT:-$PWD/vout}; mkdir -p "$O"; T0=$(date +%s)
END=${END_S:-232}
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; } > $O/summary.txt 2>&1
cp -r .devrun/row/overlay/. ./
B=/tmp/brow
{ cmake -S bench/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$PWD/.gtest-src &&
  cmake --build $B -j16 --target mx_gpu_gate mxbench; } > $O/build.log 2>&1 || { echo "BUILD FAILED"; grep -E "error" $O/build.log | head -20; tail -20 $O/build.log; exit 1; }
echo "build: $(( $(date +%s) - T0 )) s" >> $O/summary.txt
MB=$B/kernels/bench/mxbench
{
  echo "=== auto (final)"; timeout 40 $MB --out $O/bench.csv --size 16384x16384 --size 8192x7168 --size 128x7168
  echo "=== ring (main's rowwise kernel)"; timeout 30 $MB --row-kernel ring --out $O/bench_ring.csv --size 16384x16384 --size 8192x7168 --size 128x7168 | grep -E "copy|rowwise|nvfp4|mxint8"
  echo "=== stream"; timeout 20 $MB --row-kernel stream --size 16384x16384 | grep -E "copy|rowwise|nvfp4|mxint8"
} > $O/bench.txt 2>&1
echo "bench done: $(( $(date +%s) - T0 )) s" >> $O/summary.txt
timeout 30 python3 bench/peers.py --mxbench-csv $O/bench.csv --out /tmp/peers --budget-s 12 --size 16384x16384 > /tmp/peers.log 2>&1; cp /tmp/peers/peers.md $O/peers.md 2>/dev/null || tail -20 /tmp/peers.log > $O/peers.md
echo "peers rc=$? at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
M="dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,gpu__time_duration.sum"
for k in k_rowstream k_amax k_rowwise; do
  echo "=== ncu $k (second launch)"; timeout 25 ncu --clock-control none -k regex:$k --launch-skip 1 -c 1 --metrics $M $MB --size 16384x16384 --iters 5 2>&1 | grep -vE "^(16384|8192|128)x|^==|^size|^device" | tail -24
done > $O/ncu.txt 2>&1
echo "ncu at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
gate=$B/gpu/mx_gpu_gate; ct=$(mktemp -d)
F='Recipes\.(QuantizeBytes|Container8|ChunkAndTile|PipelinedSplits|RowRing|SoftwarePath)|OptionRecipes|GpuGateLarge|GpuGateRow|GpuGateEmpty|GpuGatePoison|GpuGateErrors|GpuGatePerTensor'
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > /tmp/gate-all.txt
grep -E "$F" /tmp/gate-all.txt | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
LEFT=$(( END - ($(date +%s) - T0) )); [ $LEFT -lt 20 ] && LEFT=20
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $LEFT compute-sanitizer --tool memcheck --error-exitcode 9 "$gate" --gtest_filter="$sf" > /tmp/memcheck.log 2>&1 & mp=$!
timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > /tmp/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout $LEFT ctest -j 16 --output-on-failure) > $O/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" /tmp/gate-all.txt) of $(wc -l < /tmp/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $O/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $O/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $O/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' /tmp/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' /tmp/memcheck.log | tr '\n' ' ')"
  echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' /tmp/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' /tmp/racecheck.log | tr '\n' ' ')"
  echo "total: $(( $(date +%s) - T0 )) s"; } >> $O/summary.txt
{ echo "##### memcheck"; cat /tmp/memcheck.log; echo "##### racecheck"; cat /tmp/racecheck.log; } > $O/sanitizers.log
rm -f $O/build.log; [ $(stat -c %s $O/ctest.log) -gt 100000 ] && gzip -9 $O/ctest.log
grep -E "^16384x16384 .*(copy|rowwise|nvfp4|mxint8)" $O/bench.txt | head -40
grep -E "cast|copy" $O/peers.md 2>/dev/null | head -6
cat $O/summary.txt
