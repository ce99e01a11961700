#!/usr/bin/env bash
# nvp.sh - issue 9 (helper nvp): NVFP4 rowwise at 8192x7168 within 3% of its
# 16384^2 ratio, on the H200. One device call from /work/main's tree with
# this branch's changed files as an overlay (.devrun/nvp/overlay):
#   1. build mxbench and the gpu gate (bench/standalone, 90a-real, -j16);
#   2. spills of the persistent kernel's SASS (cuobjdump, STL/LDL per function);
#   3. mxbench, NVFP4 only, at 8192x7168, 16384^2 and sizes between 2^21 and
#      2^27 (SZ): the MODES (default --nvfp4-pass two, today's path: memset +
#      k_amax + quantize, and persist, nvfp4/persist.cuh) alternated ROUNDS
#      times, then the ONCE modes (one, auto) once each; every process times
#      the copy first;
#   4. the gate on the NVFP4 / rowwise subset (ctest, one test per gtest case)
#      beside compute-sanitizer memcheck + racecheck on GpuGateSanitizer.Nvfp4*.
#   run(command="OUT=$OUT bash .devrun/nvp/overlay/bench/results/h200-nvp/nvp.sh",
#       carry=[".devrun/nvp", ".gtest-src"], timeout_s=220, kind="nvidia-h200")   # call 1
#   call 2: MODES="two:--nvfp4-pass two|pf0:--nvfp4-pass persist --persist-prefetch 0|..." (see README "run 18 nvp")
set -uo pipefail
O=${OUT:-/tmp/nvp-out}; mkdir -p "$O"; L=/tmp/nvp-logs; mkdir -p "$L"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
END=${END_S:-210}; ROUNDS=${ROUNDS:-3}
S=$O/summary.txt; R=$PWD; B=/tmp/nvp-bin
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv,noheader;
  git log -1 --format='main %H %s'; } > "$S" 2>&1
cp -r .devrun/nvp/overlay/. ./
git status --short | grep -v '^??.*\.gtest-src' >> "$S"
gt=-DMX_GTEST_SRC=$R/.gtest-src
{ cmake -S bench/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real $gt >/dev/null &&
    cmake --build $B -j 16 --target mxbench mx_gpu_gate; } > $L/build.log 2>&1; bc=$?
echo "== build rc=$bc at $(el) s" | tee -a "$S"
if [ $bc != 0 ]; then grep -E "error" $L/build.log | head -30 | tee -a "$S"; tar -C $L -czf $O/logs.tgz .; exit 1; fi
mxb=$(find $B -name mxbench -type f | head -1); gate=$(find $B -name mx_gpu_gate -type f | head -1)
obj=$(find $B -name 'nvfp4.cu.o' | head -1)
{ echo "STL/LDL per k_nvfp4_persist / k_rowstream<*Nvfp4Q> function (sm_90a SASS):"
  cuobjdump -sass "$obj" | awk '/Function :/{f=$3; n[f]=0} /STL|LDL/{n[f]++} END{for (k in n) print n[k], k}' | grep -E "persist|rowstream.*Nvfp4" | sort -k2; } > $O/spills.txt 2>&1
echo "== sass at $(el) s" | tee -a "$S"
SZ=${SZ:-"--size 8192x7168 --size 16384x16384 --size 2048x2048 --size 4096x4096 --size 4096x7168 --size 8192x8192 --size 16384x8192"}
# MODES: "name:mxbench flags|..." alternated ROUNDS times; ONCE: the same, once each at the end
MODES=${MODES:-"two:--nvfp4-pass two|persist:--nvfp4-pass persist"}; ONCE=${ONCE:-"one:--nvfp4-pass one|auto:--nvfp4-pass auto"}
IFS='|' read -ra MS <<< "$MODES"; IFS='|' read -ra M1 <<< "$ONCE"
{ for r in $(seq 1 $ROUNDS); do
    for m in "${MS[@]}"; do echo "=== ${m%%:*} $r"; timeout 40 $mxb --only nvfp4 $SZ ${m#*:}; done
  done
  for m in "${M1[@]}"; do echo "=== ${m%%:*} 1"; timeout 40 $mxb --only nvfp4 $SZ ${m#*:}; done; } > $O/bench.txt 2>&1
echo "== bench rc=$? at $(el) s" | tee -a "$S"
ct=$(mktemp -d)
F=${GATE_F:-'Nvfp4|nvfp4|GpuGateSanitizer|GpuGateErrors|ForcedKernels|StreamLarge'}
"$gate" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' > $L/gate-all.txt
# the new file's tests first (ctest runs them in file order at equal cost)
{ grep -E "Nvfp4Persist" $L/gate-all.txt; grep -E "$F" $L/gate-all.txt | grep -v Nvfp4Persist; } | while read -r t; do
  echo "add_test([=[$t]=] \"$gate\" [=[--gtest_filter=$t]=])"
  echo "set_tests_properties([=[$t]=] PROPERTIES LABELS gpu TIMEOUT 900 SKIP_REGULAR_EXPRESSION \"\\\\[  SKIPPED \\\\]\")"
done > "$ct/CTestTestfile.cmake"
LEFT=$(( END - $(el) )); [ $LEFT -lt 20 ] && LEFT=20
sf='GpuGateSanitizer.Nvfp4*'
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
python3 - $O/bench.txt <<'PY' | tee $O/table.txt
import sys, re, collections
# per mode: size -> case -> [(us, ratio)]
d = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
mode = None
for l in open(sys.argv[1]):
    m = re.match(r'=== (\S+) (\d+)', l)
    if m: mode = m.group(1); continue
    f = l.split()
    if len(f) < 6 or 'x' not in f[0] or 'b2b' in l: continue
    case = 'copy' if 'copy' in l else ('torchao' if 'torchao' in l else ('te' if 'nvfp4' in l else None))
    if not case: continue
    nums = [x for x in f if re.match(r'^[0-9.]+$', x)]
    if len(nums) < 3: continue
    d[mode][f[0]][case].append((float(nums[0]), float(nums[2])))
sizes = ['16384x16384', '8192x7168', '16384x8192', '8192x8192', '4096x7168', '4096x4096', '2048x2048']
for case in ('te', 'torchao'):
    print(f"## {case}: us (ratio to the same process's copy), per process; drop of 8192x7168 vs 16384^2 from the mean ratios")
    for mode in d:
        cells = []
        for s in sizes:
            v = d[mode][s][case]
            if v: cells.append(f"{s} " + "/".join(f"{u:.2f}" for u, r in v) + " (" + "/".join(f"{r:.3f}" for u, r in v) + ")")
        a = d[mode]['16384x16384'][case]; b = d[mode]['8192x7168'][case]
        drop = ''
        if a and b:
            ra = sum(r for u, r in a) / len(a); rb = sum(r for u, r in b) / len(b)
            drop = f" | drop {100 * (1 - rb / ra):.2f}%"
        print(f"{mode}: " + "; ".join(cells) + drop)
PY
cat $S
