# quick.sh - after the gate phase: the timings the last changes could move
# (the GEMM launch step, the NVFP4 torchao division), same process order as run 8.
G=$(find .gpu-bin/r8-g -name mxgemmbench -type f | head -1); Q=$(find .gpu-bin/r8-q -name mxbench -type f | head -1)
O=${OUT:-/tmp/q}; mkdir -p $O
{ for shp in "8192 8192 8192" "1 7168 2048" "16 2048 7168" "64 2048 7168"; do
    it=200; [ "${shp%% *}" -gt 64 ] && it=20
    for kind in mxfp8 w4a16; do timeout 40 $G time $kind $shp $it 2>&1; done; done
  timeout 120 python3 kernels/gemm/bench/torch_bench.py 50 2>&1 | grep -E "^cublas_bf16,(8192|1,7168|16,2048|64,2048)|^cublas_fp8_pertensor,8192"; } > $O/quick-gemm.txt
timeout 60 $Q --size 16384x16384 --size 8192x7168 --size 128x7168 --out $O/quick-bench.csv > $O/quick-bench.txt 2>&1
cat $O/quick-gemm.txt; grep -E "copy|nvfp4|mxfp8_e4m3 rowwise tcgen05 " $O/quick-bench.txt
