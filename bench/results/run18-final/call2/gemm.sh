#!/usr/bin/env bash
# gemm.sh - run 18 call 2 (session 29): the ws decode forms with B prefetched
# into L2 before the PDL wait (2b01d46) against a234edd (this session's
# merged tree before it): build both mxgemmbench, the GEMM gate + C11 CPU
# tests of this tree, memcheck/racecheck of GemmGateSanitizer.*, then the
# decode shapes alternated (3 rounds) and cuBLAS bf16 once.
set -uo pipefail
O=${OUT:-/tmp/r18b}; mkdir -p $O/logs; L=$O/logs; S=$O/summary.txt; R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1 2>/dev/null; } > $S 2>&1
GB=$R/.gpu-bin/r18b-g; BB=$R/.gpu-bin/r18b-b; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $GB -j 11 --target mx_gemm_gate mx_c11_cpu_test mxgemmbench; } > $L/gbuild.log 2>&1 & pg=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run18b/before-src.tar.xz -C /tmp/bsrc &&
    cmake -S /tmp/bsrc/kernels/gemm/standalone -B $BB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $BB -j 5 --target mxgemmbench; } > $L/bbuild.log 2>&1 & pb=$!
wait $pg; bg=$?; wait $pb; bb=$?
echo "== build rc=$bg (this tree) rc=$bb (a234edd) at $(el) s" | tee -a $S
[ $bg = 0 ] || { tail -30 $L/gbuild.log | tee -a $S; tar -C $O -czf $O/logs.tgz logs; exit 1; }
gg=$(find $GB -name mx_gemm_gate -type f | head -1); c11=$(find $GB -name mx_c11_cpu_test -type f | head -1)
G=$(find $GB -name mxgemmbench -type f | head -1); B=$(find $BB -name mxgemmbench -type f | head -1)
# timing first (the GPU to itself), then gate and sanitizers in parallel
{ for i in 1 2 3; do echo "=== round $i"
    for shp in "64 7168 2048" "48 7168 2048" "40 7168 2048" "64 2048 7168" "48 2048 7168" "33 2048 7168"; do
      timeout 20 $G time w4a16 $shp 200 2>&1 | tail -1
      [ -n "$B" ] && timeout 20 $B time w4a16 $shp 200 2>&1 | tail -1 | sed 's/^w4a16/w4a16(a234edd)/'; done; done
  timeout 90 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,(64|48|40|33)," ; } > $O/gemm.txt 2>&1
echo "== timing done at $(el) s" | tee -a $S
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
