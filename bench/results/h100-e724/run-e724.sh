#!/usr/bin/env bash
# run-e724.sh - run 15 lead experiment: the producer forms' next copy issued
# before widening (EARLY) for 2 / 3 producers (forms 100718, 100724, 100742,
# 100814) against the same forms without it, in one binary; gate of the mma
# forms + sanitizers on the new cases; cuBLAS bf16 beside.
set -uo pipefail
O=${OUT:-/tmp/e724}; mkdir -p $O; S=$O/summary.txt; T0=$(date +%s)
cp -r .devrun/e724/overlay/. ./
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; } > $S 2>&1
B=.gpu-bin/e724; gt=-DMX_GTEST_SRC=$PWD/.gtest-src
{ cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $B -j 16 --target mx_gemm_gate mxgemmbench; } > $O/build.log 2>&1; echo "== build rc=$? at $(( $(date +%s) - T0 )) s" >> $S
G=$(find $B -name mxgemmbench -type f | head -1); gg=$(find $B -name mx_gemm_gate -type f | head -1)
[ -x "$G" ] || { tail -30 $O/build.log >> $S; cat $S; exit 1; }
timeout 150 $gg --gtest_filter='GemmGate.W4a16MmaKernel:GemmGate.Errors' > $O/gate.log 2>&1 &
pg=$!
{ for r in 1 2; do echo "=== round $r"
  for f in 724 100724 718 100718 742 100742 0; do timeout 20 $G time w4a16 64 2048 7168 200 0 $([ $f = 0 ] && echo 0 || echo $((2000 + f))) 2>&1 | sed "s/^/form $f: /"; done
  for f in 814 100814 0; do timeout 20 $G time w4a16 32 2048 7168 200 0 $([ $f = 0 ] && echo 0 || echo $((2000 + f))) 2>&1 | sed "s/^/form $f: /"; done
  for f in 418 0; do timeout 20 $G time w4a16 64 7168 2048 200 0 $([ $f = 0 ] && echo 0 || echo $((2000 + f))) 2>&1 | sed "s/^/form $f: /"; done
  done; } > $O/bench.txt 2>&1
wait $pg; echo "gate: $(grep -E '^\[  PASSED|^\[  FAILED' $O/gate.log | tr '\n' ' ')" >> $S
timeout 60 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16" > $O/cublas.txt
sf='GemmGateSanitizer.W4a16Mma'
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter=$sf > $O/mem.log 2>&1 & p1=$!
timeout 90 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter=$sf > $O/race.log 2>&1 & p2=$!
wait $p1; m=$?; wait $p2; r=$?
echo "memcheck rc=$m $(grep 'ERROR SUMMARY' $O/mem.log | tail -1); racecheck rc=$r $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $O/race.log | tail -1)" >> $S
grep -E "^form" $O/bench.txt | sed -E 's/(form [0-9]+: ).*(M=|w4a16)/\1\2/' | cut -c1-150 >> $S
cat $O/cublas.txt >> $S; echo "total $(( $(date +%s) - T0 )) s" >> $S; cat $S
