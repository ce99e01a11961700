#!/usr/bin/env bash
# col session (issue 9, colwise/fused stream kernel): one device call builds
# the gate and mxbench here (sm_90a, -j16), benchmarks the colwise/fused cases
# with the stream kernel (automatic) and with the general tile kernel
# (--tile-rows 128 / 32: main's automatic choice at these sizes) in the same
# process order, then the gate (filtered: GATE_FILTER) with memcheck and
# racecheck beside it, then (time left) SASS histogram and Nsight Compute.
# env: GATE_FILTER, SAN_FILTER, SPLITS, NCU=0/1, TOTAL_S
set -uo pipefail
O=${OUT:-$PWD/cout}; mkdir -p "$O"; T0=$(date +%s); TOTAL=${TOTAL_S:-228}
left() { echo $(( TOTAL - ($(date +%s) - T0) )); }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv; md5sum kernels/common/col_stream.cuh kernels/common/block32.cuh kernels/common/launch_impl.cuh; } > $O/summary.txt 2>&1
B=${BUILD_DIR:-$PWD/build-col}  # in the tree (git-ignored): kept between calls on a warm machine
{ cmake -S bench/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$PWD/.gtest-src &&
  cmake --build $B -j16 --target mx_gpu_gate mxbench; } > $O/build.log 2>&1 || { echo "BUILD FAILED" | tee -a $O/summary.txt; grep -E "error" $O/build.log | head -30 | tee -a $O/summary.txt; gzip -9 $O/build.log; exit 1; }
echo "build: $(( $(date +%s) - T0 )) s" >> $O/summary.txt
mb=$B/kernels/bench/mxbench; BT=$O/bench.txt
big="--size 16384x16384 --size 8192x7168"
# BENCHES: "label|mxbench args;label|args;..." run in that order (default below; @O@ = $O)
BENCHES=${BENCHES:-"new (automatic: stream kernel)|--only col $big --size 128x7168 --out $O/bench_new.csv;before: general tile kernel, 128-row tiles (main's choice at these sizes)|--only col --tile-rows 128 $big;before: general tile kernel, 32-row tiles (main's choice at 128x7168)|--only col --tile-rows 32 --size 128x7168;new again|--only col $big --size 128x7168"}
IFS=';' read -ra BL <<< "$BENCHES"
for e in "${BL[@]}"; do
  echo "== ${e%%|*}  [mxbench ${e#*|}]" >> $BT
  args=${e#*|}; args=${args//@O@/$O}  # @O@ in a plan stands for the output folder
  timeout 40 $mb $args >> $BT 2>&1
done
echo "bench done at $(( $(date +%s) - T0 )) s" >> $O/summary.txt
gate=$B/gpu/mx_gpu_gate; ct=$(mktemp -d)
"$gate" --gtest_list_tests --gtest_filter="${GATE_FILTER:-*}" | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
sf=${SAN_FILTER:-GpuGateSanitizer.*:GpuGateErrors.*}
gs=$(( $(left) - ${RESERVE_S:-45} )); [ $gs -lt 20 ] && gs=20
timeout $gs compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/memcheck.log 2>&1 & mp=$!
timeout $gs compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $O/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout $gs ctest -L gpu -j 16 --output-on-failure) > $O/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate (ctest -L gpu -j 16, filter ${GATE_FILTER:-*}) rc=$grc in $(( $(date +%s) - tg )) s; memcheck rc=$mrc racecheck rc=$rrc (filter $sf)"
  grep -E "tests passed|tests failed" $O/ctest.log; echo "skipped: $(grep -c 'Skipped' $O/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $O/ctest.log | head -20
  grep -E "Failure|Expected equality|Which is|first differ|differ" $O/ctest.log | head -12
  echo "memcheck: $(grep 'ERROR SUMMARY' $O/memcheck.log | tail -1)"
  echo "racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/racecheck.log | tail -1)"; } >> $O/summary.txt
cat $O/memcheck.log $O/racecheck.log | grep -vE "^\[ +(RUN|OK) +\]" | tail -40 > $O/san_tail.txt; rm -f $O/memcheck.log $O/racecheck.log
gzip -9 $O/ctest.log $O/build.log
if command -v cuobjdump >/dev/null; then
  for k in $(cuobjdump -symbols $mb 2>/dev/null | grep -oE "_ZN3mxk3dev11k_colstreamI13__nv_bfloat16NS0_3MxQILi0ELb1EEELb[01]EEEvPKT_NS0_6ParamsE" | sort -u); do
    echo "== $k"; cuobjdump -sass -fun "$k" $mb | grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+" | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -30
  done > $O/sass_hist.txt 2>&1
fi
# NCU_RUNS: "kernel regex|mxbench --only value;..." (one profiled launch each, 16384^2)
if [ "${NCU:-1}" = "1" ] && [ $(left) -gt 25 ]; then
  IFS=';' read -ra NL <<< "${NCU_RUNS:-k_colstream.*Lb0EEEv|col;k_colstream.*Lb1EEEv|col}"
  for e in "${NL[@]}"; do
    [ $(left) -gt 12 ] || break
    echo "== ncu ${e%%|*} (mxbench --only ${e#*|})" >> $O/ncu.txt
    timeout $(( $(left) - 5 )) ncu --clock-control none --kernel-name-base mangled -k "regex:${e%%|*}" -c 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section LaunchStats --section ComputeWorkloadAnalysis --section SchedulerStats --section InstructionStats \
      $mb --only "${e#*|}" --size 16384x16384 --iters 5 >> $O/ncu.txt 2>&1 || echo "ncu rc=$?" >> $O/ncu.txt
  done
fi
echo "total $(( $(date +%s) - T0 )) s" >> $O/summary.txt
echo "---- bench"; grep -E "==|copy|col" $BT | grep -v "^device" 
echo "---- summary"; cat $O/summary.txt
