#!/usr/bin/env bash
# tail8.sh - issue 9, 8192x7168 within 3% of the 16384^2 ratios, on the H200
# (helper tail8). One device call from /work/main's tree with the overlay
# .devrun/tail8/overlay (this branch's changed files):
#   PHASE=1: main's mxbench (built here) twice at 16384^2 and 8192x7168, and
#     the probe tail8.cu (carried prebuilt as .devrun/tail8/bin/tail8, built
#     here from the overlay tree if that one does not run);
#   PHASE=2: main's mxbench and the overlay's mxbench alternated (3 rounds),
#     the probe once, then the gate (ctest on the rowwise/NVFP4 subset) beside
#     compute-sanitizer memcheck + racecheck on GpuGateSanitizer.*:GpuGateErrors.*
#   run(command="PHASE=1 OUT=$OUT bash .devrun/tail8/overlay/bench/results/h200-tail8/tail8.sh",
#       carry=[".devrun/tail8", ".gtest-src"], timeout_s=220, kind="nvidia-h200")
set -uo pipefail
O=${OUT:-/tmp/t8-out}; mkdir -p "$O"; L=/tmp/t8-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
PHASE=${PHASE:-1}; END=${END_S:-210}
S=$O/summary.txt; R=$PWD; MB=/tmp/t8-main-bin; OB=/tmp/t8-ours-bin; OT=/tmp/t8-ours
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv,noheader;
  git log -1 --format='main %H %s'; echo "phase $PHASE"; } > "$S" 2>&1
mkdir -p $OT && tar --exclude=./.git --exclude=./.devrun -cf - . | tar -C $OT -xf - && cp -r .devrun/tail8/overlay/. $OT/
gt=-DMX_GTEST_SRC=$R/.gtest-src
if [ "$PHASE" = 1 ]; then
  { cmake -S bench/standalone -B $MB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
      cmake --build $MB -j 16 --target mxbench; } > $L/mbuild.log 2>&1; bm=$?
  bo=0
else
  { cmake -S bench/standalone -B $MB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
      cmake --build $MB -j 6 --target mxbench; } > $L/mbuild.log 2>&1 & pm=$!
  { cmake -S $OT/bench/standalone -B $OB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
      cmake --build $OB -j 10 --target mxbench mx_gpu_gate; } > $L/obuild.log 2>&1 & po=$!
  wait $pm; bm=$?; wait $po; bo=$?
fi
echo "== build rc=$bm (main) rc=$bo (ours) at $(el) s" | tee -a "$S"
if [ $bm != 0 ] || [ $bo != 0 ]; then grep -E "error|Error" $L/mbuild.log $L/obuild.log 2>/dev/null | head -30 | tee -a "$S"; tar -C $L -czf $O/logs.tgz . ; exit 1; fi
mxm=$(find $MB -name mxbench -type f | head -1)
PR=.devrun/tail8/bin/tail8
if ! $PR 0 > $L/probe-try.txt 2>&1; then
  echo "carried probe does not run: $(head -3 $L/probe-try.txt)" | tee -a "$S"
  NV="nvcc -std=c++20 --ftz=false --prec-div=true --prec-sqrt=true --fmad=false --expt-relaxed-constexpr -O3 -arch=sm_90a -Ikernels -Ikernels/include -Ireference/include"
  (cd $OT && $NV bench/results/h200-tail8/tail8.cu -o /tmp/t8-probe) > $L/pbuild.log 2>&1; PR=/tmp/t8-probe
fi
sz="--size 16384x16384 --size 8192x7168"
if [ "$PHASE" = 1 ]; then
  { for r in 1 2; do echo "=== main $r"; timeout 40 $mxm $sz; done; } > $O/bench.txt 2>&1
  echo "== bench rc=$? at $(el) s" | tee -a "$S"
  timeout $(( END - $(el) )) $PR 2 > $O/probe.txt 2>&1
  echo "== probe rc=$? at $(el) s" | tee -a "$S"
  tar -C $L -czf $O/logs.tgz .
  grep -E "ratio|copy" $O/bench.txt | grep -E "8192|16384" | head -60
  grep -E "auto|copy|alone" $O/probe.txt | head -80
  cat $S; exit 0
