#!/usr/bin/env bash
# ramp.sh - run 12 ramp (issue 9: k_rowstream's first-wave ramp), one
# device call. Builds main + the overlay .devrun/ramp/overlay (mxbench,
# mx_gpu_gate; bench/standalone, 90a-real, -j16) and the scratch probe
# h100-ramp/stamps.cu (nvcc) in parallel; then alone on the GPU: mxbench
# before (main 57590fc, .devrun/run12/mxbench_before.xz) / ramp, three
# rounds alternating, 16384^2, 8192x7168, 128x7168; the stamps probe (heads
# stamped, event-time head sweep); then the gate (rowwise, colwise stream,
# MXFP8 / MXINT8 recipes, errors, poison, empty, large) with
# compute-sanitizer memcheck + racecheck on GpuGateSanitizer.*:GpuGateErrors.*
# beside it. Everything in $OUT, summary.txt last. Call 1 ran it with the
# overlay of commit 1 on wip/ramp (the light head, now h100-ramp/head.patch).
#   run(command="bash .devrun/ramp/overlay/bench/results/h100-ramp/ramp.sh", carry=[".devrun/ramp", ".gtest-src"], timeout_s=230)
set -uo pipefail
O=${OUT:-/tmp/ramp-out}; mkdir -p "$O"; L=/tmp/ramp-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-222}
S=$O/summary.txt; R=$PWD; OB=/tmp/ramp-bin
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log -1 --format='main %H %s'; } > "$S" 2>&1
xz -dc .devrun/run12/mxbench_before.xz > /tmp/mxb_before && chmod +x /tmp/mxb_before
cp -r .devrun/ramp/overlay/. ./
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $OB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $OB -j 16 --target mxbench mx_gpu_gate; } > $L/build.log 2>&1 & po=$!
NV="nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr -arch=sm_90a -Ikernels -Ikernels/include -Ireference/include"
$NV bench/results/h100-ramp/stamps.cu -o /tmp/ramp-stamps > $L/pbuild.log 2>&1 & pp=$!
wait $po; bo=$?; wait $pp; bp=$?
echo "== build rc=$bo (ramp) rc=$bp (stamps) at $(el) s" | tee -a "$S"
if [ $bo != 0 ]; then grep -E "error|Error" $L/build.log | head -30 | tee -a "$S"; cp $L/build.log $O/; exit 1; fi
[ $bp = 0 ] || grep -E "error" $L/pbuild.log | head -10 | tee -a "$S"
mxo=$(find $OB -name mxbench -type f | head -1); gate=$(find $OB -name mx_gpu_gate -type f | head -1)
sz="--size 16384x16384 --size 8192x7168 --size 128x7168"
{ for r in 1 2 3; do
    echo "=== before $r"; timeout 30 /tmp/mxb_before $sz
    echo "=== ramp $r"; timeout 30 $mxo $sz
  done; } > $O/bench.txt 2>&1
echo "== bench rc=$? at $(el) s" | tee -a "$S"
[ $bp = 0 ] && { timeout 40 /tmp/ramp-stamps > $O/stamps.txt 2>&1; echo "== stamps rc=$? at $(el) s" | tee -a "$S"; }
ct=$(mktemp -d)
F='GpuGateRow|GpuGateSanitizer|GpuGateErrors|GpuGatePoison|GpuGateEmpty|GpuGateLarge|StreamRecipes|mxfp8|mxint8'
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > $L/gate-all.txt
{ grep -E "$F" $L/gate-all.txt | grep -E 'GpuGateRow|GpuGateLarge'; grep -E "$F" $L/gate-all.txt | grep -vE 'GpuGateRow|GpuGateLarge'; } | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
LEFT=$(( END - $(el) )); [ $LEFT -lt 20 ] && LEFT=20
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $LEFT compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/memcheck.log 2>&1 & mp=$!
timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout $LEFT ctest -j 12 --output-on-failure) > $L/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" $L/gate-all.txt) of $(wc -l < $L/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $L/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $L/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $L/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' $L/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/memcheck.log | tr '\n' ' ')"
  echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/racecheck.log | tr '\n' ' ')"
  echo "total: $(el) s"; } >> $S
{ echo "##### memcheck"; tail -30 $L/memcheck.log; echo "##### racecheck"; tail -30 $L/racecheck.log; } > $O/sanitizers.log
{ grep -E "Test +#" $L/ctest.log; grep -B2 -A30 -E "FAILED|Failure" $L/ctest.log | head -150; } > $O/ctest.txt
grep -E "^sweep" $O/stamps.txt | head -80; grep -E "head|copy16" $O/stamps.txt | grep -v sweep | head -40
cat $S
