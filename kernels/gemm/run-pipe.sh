#!/usr/bin/env bash
# run-pipe.sh - run 16 pipe (issue 10, w4a16 64 x 7168 x 2048 on the mma.sync flat form 418), one device
# call: apply the overlay (.devrun/pipe/overlay), build mxgemmbench + mx_gemm_gate (kernels/gemm/
# standalone, 90a-real, -j16), time the forms alternately, two rounds, cuBLAS bf16 (torch_bench.py 50, CUDA
# graph) after each round; the SASS of 418 and the PIPE forms (cuobjdump); the whole GEMM gate (one process
# per test, 8 at a time) beside compute-sanitizer memcheck / racecheck on GemmGateSanitizer.W4a16Mma*;
# Nsight Compute of NCU_COLS at 64 x 7168 x 2048 while time is left. Main's forms (418, 30411, 30412) are
# byte-identical in this binary to main's (sm_90a .text compared), so the forced forms 2418 / 32411 / 32412
# are the "before". Summary last in $OUT/summary.txt.
# Usage (repository root, main's tree): OUT=<dir> bash .devrun/pipe/overlay/kernels/gemm/run-pipe.sh
# Env: F64 / F1 / F16 (decode_cols timed at 64 / 1 / 16 x 7168 x 2048), NCU_COLS, NCU_BY (s), GATE_S.
set -uo pipefail
O=${OUT:-/tmp/pipe}; mkdir -p "$O"; S=$O/summary.txt; : >"$S"; T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
log() { echo "$*" >>"$S"; }
cp -r .devrun/pipe/overlay/. ./
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$S" 2>&1
B=.gpu-bin/pipe
{ cmake -S kernels/gemm/standalone -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real \
    -DMX_GTEST_SRC=$PWD/.gtest-src >/dev/null && cmake --build $B -j 16 --target mxgemmbench mx_gemm_gate; } >"$O/build.log" 2>&1
log "== build rc=$? at $(el) s"
G=$(find $B -name mxgemmbench -type f | head -1); GG=$(find $B -name mx_gemm_gate -type f | head -1)
[ -x "$G" ] && [ -x "$GG" ] || { grep -E "error|FAILED" "$O/build.log" | head -30 >>"$S"; cat "$S"; exit 1; }
gzip -9 "$O/build.log"
t() {  # pdl shape cols
  printf "pdl=%s %-14s %-7s " "$1" "$2" "$3" >>"$O/bench.txt"
  MXK_GEMM_PDL=$1 timeout 20 $G time w4a16 $2 200 0 $3 2>&1 | tail -1 | cut -d, -f2- >>"$O/bench.txt"
}
for round in 1 2; do
  echo "## round $round (pdl shape cols: M,N,K,us,TFLOP/s)" >>"$O/bench.txt"
  for c in ${F64:-0 2418 102418 302418 102424 302424}; do t 1 "64 7168 2048" $c; done
  for c in ${F1:-0 32411 132411 332411}; do t 1 "1 7168 2048" $c; done
  for c in ${F16:-0 32412 132412 332412}; do t 1 "16 7168 2048" $c; done
  for c in ${F32:-2418 102418 302418}; do t 1 "32 7168 2048" $c; done
  for c in ${FX:-}; do t 1 "64 2048 7168" $c; t 1 "16 2048 7168" $c; t 1 "1 2048 7168" $c; done
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,(1|16|64)," >>"$O/bench.txt"
  log "== round $round at $(el) s"
done
# SASS of the flat kernel's 418 forms (bf16 out) and the STX forms with the fast copies
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$G" 2>/dev/null | awk '/Function : /{p = ($0 ~ /w4a16_mma_kernel.*W4MmaILi4ELi1ELi(8ELi0ELb0ELi0ELi[0-3]|2ELi0ELb0ELi3ELi[0-3])EEELb1E/)} p' >"$O/sass.txt"
  log "== sass $(grep -c 'Function :' "$O/sass.txt") kernels, $(wc -l <"$O/sass.txt") lines at $(el) s"
  gzip -9 "$O/sass.txt"
fi
sf='GemmGateSanitizer.W4a16Mma*'
timeout ${GATE_S:-110} compute-sanitizer --tool memcheck --error-exitcode 9 $GG --gtest_filter=$sf >"$O/mem.log" 2>&1 & p1=$!
timeout ${GATE_S:-110} compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 9 $GG --gtest_filter=$sf >"$O/race.log" 2>&1 & p2=$!
$GG --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}' >/tmp/pipe-tests.txt
xargs -P 8 -I{} sh -c "timeout ${GATE_S:-110} $GG --gtest_filter={} > /tmp/pipe-g_\$(echo {} | tr './' '__').log 2>&1; echo \"{} rc=\$?\"" \
  </tmp/pipe-tests.txt >"$O/gate_rc.txt" 2>&1
wait $p1; m=$?; wait $p2; r=$?
log "== gate at $(el) s: $(wc -l </tmp/pipe-tests.txt) tests, $(grep -c 'rc=0' "$O/gate_rc.txt") rc=0; not 0: $(grep -v 'rc=0' "$O/gate_rc.txt" | tr '\n' ' ')"
log "skipped: $(cat /tmp/pipe-g_*.log | grep -c '\[  SKIPPED \]'); passed lines: $(cat /tmp/pipe-g_*.log | grep -c '^\[  PASSED  \] 1 test')"
log "memcheck rc=$m $(grep 'ERROR SUMMARY' "$O/mem.log" | tail -1) ok=$(grep -c '^\[       OK' "$O/mem.log")"
log "racecheck rc=$r $(grep -E 'RACECHECK SUMMARY' "$O/race.log" | tail -1) ok=$(grep -c '^\[       OK' "$O/race.log")"
cat /tmp/pipe-g_*.log | gzip -9 >"$O/gate.log.gz"; gzip -9 "$O/race.log"
NM="sm__cycles_active.avg,smsp__inst_executed.sum,lts__t_sectors.sum,dram__bytes_read.sum,launch__registers_per_thread"
for st in long_scoreboard short_scoreboard wait mio_throttle barrier math_pipe_throttle not_selected no_instruction selected dispatch_stall branch_resolving; do
  NM="$NM,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio"; done
for c in ${NCU_COLS:-102418 302418 2418}; do
  [ $(el) -gt ${NCU_BY:-190} ] && { log "ncu $c skipped (time)"; continue; }
  echo "=== ncu cols $c, 64 x 7168 x 2048, no PDL, after 3 launches" >>"$O/ncu.txt"
  MXK_GEMM_PDL=0 timeout 25 ncu --clock-control none -k regex:w4a16_mma_kernel --launch-skip 3 -c 1 --section SpeedOfLight \
    --section WarpStateStats --section SchedulerStats --metrics "$NM" $G time w4a16 64 7168 2048 4 0 $c 2>&1 |
    grep -vE "^==PROF==|^==WARNING==" | tail -95 >>"$O/ncu.txt"
  log "ncu $c at $(el) s: $(grep -E 'smsp__inst_executed.sum|Duration|sm__cycles_active.avg' "$O/ncu.txt" | tail -3 | tr -s ' ' | tr '\n' ';')"
done
log "total $(el) s"
cat "$O/bench.txt" >>"$S"
cat "$S"
