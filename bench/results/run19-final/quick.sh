# quick.sh - run 19 (session 30) after the gate phase: this tree's mxbench and main
# 1fd7f12 (this session's start) alternating, torch's plain fp8 cast, the
# w4a16 GEMM decode shapes + 8192^3 beside cuBLAS (torch, CUDA graph), then
# bench/peers.py (torch's cast and the torch.compile MX quantizer) if time is left.
G=$(find .gpu-bin/r19-g -name mxgemmbench -type f | head -1); GB=$(find .gpu-bin/r19-b -name mxgemmbench -type f 2>/dev/null | head -1); Q=$(find .gpu-bin/r19-q -name mxbench -type f | head -1)
O=${OUT:-/tmp/q}; mkdir -p $O /tmp/qb; S=$O/summary.txt
QBEF=0; QBB=$(find .gpu-bin/r19-bq -name mxbench -type f 2>/dev/null | head -1); [ -n "$QBB" ] && cp $QBB /tmp/mxb_before && QBEF=1
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
timeout 70 $Q $sizes --out /tmp/qb/bench.csv > $O/bench.txt 2>&1; echo "== mxbench (this tree) rc=$?" >> $S
[ $QBEF = 1 ] && timeout 70 /tmp/mxb_before $sizes --out /tmp/qb/bench_before.csv > $O/bench_before.txt 2>&1; echo "== mxbench (main 1fd7f12) rc=$?" >> $S
# second round, alternated (this tree, then main 1fd7f12 again)
[ $QBEF = 1 ] && { timeout 70 $Q $sizes --out /tmp/qb/bench2.csv > /tmp/qb/bench2.txt 2>&1; echo "== mxbench (this tree, round 2) rc=$?" >> $S
  timeout 70 /tmp/mxb_before $sizes --out /tmp/qb/bench_before2.csv > /tmp/qb/bench_before2.txt 2>&1; echo "== mxbench (main 1fd7f12, round 2) rc=$?" >> $S; }
timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 > $O/torch_cast.txt 2>&1; echo "== torch cast rc=$?" >> $S
[ "${AGAIN:-1}" = 1 ] && { timeout 50 $Q --only rowwise --size 16384x16384 --size 8192x7168 --out /tmp/qb/bench_again.csv > /tmp/qb/bench_again.txt 2>&1; echo "== mxbench rowwise again rc=$?" >> $S
  timeout 40 python3 bench/sol/torch_cast.py 16384 16384 30 >> $O/torch_cast.txt 2>&1; }
{ for i in $(seq 1 ${NV_ROUNDS:-3}); do for b in $Q $([ $QBEF = 1 ] && echo /tmp/mxb_before); do echo "=== $b ($i)"
    timeout 20 $b --only nvfp4 --size 128x7168 --size 256x7168 --size 512x4096 2>&1 | grep -E "copy|nvfp4"; done; done; } > $O/nvfp4_small.txt 2>&1; echo "== nvfp4 small rc=$?" >> $S
# NVFP4 at mid sizes (the persistent kernel takes TE order up to 2^23 elements): the automatic choice and the two passes alternated
{ for i in 1 2; do for pass in auto two; do echo "=== --nvfp4-pass $pass ($i)"
    timeout 25 $Q --only nvfp4 --nvfp4-pass $pass --size 2048x2048 --size 4096x2048 --size 4096x4096 --size 8192x7168 2>&1 | grep -E "copy|nvfp4"; done; done; } > $O/nvfp4_mid.txt 2>&1; echo "== nvfp4 mid rc=$?" >> $S
# GEMM (MXGEMMBENCH_GRAPH=1: each timing twice, launched one by one and as one CUDA graph as cuBLAS is timed):
# the benchmark shapes, then the decode shapes over M (the launcher's new M > 16 rule and A's box of M rows),
# this tree against main 1fd7f12 (the before binary, built from the same mxgemmbench.cpp), alternated
export MXGEMMBENCH_GRAPH=1
[ "${GEMM:-1}" = 1 ] && { for shp in "8192 8192 8192" "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" "64 7168 2048" "64 2048 7168"; do
    it=200; [ "${shp%% *}" -gt 64 ] && it=20
    timeout 40 $G time w4a16 $shp $it 2>&1 | tail -2
    [ -n "$GB" ] && timeout 40 $GB time w4a16 $shp $it 2>&1 | tail -2 | sed 's/^w4a16/w4a16(main before)/'; done
  for i in 1 2; do echo "=== repeat $i"
    for shp in "64 7168 2048" "64 2048 7168" "48 2048 7168" "33 2048 7168" "33 7168 2048" "24 2048 7168" "24 7168 2048" "17 2048 7168" "17 7168 2048"; do
      timeout 20 $G time w4a16 $shp 200 2>&1 | tail -2
      [ -n "$GB" ] && timeout 20 $GB time w4a16 $shp 200 2>&1 | tail -2 | sed 's/^w4a16/w4a16(main before)/'; done; done
  timeout 40 $G time mxfp8 8192 8192 8192 20 2>&1 | tail -2
  timeout 90 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16|^cublas_fp8_pertensor,8192"
  timeout 40 python3 kernels/gemm/bench/torch_bench.py 50 48,33,24,17 2>&1 | grep -E "^cublas_bf16"; } > $O/gemm.txt
