#!/usr/bin/env bash
# run 17 desc (lead): the ws consumer's wgmma descriptors from per-stage bases
# (desc_add) and cw = 0 where NC = 1. Builds main c5b19ff as is (before) and
# with the overlay (new), gates the w4a16 ws paths + sanitizers, times both
# alternately beside cuBLAS bf16.
set -uo pipefail
O=${OUT:-/tmp/desc}; mkdir -p $O; S=$O/summary.txt; R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S
rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./vectors --exclude=./bench/results -cf - . | tar -C /tmp/bsrc -xf -
cp -r .devrun/desc/overlay/. ./
GT=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S kernels/gemm/standalone -B /tmp/gn -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $GT >/dev/null &&
  cmake --build /tmp/gn -j 10 --target mxgemmbench mx_gemm_gate; } > $O/nbuild.log 2>&1 & p1=$!
{ cmake -S /tmp/bsrc/kernels/gemm/standalone -B /tmp/gb -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $GT >/dev/null &&
  cmake --build /tmp/gb -j 6 --target mxgemmbench; } > $O/bbuild.log 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
echo "build new rc=$r1 before rc=$r2 at $(el) s" >> $S
[ $r1 = 0 ] || { grep -E "error" $O/nbuild.log | head >> $S; exit 1; }
N=$(find /tmp/gn -name mxgemmbench -type f | head -1); B=$(find /tmp/gb -name mxgemmbench -type f | head -1); G=$(find /tmp/gn -name mx_gemm_gate -type f | head -1)
F='GemmGate.W4a16WsDecode:GemmGate.W4a16WarpSpecialized:GemmGate.W4a16RaggedShapesAndTiles:GemmGate.W4a16SmallM:GemmGate.W4a16DecodeAndLargeTiles:GemmGate.W4a16Specials:GemmGate.Errors:GemmGateSanitizer.W4a16WsDecode'
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $G --gtest_filter='GemmGateSanitizer.W4a16WsDecode' > $O/mem.log 2>&1 & q1=$!
timeout 120 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $G --gtest_filter='GemmGateSanitizer.W4a16WsDecode' > $O/race.log 2>&1 & q2=$!
timeout 150 $G --gtest_filter="$F" > $O/gate.log 2>&1; gr=$?
wait $q1; m=$?; wait $q2; rc=$?
{ echo "gate rc=$gr: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $O/gate.log | tr '\n' ' ')"; grep -E '^\[  FAILED' $O/gate.log | head
  echo "memcheck rc=$m: $(grep 'ERROR SUMMARY' $O/mem.log | tail -1)"; echo "racecheck rc=$rc: $(grep -E 'RACECHECK SUMMARY' $O/race.log | tail -1)"; echo "gates at $(el) s"; } >> $S
for round in 1 2 3; do
  for shp in "64 2048 7168" "64 7168 2048" "48 2048 7168" "40 7168 2048"; do
    echo "new    $(timeout 20 $N time w4a16 $shp 200 2>&1 | tail -1)" >> $S
    [ -n "$B" ] && echo "before $(timeout 20 $B time w4a16 $shp 200 2>&1 | tail -1)" >> $S
  done
done
for shp in "8192 8192 8192" "4096 7168 2048"; do
  echo "new    $(timeout 30 $N time w4a16 $shp 20 2>&1 | tail -1)" >> $S
  [ -n "$B" ] && echo "before $(timeout 30 $B time w4a16 $shp 20 2>&1 | tail -1)" >> $S
done
echo "timing at $(el) s" >> $S
timeout 60 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16" >> $S
echo "total $(el) s" >> $S
tar -czf $O/logs.tgz -C $O nbuild.log bbuild.log gate.log mem.log race.log 2>/dev/null; rm -f $O/*.log
cat $S
