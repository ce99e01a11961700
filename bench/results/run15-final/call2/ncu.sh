#!/usr/bin/env bash
# ncu.sh - run 15: Nsight Compute of the launcher's kernels at the two missed
# mma.sync decode shapes (16 x 2048 x 7168: form 1012; 64 x 7168 x 2048: 418):
# speed of light, stall reasons, source-level stall sampling.
O=${OUT:-/tmp/ncu15}; mkdir -p $O; B=.gpu-bin/ncu15
{ cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$PWD/.gtest-src >/dev/null &&
  cmake --build $B -j 16 --target mxgemmbench; } > $O/build.log 2>&1; echo "build rc=$?"
G=$(find $B -name mxgemmbench -type f | head -1)
NM="sm__cycles_active.avg,smsp__inst_executed.sum,lts__t_sectors.sum,dram__bytes_read.sum,launch__registers_per_thread"
for st in long_scoreboard short_scoreboard wait mio_throttle barrier math_pipe_throttle not_selected no_instruction selected lg_throttle dispatch_stall branch_resolving; do
  NM="$NM,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio"; done
for kk in "w4a16_mma_pc_kernel 16 2048 7168 1012" "w4a16_mma_kernel 64 7168 2048 418"; do set -- $kk
  timeout 60 ncu --clock-control none -k regex:$1 --launch-skip 3 -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section SourceCounters --section MemoryWorkloadAnalysis --metrics "$NM" \
    $G time w4a16 $2 $3 $4 4 2>&1 | grep -vE "^==PROF==|^==WARNING==" > $O/ncu-$5.txt
  echo "ncu $5 rc=$?"
done
