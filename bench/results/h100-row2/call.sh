#!/usr/bin/env bash
# Device call of helper "row2" (issue 9, run 8): build the gate and mxbench
# (sm_90a, -j16) from main + this overlay, then, time-boxed to the call:
#   1. mxbench rowwise cases at 16384^2, 8192x7168, 128x7168 (automatic
#      choice), then probes: --ring-order chunks|rows, --nvfp4-pass two|one,
#      --split 1|2|4 for MXFP4 at 8192x7168;
#   2. ncu counters (k_rowwise MXFP4 at both large sizes, k_amax, one pass);
#   3. the gate (GATE_RE selects tests) beside compute-sanitizer memcheck +
#      racecheck on GpuGateSanitizer.*:GpuGateErrors.*;
#   4. PEERS=1: bench/peers.py (torch's plain fp8 cast) in the same call.
# Everything lands in $OUT; summary.txt is read first.
set -uo pipefail
O=${OUT:-$PWD/vout}; mkdir -p "$O"; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-232}
S=$O/summary.txt
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; } > $S 2>&1
cp -r .devrun/row2/overlay/. ./
B=/tmp/brow2
{ cmake -S bench/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$PWD/.gtest-src &&
  cmake --build $B -j16 --target mx_gpu_gate mxbench; } > $O/build.log 2>&1 || { echo "BUILD FAILED" | tee -a $S; grep -E "error" $O/build.log | head -30 | tee -a $S; exit 1; }
echo "build: $(el) s" >> $S
MB=$B/kernels/bench/mxbench
L=/tmp/b8; A="--size 16384x16384 --size 8192x7168 --size 128x7168"
{
  echo "=== auto"; timeout 40 $MB --out $O/bench.csv --only rowwise $A
  echo "=== ring-order ${RING_ALT:-rows}"; timeout 25 $MB --ring-order ${RING_ALT:-rows} --only tcgen05 --size 16384x16384 --size 8192x7168 | grep -E "copy|rowwise"
  echo "=== row-kernel ring (dense too)"; timeout 25 $MB --row-kernel ring --only dense --size 16384x16384 --size 8192x7168 | grep -E "copy|rowwise"
  echo "=== nvfp4-pass two (128x7168)"; timeout 10 $MB --nvfp4-pass two --only nvfp4 --size 128x7168
  echo "=== nvfp4-pass one (128x7168, again)"; timeout 10 $MB --nvfp4-pass one --only nvfp4 --size 128x7168
  echo "=== auto again (128x7168)"; timeout 10 $MB --only rowwise --size 128x7168
  for sp in ${SPLITS:-}; do echo "=== split $sp (8192x7168)"; timeout 10 $MB --split $sp --only mxfp4 --size 8192x7168; done
} > $O/bench.txt 2>&1
echo "bench done: $(el) s" >> $S
if [ "${PEERS:-0}" = 1 ]; then
  timeout 40 python3 bench/peers.py --mxbench-csv $O/bench.csv --out /tmp/peers --budget-s 25 --size 16384x16384 > /tmp/peers.log 2>&1
  cp /tmp/peers/peers.md $O/peers.md 2>/dev/null || tail -20 /tmp/peers.log > $O/peers.md
  echo "peers at $(el) s" >> $S
fi
M="dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__waves_per_multiprocessor,gpu__time_duration.sum"
ncu1() { # kernel-regex case-substring size
  echo "=== ncu $1 ($2, $3, second launch)"
  timeout ${NCU_S:-18} ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --metrics $M $MB --only "$2" --size $3 --iters 5 2>&1 | grep -vE "^(16384|8192|128)x|^==PROF==|^size|^device" | tail -16
}
if [ "${NCU:-1}" = 2 ]; then  # the final call: the changed kernels only
  { ncu1 k_nvfp4_one_pass "nvfp4 rowwise" 128x7168; ncu1 k_rowwise "mxfp8_e4m3 rowwise tcgen05" 16384x16384
    ncu1 k_rowwise "nvfp4 rowwise" 16384x16384; } > $O/ncu.txt 2>&1
  echo "ncu at $(el) s" >> $S
elif [ "${NCU:-1}" = 1 ]; then
  { ncu1 k_rowwise "mxfp4 rowwise" 8192x7168; ncu1 k_rowwise "mxfp4 rowwise" 16384x16384
    ncu1 k_rowwise "mxfp8_e4m3 rowwise tcgen05" 8192x7168
    ncu1 k_amax "nvfp4 rowwise" 16384x16384; ncu1 k_rowwise "nvfp4 rowwise" 16384x16384
    ncu1 k_nvfp4_one_pass "nvfp4 rowwise" 128x7168; } > $O/ncu.txt 2>&1
  echo "ncu at $(el) s" >> $S
fi
gate=$B/gpu/mx_gpu_gate; ct=$(mktemp -d)
F=${GATE_RE:-'GpuGateRow|GpuGateSanitizer|GpuGateLarge|GpuGateEmpty|GpuGatePoison|GpuGateErrors|GpuGatePerTensor|Recipes\.(QuantizeBytes|RowRing|PipelinedSplits)'}
FIRST='GpuGateRow|GpuGateSanitizer|GpuGateLarge|nvfp4|GpuGatePerTensor|Recipes\.(QuantizeBytes|RowRing|PipelinedSplits)'
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > /tmp/gate-all.txt
{ grep -E "$F" /tmp/gate-all.txt | grep -E "$FIRST"; grep -E "$F" /tmp/gate-all.txt | grep -vE "$FIRST"; } | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
LEFT=$(( END - $(el) )); [ $LEFT -lt 20 ] && LEFT=20
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $LEFT compute-sanitizer --tool memcheck --error-exitcode 9 "$gate" --gtest_filter="$sf" > /tmp/memcheck.log 2>&1 & mp=$!
timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > /tmp/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout $LEFT ctest -j ${GATE_J:-14} --output-on-failure) > $O/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" /tmp/gate-all.txt) of $(wc -l < /tmp/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $O/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $O/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $O/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' /tmp/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' /tmp/memcheck.log | tr '\n' ' ')"
  echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' /tmp/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' /tmp/racecheck.log | tr '\n' ' ')"
  echo "total: $(el) s"; } >> $S
{ echo "##### memcheck"; tail -60 /tmp/memcheck.log; echo "##### racecheck"; tail -60 /tmp/racecheck.log; } > $O/sanitizers.log
rm -f $O/build.log; [ $(stat -c %s $O/ctest.log) -gt 100000 ] && gzip -9 $O/ctest.log
grep -E "copy|rowwise|nvfp4|mxint8|===" $O/bench.txt | head -70
cat $S
