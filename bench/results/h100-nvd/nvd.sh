#!/usr/bin/env bash
# nvd.sh - run 12 nvd (issue 9, NVFP4 at the decode shape 128x7168): one
# device call. Builds main's tree (mxbench) and main + the overlay
# .devrun/nvd/overlay (mx_gpu_gate + mxbench) in parallel, sm_90a, and the
# scratch probe (probe.cu, with and without the clock64 stamps); times both
# mxbench binaries alone on the GPU (main, nvd, main, nvd, main, nvd at
# 128x7168; 16384^2 once each); the probe; then the gate filtered to the
# NVFP4 and rowwise cases (ctest -j 12) beside compute-sanitizer memcheck +
# racecheck on GpuGateSanitizer.*:GpuGateErrors.*. Everything in $OUT,
# summary.txt last. (Derived from run 11 nvs's h100-nvs/nvs.sh.)
#   run(command="bash .devrun/nvd/overlay/bench/results/h100-nvd/nvd.sh", carry=[".devrun/nvd", ".gtest-src"], timeout_s=220)
set -uo pipefail
O=${OUT:-/tmp/nvd-out}; mkdir -p "$O"; L=/tmp/nvd-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-205}
S=$O/summary.txt; R=$PWD; MB=/tmp/nvd-main-bin; OB=/tmp/nvd-ours-bin; OT=/tmp/nvd-ours
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$S" 2>&1
mkdir -p $OT && tar --exclude=./.git --exclude=./.gpu-bin --exclude=./.devrun -cf - . | tar -C $OT -xf - && cp -r .devrun/nvd/overlay/. $OT/
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $MB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $MB -j 7 --target mxbench; } > $L/mbuild.log 2>&1 & pm=$!
{ cmake -S $OT/bench/standalone -B $OB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $OB -j 8 --target mx_gpu_gate mxbench; } > $L/obuild.log 2>&1 & po=$!
NV="nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr -arch=sm_90a -Ikernels -Ikernels/include -Ireference/include"
(cd $OT && $NV bench/results/h100-nvd/probe.cu -o /tmp/nvd-probe) > $L/pbuild.log 2>&1 & pp=$!
(cd $OT && $NV -DMXK_ONE_PASS_STAMPS bench/results/h100-nvd/probe.cu -o /tmp/nvd-probe-st) > $L/psbuild.log 2>&1 & ps=$!
wait $pm; bm=$?; wait $po; bo=$?; wait $pp; bp=$?; wait $ps; bs=$?
echo "== build rc=$bm (main) rc=$bo (nvd) rc=$bp (probe) rc=$bs (probe stamps) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bo != 0 ]; then grep -E "error|Error" $L/mbuild.log $L/obuild.log | head -30 | tee -a "$S"; exit 1; fi
[ $bp = 0 ] && [ $bs = 0 ] || grep -E "error" $L/pbuild.log $L/psbuild.log | head -10 | tee -a "$S"
mxm=$(find $MB -name mxbench -type f | head -1); mxo=$(find $OB -name mxbench -type f | head -1)
gate=$(find $OB -name mx_gpu_gate -type f | head -1)
d="--size 128x7168"; big="--size 16384x16384"
{ for r in 1 2 3; do
    echo "=== main $r"; timeout 20 $mxm --only nvfp4 $d
    echo "=== nvd $r"; timeout 20 $mxo --only nvfp4 $d
  done
  echo "=== main 16384^2"; timeout 25 $mxm --only nvfp4 $big
  echo "=== nvd 16384^2"; timeout 25 $mxo --only nvfp4 $big
  echo "=== nvd, 64x7168 / 256x7168 / 512x4096 (context)"; timeout 20 $mxo --only nvfp4 --size 64x7168 --size 256x7168 --size 512x4096
  echo "=== nvd, all cases at 128x7168 (b2b lines)"; timeout 30 $mxo --size 128x7168
} > $O/bench.txt 2>&1
echo "== bench rc=$? at $(el) s" | tee -a "$S"
{ [ $bp = 0 ] && { echo "##### probe"; timeout 40 /tmp/nvd-probe; echo "rc=$?"; }
  [ $bs = 0 ] && { echo "##### probe with stamps"; timeout 40 /tmp/nvd-probe-st; echo "rc=$?"; }; } > $O/probe.txt 2>&1
echo "== probe at $(el) s" | tee -a "$S"
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
grep -E "copy|nvfp4|===" $O/bench.txt | head -90
cat $O/probe.txt
cat $S
