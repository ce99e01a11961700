# prof.sh - run 20 call 1 (H200): where the quantization kernels that miss on
# the H200 spend their time (Nsight Compute, SASS source counters), and the
# row-kernel choices for dense 8-bit scales.
O=${OUT:-/tmp/p20}; mkdir -p $O /tmp/pb; S=$O/summary.txt; R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi -L > $S
QB=$R/.gpu-bin/r20-q
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$R/.gtest-src >/dev/null &&
  cmake --build $QB -j 16 --target mxbench; } > $O/qbuild.log 2>&1; echo "== build rc=$? at $(el) s" >> $S
Q=$(find $QB -name mxbench -type f | head -1)
[ -z "$Q" ] && { tail -30 $O/qbuild.log >> $S; exit 1; }
sizes="--size 16384x16384 --size 8192x7168"
timeout 60 $Q $sizes > $O/bench.txt 2>&1; echo "== mxbench rc=$? at $(el) s" >> $S
for rk in tile stream ring; do
  { echo "=== --row-kernel $rk"; timeout 40 $Q $sizes --row-kernel $rk --only "rowwise dense" 2>&1 | grep -E "copy|rowwise"; 
    echo "=== --row-kernel $rk --split 2"; timeout 40 $Q $sizes --row-kernel $rk --split 2 --only "rowwise dense" 2>&1 | grep -E "copy|rowwise"; } >> $O/rowkernel.txt
done
for rk in stream ring; do
  { echo "=== --row-kernel $rk (4/6-bit)"; timeout 40 $Q $sizes --row-kernel $rk --only "mxfp" 2>&1 | grep -E "copy|mxfp4|mxfp6"; } >> $O/rowkernel.txt
done
echo "== row kernels at $(el) s" >> $S
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,dram__throughput.avg.pct_of_peak_sustained_elapsed"
for st in long_scoreboard short_scoreboard wait mio_throttle lg_throttle barrier math_pipe_throttle not_selected no_instruction selected dispatch_stall; do
  M="$M,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio"; done
{ for kk in "k_rowwise 16384x16384 mxfp4 rowwise tcgen05" "k_rowstream 8192x7168 mxfp4 rowwise tcgen05" \
            "k_rowwise 16384x16384 mxfp6_e3m2 rowwise tcgen05" "k_rowwise 16384x16384 nvfp4 rowwise tcgen05" \
            "k_rowstream 16384x16384 mxfp8_e4m3 rowwise dense" "k_rowtile 16384x16384 mxfp8_e4m3 rowwise tcgen05" \
            "k_rowstream 16384x16384 mxint8 rowwise dense"; do set -- $kk
    echo "=== ncu $1 (${*:3}, $2, second launch)"
    timeout 40 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --metrics $M $Q --only "${*:3}" --size $2 --iters 3 2>&1 | grep -vE "^(16384|8192|128)x|^==PROF==|^size|^device" | tail -90
  done; } > $O/ncu.txt 2>&1
echo "== ncu metrics at $(el) s" >> $S
for kk in "mxfp4 k_rowwise 16384x16384" "mxfp4 k_rowstream 8192x7168"; do set -- $kk
  timeout 60 ncu --clock-control none -k regex:$2 --launch-skip 1 -c 1 --set full --import-source yes -f -o /tmp/pb/$1_$2 \
    $Q --only "$1 rowwise tcgen05" --size $3 --iters 3 > /tmp/pb/src_$1_$2.log 2>&1; echo "== src ncu $1 $2 rc=$? at $(el) s" >> $S
  timeout 30 ncu -i /tmp/pb/$1_$2.ncu-rep --page source --csv --print-source sass > $O/$1_$2_sass.csv 2>>/tmp/pb/src.log
  timeout 30 ncu -i /tmp/pb/$1_$2.ncu-rep --page details > $O/$1_$2_details.txt 2>>/tmp/pb/src.log
  gzip -f $O/$1_$2_sass.csv
done
echo "total $(el) s" >> $S
