#!/usr/bin/env bash
# Call B: the GPU CLI tests (mxconform and mx_vectors_gpu_test of the final
# commit, built for sm_90a on the CPU machine) and kernels/gemm/run-gemm.sh
# (builds the GEMMs here, -j16: CPU model tests, gate, sanitizers, benchmark
# beside cuBLAS).
set -uo pipefail
O=${OUT:-$PWD/gout}; mkdir -p "$O"
sha256sum kernels/common/rowwise.cuh kernels/gemm/gemm_mxfp8.cu tools/src/device_stream.cpp > $O/tree.txt
xz -dc .devrun/verify/gtest.tar.xz | tar -C .devrun/verify -xf - && mv .devrun/verify/googletest .gtest-src
C=/tmp/cb; mkdir -p $C; xz -dc .devrun/verify/cli.tar.xz | tar -C $C -xf -
export MXCONFORM_EXE=$C/mxconform
timeout 150 $C/mx_vectors_gpu_test --gtest_filter='-CliGpu.OutOfDevice*' > $O/cli-gpu.log 2>&1; r1=$?
timeout 60 $C/mx_vectors_gpu_test --gtest_filter='CliGpu.OutOfDevice*' >> $O/cli-gpu.log 2>&1; r2=$?
{ echo "mx_vectors_gpu_test rc=$r1 (all but out-of-memory), rc=$r2 (out of memory / no device)"
  grep -E "^\[ +(OK|FAILED|SKIPPED|PASSED) +\]|tests ran" $O/cli-gpu.log; } | tee $O/cli-summary.txt
unset MXCONFORM_EXE
OUT=$O SKIP_DIST=1 timeout 400 bash kernels/gemm/run-gemm.sh > $O/gemm-run.log 2>&1; echo "run-gemm rc=$?"
cat $O/summary.txt 2>/dev/null | head -80
