#!/usr/bin/env bash
# quant session (issue 9) final call: gate + sanitizers, then mxbench (this code) and the
# mxbench of main before this work (same sizes, same process order), then bench/peers.py
# (torch's plain fp8 cast beside them). Every file goes straight to $OUT (8 at most).
set -uo pipefail
D=.devrun/quant
O=${OUT:-$PWD/qout}; mkdir -p "$O"
B=/tmp/qb; mkdir -p $B
T0=$(date +%s)
tar -C $B -xzf $D/bins.tar.gz && gunzip -c $D/mxbench_before.gz > $B/mxbench_before && chmod +x $B/*
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; } > $O/summary.txt 2>&1
gate=$B/mx_gpu_gate
ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout ${SAN_S:-128} compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/memcheck.log 2>&1 & mp=$!
timeout ${SAN_S:-128} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout ${GATE_S:-128} ctest -L gpu -j ${GATE_J:-16} --output-on-failure) > $O/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate (ctest -L gpu -j ${GATE_J:-16}) rc=$grc in $(( $(date +%s) - tg )) s; memcheck rc=$mrc racecheck rc=$rrc"
  grep -E "tests passed|tests failed" $O/ctest.log; echo "passed lines: $(grep -c ' Passed ' $O/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout" $O/ctest.log | head -20
  echo "memcheck: $(grep 'ERROR SUMMARY' $O/memcheck.log | tail -1)"
  echo "racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/racecheck.log | tail -1)"; } >> $O/summary.txt
sz="--size 16384x16384 --size 8192x7168 --size 128x7168"
timeout 30 $B/mxbench --out $O/bench.csv $sz > $O/bench.txt 2>&1; echo "mxbench rc=$? at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
timeout 30 $B/mxbench_before $sz > $O/bench_before.txt 2>&1; echo "mxbench (before) rc=$? at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
left=$(( ${TOTAL_S:-174} - ($(date +%s) - T0) ))
if [ $left -gt 20 ]; then
  pd=$(mktemp -d)
  PYTHONUNBUFFERED=1 timeout $(( left - 4 )) python3 bench/peers.py --mxbench-csv $O/bench.csv --out $pd --size 16384x16384 --size 8192x7168 --no-graphs --budget-s $(( left - 14 )) > $pd/peers.txt 2>&1
  echo "peers rc=$? at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
  tar -C $pd -czf $O/peers.tgz .
fi
cat $O/summary.txt
python3 $D/join.py $O/bench.txt $O/bench_before.txt
