# combined.sh - run 19 final call: the gate phase (final.sh) and then the
# benchmarks (quick.sh, lean) in one device call. Results under $OUT:
# summary.txt (gate summary, then the bench steps), logs.tgz, qgate.log.gz,
# ggate.log, bench.tgz (quick.sh's files).
O=${OUT:-/tmp/r19}
SAN_S=${SAN_S:-180} GATE_S=${GATE_S:-200} PHASE=gate OUT=$O bash .devrun/run19/final.sh
rm -rf $O/logs $O/qgate.log.gz $O/ggate.log; mkdir -p $O/b
NCU=${NCU:-0} PEERS=${PEERS:-0} AGAIN=0 NV_ROUNDS=1 OUT=$O/b timeout ${BENCH_S:-300} bash .devrun/run19/quick.sh > /dev/null 2>&1
cat $O/b/summary.txt >> $O/summary.txt
(cd $O/b && tar -czf ../bench.tgz .) && rm -rf $O/b
tail -12 $O/summary.txt
