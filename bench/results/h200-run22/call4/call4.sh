# call4.sh - run 22 call 4 (the final tree) (H200): this tree (NVFP4: e2m1 of the scaled fp32
# values through bf16 round-to-odd + e2m1x2_bf16y; torchao's block scale by
# FMA steps) against main d727453 (before-src.tar.xz): quant gate +
# sanitizers, mxbench alternated, nvfp4 alone, SASS + ncu of the NVFP4
# quantize kernels. Final tree: row_pair16, torchao's 1/total by rcp_rn_mid; probe: NVFP4 TE order at
# 8192x7168 on the ring against k_rowstream.
O=${OUT:-/tmp/c22}; W=/tmp/w22d; mkdir -p $O $W/logs; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; git status --short | head -20; } > $S
QB=$R/.gpu-bin/r22-q; BQ=$R/.gpu-bin/r22-bq; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $QB -j 10 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run22/before-src.tar.xz -C /tmp/bsrc &&
  cmake -S /tmp/bsrc/bench/standalone -B $BQ -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $BQ -j 6 --target mxbench; } > $L/bbuild.log 2>&1 & pb=$!
wait $pq; bq=$?; wait $pb; bb=$?
echo "== build rc=$bq (this tree) rc=$bb (main d727453 mxbench) at $(el) s" >> $S
[ $bq = 0 ] || { tail -30 $L/qbuild.log >> $S; tar -C $W -czf $O/all.tgz .; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1); B=$(find $BQ -name mxbench -type f | head -1)
gate=$(find $QB -name mx_gpu_gate -type f | head -1); ct=$(mktemp -d)
# gate first, in the background (sanitizers), the benchmarks after it finishes (they must not share the GPU)
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
  echo "quant racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1)"; } >> $S
gzip -c $L/qgate.log > $W/qgate.log.gz
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
for i in 1 2; do
  timeout 60 $Q $sizes --out $W/bench_new$i.csv > $W/bench_new$i.txt 2>&1; echo "== mxbench this tree ($i) rc=$? at $(el) s" >> $S
  [ -n "$B" ] && { timeout 60 $B $sizes --out $W/bench_old$i.csv > $W/bench_old$i.txt 2>&1; echo "== mxbench main ($i) rc=$? at $(el) s" >> $S; }
done
grep -E "copy|nvfp4" $W/bench_new1.txt | head -12 >> $S
for b in $Q $B $Q $B; do { echo "=== $b --only nvfp4"; timeout 30 $b --size 16384x16384 --size 8192x7168 --only nvfp4 2>&1 | grep -E "copy|nvfp4"; } >> $W/alone.txt; done
echo "== alone at $(el) s" >> $S
for b in $Q $B $Q $B; do for k in ring stream; do { echo "=== $b --row-kernel $k"; timeout 30 $b --size 8192x7168 --size 16384x16384 --row-kernel $k --only "nvfp4 rowwise" 2>&1 | grep -E "copy|nvfp4"; } >> $W/ringprobe.txt; done; done
echo "== ring probe at $(el) s" >> $S
obj=$(find $QB -name "nvfp4.cu.o" | head -1)
cuobjdump -sass $obj > $W/nv.sass 2>&1
awk '/Function : /{p = ($0 ~ /k_rowwise/ && $0 ~ /13__nv_bfloat16NS0_6Nvfp4QILi1E/)} p' $W/nv.sass > $W/rw_tao.sass
awk '/Function : /{p = ($0 ~ /k_rowwise/ && $0 ~ /13__nv_bfloat16NS0_6Nvfp4QILi0E/)} p' $W/nv.sass > $W/rw_te.sass
echo "== SASS k_rowwise bf16 torchao $(grep -c . $W/rw_tao.sass) lines, TE $(grep -c . $W/rw_te.sass) lines; MUFU tao $(grep -c MUFU $W/rw_tao.sass) FCHK $(grep -c FCHK $W/rw_tao.sass)" >> $S
gzip -f $W/rw_tao.sass $W/rw_te.sass; rm -f $W/nv.sass
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"
{ for b in $Q $B; do for kk in "nvfp4:torchao 16384x16384" "nvfp4 16384x16384" "nvfp4:torchao 8192x7168" "nvfp4 8192x7168"; do set -- $kk
    echo "=== ncu $b $1 $2 (quantize pass, second launch)"
    timeout 40 ncu --clock-control none -k regex:"k_row|k_nvfp4" --launch-skip 1 -c 1 --section ComputeWorkloadAnalysis --metrics $M $b --only "$1 rowwise tcgen05" --size $2 --iters 3 2>&1 | grep -E "k_row|k_nvfp4|Duration|Ipc|Issue Slots|highest-utilized|gpu__|sm__|smsp__|launch__|dram__"
  done; done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
tar -C $W -czf $O/all.tgz .
echo "total $(el) s" >> $S; cat $S
