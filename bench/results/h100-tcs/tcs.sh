#!/usr/bin/env bash
# tcs.sh - run 13 tcs (issue 9: MXFP8 rowwise with tcgen05 scales), one
# device call. Builds main's mxbench (a copy of the shipped tree) and this
# overlay's mxbench + mx_gpu_gate (.devrun/tcs/overlay; bench/standalone,
# 90a-real, -j16, both without kernels/gemm: neither target uses it) in
# parallel; then alone on the GPU: torch's plain fp8 cast
# (bench/sol/torch_cast.py), mxbench main / tcs (the launcher's choice) /
# tcs --split 2 (k_rowtile 128 x 128) / tcs --split 3 (128 x 64 bound to 6
# CTAs per SM), three rounds alternating, 16384^2 and 8192x7168; the cast
# again; Nsight Compute counters of the k_rowtile forms and k_rowstream;
# then the gate subset (rowwise, large, sanitizer, errors, poison, 8-bit
# recipes) with compute-sanitizer memcheck + racecheck on
# GpuGateSanitizer.*:GpuGateErrors.* beside it (racecheck: RowTile first).
# Call 1 ran the first commit's form (default 128 x 128, --split 1 for
# 128 x 64; no torch cast repeat, ncu before the gate); call 2 the second
# commit's (default 128 x 64, --split 3 a probe removed after it: with the
# final tree --split 3 means 128 x 128).
#   run(command="bash .devrun/tcs/overlay/bench/results/h100-tcs/tcs.sh", carry=[".devrun/tcs", ".gtest-src"], timeout_s=220)
set -uo pipefail
O=${OUT:-/tmp/tcs-out}; mkdir -p "$O"; L=/tmp/tcs-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-214}
S=$O/summary.txt; R=$PWD
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log -1 --format='main %H %s'; } > "$S" 2>&1
mk() {  # mk DIR: a copy of the build inputs without kernels/gemm
  rm -rf "$1"; mkdir -p "$1/bench"; cp -r kernels reference conformance cmake "$1/"; cp -r bench/standalone "$1/bench/"
  rm -f "$1/kernels/gemm/CMakeLists.txt"
}
mk /tmp/src-main
cp -r .devrun/tcs/overlay/. ./
mk /tmp/src-tcs
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S /tmp/src-main/bench/standalone -B /tmp/bin-main -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build /tmp/bin-main -j 16 --target mxbench; } > $L/build-main.log 2>&1 & pm=$!
{ cmake -S /tmp/src-tcs/bench/standalone -B /tmp/bin-tcs -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build /tmp/bin-tcs -j 16 --target mxbench mx_gpu_gate; } > $L/build-tcs.log 2>&1 & pt=$!
wait $pm; bm=$?; wait $pt; bt=$?
echo "== build rc=$bm (main) rc=$bt (tcs) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bt != 0 ]; then grep -E "error|Error" $L/build-*.log | head -30 | tee -a "$S"; cp $L/build-*.log $O/; exit 1; fi
MB=$(find /tmp/bin-main -name mxbench -type f | head -1); TB=$(find /tmp/bin-tcs -name mxbench -type f | head -1)
gate=$(find /tmp/bin-tcs -name mx_gpu_gate -type f | head -1)
sz="--size 16384x16384 --size 8192x7168"
timeout 25 python3 bench/sol/torch_cast.py 16384 16384 30 > $O/torch_cast.txt 2>&1; echo "== torch cast rc=$? at $(el) s" | tee -a "$S"
{ for r in 1 2 3; do
    echo "=== main $r"; timeout 20 $MB $sz --only rowwise
    echo "=== tcs $r"; timeout 20 $TB $sz --only rowwise
    echo "=== tcs --split 2 $r"; timeout 20 $TB $sz --only "rowwise tcgen05" --split 2
    echo "=== tcs --split 3 $r"; timeout 20 $TB $sz --only "rowwise tcgen05" --split 3
  done; } > $O/bench.txt 2>&1
echo "== bench rc=$? at $(el) s" | tee -a "$S"
timeout 25 python3 bench/sol/torch_cast.py 16384 16384 30 >> $O/torch_cast.txt 2>&1; echo "== torch cast again rc=$? at $(el) s" | tee -a "$S"
M="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,sm__inst_executed.sum"
nc() {  # nc KERNEL_REGEX ONLY [EXTRA]: Nsight Compute counters of the second matching launch at 16384^2
  [ $(( END - $(el) )) -lt 8 ] && { echo "(skipped $1 $2 ${3:-}: time)"; return; }
  echo "=== ncu $1 ($2 ${3:-}, 16384x16384, second launch)"
  timeout 15 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --metrics $M $TB --only "$2" ${3:-} --size 16384x16384 --iters 5 2>&1 | grep -vE "^(16384|8192)x|^==PROF==|^size|^device" | tail -15
}
{ nc k_rowtile "mxfp8_e4m3 rowwise tcgen05"; nc k_rowtile "mxfp8_e4m3 rowwise tcgen05" "--split 2"; nc k_rowtile "mxfp8_e4m3 rowwise tcgen05" "--split 3"; } > $O/ncu.txt 2>&1
echo "== ncu (1) at $(el) s" | tee -a "$S"
ct=$(mktemp -d)
F='GpuGateRow|GpuGateSanitizer|GpuGateErrors|GpuGatePoison|GpuGateEmpty|GpuGateLarge|mxfp8_e4m3$|mxfp8_e4m3_rceil$|mxint8$'
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > $L/gate-all.txt
{ grep -E "$F" $L/gate-all.txt | grep -E 'GpuGateRow|GpuGateLarge'; grep -E "$F" $L/gate-all.txt | grep -vE 'GpuGateRow|GpuGateLarge'; } | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
LEFT=$(( END - $(el) - 8 )); [ $LEFT -lt 30 ] && LEFT=30
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $LEFT compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/memcheck.log 2>&1 & mp=$!
{ timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter=GpuGateSanitizer.RowTile > $L/racecheck-tile.log 2>&1; echo "racecheck RowTile rc=$?" >> $L/racecheck-tile.log
  LR=$(( T0 + END - 8 - $(date +%s) )); [ $LR -lt 5 ] && LR=5
  timeout $LR compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf:-GpuGateSanitizer.RowTile" > $L/racecheck.log 2>&1; } & rp=$!
tg=$(date +%s)
(cd $ct && timeout $LEFT ctest -j 14 --output-on-failure) > $L/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" $L/gate-all.txt) of $(wc -l < $L/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $L/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $L/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $L/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' $L/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/memcheck.log | tr '\n' ' ')"
  echo "racecheck RowTile: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck-tile.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) |rc=' $L/racecheck-tile.log | tr '\n' ' ')"
  echo "racecheck rest rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/racecheck.log | tr '\n' ' ')"
  echo "total: $(el) s"; } >> $S
{ echo "##### memcheck"; tail -30 $L/memcheck.log; echo "##### racecheck RowTile"; tail -20 $L/racecheck-tile.log; echo "##### racecheck rest"; tail -30 $L/racecheck.log; } > $O/sanitizers.log
{ nc k_rowstream "mxfp8_e4m3 rowwise dense"; } >> $O/ncu.txt 2>&1
echo "== ncu (2) at $(el) s" >> "$S"
{ grep -E "Test +#" $L/ctest.log; grep -B2 -A30 -E "FAILED|Failure" $L/ctest.log | head -150; } > $O/ctest.txt
grep -E "copy_bf16|mxfp8|===" $O/bench.txt | grep -E "===|tcgen05|dense|copy" | grep -v software | head -60
cat $O/torch_cast.txt | tail -5
cat $S
