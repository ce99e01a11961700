#!/usr/bin/env bash
# gemm.sh - run 19 call 1 (session 30): the ws kernel's A box of min(BM, M)
# rows (this tree) against 1fd7f12 (64-row box, zero fill past M), both with
# this tree's mxgemmbench (MXGEMMBENCH_GRAPH=1: stream and CUDA-graph times);
# decode shapes over M; cuBLAS bf16 at the same M; ncu of the launcher's forms
# at M = 64; then the GEMM gate + C11 CPU tests + memcheck/racecheck.
set -uo pipefail
O=${OUT:-/tmp/r19a}; mkdir -p $O/logs; L=$O/logs; S=$O/summary.txt; R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; git log --oneline -1 2>/dev/null; } > $S 2>&1
GB=$R/.gpu-bin/r19a-g; BB=$R/.gpu-bin/r19a-b; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $GB -j 11 --target mxgemmbench mx_gemm_gate mx_c11_cpu_test; } > $L/gbuild.log 2>&1 & pg=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run19a/before-src.tar.xz -C /tmp/bsrc &&
    cmake -S /tmp/bsrc/kernels/gemm/standalone -B $BB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $BB -j 5 --target mxgemmbench; } > $L/bbuild.log 2>&1 & pb=$!
wait $pg; bg=$?; wait $pb; bb=$?
echo "== build rc=$bg (this tree) rc=$bb (1fd7f12) at $(el) s" | tee -a $S
[ $bg = 0 ] || { tail -30 $L/gbuild.log | tee -a $S; tar -C $O -czf $O/logs.tgz logs; exit 1; }
gg=$(find $GB -name mx_gemm_gate -type f | head -1); c11=$(find $GB -name mx_c11_cpu_test -type f | head -1)
G=$(find $GB -name mxgemmbench -type f | head -1); B=$(find $BB -name mxgemmbench -type f | head -1)
export MXGEMMBENCH_GRAPH=1
t() { timeout 20 $G time w4a16 $1 $2 $3 200 0 ${4:-0} 2>&1 | tail -2; }
tb() { [ -n "$B" ] && timeout 20 $B time w4a16 $1 $2 $3 200 0 ${4:-0} 2>&1 | tail -2 | sed 's/^w4a16/w4a16(1fd7f12)/'; }
{ for i in 1 2; do echo "=== round $i"
    for m in 64 56 48 40 33; do t $m 2048 7168; tb $m 2048 7168; done
    for m in 48 40 33; do t $m 2048 7168 6016; done; tb 33 2048 7168 6016
    for m in 32 16 1; do t $m 2048 7168; t $m 2048 7168 200006116; done
    for m in 64 33; do t $m 7168 2048; tb $m 7168 2048; done
    for m in 32 16 1; do t $m 7168 2048; done; t 32 7168 2048 10006356
  done; } > $O/gemm.txt 2>&1
echo "== timing done at $(el) s" | tee -a $S
{ timeout 100 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,(1|16|64),"
  timeout 60 python3 kernels/gemm/bench/torch_bench.py 50 56,48,40,33,32 2>&1 | grep -E "^cublas_bf16"; } > $O/cublas.txt 2>&1
echo "== cublas done at $(el) s" | tee -a $S
{ for f in "64 2048 7168" "64 7168 2048" "33 2048 7168"; do
    echo "=== ncu w4a16_ws_kernel ($f, launcher's form, bf16 out)"
    timeout 40 ncu --clock-control none -k regex:w4a16_ws_kernel --launch-skip 3 -c 1 --section SpeedOfLight --section WarpStateStats \
      --section MemoryWorkloadAnalysis --section SchedulerStats --section Occupancy $G time w4a16 $f 4 2>&1 | grep -vE "^==PROF==" | tail -80
  done; } > $O/gemm_ncu.txt 2>&1
mkdir -p /tmp/qb
timeout 70 ncu --clock-control none -k regex:w4a16_ws_kernel --launch-skip 3 -c 1 --set full --import-source yes -f -o /tmp/qb/ws56 \
  $G time w4a16 64 7168 2048 4 > $L/srcncu.log 2>&1; echo "src ncu rc=$?" >> $L/srcncu.log
timeout 30 ncu -i /tmp/qb/ws56.ncu-rep --page source --csv --print-source sass > $O/ws56_sass.csv 2>>$L/srcncu.log; gzip -f $O/ws56_sass.csv
timeout 30 ncu -i /tmp/qb/ws56.ncu-rep --page details > $O/ws56_details.txt 2>>$L/srcncu.log
echo "== ncu done at $(el) s" | tee -a $S
unset MXGEMMBENCH_GRAPH
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/gmem.log 2>&1 & p3=$!
timeout 150 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/grace.log 2>&1 & p4=$!
{ timeout 60 $c11 > $L/c11cpu.log 2>&1; echo "c11 cpu rc=$?" >> $L/c11cpu.log; }
timeout 160 $gg > $L/ggate.log 2>&1; echo "rc=$?" >> $L/ggate.log
wait $p3; m2=$?; wait $p4; r2=$?
{ echo "== gates at $(el) s"
  echo "C11 CPU model tests: $(grep -E '^\[  PASSED|^\[  FAILED|rc=' $L/c11cpu.log | tr '\n' ' ')"
  echo "GEMM gate: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran|rc=' $L/ggate.log | tr '\n' ' ')"
  grep -E '^\[  FAILED' $L/ggate.log | head
  echo "GEMM memcheck rc=$m2: $(grep 'ERROR SUMMARY' $L/gmem.log | tail -1)"
  echo "GEMM racecheck rc=$r2: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/grace.log | tail -1)"; } | tee -a $S
cp $L/ggate.log $O/; tar -C $O -czf $O/logs.tgz logs; rm -rf $L
echo "total $(el) s" | tee -a $S
