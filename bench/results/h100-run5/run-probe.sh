#!/usr/bin/env bash
# quant session (issue 9): mxbench (new, optionally before) + short ncu/SASS, then gate + sanitizers, in one call.
# env: GATE=1 GATE_FILTER BEFORE=0/1 NCU=0/1 NCU_K SASS_K PEERS=0/1
set -uo pipefail
D=.devrun/quant
OO=${OUT:-$PWD/qout}; O=/tmp/qo; mkdir -p "$OO" $O
B=/tmp/qb; mkdir -p $B
tar -C $B -xzf $D/bins.tar.gz && gunzip -c $D/mxbench_before.gz > $B/mxbench_before && chmod +x $B/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $O/device.txt 2>&1
t0=$(date +%s)
sz="--size 16384x16384 --size 8192x7168 --size 128x7168"
timeout ${BENCH_S:-40} $B/mxbench --out $O/bench.csv $sz > $O/bench.txt 2>&1; echo "bench rc=$? t=$(( $(date +%s) - t0 ))s" | tee -a $O/summary.txt
if [ "${BEFORE:-0}" = "1" ]; then
  timeout ${BENCH_S:-40} $B/mxbench_before --out $O/bench_before.csv $sz > $O/bench_before.txt 2>&1; echo "before rc=$? t=$(( $(date +%s) - t0 ))s" | tee -a $O/summary.txt
fi
for sp in ${SPLITS:-}; do
  timeout 20 $B/mxbench --size 16384x16384 --split $sp > $O/bench_split$sp.txt 2>&1; echo "split $sp rc=$? t=$(( $(date +%s) - t0 ))s" | tee -a $O/summary.txt
done
if [ "${PEERS:-0}" = "1" ]; then
  mkdir -p $O/peers
  PYTHONUNBUFFERED=1 timeout ${PEERS_S:-60} python3 bench/peers.py --mxbench-csv $O/bench.csv --out $O/peers --size 16384x16384 --size 8192x7168 --budget-s $(( ${PEERS_S:-60} - 8 )) > $O/peers/peers.txt 2>&1
  echo "peers rc=$? t=$(( $(date +%s) - t0 ))s" | tee -a $O/summary.txt
fi
for k in ${SASS_K:-}; do
  cuobjdump -sass -fun "$k" $B/mxbench > $O/sass_${k:0:40}.txt 2>&1
  echo "== $k" >> $O/sass_hist.txt
  grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+" $O/sass_${k:0:40}.txt | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -40 >> $O/sass_hist.txt
done
if [ "${NCU:-0}" = "1" ]; then
  for k in ${NCU_K:-k_rowwise}; do
    timeout ${NCU_S:-14} ncu --clock-control none --kernel-name-base mangled -k "regex:$k" -c 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section ComputeWorkloadAnalysis --section SchedulerStats --section InstructionStats \
      $B/mxbench --size 16384x16384 --iters 5 >> $O/ncu.txt 2>&1 || echo "ncu $k rc=$?" >> $O/ncu.txt
  done
  echo "ncu t=$(( $(date +%s) - t0 ))s" | tee -a $O/summary.txt
fi
if [ "${GATE:-1}" = "1" ]; then
  gate=$B/mx_gpu_gate
  ct=$(mktemp -d)
  "$gate" --gtest_list_tests ${GATE_FILTER:+--gtest_filter=$GATE_FILTER} | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
    echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
    echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
  done > "$ct/CTestTestfile.cmake"
  sf='GpuGateSanitizer.*:GpuGateErrors.*'
  timeout ${SAN_S:-120} compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/memcheck.log 2>&1 & mp=$!
  timeout ${SAN_S:-120} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/racecheck.log 2>&1 & rp=$!
  tg=$(date +%s)
  (cd $ct && timeout ${GATE_S:-120} ctest -L gpu -j ${GATE_J:-14} --output-on-failure) > $O/ctest.log 2>&1; grc=$?
  wait $mp; mrc=$?; wait $rp; rrc=$?
  echo "gate rc=$grc memcheck rc=$mrc racecheck rc=$rrc gate_s=$(( $(date +%s) - tg )) t=$(( $(date +%s) - t0 ))s" | tee -a $O/summary.txt
  grep -E "tests passed|tests failed" $O/ctest.log | tee -a $O/summary.txt
  grep -E "\*\*\*Failed|Failed  |Timeout" $O/ctest.log | head -20 | tee -a $O/summary.txt
  echo "passed: $(grep -c ' Passed ' $O/ctest.log)" | tee -a $O/summary.txt
  echo "memcheck: $(grep 'ERROR SUMMARY' $O/memcheck.log | tail -1)  racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/racecheck.log | tail -1)" | tee -a $O/summary.txt
fi
tar -C $O -czf $OO/all.tgz . ; cp $O/summary.txt $O/bench.txt $OO/ 2>/dev/null; [ -f $O/sass_hist.txt ] && cp $O/sass_hist.txt $OO/
python3 $D/join.py $O/bench.txt $O/bench_before.txt
for sp in ${SPLITS:-}; do echo "== split $sp"; grep -E "rowwise|colwise|fused" $O/bench_split$sp.txt | awk '{print $(NF-1)=="" ? "" : $0}' | cut -c1-90; done
