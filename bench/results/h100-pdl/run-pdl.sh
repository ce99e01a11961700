#!/usr/bin/env bash
# run-pdl.sh - run 15 lead: the w4a16 decode kernels (mma.sync flat and
# producer forms, wgmma decode) launched as programmatic dependents (PDL) or
# not (MXK_GEMM_PDL=0), same binary, alternating, every decode shape, two
# rounds, cuBLAS bf16 after; then the whole GEMM gate (one process per test,
# 8 at a time) and compute-sanitizer memcheck + racecheck on GemmGateSanitizer.*.
set -uo pipefail
O=${OUT:-/tmp/pdl}; mkdir -p $O; S=$O/summary.txt; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
cp -r .devrun/pdl/overlay/. ./
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $S 2>&1
B=.gpu-bin/pdl; gt=-DMX_GTEST_SRC=$PWD/.gtest-src
{ cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $B -j 16 --target mx_gemm_gate mxgemmbench; } > $O/build.log 2>&1; echo "== build rc=$? at $(el) s" >> $S
G=$(find $B -name mxgemmbench -type f | head -1); gg=$(find $B -name mx_gemm_gate -type f | head -1)
[ -x "$G" ] && [ -x "$gg" ] || { tail -30 $O/build.log >> $S; cat $S; exit 1; }
{ for r in 1 2; do echo "=== round $r"
  for shp in "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" "64 7168 2048" "64 2048 7168"; do
    for mode in 1 0; do MXK_GEMM_PDL=$mode timeout 20 $G time w4a16 $shp 200 2>&1 | sed "s/^/pdl=$mode /"; done; done; done
  MXK_GEMM_PDL=1 timeout 30 $G time w4a16 8192 8192 8192 20 2>&1 | sed "s/^/pdl=1 /"; } > $O/bench.txt 2>&1
echo "== bench at $(el) s" >> $S
timeout 60 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16" > $O/cublas.txt
echo "== cublas at $(el) s" >> $S
sf='GemmGateSanitizer.*'
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter=$sf > $O/mem.log 2>&1 & p1=$!
timeout 100 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter=$sf > $O/race.log 2>&1 & p2=$!
$gg --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > $O/tests.txt
xargs -P 8 -I{} sh -c "timeout 150 $gg --gtest_filter={} > $O/g_\$(echo {} | tr './' '__').log 2>&1; echo \"{} rc=\$?\"" < $O/tests.txt > $O/gate_rc.txt 2>&1
wait $p1; m=$?; wait $p2; r=$?
echo "== gate at $(el) s: $(wc -l < $O/tests.txt) tests, $(grep -c 'rc=0' $O/gate_rc.txt) rc=0; not 0: $(grep -v 'rc=0' $O/gate_rc.txt | tr '\n' ' ')" >> $S
echo "skipped: $(cat $O/g_*.log | grep -c '\[  SKIPPED \]'); passed lines: $(cat $O/g_*.log | grep -c '^\[  PASSED  \] 1 test')" >> $S
echo "memcheck rc=$m $(grep 'ERROR SUMMARY' $O/mem.log | tail -1); racecheck rc=$r $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/race.log | tail -1)" >> $S
cat $O/g_*.log | gzip > $O/gate.log.gz; rm -f $O/g_*.log $O/tests.txt $O/build.log
grep -E "^pdl" $O/bench.txt >> $S; cat $O/cublas.txt >> $S; echo "total $(el) s" >> $S; cat $S
