# all.sh - session 30 last call: the gates of cecf625 (final.sh without the before builds), then
# mxbench at 16384^2 and the two M = 64 decode shapes (eager and CUDA graph).
O=${OUT:-/tmp/r19e}
SAN_S=150 GATE_S=190 PHASE=gate OUT=$O bash .devrun/run19e/final.sh
Q=$(find .gpu-bin/r19e-q -name mxbench -type f | head -1); G=$(find .gpu-bin/r19e-g -name mxgemmbench -type f | head -1)
timeout 40 $Q --size 16384x16384 > $O/bench.txt 2>&1; echo "== mxbench rc=$?" >> $O/summary.txt
{ for shp in "64 2048 7168" "64 7168 2048" "33 2048 7168"; do MXGEMMBENCH_GRAPH=1 timeout 20 $G time w4a16 $shp 200 2>&1 | tail -2; done; } > $O/gemm.txt 2>&1
rm -rf $O/logs; tail -14 $O/summary.txt
