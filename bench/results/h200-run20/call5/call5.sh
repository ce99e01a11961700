# call5.sh - run 20 call 5, the final one (from call2.sh): this tree against main 40b0e55 (the session start) (H200): this tree's quantization gate + sanitizers,
# mxbench against main 40b0e55's (before-src.tar.xz) alternated, ncu of the
# changed row kernels (instruction counts, pipes, SASS source of MXFP4 k_rowstream).
O=${OUT:-/tmp/c20}; W=/tmp/w5; mkdir -p $O $W/logs /tmp/pb; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; } > $S
QB=$R/.gpu-bin/r20-q; BQ=$R/.gpu-bin/r20-bq; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $QB -j 10 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run20/before-src.tar.xz -C /tmp/bsrc &&
  cmake -S /tmp/bsrc/bench/standalone -B $BQ -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $BQ -j 6 --target mxbench; } > $L/bbuild.log 2>&1 & pb=$!
wait $pq; bq=$?; wait $pb; bb=$?
echo "== build rc=$bq (this tree) rc=$bb (main 40b0e55 mxbench) at $(el) s" >> $S
[ $bq = 0 ] || { tail -30 $L/qbuild.log >> $S; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1); B=$(find $BQ -name mxbench -type f | head -1)
gate=$(find $QB -name mx_gpu_gate -type f | head -1); ct=$(mktemp -d)
# benchmarks first (quiet machine), alternated, two rounds
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
for i in 1 2; do
  timeout 60 $Q $sizes --out $W/bench_new$i.csv > $W/bench_new$i.txt 2>&1; echo "== mxbench this tree ($i) rc=$? at $(el) s" >> $S
  [ -n "$B" ] && { timeout 60 $B $sizes --out $W/bench_old$i.csv > $W/bench_old$i.txt 2>&1; echo "== mxbench main ($i) rc=$? at $(el) s" >> $S; }
done
timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 > $W/torch_cast.txt 2>&1; echo "== torch cast rc=$?" >> $S
timeout 30 $Q --size 16384x16384 --only col > $W/col_auto.txt 2>&1; head -2 $W/col_auto.txt >> $S
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,dram__throughput.avg.pct_of_peak_sustained_elapsed"
{ for b in $Q $B; do for kk in "k_rowstream 16384x16384 mxfp4 rowwise tcgen05" "k_colstream 16384x16384 colwise source dense_colwise" \
            "k_rowstream 16384x16384 mxfp8_e4m3 rowwise dense" "k_rowwise 16384x16384 nvfp4 rowwise tcgen05"; do set -- $kk
    echo "=== ncu $b $1 (${*:3}, $2, second launch)"
    timeout 40 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --section ComputeWorkloadAnalysis --metrics $M $b --only "${*:3}" --size $2 --iters 3 2>&1 | grep -E "Duration|Ipc|Issue Slots|highest-utilized|gpu__|sm__|smsp__|launch__|dram__"
  done; done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S

# the gate: every test its own process, then the sanitizers on their subsets
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
gzip -c $L/qgate.log > $O/qgate.log.gz; tar -C $W -czf $O/all.tgz .
echo "total $(el) s" >> $S; cat $S