fi
mxo=$(find $OB -name mxbench -type f | head -1); gate=$(find $OB -name mx_gpu_gate -type f | head -1)
# SASS of every k_rowstream / k_rowwise / k_rowtile instantiation in both builds, one md5 per function
# (call 2: this step took ~80 s and left the gate 20 s; SASS=0 skips it)
[ "${SASS:-1}" = 1 ] && for b in $MB $OB; do cuobjdump -sass "$(find $b -name libmxkernels.a | head -1)" > $L/sass-$(basename $b).txt 2>/dev/null; done
[ "${SASS:-1}" = 1 ] && python3 - $L/sass-$(basename $MB).txt $L/sass-$(basename $OB).txt > $O/sass_cmp.txt 2>&1 <<'PY'
import sys, re, hashlib
def funcs(path):
    d, f = {}, None
    for l in open(path, errors='replace'):
        m = re.search(r'Function : (\S+)', l)
        if m:
            f = m.group(1); d.setdefault(f, hashlib.md5()); continue
        if f and re.search(r'k_row(stream|wise|tile)', f):
            d[f].update(re.sub(r'/\*[0-9a-f]{4}\*/|/\* 0x[0-9a-f]+ \*/', '', l).strip().encode())
    return {k: v.hexdigest() for k, v in d.items() if re.search(r'k_row(stream|wise|tile)', k)}
a, b = funcs(sys.argv[1]), funcs(sys.argv[2])
same = [k for k in a if b.get(k) == a[k]]
diff = [k for k in a if k in b and b[k] != a[k]]
print(f"k_row* functions: main {len(a)}, ours {len(b)}; identical {len(same)}; differing {len(diff)}; only main {len(set(a)-set(b))}; only ours {len(set(b)-set(a))}")
for k in sorted(diff): print("differs:", k)
for k in sorted(set(a) ^ set(b)): print("only one:", k)
PY
[ "${SASS:-1}" = 1 ] && head -1 $O/sass_cmp.txt | tee -a "$S"
{ for r in 1 2 3; do echo "=== main $r"; timeout 40 $mxm $sz; echo "=== ours $r"; timeout 40 $mxo $sz; done; } > $O/bench.txt 2>&1
echo "== bench rc=$? at $(el) s" | tee -a "$S"
timeout 40 $PR 1 > $O/probe.txt 2>&1; echo "== probe rc=$? at $(el) s" | tee -a "$S"
ct=$(mktemp -d)
F=${GATE_F:-'GpuGateRow|GpuGateSanitizer|GpuGateErrors|GpuGatePoison|GpuGateEmpty|GpuGateLarge|Nvfp4|nvfp4|mxfp4|mxfp6'}
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > $L/gate-all.txt
grep -E "$F" $L/gate-all.txt | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
LEFT=$(( END - $(el) )); [ $LEFT -lt 20 ] && LEFT=20
sf='GpuGateSanitizer.*:GpuGateErrors.*'
timeout $LEFT compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/memcheck.log 2>&1 & mp=$!
timeout $LEFT compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 "$gate" --gtest_filter="$sf" > $L/racecheck.log 2>&1 & rp=$!
tg=$(date +%s)
(cd $ct && timeout $LEFT ctest -j ${GATE_J:-12} --output-on-failure) > $L/ctest.log 2>&1; grc=$?
wait $mp; mrc=$?; wait $rp; rrc=$?
{ echo "gate: $(grep -cE "$F" $L/gate-all.txt) of $(wc -l < $L/gate-all.txt) tests selected; ctest rc=$grc in $(( $(date +%s) - tg )) s (limit $LEFT s)"
  grep -E "tests passed|tests failed" $L/ctest.log; echo "passed: $(grep -cE 'Test +#.*Passed' $L/ctest.log)"
  grep -E "\*\*\*Failed|Failed  |Timeout|Not Run" $L/ctest.log | head -20
  echo "memcheck rc=$mrc: $(grep 'ERROR SUMMARY' $L/memcheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/memcheck.log | tr '\n' ' ')"
  echo "racecheck rc=$rrc: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $L/racecheck.log | tail -1) $(grep -E '^\[  (PASSED|FAILED) ' $L/racecheck.log | tr '\n' ' ')"
  echo "total: $(el) s"; } >> $S
{ echo "##### memcheck"; tail -30 $L/memcheck.log; echo "##### racecheck"; tail -30 $L/racecheck.log; } > $O/sanitizers.log
{ grep -E "Test +#" $L/ctest.log; grep -B2 -A30 -E "FAILED|Failure" $L/ctest.log | head -150; } > $O/ctest.txt
tar -C $L -czf $O/logs.tgz .
grep -E "ratio|copy" $O/bench.txt | grep -E "8192|16384" | grep -E "copy|mxfp4|mxfp6|nvfp4|mxint8|e4m3 rowwise dense" | head -60
cat $S
