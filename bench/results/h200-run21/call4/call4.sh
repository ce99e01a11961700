# call4.sh - run 21 call 4 (H200): balanced k_rowstream grids (whole waves of CTAs
# splitting the items evenly) against HEAD fd8d07e (head-src.tar.xz): mxbench
# alternated, --split sweeps (the fixed grids) in the same binary, ncu at
# 8192x7168, quant gate + sanitizers.
O=${OUT:-/tmp/c21}; W=/tmp/w21d; mkdir -p $O $W/logs; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; git status --short | head -20; } > $S
QB=$R/.gpu-bin/r21-q; BQ=$R/.gpu-bin/r21-bq; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $QB -j 10 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run21/head-src.tar.xz -C /tmp/bsrc &&
  cmake -S /tmp/bsrc/bench/standalone -B $BQ -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $BQ -j 6 --target mxbench; } > $L/bbuild.log 2>&1 & pb=$!
# a broken copy of this tree (the even split drops its remainder: rem = 0) for the new gate tests
XB=$R/.gpu-bin/r21-x
{ rm -rf /tmp/xsrc && mkdir -p /tmp/xsrc && cp -r bench kernels reference conformance cmake CMakeLists.txt tools /tmp/xsrc/ 2>/dev/null;
  sed -i 's/      rem = items % grid;/      rem = 0;/' /tmp/xsrc/kernels/common/launch_impl.cuh && grep -c "rem = 0;" /tmp/xsrc/kernels/common/launch_impl.cuh &&
  cmake -S /tmp/xsrc/bench/standalone -B $XB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $XB -j 6 --target mx_gpu_gate; } > $L/xbuild.log 2>&1 & px=$!
wait $pq; bq=$?; wait $pb; bb=$?
echo "== build rc=$bq (this tree) rc=$bb (HEAD fd8d07e mxbench) at $(el) s" >> $S
[ $bq = 0 ] || { tail -30 $L/qbuild.log >> $S; tar -C $W -czf $O/all.tgz .; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1); B=$(find $BQ -name mxbench -type f | head -1)
gate=$(find $QB -name mx_gpu_gate -type f | head -1); ct=$(mktemp -d)
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
for i in 1 2; do
  timeout 60 $Q $sizes --out $W/bench_new$i.csv > $W/bench_new$i.txt 2>&1; echo "== mxbench this tree ($i) rc=$? at $(el) s" >> $S
  [ -n "$B" ] && { timeout 60 $B $sizes --out $W/bench_old$i.csv > $W/bench_old$i.txt 2>&1; echo "== mxbench HEAD ($i) rc=$? at $(el) s" >> $S; }
done
grep -E "copy|mxfp4|mxfp6|nvfp4|mxint8|dense" $W/bench_new1.txt | head -12 >> $S
# the fixed split (--split 3 / 2: HEAD's grids) against the balanced default, same binary
for r in 1 2; do for sp in 0 3 2; do { echo "=== round $r --split $sp"; timeout 40 $Q --size 8192x7168 --size 16384x16384 --split $sp --only rowwise 2>&1 | grep -E "copy|rowwise"; } >> $W/split.txt; done; done
echo "== alone at $(el) s" >> $S
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed"
{ for b in $Q $B; do for kk in "k_rowstream 8192x7168 mxfp4 rowwise tcgen05" "k_rowstream 8192x7168 mxfp8_e4m3 rowwise dense" ; do set -- $kk
    echo "=== ncu $b $1 (${*:3}, $2, second launch)"
    timeout 40 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --section ComputeWorkloadAnalysis --metrics $M $b --only "${*:3}" --size $2 --iters 3 2>&1 | grep -E "Duration|Ipc|Issue Slots|highest-utilized|gpu__|sm__|smsp__|launch__|dram__"
  done; done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
wait $px; echo "== broken build rc=$? at $(el) s" >> $S
xg=$(find $XB -name mx_gpu_gate -type f | head -1)
[ -n "$xg" ] && { timeout 120 $xg --gtest_filter='GpuGateRow.StreamWavesBytesEqualReference:GpuGateSanitizer.RowStreamWaves' > $L/xgate.log 2>&1; echo "broken tree, the new tests: rc=$? (expected non-zero): $(grep -cE '^\[  FAILED  \] Gpu' $L/xgate.log) failed" >> $S; grep -m3 -A3 "Failure" $L/xgate.log | cut -c1-200 >> $S; }
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
gzip -c $L/qgate.log > $W/qgate.log.gz; tar -C $W -czf $O/all.tgz .
echo "total $(el) s" >> $S; cat $S
