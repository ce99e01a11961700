# call6.sh - run 20 call 6 (H200): the colwise tiles-per-CTA rule with the
# SM-fill condition: mxbench's colwise/fused cases at four sizes, two rounds.
O=${OUT:-/tmp/c6}; mkdir -p $O; R=$PWD; QB=$R/.gpu-bin/r20-q
{ cmake -S bench/standalone -B $QB -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA_ARCHS=90a-real -DMX_GTEST_SRC=$R/.gtest-src >/dev/null &&
  cmake --build $QB -j 16 --target mxbench; } > /tmp/qbuild.log 2>&1 || { tail -20 /tmp/qbuild.log; exit 1; }
Q=$(find $QB -name mxbench -type f | head -1)
for i in 1 2; do timeout 30 $Q --size 128x7168 --size 4096x4096 --size 8192x7168 --size 16384x16384 --only col; done > $O/col.txt 2>&1
cat $O/col.txt
