#!/usr/bin/env bash
# final.sh - the merged issue 9 + issue 10 work in one H100 call, from
# binaries built on the CPU machine for sm_90a (carried as
# .devrun/final/bins.tar.xz: the quantization gate and mxbench of the merged
# tree, main's mxbench before this work, the GEMM gate, C11 CPU model tests
# and mxgemmbench). Steps, each time-boxed, most important first:
#   1. quantization gate (ctest -L gpu, every test) beside the GEMM gate and
#      compute-sanitizer memcheck + racecheck on both sanitizer subsets;
#   2. mxbench of the merged tree, then main's mxbench (before/after, one call);
#   3. the GEMMs beside cuBLAS through torch (kernels/gemm/bench/torch_bench.py);
#   4. bench/peers.py (torch's plain fp8 cast beside ours).
# Everything lands in $OUT: summary.txt (read first), bench.csv / bench_main.csv,
# gemm.txt, logs.tgz.
set -uo pipefail
O=${OUT:-/tmp/final-out}; mkdir -p "$O"; L=$O/logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$O/summary.txt
D=.devrun/final; B=/tmp/fb; mkdir -p $B && xz -dc $D/bins.tar.xz | tar -C $B -xf -
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
  cat $D/tree.txt; } > "$S" 2>&1
pack() { tar -C "$O" -czf "$O/logs.tgz" logs; }
# ---- 1. gates and sanitizers, side by side --------------------------------------
gate=$B/mx_gpu_gate gg=$B/mx_gemm_gate ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
qs='GpuGateSanitizer.*:GpuGateErrors.*'
timeout ${SAN_S:-220} compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
timeout ${SAN_S:-220} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
timeout ${SAN_S:-220} compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/gmem.log 2>&1 & p3=$!
timeout ${SAN_S:-220} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/grace.log 2>&1 & p4=$!
{ timeout 60 $B/mx_c11_cpu_test > $L/c11cpu.log 2>&1; echo "c11 cpu rc=$?" >> $L/c11cpu.log
  timeout ${GATE_S:-220} $gg > $L/ggate.log 2>&1; echo "rc=$?" >> $L/ggate.log; } & p5=$!
(cd "$ct" && timeout ${GATE_S:-220} ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
wait $p5; wait $p1; m1=$?; wait $p2; r1=$?; wait $p3; m2=$?; wait $p4; r2=$?
{ echo "== 1. gates at $(el) s"
  echo "quant gate (ctest -L gpu -j 12, every test) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
  echo "  skipped: $(grep -c '(Skipped)' $L/qgate.log); not run: $(grep -c 'Not Run' $L/qgate.log)"
  grep -E '\*\*\*Failed|Failed  |Timeout|Exception' $L/qgate.log | head -20
  echo "quant memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1)"
  echo "quant racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1)"
  echo "C11 CPU model tests: $(grep -E '^\[  PASSED|^\[  FAILED|rc=' $L/c11cpu.log | tr '\n' ' ')"
  echo "GEMM gate: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran|rc=' $L/ggate.log | tr '\n' ' ')"
  grep -E '^\[  FAILED' $L/ggate.log | head
  echo "GEMM memcheck rc=$m2: $(grep 'ERROR SUMMARY' $L/gmem.log | tail -1)"
  echo "GEMM racecheck rc=$r2: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/grace.log | tail -1)"; } | tee -a "$S"
pack
# ---- 2. mxbench: merged, then main (before) ---------------------------------------
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
timeout ${BENCH_S:-50} $B/mxbench --out $O/bench.csv $sizes > $L/bench.txt 2>&1; b1=$?
timeout ${BENCH_S:-50} $B/mxbench_main --out $O/bench_main.csv $sizes > $L/bench_main.txt 2>&1; b2=$?
echo "== 2. mxbench rc=$b1 (merged), rc=$b2 (main) at $(el) s" | tee -a "$S"
cp $L/bench.txt $O/bench.txt
pack
# ---- 3. GEMMs beside cuBLAS -------------------------------------------------------
{ for shp in "8192 8192 8192" "4096 7168 2048" "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" \
             "64 7168 2048" "64 2048 7168"; do
    it=200; [ "${shp%% *}" -gt 64 ] && it=20
    for kind in mxfp8 w4a16; do timeout 40 $B/mxgemmbench time $kind $shp $it 2>&1; done
  done
  timeout 90 python3 kernels/gemm/bench/torch_bench.py 50 2>&1; } > $O/gemm.txt
echo "== 3. GEMM bench done at $(el) s (gemm.txt)" | tee -a "$S"
# ---- 4. peers (torch's plain fp8 cast first) ---------------------------------------
PYTHONUNBUFFERED=1 timeout ${PEERS_S:-50} python3 bench/peers.py --mxbench-csv $O/bench.csv --out $L/peers \
  --size 16384x16384 --budget-s $(( ${PEERS_S:-50} - 10 )) > $L/peers.txt 2>&1
echo "== 4. peers rc=$? at $(el) s" | tee -a "$S"
grep -E "copy|cast" $L/peers/peers.csv 2>/dev/null | head -8 | tee -a "$S"
pack
echo "total $(el) s" | tee -a "$S"
