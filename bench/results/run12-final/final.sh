#!/usr/bin/env bash
# final.sh - run 12: the merged issue 9 + issue 10 work of this session on the
# H100, built on the device (-j16, sm_90a) from the tree the call ships.
#   PHASE=gate  : build the quantization gate + mxbench (bench/standalone), the
#                 GEMM gate + C11 CPU model tests + mxgemmbench (kernels/gemm/standalone),
#                 and the same GEMM targets with helper f8's pingpong.patch applied
#                 (a copy of the tree in /tmp/pp-src) into .gpu-bin/r12-{q,g,pp}; run
#                 ctest -L gpu (every test), the GEMM gate, the C11 CPU tests, the
#                 pingpong build's mxfp8 gate tests, and compute-sanitizer memcheck +
#                 racecheck on both sanitizer subsets (and pingpong's Mxfp8Small).
# Everything lands in $OUT: summary.txt first.
set -uo pipefail
O=${OUT:-/tmp/r12-out}; mkdir -p "$O"; L=$O/logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
S=$O/summary.txt; R=$PWD; QB=$R/.gpu-bin/r12-q; GB=$R/.gpu-bin/r12-g; PB=$R/.gpu-bin/r12-pp
pack() { tar -C "$O" -czf "$O/logs.tgz" logs; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; cat .devrun/run12/tree.txt 2>/dev/null; } > "$S" 2>&1
build_all() {
  gt=-DMX_GTEST_SRC=$R/.gtest-src
  rm -rf /tmp/pp-src && mkdir -p /tmp/pp-src && cp -r kernels reference conformance cmake bench/results/h100-f8/pingpong.patch /tmp/pp-src/ &&
    (cd /tmp/pp-src && patch -p1 < pingpong.patch > /dev/null) || { echo "pingpong patch failed" | tee -a "$S"; }
  { cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
      cmake --build $QB -j 9 --target mx_gpu_gate mxbench; } > $L/qbuild.log 2>&1 & pq=$!
  { cmake -S kernels/gemm/standalone -B $GB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a $gt >/dev/null &&
      cmake --build $GB -j 4 --target mx_gemm_gate mx_c11_cpu_test mxgemmbench; } > $L/gbuild.log 2>&1 & pg=$!
  { cmake -S /tmp/pp-src/kernels/gemm/standalone -B $PB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
      cmake --build $PB -j 3 --target mx_gemm_gate mxgemmbench; } > $L/ppbuild.log 2>&1 & pp=$!
  wait $pq; bq=$?; wait $pg; bg=$?; wait $pp; bp=$?
  echo "== build rc=$bq (quant) rc=$bg (gemm) rc=$bp (gemm pingpong) at $(el) s" | tee -a "$S"
  [ $bp = 0 ] || tail -20 $L/ppbuild.log | tee -a "$S"
  [ $bq = 0 ] && [ $bg = 0 ] || { tail -30 $L/qbuild.log $L/gbuild.log | tee -a "$S"; pack; exit 1; }
}
if [ "${PHASE:-gate}" = build ]; then
  [ -n "$(find $QB -name mxbench -type f 2>/dev/null)" ] && [ -n "$(find $GB -name mxgemmbench -type f 2>/dev/null)" ] || build_all
  exit 0
