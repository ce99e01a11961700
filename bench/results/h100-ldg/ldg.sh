#!/usr/bin/env bash
# ldg.sh - one device call (prepared in session 21, run in session 22 = run 11): does a plain
# ld.global in ld_stream (-DMXK_PLAIN_LOADS, block_quant.cuh) make k_rowstream
# (and the NVFP4 one-pass / dense passes, tiles.cuh) faster? Builds
# bench/standalone twice in parallel (default loads in /tmp/b0, plain loads in
# /tmp/b1; 90a-real, -j8 each), then mxbench rowwise in the order b0, b1, b0,
# b1 (auto choice and --row-kernel stream), torch's cast (bench/sol/torch_cast.py),
# and the plain-load build's gate filtered to the rowwise / NVFP4 / tile cases
# beside compute-sanitizer. Usage, from the repo root on the device:
#   run(command="bash bench/results/h100-ldg/ldg.sh", carry=[".gtest-src"], timeout_s=300)
# (or copy it under .devrun/ldg/ with an overlay if this branch is not main).
set -uo pipefail
O=${OUT:-/tmp/ldg-out}; mkdir -p "$O"; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$O/summary.txt; { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $S 2>&1
gt=-DMX_GTEST_SRC=$PWD/.gtest-src
{ cmake -S bench/standalone -B /tmp/b0 -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build /tmp/b0 -j8 --target mxbench; } > /tmp/b0.log 2>&1 & p0=$!
{ cmake -S bench/standalone -B /tmp/b1 -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt \
    -DCMAKE_CUDA_FLAGS=-DMXK_PLAIN_LOADS >/dev/null &&
  cmake --build /tmp/b1 -j8 --target mxbench mx_gpu_gate; } > /tmp/b1.log 2>&1 & p1=$!
wait $p0; r0=$?; wait $p1; r1=$?
echo "build rc=$r0 (default) rc=$r1 (plain loads) at $(el) s" | tee -a $S
[ $r0 = 0 ] && [ $r1 = 0 ] || { tail -20 /tmp/b0.log /tmp/b1.log | tee -a $S; exit 1; }
sz="--size 16384x16384 --size 8192x7168 --size 128x7168"
for pass in 1 2; do
  for b in b0 b1; do
    for rk in auto stream; do
      echo "=== $b row-kernel $rk (pass $pass)"
      timeout 40 /tmp/$b/kernels/bench/mxbench --only rowwise --row-kernel $rk $sz 2>&1
    done
  done
done > $O/bench.txt
echo "bench at $(el) s" >> $S
timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 > $O/torch.txt 2>&1
gate=/tmp/b1/conformance/gpu/mx_gpu_gate; [ -x $gate ] || gate=$(find /tmp/b1 -name mx_gpu_gate -type f | head -1)
timeout 120 $gate --gtest_filter='GpuGateRow*:*Nvfp4*:*Stream*:*Tile*' > $O/gate.log 2>&1; echo "gate rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED' $O/gate.log | tr '\n' ' ')" >> $S
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $gate --gtest_filter='GpuGateSanitizer.*' > $O/mem.log 2>&1; echo "memcheck rc=$?: $(grep 'ERROR SUMMARY' $O/mem.log | tail -1)" >> $S
echo "total $(el) s" >> $S; cat $S
grep -E "mxfp8_e4m3 rowwise|mxint8|copy|nvfp4" $O/bench.txt | head -60
