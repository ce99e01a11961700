#!/usr/bin/env bash
# hint.sh - run 14 hint (issue 9: cache policies of the 8-bit rowwise paths),
# one device call. Builds main's mxbench (a copy of the shipped tree) and
# this overlay's mxbench + mx_gpu_gate (.devrun/hint/overlay; bench/standalone,
# 90a-real, -j16, both without kernels/gemm) in parallel, then alone on the
# GPU: torch's plain fp8 cast (bench/sol/torch_cast.py); then
#  MODE=sweep (call 1): main's mxbench and this build under each cache
#    policy of the probe (MXK_CACHE_POL, common/row_select.hpp: stores
#    kSt* | loads kLd* << 4 | 0x100 scale bytes too; block_quant.cuh),
#    rounds alternating (order rotated each round), 16384^2 and 8192x7168,
#    every mxbench case; then the rowwise / colwise stream gate tests under
#    every policy (ForcedKernels, StreamRecipes mxfp8_e4m3, in parallel);
#  MODE=final (call 2): main / this build (the knobs) alternating three
#    rounds, in rounds 1-2 also this build under each other host-side
#    probe form (MXK_ROW_ST=1,3..6, MXK_COL_ST=1,2,4,5: launch_impl.cuh), then the
#    gate subset (rowwise, large, sanitizer, errors, poison, 8-bit recipes),
#    beside it four gate tests under each probe form, and
#    compute-sanitizer memcheck + racecheck on
#    GpuGateSanitizer.*:GpuGateErrors.* beside it.
#   run(command="MODE=sweep bash .devrun/hint/overlay/bench/results/h100-hint/hint.sh", carry=[".devrun/hint", ".gtest-src"], timeout_s=220)
set -uo pipefail
MODE=${MODE:-sweep}
O=${OUT:-/tmp/hint-out}; mkdir -p "$O"; L=/tmp/hint-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-212}
S=$O/summary.txt; R=$PWD
H=.devrun/hint/overlay/bench/results/h100-hint
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log -1 --format='main %H %s'; echo "MODE=$MODE"; } > "$S" 2>&1
mk() {  # mk DIR: a copy of the build inputs without kernels/gemm
  rm -rf "$1"; mkdir -p "$1/bench"; cp -r kernels reference conformance cmake "$1/"; cp -r bench/standalone "$1/bench/"
  rm -f "$1/kernels/gemm/CMakeLists.txt"
}
mk /tmp/src-main
cp -r .devrun/hint/overlay/. ./
mk /tmp/src-hint
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S /tmp/src-main/bench/standalone -B /tmp/bin-main -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build /tmp/bin-main -j 16 --target mxbench; } > $L/build-main.log 2>&1 & pm=$!
{ cmake -S /tmp/src-hint/bench/standalone -B /tmp/bin-hint -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build /tmp/bin-hint -j 16 --target mxbench mx_gpu_gate; } > $L/build-hint.log 2>&1 & pt=$!
wait $pm; bm=$?; wait $pt; bt=$?
echo "== build rc=$bm (main) rc=$bt (hint) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bt != 0 ]; then grep -E "error|Error" $L/build-*.log | head -30 | tee -a "$S"; cp $L/build-*.log $O/; exit 1; fi
MB=$(find /tmp/bin-main -name mxbench -type f | head -1); TB=$(find /tmp/bin-hint -name mxbench -type f | head -1)
gate=$(find /tmp/bin-hint -name mx_gpu_gate -type f | head -1)
sz="--size 16384x16384 --size 8192x7168"
timeout 25 python3 bench/sol/torch_cast.py 16384 16384 30 > $O/torch_cast.txt 2>&1; echo "== torch cast rc=$? at $(el) s" | tee -a "$S"
[ "$MODE" = sweep ] && timeout 25 python3 bench/sol/torch_cast.py 8192 7168 30 >> $O/torch_cast.txt 2>&1
if [ "$MODE" = sweep ]; then
  V=(0x000 0x001 0x002 0x003 0x004 0x005 0x006 0x010 0x020 0x030 0x100 0x103)
  SW_END=${SW_END:-160}
  : > $O/sweep.txt
  for r in 1 2 3; do
    [ $r -gt 2 ] && [ $(( SW_END - $(el) )) -lt 30 ] && break
    n=${#V[@]}; k=$(( (r - 1) * 5 % n )); lst=(main "${V[@]:k}" "${V[@]:0:k}")
    for v in "${lst[@]}"; do
      if [ "$v" = main ]; then echo "=== main $r" >> $O/sweep.txt; timeout 20 $MB $sz >> $O/sweep.txt 2>&1
      else echo "=== $v $r" >> $O/sweep.txt; MXK_CACHE_POL=$v timeout 20 $TB $sz >> $O/sweep.txt 2>&1; fi
    done
    echo "== sweep round $r at $(el) s" | tee -a "$S"
  done
  python3 $H/summarize.py $O/sweep.txt > $O/sweep_summary.txt 2>&1
  # the rowwise / colwise stream gate tests under every policy (bytes must not change)
  GF='GpuGateRow.ForcedKernelsBytesEqualReference:GpuGate/StreamRecipes.FullTilesBytesEqualReference/mxfp8_e4m3'
  LEFT=$(( END - $(el) - 4 )); [ $LEFT -lt 15 ] && LEFT=15
  for v in "${V[@]}"; do
    ( MXK_CACHE_POL=$v timeout $LEFT "$gate" --gtest_filter="$GF" > $L/vgate-$v.log 2>&1; echo "rc=$?" >> $L/vgate-$v.log ) &
  done
  wait
  for v in "${V[@]}"; do echo "vgate $v: $(grep -E '^\[  (PASSED|FAILED) ' $L/vgate-$v.log | tr '\n' ' ') $(tail -1 $L/vgate-$v.log)"; done >> $S
  cat $L/vgate-0x003.log | tail -20 > $O/vgate_sample.log
else
  : > $O/bench.txt
  for r in 1 2 3; do
    echo "=== main $r" >> $O/bench.txt; timeout 20 $MB $sz >> $O/bench.txt 2>&1
    echo "=== hint $r" >> $O/bench.txt; timeout 20 $TB $sz >> $O/bench.txt 2>&1
    if [ $r -le 2 ]; then  # the knobs' forms (row 2, col 3) are "hint"
      for v in 1 3 4 5 6; do echo "=== row$v $r" >> $O/bench.txt; MXK_ROW_ST=$v timeout 20 $TB $sz >> $O/bench.txt 2>&1; done
      for v in 1 2 4 5; do echo "=== col$v $r" >> $O/bench.txt; MXK_COL_ST=$v timeout 20 $TB $sz >> $O/bench.txt 2>&1; done
    fi
    echo "== bench round $r at $(el) s" | tee -a "$S"
  done
  python3 $H/summarize.py $O/bench.txt > $O/bench_summary.txt 2>&1
  ct=$(mktemp -d)
  F='GpuGateRow|GpuGateSanitizer|GpuGateErrors|GpuGatePoison|GpuGateEmpty|GpuGateLarge|mxfp8_e4m3$|mxfp8_e4m3_rceil$|mxint8$|mxfp8_e5m2$'
  "$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > $L/gate-all.txt
  { grep -E "$F" $L/gate-all.txt | grep -E 'GpuGateRow|GpuGateLarge'; grep -E "$F" $L/gate-all.txt | grep -vE 'GpuGateRow|GpuGateLarge'; } | while read -r t; do
    echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
    echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
  done > "$ct/CTestTestfile.cmake"
  LEFT=$(( END - $(el) - 6 )); [ $LEFT -lt 30 ] && LEFT=30
  sf='GpuGateSanitizer.*:GpuGateErrors.*'
  timeout $LEFT compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/memcheck.log 2>&1 & mp=$!
  { timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter=GpuGateSanitizer.RowTile:GpuGateSanitizer.RowStream > $L/racecheck-tile.log 2>&1; echo "racecheck RowTile+RowStream rc=$?" >> $L/racecheck-tile.log
    LR=$(( T0 + END - 6 - $(date +%s) )); [ $LR -lt 5 ] && LR=5
    timeout $LR compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf:-GpuGateSanitizer.RowTile:GpuGateSanitizer.RowStream" > $L/racecheck.log 2>&1; } & rp=$!
  VF='GpuGate/StreamRecipes.FullTilesBytesEqualReference/mxfp8_e4m3:GpuGateRow.StreamLargeBytesEqualReference:GpuGate/Recipes.QuantizeBytesEqualReference/mxfp8_e4m3:GpuGate/Recipes.QuantizeBytesEqualReference/mxint8'
  for v in 1 3 4 5 6; do ( MXK_ROW_ST=$v nice timeout $LEFT "$gate" --gtest_filter="$VF" > $L/vgate-row$v.log 2>&1; echo "rc=$?" >> $L/vgate-row$v.log ) & done
  for v in 1 2 4 5; do ( MXK_COL_ST=$v nice timeout $LEFT "$gate" --gtest_filter="$VF" > $L/vgate-col$v.log 2>&1; echo "rc=$?" >> $L/vgate-col$v.log ) & done
  tg=$(date +%s)
  (cd $ct && timeout $LEFT ctest -j 14 --output-on-failure) > $L/ctest.log 2>&1; grc=$?
  wait $mp; mrc=$?; wait $rp; rrc=$?
  wait
  for f in $L/vgate-*.log; do echo "$(basename $f .log): $(grep -E '^\[  (PASSED|FAILED) ' $f | tr '\n' ' ') $(tail -1 $f)"; done >> $S
  { echo "gate: $(grep -cE "$F" $L/gate-all.txt) of $(wc -l < $L/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
    grep -E "tests passed|tests failed" $L/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $L/ctest.log)"
    grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $L/ctest.log | head -20
    echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' $L/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/memcheck.log | tr '\n' ' ')"
    echo "racecheck RowTile+RowStream: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck-tile.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) |rc=' $L/racecheck-tile.log | tr '\n' ' ')"
    echo "racecheck rest rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/racecheck.log | tr '\n' ' ')"
  } >> $S
  { echo "##### memcheck"; tail -30 $L/memcheck.log; echo "##### racecheck RowTile+RowStream"; tail -20 $L/racecheck-tile.log; echo "##### racecheck rest"; tail -30 $L/racecheck.log; } > $O/sanitizers.log
  { grep -E "Test +#" $L/ctest.log; grep -B2 -A30 -E "FAILED|Failure" $L/ctest.log | head -150; } > $O/ctest.txt
fi
echo "total: $(el) s" >> $S
cat $O/sweep_summary.txt $O/bench_summary.txt 2>/dev/null | head -80
grep -E "median|us" $O/torch_cast.txt | tail -6
cat $S
