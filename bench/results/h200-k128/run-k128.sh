#!/usr/bin/env bash
# run 18 k128 (issue 10, helper k128): the w4a16 ws consumer's per-k-tile chain
# at M = 64. One device call on an H200: (1) the floor of the chain
# (kernels/gemm/bench/wgmma_chain_probe.cu: cycles per dependent bf16 wgmma
# m64nNk16 step, N = 16 / 56 / 64, issued as the kernel does and with no
# waits); (2) main c01053c as is ("before") and with the overlay (new: TK
# k-tiles per consumer round trip, + TK * 100000000; IW, each k-tile's full
# barrier waited for just before its wgmmas, + 1000000000; call 1 had LA, the
# next group's full barriers before the wgmma wait, there), built side by side;
# (3) the gate of every w4a16 ws path beside memcheck / racecheck of
# GemmGateSanitizer.W4a16WsDecode; (4) rounds of the launcher's forms (before:
# 6016 / 10006356; new: 200006016 / 10006356) and the variants alternating
# (call 1: W2="200006016 400006016 1000006016 1200006016" W7="200006356
# 210006356 1010006356 1210006356" with the LA codes), cuBLAS bf16
# (torch_bench.py 50, CUDA graph) each round. Summary last in $OUT/summary.txt.
# Usage (main's tree): OUT=<dir> bash .devrun/k128/overlay/bench/results/h200-k128/run-k128.sh
set -uo pipefail
O=${OUT:-/tmp/k128}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"; R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" >>"$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./vectors \
  --exclude=./bench/results -cf - . | tar -C /tmp/bsrc -xf -
cp -r .devrun/k128/overlay/. ./
GT=-DMX_GTEST_SRC=$R/.gtest-src
NV="nvcc -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -Ikernels -Ikernels/include -Ireference/include"
$NV kernels/gemm/bench/wgmma_chain_probe.cu -o /tmp/mxwgmmachain >"$O/pbuild.log" 2>&1 & p0=$!
{ cmake -S kernels/gemm/standalone -B /tmp/gn -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $GT >/dev/null &&
  cmake --build /tmp/gn -j 10 --target mxgemmbench mx_gemm_gate; } >"$O/nbuild.log" 2>&1 & p1=$!
{ cmake -S /tmp/bsrc/kernels/gemm/standalone -B /tmp/gb -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $GT >/dev/null &&
  cmake --build /tmp/gb -j 6 --target mxgemmbench; } >"$O/bbuild.log" 2>&1 & p2=$!
wait $p0; r0=$?
[ $r0 = 0 ] && timeout 30 /tmp/mxwgmmachain >"$O/probe.txt" 2>&1
wait $p1; r1=$?; wait $p2; r2=$?
log "build probe rc=$r0 new rc=$r1 before rc=$r2 at $(el) s"
[ $r1 = 0 ] || { grep -E "error|FAILED" "$O/nbuild.log" | head -20 >>"$S"; }
N=$(find /tmp/gn -name mxgemmbench -type f | head -1); B=$(find /tmp/gb -name mxgemmbench -type f | head -1)
G=$(find /tmp/gn -name mx_gemm_gate -type f | head -1)
if [ -n "$G" ]; then
  F='GemmGate.W4a16WsDecode:GemmGate.W4a16WarpSpecialized:GemmGate.W4a16RaggedShapesAndTiles:GemmGate.W4a16SmallM:GemmGate.W4a16DecodeAndLargeTiles:GemmGate.W4a16Specials:GemmGate.Errors:GemmGateSanitizer.W4a16WsDecode'
  SAN=GemmGateSanitizer.W4a16WsDecode
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $G --gtest_filter=$SAN >"$O/mem.log" 2>&1 & q1=$!
  timeout 100 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $G --gtest_filter=$SAN >"$O/race.log" 2>&1 & q2=$!
  timeout 100 $G --gtest_filter="$F" >"$O/gate.log" 2>&1; gr=$?
  wait $q1; m=$?; wait $q2; rc=$?
  log "gate rc=$gr: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' "$O/gate.log" | tr '\n' ' ') ok=$(grep -cE '^\[       OK' "$O/gate.log")"
  grep -E "Failure|w4a16 m=|^\[  FAILED" "$O/gate.log" | head -8 >>"$S"
  log "memcheck rc=$m: $(grep 'ERROR SUMMARY' "$O/mem.log" | tail -1) ok=$(grep -cE '^\[       OK' "$O/mem.log")"
  log "racecheck rc=$rc: $(grep -E 'RACECHECK SUMMARY' "$O/race.log" | tail -1) ok=$(grep -cE '^\[       OK' "$O/race.log")"
  log "gates at $(el) s"
fi
t() {  # label binary shape cols
  [ -n "$2" ] || return
  printf "%-7s %-13s %-11s " "$1" "$3" "$4" >>"$S"
  timeout 15 $2 time w4a16 $3 200 0 $4 2>&1 | tail -1 | cut -c1-120 >>"$S"
}
W2=${W2:-400006016 1200006016 1400006016 200006116}; W7=${W7:-200006356 1200006356}
for round in 1 2 3; do
  [ $(el) -gt ${ROUND_BY:-170} ] && { log "round $round skipped (time)"; continue; }
  log "## round $round (label shape cols: M,N,K,us,TFLOP/s; cols 0 = the launcher)"
  for shp in "64 2048 7168" "48 2048 7168"; do
    t before "$B" "$shp" 0; t new "$N" "$shp" 0; t new "$N" "$shp" 6016
    for c in $W2; do t new "$N" "$shp" $c; done
    t before "$B" "$shp" 0
  done
  for shp in "64 7168 2048" "40 7168 2048"; do
    t before "$B" "$shp" 0; t new "$N" "$shp" 0; t new "$N" "$shp" 10006356
    for c in $W7; do t new "$N" "$shp" $c; done
    t before "$B" "$shp" 0
  done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,64," >>"$S"
  log "round $round done $(el) s"
done
cat "$O/probe.txt" >>"$S" 2>/dev/null
tar -czf "$O/logs.tgz" -C "$O" pbuild.log nbuild.log bbuild.log gate.log mem.log race.log 2>/dev/null; rm -f "$O"/*.log
log "total $(el) s"
cat "$S"
