#!/usr/bin/env bash
# div.sh - run 9 div (issue 9, NVFP4 torchao order without a per-element IEEE
# division): ONE device call. Builds main's tree (mxbench) and main + the
# overlay .devrun/div/overlay (mx_gpu_gate + mxbench) in parallel, -j8 each,
# sm_90a; times both mxbench binaries alone on the GPU; runs the gate
# filtered to the NVFP4 cases, GpuGateRow.*, the sanitizer subset and
# GpuGateErrors.* (ctest -j 12), and compute-sanitizer memcheck + racecheck
# on GpuGateSanitizer.*:GpuGateErrors.* beside it; SASS counts of the NVFP4
# quantize kernels. Everything in $OUT, summary.txt last printed.
#   run(command="bash .devrun/div/overlay/bench/results/h100-run9-div/div.sh", carry=[".devrun/div", ".gtest-src"], timeout_s=300)
set -uo pipefail
O=${OUT:-/tmp/div-out}; mkdir -p "$O"; L=$O/logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$O/summary.txt; R=$PWD; MB=$R/.gpu-bin/div-main; OB=/tmp/div-ours-bin; OT=/tmp/div-ours
pack() { tar -C "$O" -czf "$O/logs.tgz" logs; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; } > "$S" 2>&1
# ours: a copy of the shipped tree (= main) with the overlay on top
mkdir -p $OT && tar --exclude=./.git --exclude=./.gpu-bin --exclude=./.devrun -cf - . | tar -C $OT -xf - && cp -r .devrun/div/overlay/. $OT/
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $MB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $MB -j 8 --target mxbench; } > $L/mbuild.log 2>&1 & pm=$!
{ cmake -S $OT/bench/standalone -B $OB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $OB -j 8 --target mx_gpu_gate mxbench; } > $L/obuild.log 2>&1 & po=$!
wait $pm; bm=$?; wait $po; bo=$?
echo "== build rc=$bm (main) rc=$bo (div) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bo != 0 ]; then tail -30 $L/mbuild.log $L/obuild.log | tee -a "$S"; pack; exit 1; fi
mxm=$(find $MB -name mxbench -type f | head -1); mxo=$(find $OB -name mxbench -type f | head -1)
gate=$(find $OB -name mx_gpu_gate -type f | head -1)
sizes="--size 16384x16384 --size 8192x7168 --only nvfp4"
# bench: main, div, main again, div again (each alone on the GPU)
timeout ${BENCH_S:-40} $mxm --out $O/bench_main.csv $sizes > $O/bench_main.txt 2>&1; b1=$?
timeout ${BENCH_S:-40} $mxo --out $O/bench_div.csv $sizes > $O/bench_div.txt 2>&1; b2=$?
echo "== mxbench rc=$b1 (main) rc=$b2 (div) at $(el) s" | tee -a "$S"
if [ $(el) -lt 150 ]; then
  timeout ${BENCH_S:-40} $mxm --out $L/bench_main2.csv $sizes > $L/bench_main2.txt 2>&1
  timeout ${BENCH_S:-40} $mxo --out $L/bench_div2.csv $sizes > $L/bench_div2.txt 2>&1
  echo "== repeat mxbench at $(el) s" | tee -a "$S"
fi
{ for f in $O/bench_main.txt $L/bench_main2.txt $O/bench_div.txt $L/bench_div2.txt; do
    [ -f $f ] && { echo "# $(basename $f)"; grep -E "copy_bf16|nvfp4" $f; }
  done; } | tee -a "$S"
# gate (filtered) and the sanitizers side by side
ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' |
  grep -E 'nvfp4|Nvfp4|GpuGateRow\.|GpuGateSanitizer\.|GpuGateErrors\.' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
left=$(( 285 - $(el) )); [ $left -lt 30 ] && left=30
qs='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $left compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
timeout $left compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
(cd "$ct" && timeout $(( left - 5 )) ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
for o in $(find $MB $OB -name 'nvfp4.cu.o'); do
  n=$(cuobjdump -sass $o 2>/dev/null | awk '/Function :/{f=$3} f ~ /Nvfp4QILi1E/ && /^ +\/\*[0-9a-f]+\*\//{c++} f ~ /Nvfp4QILi1E/ && /MUFU.RCP/{m++} f ~ /Nvfp4QILi1E/ && /FCHK/{k++} END{print c" instr, "m" MUFU.RCP, "k" FCHK"}')
  echo "SASS torchao-order kernels (all, summed) $o: $n"
done >> $L/sass.txt 2>&1
wait $p1; m1=$?; wait $p2; r1=$?
{ echo "== gate at $(el) s"
  echo "gate (filtered, ctest -j 12) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
  grep -E '\*\*\*Failed|Failed  |Timeout|Exception|Not Run' $L/qgate.log | head -20
  echo "memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' $L/qmem.log | tr '\n' ' ')"
  echo "racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1) $(grep -E '^\[  PASSED|^\[  FAILED' $L/qrace.log | tr '\n' ' ')"
  cat $L/sass.txt; } | tee -a "$S"
gzip -c $L/qgate.log > $O/qgate.log.gz
pack; echo "total $(el) s" | tee -a "$S"
