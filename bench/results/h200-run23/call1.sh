# call1.sh - run 23 call 1 (H200), measurement only on main 0f3cd19: NVFP4 TE order ring vs
# k_rowstream at 2^23..2^27 elements; MXFP4 / MXFP6 ring vs k_rowstream; ncu of MXFP4 on both.
O=${OUT:-/tmp/c23}; W=/tmp/w23a; mkdir -p $O $W/logs; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; git status --short | head -20; } > $S
QB=$R/.gpu-bin/r23-q; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $QB -j 16 --target mxbench; } > $L/qbuild.log 2>&1; bq=$?
echo "== build rc=$bq at $(el) s" >> $S
[ $bq = 0 ] || { tail -30 $L/qbuild.log >> $S; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1)
nv="--size 2048x4096 --size 4096x4096 --size 4096x7168 --size 8192x7168 --size 16384x7168 --size 8192x16384 --size 16384x16384"
for r in 1 2; do for k in ring stream; do { echo "=== round $r --row-kernel $k"; timeout 60 $Q $nv --row-kernel $k --only "nvfp4 rowwise" 2>&1 | grep -E "copy|nvfp4"; } >> $W/nvprobe.txt; done; done
echo "== nvfp4 probe at $(el) s" >> $S
for r in 1 2; do for k in ring stream; do for f in "mxfp4 rowwise" "mxfp6_e3m2 rowwise" "mxfp6_e2m3 rowwise"; do
  { echo "=== round $r --row-kernel $k $f"; timeout 60 $Q --size 16384x16384 --size 8192x7168 --row-kernel $k --only "$f" 2>&1 | grep -E "copy|mxfp"; } >> $W/mxprobe.txt; done; done; done
echo "== mx probe at $(el) s" >> $S
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__warps_active.avg.per_cycle_active"
{ for k in ring stream; do for f in "mxfp4 rowwise" "mxfp6_e2m3 rowwise"; do
    echo "=== ncu $k $f 16384x16384"
    timeout 40 ncu --clock-control none -k regex:"k_row" --launch-skip 1 -c 1 --section WarpStateStats --metrics $M $Q --only "$f" --row-kernel $k --size 16384x16384 --iters 3 2>&1 | grep -E "k_row|Duration|Stall|gpu__|sm__|smsp__|launch__|dram__|lts__|l1tex__"
  done; done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
obj=$(find $QB -name "quantize_mx_bf16.cu.o" | head -1); [ -z "$obj" ] && obj=$(find $QB -name "*.cu.o" | xargs grep -l k_rowwise | head -1)
echo "obj $obj" >> $S
cuobjdump -sass $obj > $W/m4.sass 2>&1
awk '/Function : /{p = ($0 ~ /k_rowwise/ && $0 ~ /13__nv_bfloat16/ && $0 ~ /MxQILi/)} p' $W/m4.sass > $W/rw_m4.sass
awk '/Function : /{p = ($0 ~ /k_rowstream/ && $0 ~ /13__nv_bfloat16/ && $0 ~ /MxQILi/)} p' $W/m4.sass > $W/rs_m4.sass
grep "Function :" $W/m4.sass | head -40 > $W/functions.txt
echo "== SASS rw $(grep -c . $W/rw_m4.sass) rs $(grep -c . $W/rs_m4.sass)" >> $S
gzip -f $W/rw_m4.sass $W/rs_m4.sass; rm -f $W/m4.sass
cp $W/*.txt $W/*.gz $O/ 2>/dev/null
echo "total $(el) s" >> $S; cat $S
