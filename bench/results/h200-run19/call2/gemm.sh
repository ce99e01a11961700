#!/usr/bin/env bash
# gemm.sh - run 19 call 2 (session 30): EW forms against their non-EW forms;
# the launcher's ws forms at 16 < M <= 32 against the mma.sync kernel
# (decode_cols 2000, the launcher's choice before); cuBLAS bf16 at those M;
# the GEMM gate + C11 CPU tests + memcheck/racecheck; ncu source of 200006116.
set -uo pipefail
O=${OUT:-/tmp/r19b}; mkdir -p $O/logs; L=$O/logs; S=$O/summary.txt; R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log --oneline -1 2>/dev/null; } > $S 2>&1
GB=$R/.gpu-bin/r19b-g; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $GB -j 16 --target mxgemmbench mx_gemm_gate mx_c11_cpu_test; } > $L/gbuild.log 2>&1; bg=$?
echo "== build rc=$bg at $(el) s" | tee -a $S
[ $bg = 0 ] || { tail -30 $L/gbuild.log | tee -a $S; tar -C $O -czf $O/logs.tgz logs; exit 1; }
gg=$(find $GB -name mx_gemm_gate -type f | head -1); c11=$(find $GB -name mx_c11_cpu_test -type f | head -1)
G=$(find $GB -name mxgemmbench -type f | head -1)
export MXGEMMBENCH_GRAPH=1
t() { timeout 20 $G time w4a16 $1 $2 $3 200 0 ${4:-0} 2>&1 | tail -2; }
{ for i in 1 2; do echo "=== round $i"
    for c in 200006116 1200006116; do t 64 2048 7168 $c; t 24 2048 7168 $c; done
    for c in 10006356 1010006356; do t 64 7168 2048 $c; t 33 7168 2048 $c; done
    for m in 17 24; do for c in 0 2000; do t $m 2048 7168 $c; t $m 7168 2048 $c; t $m 2048 2048 $c; t $m 4096 4096 $c; t $m 1024 8192 $c; done; done
    for c in 2000 200006116; do t 8 2048 7168 $c; t 16 2048 2048 $c; done
    for c in 2000 10006356; do t 8 7168 2048 $c; t 16 7168 2048 $c; done
  done; } > $O/gemm.txt 2>&1
echo "== timing done at $(el) s" | tee -a $S
{ timeout 60 python3 kernels/gemm/bench/torch_bench.py 50 8,17,24 2>&1 | grep -E "^cublas_bf16"; } > $O/cublas.txt 2>&1
echo "== cublas done at $(el) s" | tee -a $S
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
mkdir -p /tmp/qb
timeout 60 ncu --clock-control none -k regex:w4a16_ws_kernel --launch-skip 3 -c 1 --set full --import-source yes -f -o /tmp/qb/ws16 \
  $G time w4a16 64 2048 7168 4 > $L/srcncu.log 2>&1; echo "src ncu rc=$?" >> $L/srcncu.log
timeout 30 ncu -i /tmp/qb/ws16.ncu-rep --page source --csv --print-source sass > $O/ws16_sass.csv 2>>$L/srcncu.log; gzip -f $O/ws16_sass.csv
echo "== ncu done at $(el) s" | tee -a $S
cp $L/ggate.log $O/; tar -C $O -czf $O/logs.tgz logs; rm -rf $L
echo "total $(el) s" | tee -a $S
