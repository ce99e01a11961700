# quick.sh - run 10 after the gate phase: this tree's mxbench, the GEMM decode
# shapes + 8192^3 beside cuBLAS (torch, CUDA graph), then main 301219a's mxbench.
G=$(find .gpu-bin/r10-g -name mxgemmbench -type f | head -1); Q=$(find .gpu-bin/r10-q -name mxbench -type f | head -1)
O=${OUT:-/tmp/q}; mkdir -p $O /tmp/qb; S=$O/summary.txt
sizes="--size 16384x16384 --size 8192x7168 --size 128x7168"
timeout 70 $Q $sizes --out /tmp/qb/bench.csv > $O/bench.txt 2>&1; echo "== mxbench (this tree) rc=$?" >> $S
{ for shp in "8192 8192 8192" "1 7168 2048" "1 2048 7168" "16 7168 2048" "16 2048 7168" "64 7168 2048" "64 2048 7168"; do
    it=200; [ "${shp%% *}" -gt 64 ] && it=20
    timeout 40 $G time w4a16 $shp $it 2>&1; done
  timeout 90 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16|^cublas_fp8_pertensor,8192"; } > $O/gemm.txt
echo "== gemm done" >> $S
xz -dc .devrun/run10/mxbench_before.xz > /tmp/mxb_before && chmod +x /tmp/mxb_before
timeout 70 /tmp/mxb_before $sizes --out /tmp/qb/bench_before.csv > $O/bench_before.txt 2>&1; echo "== mxbench (main 301219a) rc=$?" >> $S
tar -C /tmp -czf $O/quick.tgz qb; tail -4 $S
