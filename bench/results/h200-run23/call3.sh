# call3.sh - run 23 call 3 (H200): why row_quad32 (MX blocks whole per lane in the ring) is slow:
# three slot maps built side by side (A this tree: slots over 4 smem lines; B: a rotation inside
# each 128-byte line; C: identity, 4-way read conflicts) and main's binary, ring probes, ncu stall
# reasons and SASS of A.
O=${OUT:-/tmp/c23}; W=/tmp/w23c; mkdir -p $O $W/logs; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; git status --short | head -20; } > $S
gt=-DMX_GTEST_SRC=$R/.gtest-src; pids=""
for v in A B C; do
  { rm -rf /tmp/v$v && mkdir -p /tmp/v$v && cp -r bench conformance kernels reference cmake CMakeLists.txt /tmp/v$v/ &&
    { [ $v = A ] || python3 .devrun/run23/variants.py /tmp/v$v $v; } &&
    cmake -S /tmp/v$v/bench/standalone -B /tmp/b$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build /tmp/b$v -j 5 --target mxbench; } > $L/build$v.log 2>&1 & pids="$pids $!"
done
rc=0; for p in $pids; do wait $p || rc=1; done
echo "== builds rc=$rc at $(el) s" >> $S
for v in A B C; do tail -2 $L/build$v.log | head -1 >> $S; done
A=/tmp/bA/kernels/bench/mxbench; B=/tmp/bB/kernels/bench/mxbench; C=/tmp/bC/kernels/bench/mxbench
for r in 1 2; do for v in A B C; do b=/tmp/b$v/kernels/bench/mxbench; [ -x $b ] || continue
  { echo "=== $v round $r ring"; timeout 60 $b --size 8192x7168 --size 16384x16384 --row-kernel ring --only "mxfp4 rowwise" 2>&1 | grep -E "mxfp4|copy";
    timeout 60 $b --size 16384x16384 --row-kernel ring --only "mxfp6_e2m3 rowwise" 2>&1 | grep -E "mxfp6"; } >> $W/variants.txt; done; done
echo "== variants at $(el) s" >> $S
R1="regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio"
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_ldgsts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum,l1tex__data_bank_writes_pipe_lsu_mem_shared.sum"
{ for v in A B C; do b=/tmp/b$v/kernels/bench/mxbench; [ -x $b ] || continue
    echo "=== ncu $v ring mxfp4 tcgen05 16384x16384"
    timeout 60 ncu --clock-control none -k regex:"k_row" --launch-skip 1 -c 1 --metrics "$M" --metrics "$R1" $b --only "mxfp4 rowwise tcgen05" --row-kernel ring --size 16384x16384 --iters 3 2>&1 | grep -E "gpu__|sm__|smsp__|dram__|l1tex__" | awk '$NF != "0" && $NF != "0.00"'
  done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
obj=$(find /tmp/bA -name "quantize_mx_bf16.cu.o" | head -1)
cuobjdump -sass $obj > $W/a.sass 2>&1
awk '/Function : /{p = ($0 ~ /k_rowwise/ && $0 ~ /MxQILi4ELb1/)} p' $W/a.sass > $W/rw_m4_quad.sass
echo "== SASS $(grep -c . $W/rw_m4_quad.sass) lines" >> $S
gzip -f $W/rw_m4_quad.sass; rm -f $W/a.sass
cp $W/*.txt $W/*.gz $O/ 2>/dev/null
echo "total $(el) s" >> $S; cat $S
