#!/usr/bin/env bash
# tao.sh - run 10 tao (issue 9, NVFP4 quantize pass: fewer instructions):
# ONE device call. Builds main's tree (mxbench) and main + the overlay
# .devrun/tao/overlay (mx_gpu_gate + mxbench) in parallel, -j8 each, sm_90a;
# times both mxbench binaries alone on the GPU (main, tao, main, tao); ncu on
# the quantize pass (k_rowwise) of both orders at 16384^2 (tao, and main's
# torchao order); SASS instruction counts of the NVFP4 ring kernels; then the
# gate filtered to the NVFP4 cases, GpuGateRow.*, the sanitizer subset and
# GpuGateErrors.* (ctest -j 12) beside compute-sanitizer memcheck + racecheck
# on GpuGateSanitizer.*:GpuGateErrors.*. Everything in $OUT, summary last.
#   run(command="bash .devrun/tao/overlay/bench/results/h100-tao/tao.sh", carry=[".devrun/tao", ".gtest-src"], timeout_s=240)
set -uo pipefail
O=${OUT:-/tmp/tao-out}; mkdir -p "$O"; L=$O/logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$O/summary.txt; R=$PWD; MB=/tmp/tao-main-bin; OB=/tmp/tao-ours-bin; OT=/tmp/tao-ours
pack() { tar -C "$O" -czf "$O/logs.tgz" logs; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$S" 2>&1
mkdir -p $OT && tar --exclude=./.git --exclude=./.gpu-bin --exclude=./.devrun -cf - . | tar -C $OT -xf - && cp -r .devrun/tao/overlay/. $OT/
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $MB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $MB -j 8 --target mxbench; } > $L/mbuild.log 2>&1 & pm=$!
{ cmake -S $OT/bench/standalone -B $OB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $OB -j 8 --target mx_gpu_gate mxbench; } > $L/obuild.log 2>&1 & po=$!
wait $pm; bm=$?; wait $po; bo=$?
echo "== build rc=$bm (main) rc=$bo (tao) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bo != 0 ]; then grep -E "error" -A3 $L/mbuild.log $L/obuild.log | head -40 | tee -a "$S"; pack; exit 1; fi
mxm=$(find $MB -name mxbench -type f | head -1); mxo=$(find $OB -name mxbench -type f | head -1)
gate=$(find $OB -name mx_gpu_gate -type f | head -1)
sizes="--size 16384x16384 --size 8192x7168 --only nvfp4"
timeout 30 $mxm --out $L/bench_main.csv $sizes > $O/bench_main.txt 2>&1; b1=$?
timeout 30 $mxo --out $L/bench_tao.csv $sizes > $O/bench_tao.txt 2>&1; b2=$?
timeout 30 $mxm --out $L/bench_main2.csv $sizes > $L/bench_main2.txt 2>&1
timeout 30 $mxo --out $L/bench_tao2.csv $sizes > $L/bench_tao2.txt 2>&1
echo "== mxbench rc=$b1 (main) rc=$b2 (tao) at $(el) s" | tee -a "$S"
{ for f in $O/bench_main.txt $L/bench_main2.txt $O/bench_tao.txt $L/bench_tao2.txt; do
    [ -f $f ] && { echo "# $(basename $f)"; grep -E "copy_bf16|nvfp4" $f; }
  done; } | tee -a "$S"
# SASS: instructions per NVFP4 ring kernel (k_rowwise), bf16 input, both orders
for o in $(find $MB $OB -name 'nvfp4.cu.o'); do
  echo "# $o"
  cuobjdump -sass $o 2>/dev/null | awk '/Function :/{f=$3} /^ +\/\*[0-9a-f]+\*\//{c[f]++} END{for(k in c) print c[k], k}' |
    grep -E "k_rowwise" | grep -E "nv_bfloat16" | sort -k2 | head -8
done > $O/sass.txt 2>&1
# ncu on the quantize pass (second launch), 16384^2
M="dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,gpu__time_duration.sum"
ncu1() { # binary case-substring label
  echo "=== ncu $3: k_rowwise, --only '$2', 16384x16384, second launch"
  timeout ${NCU_S:-20} ncu --clock-control none -k regex:k_rowwise --launch-skip 1 -c 1 --metrics $M $1 --only "$2" --size 16384x16384 --iters 3 2>&1 |
    grep -E "dram__|sm__inst|issue_active|warps_active|registers|duration" | tail -8
}
if [ $(el) -lt 150 ]; then
  { ncu1 $mxo "nvfp4 rowwise" "tao TE"; ncu1 $mxo "nvfp4:torchao" "tao torchao"
    [ $(el) -lt 165 ] && ncu1 $mxm "nvfp4:torchao" "main torchao"; } > $O/ncu.txt 2>&1
fi
echo "== ncu at $(el) s" | tee -a "$S"
ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' |
  grep -E 'nvfp4|Nvfp4|GpuGateRow\.|GpuGateSanitizer\.|GpuGateErrors\.' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
left=$(( ${END_S:-232} - $(el) )); [ $left -lt 20 ] && left=20
qs='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $left compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
timeout $left compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
(cd "$ct" && timeout $(( left - 3 )) ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
wait $p1; m1=$?; wait $p2; r1=$?
{ echo "== gate at $(el) s"
  echo "gate (filtered, ctest -j 12) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
  grep -E '\*\*\*Failed|Failed  |Timeout|Exception|Not Run' $L/qgate.log | head -20
  echo "memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' $L/qmem.log | tr '\n' ' ')"
  echo "racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' $L/qrace.log | tr '\n' ' ')"
  cat $O/sass.txt; cat $O/ncu.txt; } | tee -a "$S"
gzip -c $L/qgate.log > $O/qgate.log.gz
pack; echo "total $(el) s" | tee -a "$S"
