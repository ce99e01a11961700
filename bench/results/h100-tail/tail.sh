#!/usr/bin/env bash
# tail.sh - run 12 tail (issue 9, 8192x7168 within 3% of the 16384^2
# ratios): one device call. Builds main's tree (mxbench) and main + the
# overlay .devrun/tail/overlay (mxbench, mx_gpu_gate) in parallel
# (bench/standalone, 90a-real), and the scratch probe stamps.cu (nvcc); then,
# alone on the GPU: mxbench main / tail / main / tail (16384^2, 8192x7168,
# 128x7168), (call 1) tail's forced-kernel sweeps (--row-kernel stream /
# ring / tile, colwise --split 2) or (call 2) torch's cast and the SASS of
# the rowwise kernels in both builds, the stamps probe; then the rowwise part of the
# gate beside compute-sanitizer memcheck + racecheck on
# GpuGateSanitizer.*:GpuGateErrors.*. Everything in $OUT, summary.txt last.
#   run(command="bash .devrun/tail/overlay/bench/results/h100-tail/tail.sh", carry=[".devrun/tail", ".gtest-src"], timeout_s=220)
set -uo pipefail
O=${OUT:-/tmp/tail-out}; mkdir -p "$O"; L=/tmp/tail-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-212}
S=$O/summary.txt; R=$PWD; MB=/tmp/tail-main-bin; OB=/tmp/tail-ours-bin; OT=/tmp/tail-ours
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log -1 --format='main %H %s'; } > "$S" 2>&1
mkdir -p $OT && tar --exclude=./.git --exclude=./.devrun -cf - . | tar -C $OT -xf - && cp -r .devrun/tail/overlay/. $OT/
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $MB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $MB -j 5 --target mxbench; } > $L/mbuild.log 2>&1 & pm=$!
{ cmake -S $OT/bench/standalone -B $OB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $OB -j 11 --target mxbench mx_gpu_gate; } > $L/obuild.log 2>&1 & po=$!
NV="nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr -arch=sm_90a -Ikernels -Ikernels/include -Ireference/include"
(cd $OT && $NV bench/results/h100-tail/stamps.cu -o /tmp/tail-stamps) > $L/pbuild.log 2>&1 & pp=$!
wait $pm; bm=$?; wait $po; bo=$?; wait $pp; bp=$?
echo "== build rc=$bm (main) rc=$bo (tail) rc=$bp (stamps) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bo != 0 ]; then grep -E "error|Error" $L/mbuild.log $L/obuild.log | head -30 | tee -a "$S"; exit 1; fi
[ $bp = 0 ] || grep -E "error" $L/pbuild.log | head -10 | tee -a "$S"
mxm=$(find $MB -name mxbench -type f | head -1); mxo=$(find $OB -name mxbench -type f | head -1)
gate=$(find $OB -name mx_gpu_gate -type f | head -1)
# call 2: the SASS of the rowwise kernels in both builds (CPU, beside the
# bench), torch's plain fp8 cast at the end (MXFP8 tcgen05's second target)
for b in $MB $OB; do a=$(find $b -name libmxkernels.a | head -1)
  cuobjdump -sass "$a" 2>/dev/null | awk '/Function :/{k = ($0 ~ /k_row(stream|wise|tile)/)} k' | grep -vE '^[[:space:]]*$' |
    sed -E 's@/\*[0-9a-f]{4}\*/@@; s@/\* 0x[0-9a-f]+ \*/@@' > $L/sass-$(basename $b).txt
  echo "sass k_row* $(basename $b): $(grep -c 'Function :' $L/sass-$(basename $b).txt) functions, $(wc -l < $L/sass-$(basename $b).txt) lines, md5 $(md5sum < $L/sass-$(basename $b).txt | cut -c1-12)"; done > $L/sass.txt 2>&1 &
sz="--size 16384x16384 --size 8192x7168 --size 128x7168"
{ for r in 1 2; do
    echo "=== main $r"; timeout 30 $mxm $sz
    echo "=== tail $r"; timeout 30 $mxo $sz
  done; } > $O/bench.txt 2>&1
echo "== bench rc=$? at $(el) s" | tee -a "$S"
[ $bp = 0 ] && { timeout 60 /tmp/tail-stamps > $O/stamps.txt 2>&1; echo "== stamps rc=$? at $(el) s" | tee -a "$S"; }
# the gate: the rowwise tests, every MXFP6 / MXFP4 recipe (their small
# tensors now take k_rowstream), errors, poison, empty, large
ct=$(mktemp -d)
F='GpuGateRow|GpuGateSanitizer|GpuGateErrors|GpuGatePoison|GpuGateEmpty|GpuGateLarge|mxfp4|mxfp6'
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
(cd $ct && timeout $LEFT ctest -j ${GATE_J:-12} --output-on-failure) > $L/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" $L/gate-all.txt) of $(wc -l < $L/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $L/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $L/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $L/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' $L/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/memcheck.log | tr '\n' ' ')"
  echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/racecheck.log | tr '\n' ' ')"
  echo "total: $(el) s"; } >> $S
cat $L/sass.txt >> $S
{ echo "##### memcheck"; tail -30 $L/memcheck.log; echo "##### racecheck"; tail -30 $L/racecheck.log; } > $O/sanitizers.log
{ grep -E "Test +#" $L/ctest.log; grep -B2 -A30 -E "FAILED|Failure" $L/ctest.log | head -150; } > $O/ctest.txt
T=$(( 217 - $(el) )); [ $T -gt 5 ] && { timeout $T python3 bench/sol/torch_cast.py 16384 16384 30; echo "rc=$?"; } > $O/torch_cast.txt 2>&1
grep -E "mxfp4|mxfp6" $O/bench.txt | grep 8192 | head -12; grep -E "ratio|sweep" $O/stamps.txt | grep -v "stream [248] x" | head -40
cat $S
