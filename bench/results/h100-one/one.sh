#!/usr/bin/env bash
# one.sh - run 10 one (issue 9, NVFP4 at the decode shape 128x7168): one
# device call. Builds main's tree (mxbench) and main + the overlay
# .devrun/one/overlay (mx_gpu_gate + mxbench) in parallel, -j8 each, sm_90a,
# and the stamped scratch probe (stamps.cu); times both mxbench binaries
# alone on the GPU (main, one, main, one; then one --split 2); the stamps;
# ncu on the one-pass kernel; then the gate filtered to the NVFP4 and rowwise
# cases (ctest -j 12) beside compute-sanitizer memcheck + racecheck on
# GpuGateSanitizer.*:GpuGateErrors.*. Everything in $OUT, summary.txt last.
#   run(command="bash .devrun/one/overlay/bench/results/h100-one/one.sh", carry=[".devrun/one", ".gtest-src"], timeout_s=240)
set -uo pipefail
O=${OUT:-/tmp/one-out}; mkdir -p "$O"; L=/tmp/one-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-228}
S=$O/summary.txt; R=$PWD; MB=/tmp/one-main-bin; OB=/tmp/one-ours-bin; OT=/tmp/one-ours
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$S" 2>&1
mkdir -p $OT && tar --exclude=./.git --exclude=./.gpu-bin --exclude=./.devrun -cf - . | tar -C $OT -xf - && cp -r .devrun/one/overlay/. $OT/
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $MB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $MB -j 8 --target mxbench; } > $L/mbuild.log 2>&1 & pm=$!
{ cmake -S $OT/bench/standalone -B $OB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $OB -j 8 --target mx_gpu_gate mxbench; } > $L/obuild.log 2>&1 & po=$!
(cd $OT && nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr -arch=sm_90a \
   -DMXK_ONE_PASS_STAMPS -Ikernels -Ikernels/include -Ireference/include bench/results/h100-one/stamps.cu -o /tmp/one-stamps) > $L/sbuild.log 2>&1 & ps=$!
wait $pm; bm=$?; wait $po; bo=$?; wait $ps; bs=$?
echo "== build rc=$bm (main) rc=$bo (one) rc=$bs (stamps) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bo != 0 ]; then grep -E "error|Error" $L/mbuild.log $L/obuild.log | head -30 | tee -a "$S"; exit 1; fi
mxm=$(find $MB -name mxbench -type f | head -1); mxo=$(find $OB -name mxbench -type f | head -1)
gate=$(find $OB -name mx_gpu_gate -type f | head -1)
d="--size 128x7168"; big="--size 16384x16384"
{ for r in 1 2; do
    echo "=== main $r"; timeout 20 $mxm --only nvfp4 $d; [ $r = 1 ] && timeout 25 $mxm --only nvfp4 $big | tail -3
    echo "=== one $r"; timeout 20 $mxo --only nvfp4 $d; [ $r = 1 ] && timeout 25 $mxo --only nvfp4 $big | tail -3
  done
  echo "=== one --split 2 (two items per warp, 112 CTAs)"; timeout 20 $mxo --split 2 --only nvfp4 $d
  echo "=== main --nvfp4-pass two / one --nvfp4-pass two (amax pass + quantize)"; timeout 20 $mxm --nvfp4-pass two --only nvfp4 $d | tail -2
  timeout 20 $mxo --nvfp4-pass two --only nvfp4 $d | tail -2
  echo "=== one, 64x7168 / 256x7168 / 512x4096 (context)"; timeout 20 $mxo --only nvfp4 --size 64x7168 --size 256x7168 --size 512x4096
} > $O/bench.txt 2>&1
echo "== bench at $(el) s" | tee -a "$S"
[ $bs = 0 ] && timeout 30 /tmp/one-stamps > $O/stamps.txt 2>&1
echo "== stamps at $(el) s" | tee -a "$S"
M="gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__occupancy_limit_registers,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio"
{ for k in "nvfp4 rowwise" "nvfp4:torchao"; do
    echo "=== ncu one-pass ($k, 128x7168, 6th launch)"
    timeout 25 ncu --clock-control none -k regex:k_nvfp4_one_pass --launch-skip 5 -c 1 --metrics $M $mxo --only "$k" $d --iters 5 2>&1 | grep -vE "^128x|^==PROF==|^size|^device" | tail -16
  done
  echo "=== ncu main's one-pass (nvfp4 rowwise)"
  timeout 25 ncu --clock-control none -k regex:k_nvfp4_one_pass --launch-skip 5 -c 1 --metrics gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active $mxm --only "nvfp4 rowwise" $d --iters 5 2>&1 | grep -vE "^128x|^==PROF==|^size|^device" | tail -6
} > $O/ncu.txt 2>&1
echo "== ncu at $(el) s" | tee -a "$S"
ct=$(mktemp -d)
F='GpuGateNvfp4Small|GpuGateRow|GpuGateSanitizer|GpuGateErrors|GpuGatePoison|GpuGateEmpty|nvfp4|Nvfp4'
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > $L/gate-all.txt
{ grep -E "$F" $L/gate-all.txt | grep -E 'GpuGateNvfp4Small|GpuGateRow'; grep -E "$F" $L/gate-all.txt | grep -vE 'GpuGateNvfp4Small|GpuGateRow'; } | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
LEFT=$(( END - $(el) )); [ $LEFT -lt 20 ] && LEFT=20
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $LEFT compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/memcheck.log 2>&1 & mp=$!
timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout $LEFT ctest -j ${GATE_J:-12} --output-on-failure) > $L/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" $L/gate-all.txt) of $(wc -l < $L/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $L/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $L/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $L/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' $L/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/memcheck.log | tr '\n' ' ')"
  echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/racecheck.log | tr '\n' ' ')"
  echo "total: $(el) s"; } >> $S
{ echo "##### memcheck"; tail -40 $L/memcheck.log; echo "##### racecheck"; tail -40 $L/racecheck.log; } > $O/sanitizers.log
grep -E "Test +#" $L/ctest.log > $O/ctest-summary.txt; grep -B2 -A30 -E "FAILED|Failure" $L/ctest.log | head -150 > $O/ctest-fail.txt
grep -E "copy|nvfp4|===" $O/bench.txt | head -60
cat $O/stamps.txt 2>/dev/null
grep -E "===|gpu__time|warps_active|issue_active|grid_size|stalled" $O/ncu.txt | head -40
cat $S
