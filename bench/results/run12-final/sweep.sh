#!/usr/bin/env bash
# sweep.sh - run 12: the w4a16 decode forms at the six decode shapes (issue 10),
# mxgemmbench (kernels/gemm/standalone, 90a-real, -j16) beside cuBLAS bf16
# (torch_bench.py, CUDA graph), two rounds; decode_cols 2000 + form = the
# mma.sync forms, 1..64 / 1000 + cols = the wgmma decode kernel, 0 = the launcher.
set -uo pipefail
O=${OUT:-/tmp/sw}; mkdir -p $O; S=$O/sweep.txt; R=$PWD; GB=/tmp/r12-sw
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .devrun/run12/tree.txt; } > $S
{ cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$R/.gtest-src >/dev/null &&
  cmake --build $GB -j 16 --target mxgemmbench; } > $O/build.log 2>&1 || { tail -20 $O/build.log >> $S; exit 1; }
G=$(find $GB -name mxgemmbench -type f | head -1); echo "build $(el) s" >> $S
run() { local shp=$1; shift; for c in "$@"; do printf "%s cols=%s " "$shp" "$c"; timeout 20 $G time w4a16 $shp 200 0 $c 2>&1 | tail -1; done; }
for round in 1 2; do
  echo "## round $round" >> $S
  { run "1 7168 2048" 0 2411 2111 2711 2811
    run "1 2048 7168" 0 2811 2911 2711 2821 2111 2411 8 1008
    run "16 7168 2048" 0 2412 2411 2712 2812 2912 16 1016
    run "16 2048 7168" 0 2812 2912 2712 2821 2412 16 1016
    run "64 7168 2048" 0 2418 2224 2724 2814 64 1064 32 1032
    run "64 2048 7168" 0 2724 2814 2418 2224 64 1064 32 1032; } >> $S 2>&1
  timeout 60 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,(1|16|64)," >> $S
  echo "round $round done $(el) s" >> $S
done
cat $S
