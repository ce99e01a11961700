#!/usr/bin/env bash
# Device call of helper "row" (issue 9, rowwise + NVFP4): build the gate and
# mxbench (sm_90a, -j16) from main + this overlay, time the rowwise kernels
# (k_rowstream and its probes beside the cp.async ring, same binary, same
# process order), torch's plain fp8 cast (bench/peers.py), then the gate
# filtered to the rowwise/NVFP4 tests (GATE_FILTER), time-boxed.
set -uo pipefail
O=${OUT:-$PWD/vout}; mkdir -p "$O"; T0=$(date +%s)
GATE_S=${GATE_S:-80}
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; } > $O/summary.txt 2>&1
cp -r .devrun/row/overlay/. ./
B=/tmp/brow
{ cmake -S bench/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$PWD/.gtest-src &&
  cmake --build $B -j16 --target mx_gpu_gate mxbench; } > $O/build.log 2>&1 || { echo "BUILD FAILED"; grep -E "error" $O/build.log | head -20; tail -20 $O/build.log; exit 1; }
echo "build: $(( $(date +%s) - T0 )) s" >> $O/summary.txt
MB=$B/kernels/bench/mxbench
{
  echo "=== stream (default)"; timeout 40 $MB --out $O/bench.csv --size 16384x16384 --size 8192x7168 --size 128x7168
  echo "=== ring"; timeout 40 $MB --row-kernel ring --out $O/bench_ring.csv --size 16384x16384 --size 8192x7168 --size 128x7168
  for v in ${PROBES:-flat rows sector}; do echo "=== $v"; timeout 30 $MB --row-kernel $v --size 16384x16384 --size 8192x7168 | grep -E "copy|rowwise|nvfp4"; done
  for sp in ${SPLITS:-}; do echo "=== stream split $sp"; timeout 20 $MB --split $sp --size 16384x16384 | grep -E "copy|rowwise|nvfp4"; done
  echo "=== stream again (drift check)"; timeout 40 $MB --size 16384x16384 --size 128x7168 | grep -E "copy|rowwise|nvfp4|mxint8"
} > $O/bench.txt 2>&1
echo "bench done: $(( $(date +%s) - T0 )) s" >> $O/summary.txt
timeout ${PEERS_S:-45} python3 bench/peers.py --mxbench-csv $O/bench.csv --out $O/peers --budget-s 15 --size 16384x16384 > $O/peers.log 2>&1
echo "peers rc=$? at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
if [ -n "${NCU:-}" ]; then
  # first rowwise launch of each: mxfp8_e4m3 rowwise tcgen05 (bf16), then the copy's peer: none (cudaMemcpy is not a kernel)
  M="dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,gpu__time_duration.sum"
  for v in stream ring; do
    echo "=== ncu $v"; timeout 40 ncu --clock-control none -k regex:k_row --launch-skip 1 -c 1 --metrics $M $MB --row-kernel $v --size 16384x16384 --iters 5 2>&1 | grep -vE "^(16384|8192|128)x" | tail -40
  done > $O/ncu.txt 2>&1
  echo "ncu at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
fi
gate=$B/gpu/mx_gpu_gate; ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | grep -E "${GATE_FILTER:-.}" | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
tg=$(date +%s)
(cd $ct && timeout $GATE_S ctest -j 16 --output-on-failure) > $O/ctest.log 2>&1; grc=$?
if [ -n "${SAN:-}" ]; then
  sf='GpuGateSanitizer.*:GpuGateErrors.*'
  timeout ${SAN_S:-60} compute-sanitizer --tool memcheck --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/memcheck.log 2>&1 & mp=$!
  timeout ${SAN_S:-60} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/racecheck.log 2>&1 & rp=$!
  wait $mp; mrc=$?; wait $rp; rrc=$?
  { echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' $O/memcheck.log | tail -1)"; echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/racecheck.log | tail -1)"; } >> $O/summary.txt
fi
{ echo "gate (filter '${GATE_FILTER:-.}') rc=$grc in $(( $(date +%s) - tg )) s"
  grep -E "tests passed|tests failed" $O/ctest.log; grep -cE "Test +#.*Passed" $O/ctest.log | sed 's/^/passed lines: /'
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $O/ctest.log | head -20; } >> $O/summary.txt
echo "total: $(( $(date +%s) - T0 )) s" >> $O/summary.txt
gzip -9 $O/build.log; [ $(stat -c %s $O/ctest.log) -gt 200000 ] && gzip -9 $O/ctest.log
grep -E "^16384x16384 .*(copy|rowwise|nvfp4|mxint8)" $O/bench.txt | head -40
grep -E "^(8192x7168|128x7168) .*(copy|rowwise tcgen05 |mxfp4|mxfp6|nvfp4|mxint8)" $O/bench.txt | head -40
grep -E "cast|copy" $O/peers/peers.md 2>/dev/null | head -6
cat $O/summary.txt
