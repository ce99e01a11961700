#!/usr/bin/env bash
# run-dec.sh - issue 10 at N = 2048, K = 7168 (M = 1, 16): the mma.sync
# producer/consumer forms of gemm_w4a16_mma.cu against main's, on one GPU in
# one device call (< 220 s). Run from the root of a main checkout with this
# branch's changed files in .devrun/dec/overlay (the script copies main's
# sources aside first, then applies the overlay):
#   bash .devrun/dec/overlay/kernels/gemm/run-dec.sh
# Builds (-j16, concurrently) main's mxgemmbench and this tree's mxgemmbench +
# mx_gemm_gate (kernels/gemm/standalone, 90a-real) and mxmmaprobe (nvcc);
# times both binaries alternately at the six decode shapes (launcher, cols 0)
# and the producer forms at N = 2048 (FORMS_1, FORMS_16), cuBLAS bf16
# (torch_bench.py, CUDA graph) in the same call; the dependent mma.sync
# latency; the gate (GATE_FILTER) beside memcheck / racecheck on
# GemmGateSanitizer.W4a16Mma; Nsight Compute if time is left.
set -uo pipefail
O=${OUT:-/tmp/dec-out}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"
R=$PWD; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >>"$S" 2>&1
log "tree: main $(git rev-parse --short HEAD 2>/dev/null) + overlay: $(cd .devrun/dec/overlay && find . -type f | tr '\n' ' ')"
mkdir -p /tmp/mainsrc && tar --exclude=./.git --exclude=./.devrun --exclude=./.gtest-src --exclude=./vectors -cf - . | tar -C /tmp/mainsrc -xf -
cp -r .devrun/dec/overlay/. ./
GT=(-DMX_GTEST_SRC="$R/.gtest-src")
CF=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real "${GT[@]}")
{ cmake -S /tmp/mainsrc/kernels/gemm/standalone -B /tmp/b-main "${CF[@]}" && cmake --build /tmp/b-main -j16 --target mxgemmbench; } >/tmp/build-main.log 2>&1 &
p1=$!
{ cmake -S kernels/gemm/standalone -B /tmp/b-new "${CF[@]}" && cmake --build /tmp/b-new -j16 --target mxgemmbench mx_gemm_gate; } >"$O/build.log" 2>&1 &
p2=$!
nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/mxmmaprobe kernels/gemm/bench/mma_probe.cu >/tmp/probe-build.log 2>&1 &
p3=$!
wait $p1; r1=$?; wait $p2; r2=$?; wait $p3; r3=$?
log "build main rc=$r1, new rc=$r2, probe rc=$r3: $(el) s"
[ $r1 = 0 ] || tail -5 /tmp/build-main.log >>"$S"
[ $r2 = 0 ] || { grep -E "error" "$O/build.log" | head -20 | tee -a "$S"; exit 1; }
BM=$(find /tmp/b-main -name mxgemmbench -type f | head -1); BN=$(find /tmp/b-new -name mxgemmbench -type f | head -1)
GATE=$(find /tmp/b-new -name mx_gemm_gate -type f | head -1)
SAN=GemmGateSanitizer.W4a16Mma
timeout 40 $GATE --gtest_filter="$SAN" >/tmp/smoke.log 2>&1; rc=$?
log "smoke ($SAN) rc=$rc: $(grep -E '^\[  PASSED|^\[  FAILED' /tmp/smoke.log | tr '\n' ' ') $(el) s"
grep -E "Failure|differ|Which is|w4a16 m=" /tmp/smoke.log | head -8 | tee -a "$S"
[ $rc = 124 ] && { log "HANG: stop"; exit 1; }
if [ "${PROBE:-1}" = 1 ]; then log "## mma.sync dependent latency (mxmmaprobe)"; [ $r3 = 0 ] && timeout 20 /tmp/mxmmaprobe 2>&1 | tee -a "$S"; fi
log "## us per call (kernel,M,N,K,us,tflops), bf16 out; main = main's binary, new = this tree's; cols 0 launcher, 2000 + form"
b() { printf "%-4s " "$1" >>"$S"; timeout 15 ${!1} time w4a16 $2 $3 $4 200 0 $5 2>&1 | tail -1 | sed "s/^w4a16,/w4a16(cols$5),/" >>"$S"; }
B_main=$BM; B_new=$BN
FORMS_1=${FORMS_1:-2811 3011 3111 2911}; FORMS_16=${FORMS_16:-2812 2912}; SHAPES_X=${SHAPES_X:-}
for round in 1 2; do
  log "# round $round ($(el) s)"
  for shp in "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" "64 7168 2048" "64 2048 7168"; do
    b B_main $shp 0; b B_new $shp 0
  done
  for f in $FORMS_1; do b B_new 1 2048 7168 $f; done
  for f in $FORMS_16; do b B_new 16 2048 7168 $f; done
  for shp in $SHAPES_X; do b B_main ${shp//x/ } 0; b B_new ${shp//x/ } 0; done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "cublas_bf16.*,(1|16|64),|Error" >>"$S"
done
log "bench done: $(el) s"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $GATE --gtest_filter="$SAN" >"$O/memcheck.log" 2>&1 &
q1=$!
timeout 100 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 50 --error-exitcode 9 $GATE \
  --gtest_filter="$SAN" >"$O/racecheck.log" 2>&1 &
q2=$!
GF=${GATE_FILTER:-GemmGate.W4a16Mma*:GemmGate.W4a16Specials:GemmGate.Errors}
timeout 90 $GATE --gtest_filter="$GF" >"$O/gate.log" 2>&1
log "gate ($GF) rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED' "$O/gate.log" | tr '\n' ' ') $(el) s"
grep -E "^\[  FAILED|^\[       OK|Failure|differ|Which is|w4a16 m=|cols " "$O/gate.log" | head -30 | tee -a "$S"
if [ "${NCU:-1}" = 1 ] && [ $(el) -lt ${NCU_BY:-150} ]; then
  M="sm__cycles_elapsed.max,smsp__cycles_active.avg,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,gpu__time_duration.sum"
  if [ -n "${NCU_SRC:-}" ]; then  # per-SASS-instruction stall samples of one launch of form NCU_SRC
    timeout 40 ncu --clock-control none --section SourceCounters --section WarpStateStats -k regex:w4a16_mma_pc \
      --launch-skip 2 -c 1 -f -o /tmp/src $BN time w4a16 1 2048 7168 3 0 $NCU_SRC >/tmp/src.log 2>&1
    timeout 30 ncu -i /tmp/src.ncu-rep --page source --csv --print-source sass >"$O/src.csv" 2>&1; log "ncu source $NCU_SRC rc=$?"
    timeout 20 ncu -i /tmp/src.ncu-rep --page details --section WarpStateStats >>"$O/ncu.txt" 2>&1
    gzip -f "$O/src.csv"
  fi
  for f in ${NCU_FORMS:-2811 3111}; do
    echo "=== ncu 1 2048 7168 cols $f" >>"$O/ncu.txt"
    timeout 25 ncu --clock-control none -k regex:w4a16_mma --launch-skip 3 -c 1 --metrics $M $BN time w4a16 1 2048 7168 5 0 $f 2>&1 |
      grep -E "cycles|inst_executed|stalled|duration" >>"$O/ncu.txt"
  done
  sed 's/  */ /g' "$O/ncu.txt" >>"$S"
fi
if [ "${SASS:-1}" = 1 ] && command -v cuobjdump >/dev/null; then  # SASS of the P = 3 and P = 6 forms (bf16 out, M <= 8)
  cuobjdump -sass "$BN" 2>/dev/null | awk '/Function : /{p = ($0 ~ /w4a16_mma_pc_kernel.*W4MmaILi1ELi1ELi1ELi[36]EEELb1/)} p' >"$O/pc.sass"
  for f in 3 6; do
    log "SASS P=$f NT=1 bf16: $(awk -v f="Li${f}EEELb1" '/Function : /{p = index($0, f) > 0} p' "$O/pc.sass" | grep -cE '^ +/\*[0-9a-f]{4}\*/') instructions;" \
      "$(awk -v f="Li${f}EEELb1" '/Function : /{p = index($0, f) > 0} p' "$O/pc.sass" | grep -oE '(HMMA|LDS|STS|LDGSTS|HMUL2|LEA|IMAD|LOP3|PRMT|SYNCS)[.A-Z0-9]*' | sed 's/\..*//' | sort | uniq -c | tr '\n' ' ')"
  done
  gzip -f "$O/pc.sass"
fi
wait $q1; m1=$?; wait $q2; m2=$?
log "memcheck rc=$m1: $(grep -E 'ERROR SUMMARY|^\[  PASSED|^\[  FAILED' "$O/memcheck.log" | tr '\n' ' ')"
log "racecheck rc=$m2: $(grep -E 'RACECHECK SUMMARY|^\[  PASSED|^\[  FAILED' "$O/racecheck.log" | tr '\n' ' ')"
gzip -f "$O/racecheck.log"
log "total: $(el) s"
cat "$S"
