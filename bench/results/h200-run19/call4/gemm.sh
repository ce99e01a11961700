#!/usr/bin/env bash
# gemm.sh - run 19 call 4 (session 30): the ws producers' address arithmetic
# (this tree) against bdfdb05 (the run 19 final call's GEMM code), both with
# the same mxgemmbench (MXGEMMBENCH_GRAPH=1); then the GEMM gate + C11 CPU
# tests + memcheck/racecheck of this tree.
set -uo pipefail
O=${OUT:-/tmp/r19c}; mkdir -p $O/logs; L=$O/logs; S=$O/summary.txt; R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log --oneline -1 2>/dev/null; } > $S 2>&1
GB=$R/.gpu-bin/r19c-g; BB=$R/.gpu-bin/r19c-b; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $GB -j 11 --target mxgemmbench mx_gemm_gate mx_c11_cpu_test; } > $L/gbuild.log 2>&1 & pg=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run19c/before-src.tar.xz -C /tmp/bsrc &&
    cmake -S /tmp/bsrc/kernels/gemm/standalone -B $BB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $BB -j 5 --target mxgemmbench; } > $L/bbuild.log 2>&1 & pb=$!
wait $pg; bg=$?; wait $pb; bb=$?
echo "== build rc=$bg (this tree) rc=$bb (bdfdb05) at $(el) s" | tee -a $S
[ $bg = 0 ] || { tail -30 $L/gbuild.log | tee -a $S; tar -C $O -czf $O/logs.tgz logs; exit 1; }
gg=$(find $GB -name mx_gemm_gate -type f | head -1); c11=$(find $GB -name mx_c11_cpu_test -type f | head -1)
G=$(find $GB -name mxgemmbench -type f | head -1); B=$(find $BB -name mxgemmbench -type f | head -1)
export MXGEMMBENCH_GRAPH=1
t() { timeout 20 $G time w4a16 $1 $2 $3 ${4:-200} 2>&1 | tail -2; }
tb() { [ -n "$B" ] && timeout 20 $B time w4a16 $1 $2 $3 ${4:-200} 2>&1 | tail -2 | sed 's/^w4a16/w4a16(bdfdb05)/'; }
{ for i in 1 2 3; do echo "=== round $i"
    for shp in "64 2048 7168" "64 7168 2048" "33 2048 7168" "24 7168 2048"; do t $shp; tb $shp; done; done
  for shp in "8192 8192 8192" "4096 7168 2048"; do t $shp 20; tb $shp 20; done; } > $O/gemm.txt 2>&1
echo "== timing done at $(el) s" | tee -a $S
unset MXGEMMBENCH_GRAPH
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/gmem.log 2>&1 & p3=$!
timeout 150 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/grace.log 2>&1 & p4=$!
{ timeout 60 $c11 > $L/c11cpu.log 2>&1; echo "c11 cpu rc=$?" >> $L/c11cpu.log; }
timeout 170 $gg > $L/ggate.log 2>&1; echo "rc=$?" >> $L/ggate.log
wait $p3; m2=$?; wait $p4; r2=$?
{ echo "== gates at $(el) s"
  echo "C11 CPU model tests: $(grep -E '^\[  PASSED|^\[  FAILED|rc=' $L/c11cpu.log | tr '\n' ' ')"
  echo "GEMM gate: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran|rc=' $L/ggate.log | tr '\n' ' ')"
  grep -E '^\[  FAILED' $L/ggate.log | head
  echo "GEMM memcheck rc=$m2: $(grep 'ERROR SUMMARY' $L/gmem.log | tail -1)"
  echo "GEMM racecheck rc=$r2: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/grace.log | tail -1)"; } | tee -a $S
cp $L/ggate.log $O/; tar -C $O -czf $O/logs.tgz logs; rm -rf $L
echo "total $(el) s" | tee -a $S