fi
if [ "${PHASE:-gate}" = gate ]; then
  build_all
  gate=$(find $QB -name mx_gpu_gate -type f | head -1); gg=$(find $GB -name mx_gemm_gate -type f | head -1)
  c11=$(find $GB -name mx_c11_cpu_test -type f | head -1); ct=$(mktemp -d)
  "$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' | while read -r t; do
    echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
    echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
  done > "$ct/CTestTestfile.cmake"
  qs='GpuGateSanitizer.*:GpuGateErrors.*'; SS=${SAN_S:-300}
  timeout $SS compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qmem.log 2>&1 & p1=$!
  timeout $SS compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gate --gtest_filter="$qs" > $L/qrace.log 2>&1 & p2=$!
  timeout $SS compute-sanitizer --tool memcheck --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/gmem.log 2>&1 & p3=$!
  timeout $SS compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $gg --gtest_filter='GemmGateSanitizer.*' > $L/grace.log 2>&1 & p4=$!
  { timeout 60 $c11 > $L/c11cpu.log 2>&1; echo "c11 cpu rc=$?" >> $L/c11cpu.log
    timeout ${GATE_S:-300} $gg > $L/ggate.log 2>&1; echo "rc=$?" >> $L/ggate.log; } & p5=$!
  ppg=$(find $PB -name mx_gemm_gate -type f 2>/dev/null | head -1)
  if [ -n "$ppg" ]; then
    { timeout ${GATE_S:-300} $ppg --gtest_filter='*Mxfp8*' > $L/ppgate.log 2>&1; echo "rc=$?" >> $L/ppgate.log
      timeout $SS compute-sanitizer --tool memcheck --error-exitcode 9 $ppg --gtest_filter='GemmGateSanitizer.Mxfp8*' > $L/ppmem.log 2>&1; echo "rc=$?" >> $L/ppmem.log
      timeout $SS compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $ppg --gtest_filter='GemmGateSanitizer.Mxfp8*' > $L/pprace.log 2>&1; echo "rc=$?" >> $L/pprace.log; } & p6=$!
  fi
  (cd "$ct" && timeout ${GATE_S:-300} ctest -L gpu -j 12 --output-on-failure) > $L/qgate.log 2>&1; qrc=$?
  wait $p5; wait $p1; m1=$?; wait $p2; r1=$?; wait $p3; m2=$?; wait $p4; r2=$?
  { echo "== gates at $(el) s"
    echo "quant gate (ctest -L gpu -j 12, every test) rc=$qrc: $(grep -E 'tests passed|tests failed' $L/qgate.log)"
    echo "  skipped: $(grep -c '(Skipped)' $L/qgate.log); not run: $(grep -c 'Not Run' $L/qgate.log)"
    grep -E '\*\*\*Failed|Failed  |Timeout|Exception' $L/qgate.log | head -20
    echo "quant memcheck rc=$m1: $(grep 'ERROR SUMMARY' $L/qmem.log | tail -1)"
    echo "quant racecheck rc=$r1: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/qrace.log | tail -1)"
    echo "C11 CPU model tests: $(grep -E '^\[  PASSED|^\[  FAILED|rc=' $L/c11cpu.log | tr '\n' ' ')"
    echo "GEMM gate: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran|rc=' $L/ggate.log | tr '\n' ' ')"
    grep -E '^\[  FAILED' $L/ggate.log | head
    echo "GEMM memcheck rc=$m2: $(grep 'ERROR SUMMARY' $L/gmem.log | tail -1)"
    echo "GEMM racecheck rc=$r2: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/grace.log | tail -1)"
    [ -n "$ppg" ] && { wait $p6
      echo "pingpong mxfp8 gate: $(grep -E '^\[  PASSED|^\[  FAILED|tests ran|rc=' $L/ppgate.log | tr '\n' ' ')"
      echo "pingpong memcheck: $(grep -E 'ERROR SUMMARY|rc=' $L/ppmem.log | tr '\n' ' ')"
      echo "pingpong racecheck: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|rc=' $L/pprace.log | tr '\n' ' ')"; }; } | tee -a "$S"
  gzip -c $L/qgate.log > $O/qgate.log.gz; cp $L/ggate.log $O/
  gbench=$(find $GB -name mxgemmbench -type f | head -1); ppb=$(find $PB -name mxgemmbench -type f 2>/dev/null | head -1)
  { for i in 1 2; do for shp in "8192 8192 8192" "4096 7168 2048"; do
      timeout 30 $gbench time mxfp8 $shp 20 2>&1 | sed 's/^mxfp8/mxfp8(default PB1)/'
      [ -n "$ppb" ] && timeout 30 $ppb time mxfp8 $shp 20 2>&1 | sed 's/^mxfp8/mxfp8(pingpong)/'
    done; done; } > $O/pp_time.txt 2>&1
  cat $O/pp_time.txt | tee -a "$S"
  pack; echo "total $(el) s" | tee -a "$S"; exit 0
fi
# ---- PHASE=bench -------------------------------------------------------------------
[ -n "$(find $QB -name mxbench -type f 2>/dev/null)" ] && [ -n "$(find $GB -name mxgemmbench -type f 2>/dev/null)" ] || build_all
mxb=$(find $QB -name mxbench -type f | head -1); gbench=$(find $GB -name mxgemmbench -type f | head -1)
xz -dc .devrun/run12/mxbench_before.xz > /tmp/mxbench_before && chmod +x /tmp/mxbench_before
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
timeout ${BENCH_S:-60} $mxb --out $O/bench.csv $sizes > $O/bench.txt 2>&1; b1=$?
timeout ${BENCH_S:-60} /tmp/mxbench_before --out $O/bench_before.csv $sizes > $L/bench_before.txt 2>&1; b2=$?
echo "== mxbench rc=$b1 (this tree), rc=$b2 (c989618) at $(el) s" | tee -a "$S"
pack
{ for shp in "8192 8192 8192" "4096 7168 2048" "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" \
             "64 7168 2048" "64 2048 7168"; do
    it=200; [ "${shp%% *}" -gt 64 ] && it=20
    for kind in mxfp8 w4a16; do timeout 40 $gbench time $kind $shp $it 2>&1; done
    [ "${shp%% *}" -gt 64 ] && { echo "# w4a16 bn 256: the warp-specialized kernel (main before this session)"; timeout 40 $gbench time w4a16 $shp $it 256 2>&1; }
  done
  timeout 90 python3 kernels/gemm/bench/torch_bench.py 50 2>&1; } > $O/gemm.txt
echo "== GEMM bench done at $(el) s (gemm.txt)" | tee -a "$S"
PYTHONUNBUFFERED=1 timeout ${PEERS_S:-60} python3 bench/peers.py --mxbench-csv $O/bench.csv --out $L/peers \
  --size 16384x16384 --budget-s $(( ${PEERS_S:-60} - 10 )) > $L/peers.txt 2>&1
echo "== peers rc=$? at $(el) s" | tee -a "$S"
cp $L/peers/peers.md $O/ 2>/dev/null; grep -E "copy|cast" $L/peers/peers.csv 2>/dev/null | head -8 | tee -a "$S"
pack; echo "total $(el) s" | tee -a "$S"
