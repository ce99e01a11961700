#!/usr/bin/env bash
# run_consumer.sh BUILD_DIR WORK_DIR [CXX_FLAGS] - the CMake package test (issue 8 point 2):
# installs BUILD_DIR into a fresh prefix, builds consumer/ against it with
# find_package(mxconform), runs its passing gtests, and checks that a
# deliberate mismatch fails with the first-difference report.
set -euo pipefail
build=$1 work=$2 flags=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/lib/cmake/mxconform/mxconformConfig.cmake"
test -f "$work/prefix/lib/cmake/mxconform/mxconformConfigVersion.cmake"
test -f "$work/prefix/include/mx/testing/gtest.hpp"
cmake -S "$here/consumer" -B "$work/consumer" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" -Dmxconform_DIR="$work/prefix/lib/cmake/mxconform" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
# The consumer must have compiled against the installed headers, not the source tree.
if grep -q "$(cd "$here/../.." && pwd)/reference/include" "$work/consumer/build.ninja"; then
  echo "consumer: compiled against the source tree"; exit 1
fi
"$work/consumer/consumer_test" --gtest_filter='Pass.*'
set +e
"$work/consumer/consumer_test" --gtest_filter='DeliberateMismatch.*' > "$work/mismatch.log" 2>&1
rc=$?
set -e
cat "$work/mismatch.log"
[ "$rc" -ne 0 ] || { echo "consumer: the deliberate mismatch passed"; exit 1; }
for want in "data is not the reference's \"mxfp8_e4m3\" result:" \
            "mxfp8_e4m3 (rowwise, data source, scales dense, packed): 1 of 32 element codes and 0 block scales differ" \
            "first differing block: batch 0, cols 0..31 of row 0 (block 0)" \
            "inputs (fp32 hex): 3f800000 3f800000" \
            "scale    expected 77, observed 77 (equal)" \
            "codes    observed 78 78 78 78 78 79 78" \
            "first differing code at col 5" \
            "clause: C2 (encode e4m3: rne, saturate); recipe mxfp8_e4m3 [C4]"; do
  grep -qF -- "$want" "$work/mismatch.log" || { echo "consumer: missing from the report: $want"; exit 1; }
done
echo "consumer: package installed, found, linked; 2 gtests passed; the deliberate mismatch reported as expected"
