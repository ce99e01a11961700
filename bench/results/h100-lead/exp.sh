#!/usr/bin/env bash
# exp.sh - run 11, lead's experiment call (one device call): this tree (A:
# ld_stream plain ld.global, MXFP8 dense scales on k_rowstream, k_rowtile via
# cp.async) against B (the same with -DMXK_TILE_REG: k_rowtile loads its tile
# with ld_stream into registers and stores it to shared memory), mxbench
# rowwise alternating A, B, A, B; then the ring's chunks-per-warp split and
# k_rowstream for MXFP4 / MXFP6 / MXINT8 on 8192x7168, 16384x7168 and
# 8192x16384 (is the 8192x7168 drop the size or K = 7 chunks?); torch's cast.
#   run(command="bash .devrun/lead/overlay/bench/results/h100-lead/exp.sh", carry=[".devrun/lead", ".gtest-src"], timeout_s=240)
set -uo pipefail
O=${OUT:-/tmp/exp-out}; mkdir -p "$O"; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
cp -r .devrun/lead/overlay/. ./
S=$O/summary.txt; { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $S 2>&1
gt=-DMX_GTEST_SRC=$PWD/.gtest-src
{ cmake -S bench/standalone -B /tmp/bA -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build /tmp/bA -j8 --target mxbench; } > /tmp/bA.log 2>&1 & pa=$!
{ cmake -S bench/standalone -B /tmp/bB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt \
    -DCMAKE_CUDA_FLAGS=-DMXK_TILE_REG >/dev/null &&
  cmake --build /tmp/bB -j8 --target mxbench; } > /tmp/bB.log 2>&1 & pb=$!
wait $pa; ra=$?; wait $pb; rb=$?
echo "build rc=$ra (A) rc=$rb (B, tile via registers) at $(el) s" | tee -a $S
[ $ra = 0 ] && [ $rb = 0 ] || { tail -20 /tmp/bA.log /tmp/bB.log | tee -a $S; exit 1; }
A=/tmp/bA/kernels/bench/mxbench; B=/tmp/bB/kernels/bench/mxbench
for pass in 1 2; do for b in A B; do
  echo "=== $b auto (pass $pass)"; timeout 40 /tmp/b$b/kernels/bench/mxbench --only rowwise --size 16384x16384 --size 8192x7168 --size 128x7168 2>&1
done; done > $O/bench.txt
echo "bench A/B at $(el) s" >> $S
{ for f in mxfp4 mxfp6_e3m2 mxint8; do
    for rk in "--row-kernel stream" "--row-kernel ring --split 1" "--row-kernel ring --split 2" "--row-kernel ring --split 3" "--row-kernel ring --split 4" "--row-kernel ring --split 7" "--row-kernel ring --ring-order rows"; do
      echo "=== $f $rk"; timeout 30 $A --only "$f rowwise" $rk --size 8192x7168 --size 16384x7168 --size 8192x16384 --size 16384x16384 2>&1 | grep -E "copy|$f"
    done
  done; } > $O/split.txt
echo "split at $(el) s" >> $S
timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 > $O/torch.txt 2>&1
echo "total $(el) s" >> $S; cat $S