[ "${GEMM:-1}" = 1 ] && echo "== gemm done" >> $S
unset MXGEMMBENCH_GRAPH
# Nsight Compute of the two missed decode shapes (one launch each, after 3 warm-up launches)
if [ "${GNCU:-1}" = 1 ]; then
  NM="sm__cycles_active.avg,smsp__inst_executed.sum,lts__t_sectors.sum,dram__bytes_read.sum,launch__registers_per_thread"
  for st in long_scoreboard short_scoreboard wait mio_throttle barrier math_pipe_throttle not_selected no_instruction selected; do
    NM="$NM,smsp__average_warps_issue_stalled_${st}_per_issue_active.ratio"; done
  { for kk in "w4a16_ws_kernel 64 7168 2048" "w4a16_ws_kernel 64 2048 7168"; do set -- $kk
      echo "=== ncu $1 ($2 x $3 x $4, launcher's form, bf16 out)"
      timeout 40 ncu --clock-control none -k regex:$1 --launch-skip 3 -c 1 --section SpeedOfLight --section WarpStateStats \
        --section SchedulerStats --section Occupancy --metrics "$NM" $G time w4a16 $2 $3 $4 4 2>&1 | grep -vE "^==PROF==|^==WARNING==" | tail -75
    done; } > $O/gemm_ncu.txt 2>&1
  echo "== gemm ncu rc=$?" >> $S
fi
# per-instruction profile (SASS, stall samples) of the 64 x 2048 x 7168 ws kernel (form 6016) for the next session
if [ "${SRCNCU:-1}" = 1 ]; then
  timeout 60 ncu --clock-control none -k regex:w4a16_ws_kernel --launch-skip 3 -c 1 --set full --import-source yes -f -o /tmp/qb/ws6016 \
    $G time w4a16 64 2048 7168 4 > /tmp/qb/srcncu.log 2>&1; echo "== src ncu rc=$?" >> $S
  timeout 30 ncu -i /tmp/qb/ws6016.ncu-rep --page source --csv --print-source sass > /tmp/qb/ws6016_sass.csv 2>>/tmp/qb/srcncu.log
  gzip -f /tmp/qb/ws6016_sass.csv; rm -f /tmp/qb/ws6016.ncu-rep
fi
if [ "${NCU:-1}" = 1 ]; then
  M="dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,gpu__time_duration.sum"
  { for kk in "k_rowstream 16384x16384 mxfp8_e4m3 rowwise dense" "k_rowwise 16384x16384 mxint8 rowwise dense" \
              "k_rowtile 16384x16384 mxfp8_e4m3 rowwise tcgen05" "k_rowwise 16384x16384 nvfp4 rowwise tcgen05" \
              "k_nvfp4_one_pass 128x7168 nvfp4 rowwise tcgen05"; do set -- $kk
      echo "=== ncu $1 (${*:3}, $2, second launch)"
      timeout 30 ncu --clock-control none -k regex:$1 --launch-skip 1 -c 1 --metrics $M $Q --only "${*:3}" --size $2 --iters 5 2>&1 | grep -vE "^(16384|8192|128)x|^==PROF==|^size|^device" | tail -14
    done; } > $O/ncu.txt 2>&1
  echo "== ncu done" >> $S
fi
if [ "${PEERS:-1}" = 1 ]; then
  PYTHONUNBUFFERED=1 timeout 70 python3 bench/peers.py --mxbench-csv /tmp/qb/bench.csv --out /tmp/qb/peers \
    --size 16384x16384 --budget-s 60 > /tmp/qb/peers.txt 2>&1; echo "== peers rc=$?" >> $S
  cp /tmp/qb/peers/peers.md $O/ 2>/dev/null
fi
tar -C /tmp -czf $O/quick.tgz qb; tail -8 $S
