# call2.sh - run 23 call 2 (H200): this tree (MX blocks whole per lane in the ring, row_quad32;
# mxbench dense cases) against main 0f3cd19 (before-src.tar.xz): quant gate + sanitizers, a
# broken tree's ring tests (quad slots read wrong), ring / k_rowstream probes by size and
# layout for both binaries, mxbench, ncu.
O=${OUT:-/tmp/c23}; W=/tmp/w23b; mkdir -p $O $W/logs; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; git status --short | head -20; } > $S
QB=$R/.gpu-bin/r23-q; BQ=$R/.gpu-bin/r23-bq; XB=$R/.gpu-bin/r23-x; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $QB -j 8 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run23/before-src.tar.xz -C /tmp/bsrc &&
  cmake -S /tmp/bsrc/bench/standalone -B $BQ -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $BQ -j 4 --target mxbench; } > $L/bbuild.log 2>&1 & pb=$!
{ rm -rf /tmp/xsrc && mkdir -p /tmp/xsrc && cp -r bench conformance kernels reference cmake CMakeLists.txt /tmp/xsrc/ 2>/dev/null;
  sed -i 's/r\[g\] = words\[u\]\[8 \* g + ((k + 2 \* g) \& 7)\];/r[g] = words[u][8 * g + ((k + g) \& 7)];/' /tmp/xsrc/kernels/common/rowwise.cuh &&
  grep -c '((k + g) & 7)' /tmp/xsrc/kernels/common/rowwise.cuh &&
  cmake -S /tmp/xsrc/bench/standalone -B $XB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $XB -j 4 --target mx_gpu_gate; } > $L/xbuild.log 2>&1 & px=$!
wait $pq; bq=$?; wait $pb; bb=$?; wait $px; bx=$?
echo "== build rc=$bq (this tree) rc=$bb (main mxbench) rc=$bx (broken gate) at $(el) s" >> $S
[ $bq = 0 ] || { tail -30 $L/qbuild.log >> $S; tar -C $W -czf $O/all.tgz .; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1); B=$(find $BQ -name mxbench -type f | head -1)
gate=$(find $QB -name mx_gpu_gate -type f | head -1); xgate=$(find $XB -name mx_gpu_gate -type f | head -1); ct=$(mktemp -d)
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
qs='GpuGateSanitizer.*:GpuGateErrors.*'; SS=${SAN_S:-200}
timeout $SS compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
timeout $SS compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
(cd "$ct" && timeout ${GATE_S:-240} ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
[ -n "$xgate" ] && timeout 120 $xgate --gtest_filter='*RowRingForced*:GpuGateRow.ForcedKernels*:GpuGateRow.RingDense*:GpuGateSanitizer.RowRing' > $L/broken.log 2>&1; xrc=$?
wait $p1; m1=$?; wait $p2; r1=$?
{ echo "== gates at $(el) s"
  echo "quant gate (ctest -L gpu -j 12, every test) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
  echo "  skipped: $(grep -c '(Skipped)' $L/qgate.log); not run: $(grep -c 'Not Run' $L/qgate.log)"
  grep -E '\*\*\*Failed|Failed  |Timeout|Exception' $L/qgate.log | head -20
  echo "quant memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1)"
  echo "quant racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1)"
  echo "broken tree (quad slots read as 8 g + ((k + g) & 7)) rc=$xrc: $(grep -E '^\[  (PASSED|FAILED)  \]' $L/broken.log | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' $L/broken.log | head -12; } >> $S
gzip -c $L/qgate.log > $W/qgate.log.gz; gzip -c $L/broken.log > $W/broken.log.gz
sz="--size 4096x7168 --size 8192x7168 --size 16384x7168 --size 16384x16384"
for b in $Q $B; do for k in ring stream; do for f in "mxfp4 rowwise" "mxfp6_e3m2 rowwise" "mxfp6_e2m3 rowwise" "nvfp4 rowwise" "software cvt"; do
  { echo "=== $b --row-kernel $k $f"; timeout 60 $b $sz --row-kernel $k --only "$f" 2>&1 | grep -vE "b2b|^device|^size"; } >> $W/probe.txt; done; done; done
echo "== probe at $(el) s" >> $S
for f in "mxfp4 rowwise" "mxfp6_e3m2 rowwise"; do for sp in 1 2 3 4; do
  { echo "=== $Q --row-kernel ring --split $sp $f"; timeout 60 $Q --size 8192x7168 --size 16384x16384 --row-kernel ring --split $sp --only "$f" 2>&1 | grep -vE "b2b|^device|^size"; } >> $W/split.txt; done; done
echo "== split at $(el) s" >> $S
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
for i in 1; do
  timeout 80 $Q $sizes --out $W/bench_new$i.csv > $W/bench_new$i.txt 2>&1; echo "== mxbench this tree ($i) rc=$? at $(el) s" >> $S
  [ -n "$B" ] && { timeout 80 $B $sizes --out $W/bench_old$i.csv > $W/bench_old$i.txt 2>&1; echo "== mxbench main ($i) rc=$? at $(el) s" >> $S; }
done
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__warps_active.avg.per_cycle_active"
{ for f in "mxfp4 rowwise tcgen05" "mxfp6_e2m3 rowwise tcgen05"; do
    echo "=== ncu ring $f 16384x16384"
    timeout 40 ncu --clock-control none -k regex:"k_row" --launch-skip 1 -c 1 --metrics $M $Q --only "$f" --row-kernel ring --size 16384x16384 --iters 3 2>&1 | grep -E "k_row|gpu__|sm__|smsp__|launch__|dram__|l1tex__"
  done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
tar -C $W -czf $O/all.tgz .
cp $W/*.txt $O/ 2>/dev/null
echo "total $(el) s" >> $S; cat $S
