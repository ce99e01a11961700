#!/usr/bin/env bash
# Device call of helper "sol" (issue 9, run 10): in one call, time-boxed
# (END_S, default 228 s):
#   1. build bench/standalone (mx_gpu_gate, mxbench; 90a-real, -j16) from
#      main + .devrun/sol/overlay, in the background;
#   2. meanwhile: nvcc bench/sol/sol.cu, run it (speed of light of the MXFP8
#      rowwise traffic beside the D2D copy and a read-only kernel), then
#      torch's plain fp8 cast (bench/sol/torch_cast.py);
#   3. mxbench rowwise (auto = this tree's choice) and the --row-kernel probes;
#      torch's cast again right after, nothing else on the GPU;
#   4. the gate (GATE_RE) beside compute-sanitizer memcheck + racecheck on
#      GpuGateSanitizer.*:GpuGateErrors.*.
# Everything lands in $OUT; summary.txt is read first.
set -uo pipefail
O=${OUT:-$PWD/vout}; mkdir -p "$O"; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-228}; S=$O/summary.txt
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader; } > $S 2>&1
cp -r .devrun/sol/overlay/. ./
B=/tmp/bsol
{ cmake -S bench/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$PWD/.gtest-src &&
  cmake --build $B -j15 --target mx_gpu_gate mxbench; } > /tmp/build.log 2>&1 & bp=$!
nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/sol bench/sol/sol.cu > /tmp/solbuild.log 2>&1 || { echo "SOL BUILD FAILED" >> $S; cat /tmp/solbuild.log >> $S; }
{ echo "### sol (the build of the library runs on the CPU meanwhile)"; timeout 60 /tmp/sol 16384 16384 ${SOL_ITERS:-30}
  echo "### torch"; timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30; } > $O/sol.txt 2>&1
echo "sol + torch done: $(el) s" >> $S
wait $bp || { echo "BUILD FAILED" | tee -a $S; grep -E "error" /tmp/build.log | head -30 | tee -a $S; cat $S; exit 1; }
echo "build: $(el) s" >> $S
MB=$B/kernels/bench/mxbench
{
  echo "=== auto"; timeout 40 $MB --out $O/bench.csv --only rowwise --size 16384x16384 --size 8192x7168 --size 128x7168
  echo "=== torch right after"; timeout 30 python3 bench/sol/torch_cast.py 16384 16384 30
  for k in ring stream tile; do
    echo "=== row-kernel $k"; timeout 25 $MB --row-kernel $k --only rowwise --size 16384x16384 --size 8192x7168 | grep -E "copy|mxfp8|mxint8"
  done
  echo "=== auto again"; timeout 25 $MB --only rowwise --size 16384x16384 --size 8192x7168 | grep -E "copy|mxfp8|mxint8"
  echo "=== torch again"; timeout 30 python3 bench/sol/torch_cast.py 16384 16384 30
} > $O/bench.txt 2>&1
echo "bench done: $(el) s" >> $S
if [ "${NCU:-1}" = 1 ]; then
  M="dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,gpu__time_duration.sum"
  { for kk in "k_rowtile mxfp8_e4m3 rowwise dense" "k_rowtile mxint8 rowwise dense"; do set -- $kk
      echo "=== ncu $1 (${*:2}, 16384x16384, second launch)"
      timeout 25 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --metrics $M $MB --only "${*:2}" --size 16384x16384 --iters 5 2>&1 | grep -vE "^(16384|8192|128)x|^==PROF==|^size|^device" | tail -14
    done; } > $O/ncu.txt 2>&1
  echo "ncu done: $(el) s" >> $S
fi
gate=$B/gpu/mx_gpu_gate; ct=$(mktemp -d)
F=${GATE_RE:-'GpuGateRow|GpuGateSanitizer|GpuGateLarge|GpuGateEmpty|GpuGatePoison|GpuGateErrors|GpuGatePerTensor|Recipes\.(QuantizeBytes|RowRing|PipelinedSplits|Container8|ChunkAndTileEdges)'}
FIRST='Tile|Ring|GpuGateLarge|GpuGateSanitizer|StreamLarge|mxfp8|mxint8'
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
(cd $ct && timeout $LEFT ctest -j ${GATE_J:-12} --output-on-failure) > $O/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" /tmp/gate-all.txt) of $(wc -l < /tmp/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $O/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $O/ctest.log)"
  grep -E "Tile|GpuGateLarge" $O/ctest.log | grep -E "Test +#" | head
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $O/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' /tmp/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' /tmp/memcheck.log | tr '\n' ' ')"
  echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' /tmp/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' /tmp/racecheck.log | tr '\n' ' ')"
  echo "total: $(el) s"; } >> $S
{ echo "##### memcheck"; grep -E "RUN|OK \]|FAILED|SUMMARY" /tmp/memcheck.log | tail -40; echo "##### racecheck"; grep -E "RUN|OK \]|FAILED|SUMMARY" /tmp/racecheck.log | tail -40; } > $O/sanitizers.log
[ $(stat -c %s $O/ctest.log) -gt 100000 ] && gzip -9 $O/ctest.log
grep -E "copy|mxfp8|mxint8|===|torch" $O/bench.txt | head -80
grep -vE "^\s*$" $O/sol.txt | head -80
cat $S
