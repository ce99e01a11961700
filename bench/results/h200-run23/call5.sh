# call5.sh - run 23 call 5 (H200), the final tree: MXFP4 blocks whole per lane in the ring
# (row_quad32, the ring at every size where it fits, 0 bytes spilled), NVFP4 on the ring for both layouts and orders;
# against main 0f3cd19 (before-src.tar.xz): quant gate + sanitizers (the broken tree was
# run in call 4), ring / k_rowstream probes by size, mxbench alternated, ncu.
O=${OUT:-/tmp/c23}; W=/tmp/w23e; mkdir -p $O $W/logs; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; git status --short | head -20; } > $S
QB=$R/.gpu-bin/r23-q; BQ=$R/.gpu-bin/r23-bq; XB=$R/.gpu-bin/r23-x; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $QB -j 8 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run23/before-src.tar.xz -C /tmp/bsrc &&
  cmake -S /tmp/bsrc/bench/standalone -B $BQ -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $BQ -j 4 --target mxbench; } > $L/bbuild.log 2>&1 & pb=$!
wait $pq; bq=$?; wait $pb; bb=$?
echo "== build rc=$bq (this tree) rc=$bb (main mxbench) at $(el) s" >> $S
[ $bq = 0 ] || { tail -30 $L/qbuild.log >> $S; tar -C $W -czf $O/all.tgz .; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1); B=$(find $BQ -name mxbench -type f | head -1)
gate=$(find $QB -name mx_gpu_gate -type f | head -1); ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
qs='GpuGateSanitizer.*:GpuGateErrors.*'; SS=${SAN_S:-200}
timeout $SS compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
timeout $SS compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
(cd "$ct" && timeout ${GATE_S:-240} ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
wait $p1; m1=$?; wait $p2; r1=$?
{ echo "== gates at $(el) s"
  echo "quant gate (ctest -L gpu -j 12, every test) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
  echo "  skipped: $(grep -c '(Skipped)' $L/qgate.log); not run: $(grep -c 'Not Run' $L/qgate.log)"
  grep -E '\*\*\*Failed|Failed  |Timeout|Exception' $L/qgate.log | head -20
  echo "quant memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1)"
  echo "quant racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1)"
} >> $S
gzip -c $L/qgate.log > $W/qgate.log.gz; gzip -c $L/qmem.log > $W/qmem.log.gz; gzip -c $L/qrace.log > $W/qrace.log.gz
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
for i in 1 2; do
  timeout 80 $Q $sizes --out $W/bench_new$i.csv > $W/bench_new$i.txt 2>&1; echo "== mxbench this tree ($i) rc=$? at $(el) s" >> $S
  [ -n "$B" ] && { timeout 80 $B $sizes --out $W/bench_old$i.csv > $W/bench_old$i.txt 2>&1; echo "== mxbench main ($i) rc=$? at $(el) s" >> $S; }
done
for i in 1 2; do for b in $Q $B; do for f in "mxfp4 rowwise" "nvfp4"; do
  { echo "=== $b --only $f ($i)"; timeout 40 $b --size 16384x16384 --size 8192x7168 --size 128x7168 --only "$f" 2>&1 | grep -vE "^device|^size"; } >> $W/alone.txt; done; done; done
echo "== alone at $(el) s" >> $S
ms="--size 128x7168 --size 1024x7168 --size 2048x7168 --size 4096x4096 --size 4096x7168 --size 8192x7168 --size 16384x16384"
for i in 1 2; do for k in ring stream; do
  { echo "=== round $i --row-kernel $k mxfp4"; timeout 60 $Q $ms --row-kernel $k --only "mxfp4 rowwise" 2>&1 | grep -vE "^device|^size"; } >> $W/mxfp4probe.txt
  { echo "=== round $i --row-kernel $k nvfp4"; timeout 60 $Q --size 4096x7168 --size 8192x7168 --size 16384x16384 --row-kernel $k --only "nvfp4" 2>&1 | grep -vE "^device|^size"; } >> $W/nvprobe.txt
done; done
echo "== probes at $(el) s" >> $S
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__warps_active.avg.per_cycle_active"
{ for b in $Q $B; do for kk in "mxfp4 rowwise tcgen05 16384x16384" "mxfp4 rowwise tcgen05 8192x7168"; do set -- $kk
    echo "=== ncu $b $1 $2 $3 $4"
    timeout 40 ncu --clock-control none -k regex:"k_row" --launch-skip 1 -c 1 --metrics $M $b --only "$1 $2 $3" --size $4 --iters 3 2>&1 | grep -E "k_row|gpu__|sm__|smsp__|launch__|dram__|l1tex__"
  done; done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
tar -C $W -czf $O/all.tgz .
cp $W/*.txt $O/ 2>/dev/null
echo "total $(el) s" >> $S; cat $S
