# call3.sh - run 21 call 3 (the final tree) (H200): this tree (e2m1 bf16 encode in 4 ALU
# instructions a pair, IMAD.HI shift-adds, nfm mask) against main 1893f37
# (before-src.tar.xz): quant gate + sanitizers, mxbench alternated, SASS of
# MXFP4 k_rowstream (IMAD.HI present?), ncu of the rowwise kernels.
O=${OUT:-/tmp/c21}; W=/tmp/w21c; mkdir -p $O $W/logs; S=$O/summary.txt; R=$PWD; L=$W/logs
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
{ nvidia-smi -L; git log --oneline -1 2>/dev/null; git status --short | head -20; } > $S
QB=$R/.gpu-bin/r21-q; BQ=$R/.gpu-bin/r21-bq; gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $QB -j 10 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
{ rm -rf /tmp/bsrc && mkdir -p /tmp/bsrc && tar -xJf .devrun/run21/before-src.tar.xz -C /tmp/bsrc &&
  cmake -S /tmp/bsrc/bench/standalone -B $BQ -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
  cmake --build $BQ -j 6 --target mxbench; } > $L/bbuild.log 2>&1 & pb=$!
wait $pq; bq=$?; wait $pb; bb=$?
echo "== build rc=$bq (this tree) rc=$bb (main 1893f37 mxbench) at $(el) s" >> $S
[ $bq = 0 ] || { tail -30 $L/qbuild.log >> $S; tar -C $W -czf $O/all.tgz .; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1); B=$(find $BQ -name mxbench -type f | head -1)
gate=$(find $QB -name mx_gpu_gate -type f | head -1); ct=$(mktemp -d)
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
for i in 1 2; do
  timeout 60 $Q $sizes --out $W/bench_new$i.csv > $W/bench_new$i.txt 2>&1; echo "== mxbench this tree ($i) rc=$? at $(el) s" >> $S
  [ -n "$B" ] && { timeout 60 $B $sizes --out $W/bench_old$i.csv > $W/bench_old$i.txt 2>&1; echo "== mxbench main ($i) rc=$? at $(el) s" >> $S; }
done
grep -E "copy|mxfp4|mxfp6|nvfp4|mxint8|dense" $W/bench_new1.txt | head -12 >> $S
# each 4/6-bit case alone, each binary, twice (the order of cases in one process moves them: run 21 call 2)
for b in $Q $B $Q $B; do for c in mxfp4 mxfp6 nvfp4; do { echo "=== $b --only $c"; timeout 30 $b --size 16384x16384 --size 8192x7168 --only $c 2>&1 | grep -E "copy|$c"; } >> $W/alone.txt; done; done
timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 > $W/torch_cast.txt 2>&1; echo "== torch cast rc=$?" >> $S
echo "== alone at $(el) s" >> $S
# SASS of the bf16 quantize TU: MXFP4 k_rowstream
obj=$(find $QB -name "quantize_mx_bf16.cu.o" | head -1)
cuobjdump -sass $obj > $W/bf16.sass 2>&1
awk '/Function : /{p = ($0 ~ /k_rowstream/ && $0 ~ /MxQILi4ELb1E/)} p' $W/bf16.sass > $W/rs4.sass
awk '/Function : /{p = ($0 ~ /k_rowstream/ && $0 ~ /MxQILi2ELb1E/)} p' $W/bf16.sass > $W/rs6.sass; gzip -f $W/rs6.sass
{ echo "== SASS MXFP4 k_rowstream: $(grep -c 'Function :' $W/rs4.sass) functions, $(grep -c . $W/rs4.sass) lines"
  echo "   IMAD.HI: $(grep -c 'IMAD.HI' $W/rs4.sass); c[0x3]: $(grep -c 'c\[0x3\]' $W/rs4.sass); LDC: $(grep -c 'LDC' $W/rs4.sass); HMNMX2: $(grep -c HMNMX2 $W/rs4.sass)"; } >> $S
gzip -f $W/rs4.sass; rm -f $W/bf16.sass
M="gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed"
{ for b in $Q $B; do for kk in "k_rowstream 16384x16384 mxfp4 rowwise tcgen05" "k_rowstream 16384x16384 mxfp6_e3m2 rowwise tcgen05" \
            "k_rowstream 16384x16384 mxint8 rowwise dense" "k_rowstream 16384x16384 mxfp8_e4m3 rowwise dense" "k_rowstream 16384x16384 nvfp4 rowwise tcgen05" ; do set -- $kk
    echo "=== ncu $b $1 (${*:3}, $2, second launch)"
    timeout 40 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --section ComputeWorkloadAnalysis --metrics $M $b --only "${*:3}" --size $2 --iters 3 2>&1 | grep -E "Duration|Ipc|Issue Slots|highest-utilized|gpu__|sm__|smsp__|launch__|dram__"
  done; done; } > $W/ncu.txt 2>&1
echo "== ncu at $(el) s" >> $S
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
