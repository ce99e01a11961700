# prof3.sh - run 20 call 3 (H200): profiles after call 2's change (ALU pipes,
# SASS source) of the kernels still short of their targets; row-kernel probes.
O=${OUT:-/tmp/p3}; W=/tmp/p3w; mkdir -p $O $W; S=$O/summary.txt; R=$PWD
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi -L > $S
QB=$R/.gpu-bin/r20-q
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$R/.gtest-src >/dev/null &&
  cmake --build $QB -j 16 --target mxbench; } > $W/qbuild.log 2>&1; echo "== build rc=$? at $(el) s" >> $S
Q=$(find $QB -name mxbench -type f | head -1); [ -z "$Q" ] && { tail -30 $W/qbuild.log >> $S; exit 1; }
sizes="--size 16384x16384 --size 8192x7168"
timeout 60 $Q $sizes > $W/bench.txt 2>&1
for rk in stream ring tile; do for sp in 0 2; do
  { echo "=== --row-kernel $rk --split $sp"; timeout 40 $Q $sizes --row-kernel $rk $([ $sp != 0 ] && echo --split $sp) --only "rowwise" 2>&1 | grep -E "copy|rowwise"; } >> $W/rowkernel.txt
done; done
echo "== bench at $(el) s" >> $S
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,dram__throughput.avg.pct_of_peak_sustained_elapsed"
for st in long_scoreboard short_scoreboard wait mio_throttle lg_throttle barrier math_pipe_throttle not_selected no_instruction; do
  M="$M,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio"; done
{ for kk in "k_colstream 16384x16384 colwise source dense_colwise" "k_colstream 16384x16384 colwise transposed dense" \
            "k_colstream 16384x16384 fused row+col" "k_rowstream 16384x16384 mxfp4 rowwise" "k_rowwise 16384x16384 mxfp4 rowwise" \
            "k_row 16384x16384 nvfp4:torchao" "k_rowstream 16384x16384 mxfp8_e4m3 rowwise dense" "k_rowtile 16384x16384 mxfp8_e4m3 rowwise tcgen05"; do set -- $kk
    echo "=== ncu $1 (${*:3}, $2, second launch)"
    timeout 40 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --section ComputeWorkloadAnalysis --section SpeedOfLight --metrics $M $Q --only "${*:3}" --size $2 --iters 3 2>&1 | grep -E "Duration|Ipc|Issue Slots|highest-utilized|Throughput|gpu__|sm__|smsp__|launch__|dram__"
  done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
for kk in "colsrc k_colstream colwise_source_dense_colwise 16384x16384" "rs4 k_rowstream mxfp4_rowwise 8192x7168" "tao k_row nvfp4:torchao 8192x7168"; do set -- $kk
  timeout 60 ncu --clock-control none -k regex:$2 --launch-skip 1 -c 1 --set full --import-source yes -f -o $W/$1 \
    $Q --only "${3//_/ }" --size $4 --iters 3 > $W/src_$1.log 2>&1; echo "== src ncu $1 rc=$? at $(el) s" >> $S
  timeout 30 ncu -i $W/$1.ncu-rep --page source --csv --print-source sass > $W/$1_sass.csv 2>>$W/src.log
  timeout 30 ncu -i $W/$1.ncu-rep --page details > $W/$1_details.txt 2>>$W/src.log
  gzip -f $W/$1_sass.csv; rm -f $W/$1.ncu-rep
done
tar -C $W -czf $O/prof3.tgz . ; echo "total $(el) s" >> $S; cat $S
