#!/usr/bin/env bash
# qgate.sh - run 11, last call: the quantization side of the final tree
# (MXINT8 dense moved to k_rowstream after the final call): build
# bench/standalone (mx_gpu_gate, mxbench; 90a-real, -j16), the whole
# quantization gate (ctest -L gpu, every test) beside compute-sanitizer
# memcheck + racecheck on GpuGateSanitizer.*:GpuGateErrors.*, then mxbench of
# this tree and of main c989618 (this session's start), torch's plain fp8 cast
# between them and after. The GEMM side did not change since the final call.
set -uo pipefail
O=${OUT:-/tmp/qg-out}; mkdir -p "$O"; L=/tmp/qglogs; mkdir -p $L
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$O/summary.txt; R=$PWD; QB=$R/.gpu-bin/r11-q
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .devrun/run11/tree.txt; } > "$S" 2>&1
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$R/.gtest-src >/dev/null &&
  cmake --build $QB -j 16 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1; bq=$?
echo "== build rc=$bq at $(el) s" | tee -a "$S"; [ $bq = 0 ] || { tail -30 $L/qbuild.log | tee -a "$S"; exit 1; }
gate=$(find $QB -name mx_gpu_gate -type f | head -1); mxb=$(find $QB -name mxbench -type f | head -1); ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
qs='GpuGateSanitizer.*:GpuGateErrors.*'
timeout 170 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
timeout 170 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
(cd "$ct" && timeout 210 ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
wait $p1; m1=$?; wait $p2; r1=$?
{ echo "== gates at $(el) s"
  echo "quant gate (ctest -L gpu -j 12, every test) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
  echo "  skipped: $(grep -c '(Skipped)' $L/qgate.log); not run: $(grep -c 'Not Run' $L/qgate.log)"
  grep -E '\*\*\*Failed|Failed  |Timeout|Exception' $L/qgate.log | head -20
  echo "quant memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/qmem.log | tr '\n' ' ')"
  echo "quant racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1)"; } | tee -a "$S"
gzip -c $L/qgate.log > $O/qgate.log.gz
xz -dc .devrun/run11/mxbench_before.xz > /tmp/mxb_before && chmod +x /tmp/mxb_before
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
{ timeout 60 $mxb $sizes --out $O/bench.csv > $O/bench.txt 2>&1; echo "== mxbench (this tree) rc=$?"
  timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 > $O/torch_cast.txt 2>&1; echo "== torch cast rc=$?"
  timeout 60 /tmp/mxb_before $sizes --out $O/bench_before.csv > $O/bench_before.txt 2>&1; echo "== mxbench (main c989618) rc=$?"
  timeout 40 $mxb --only rowwise --size 16384x16384 --size 8192x7168 > $L/again.txt 2>&1; echo "== mxbench rowwise again rc=$?"
  timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 >> $O/torch_cast.txt 2>&1
  echo "### rowwise again"; cat $L/again.txt; } >> "$S" 2>&1
echo "total $(el) s" | tee -a "$S"; grep -E "torch x.to|mxint8|mxfp8_e4m3 rowwise" $O/torch_cast.txt $O/bench.txt | head
