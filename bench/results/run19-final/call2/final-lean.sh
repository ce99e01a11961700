#!/usr/bin/env bash
# final.sh - run 19 (session 30): the merged tree of this session on the H100,
# built on the device (-j16, sm_90a) from the tree the call ships.
#   PHASE=gate : build the quantization gate + mxbench (bench/standalone), the
#                GEMM gate + C11 CPU model tests + mxgemmbench (kernels/gemm/standalone)
#                and main-before's mxgemmbench (from .devrun/run19e/before-src.tar.xz)
#                into .gpu-bin/r19e-{q,g,b}; run ctest -L gpu (every test), the GEMM
#                gate, the C11 CPU tests, compute-sanitizer memcheck + racecheck on
#                both sanitizer subsets.
#   PHASE=build: build only when the binaries are missing.
# Everything lands in $OUT: summary.txt first.
set -uo pipefail
O=${OUT:-/tmp/r19e-out}; mkdir -p "$O"; L=$O/logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$O/summary.txt; R=$PWD; QB=$R/.gpu-bin/r19e-q; GB=$R/.gpu-bin/r19e-g; BB=$R/.gpu-bin/r19e-b
pack() { tar -C "$O" -czf "$O/logs.tgz" logs; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .devrun/run19e/tree.txt 2>/dev/null; } > "$S" 2>&1
build_all() {
  gt=-DMX_GTEST_SRC=$R/.gtest-src
  { cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
      cmake --build $QB -j 7 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
  { cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
      cmake --build $GB -j 7 --target mx_gemm_gate mx_c11_cpu_test mxgemmbench; } > $L/gbuild.log 2>&1 & pg=$!
  wait $pq; bq=$?; wait $pg; bg=$?; bb=skipped
  echo "== build rc=$bq (quant) rc=$bg (gemm) rc=$bb (gemm of main before) at $(el) s" | tee -a "$S"
  [ $bq = 0 ] && [ $bg = 0 ] || { tail -30 $L/qbuild.log $L/gbuild.log | tee -a "$S"; pack; exit 1; }
}
if [ "${PHASE:-gate}" = build ]; then
  [ -n "$(find $QB -name mxbench -type f 2>/dev/null)" ] && [ -n "$(find $GB -name mxgemmbench -type f 2>/dev/null)" ] || build_all
  exit 0
fi
build_all
# main 1fd7f12's mxbench (the quantization "before"), built in the background while the gates run
BQ=$R/.gpu-bin/r19e-bq; pbq=
if [ "${QBEF_BUILD:-0}" = 1 ]; then
  { cmake -S /tmp/before-src/bench/standalone -B $BQ -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$R/.gtest-src >/dev/null &&
      cmake --build $BQ -j 6 --target mxbench; } > $L/bqbuild.log 2>&1 & pbq=$!
fi
gate=$(find $QB -name mx_gpu_gate -type f | head -1); gg=$(find $GB -name mx_gemm_gate -type f | head -1)
c11=$(find $GB -name mx_c11_cpu_test -type f | head -1); ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
qs='GpuGateSanitizer.*:GpuGateErrors.*'; SS=${SAN_S:-300}
timeout $SS compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
timeout $SS compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
timeout $SS compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/gmem.log 2>&1 & p3=$!
timeout $SS compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/grace.log 2>&1 & p4=$!
{ timeout 60 $c11 > $L/c11cpu.log 2>&1; echo "c11 cpu rc=$?" >> $L/c11cpu.log
  timeout ${GATE_S:-300} $gg > $L/ggate.log 2>&1; echo "rc=$?" >> $L/ggate.log; } & p5=$!
(cd "$ct" && timeout ${GATE_S:-300} ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
wait $p5; wait $p1; m1=$?; wait $p2; r1=$?; wait $p3; m2=$?; wait $p4; r2=$?
{ echo "== gates at $(el) s"
  echo "quant gate (ctest -L gpu -j 12, every test) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
  echo "  skipped: $(grep -c '(Skipped)' $L/qgate.log); not run: $(grep -c 'Not Run' $L/qgate.log)"
  grep -E '\*\*\*Failed|Failed  |Timeout|Exception' $L/qgate.log | head -20
  echo "quant memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1)"
  echo "quant racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1)"
  echo "C11 CPU model tests: $(grep -E '^\[  PASSED|^\[  FAILED|rc=' $L/c11cpu.log | tr '\n' ' ')"
  echo "GEMM gate: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran|rc=' $L/ggate.log | tr '\n' ' ')"
  grep -E '^\[  FAILED' $L/ggate.log | head
  echo "GEMM memcheck rc=$m2: $(grep 'ERROR SUMMARY' $L/gmem.log | tail -1)"
  echo "GEMM racecheck rc=$r2: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/grace.log | tail -1)"; } | tee -a "$S"
[ -n "$pbq" ] && { wait $pbq; echo "== before mxbench build rc=$? at $(el) s" | tee -a "$S"; }
gzip -c $L/qgate.log > $O/qgate.log.gz; cp $L/ggate.log $O/
pack; echo "total $(el) s" | tee -a "$S"
