#!/usr/bin/env bash
# run_fuzz.sh CLANGXX OUTDIR SRCDIR MXREF_LIB - build the libFuzzer target for
# the CSV/.npy/JSON readers with clang (-fsanitize=fuzzer,address) and run it
# for a bounded time (MX_FUZZ_SECONDS, default 20) from a seed corpus made of
# checked-in vector files. The JSON reader is nlohmann-json (header-only,
# Debian nlohmann-json3-dev in /usr/include), wrapped by tools/src/json.cpp. Exit status non-zero on any finding. Called by
# CTest (test fuzz_readers, label cpu).
set -euo pipefail
cxx=$1 out=$2 src=$3 mxref=$4
secs=${MX_FUZZ_SECONDS:-20}
mkdir -p "$out"
bin="$out/fuzz_readers"
t="$src/tools/src"
"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address -fno-omit-frame-pointer \
  -I"$t" -I"$src/reference/include" \
  "$src/conformance/fuzz/fuzz_readers.cpp" "$t/util.cpp" "$t/csvfile.cpp" "$t/kinds.cpp" "$t/kinds_codes.cpp" "$t/check.cpp" \
  "$t/npy.cpp" "$t/json.cpp" "$mxref" -lcrypto -o "$bin"
seeds="$out/seeds"
corpus="$out/corpus"
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus"
i=0
for f in convert/e2m1_from_fp32.csv scale/e4m3.csv quantize/rowwise/mxfp4_from_fp32.csv pack/e3m2_packed.csv \
         layout/tcgen05.csv dequant/e2m1.csv dequant/nvfp4.csv dot/e2m1_e2m1.csv; do
  { printf '\000'; head -n 16 "$src/vectors/$f"; } > "$seeds/csv$i"
  i=$((i + 1))
done
printf '\001\223NUMPY\001\000v\000{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }%*s\n12345678' 53 '' > "$seeds/npy0"
printf '\002{"recipe": "mxfp4", "tensor_shape": [1, 2, 3], "scales": {"layout": "dense"}}' > "$seeds/json0"
"$bin" -max_total_time="$secs" -max_len=4096 -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
  -artifact_prefix="$out/" "$corpus" "$seeds"
echo "fuzz_readers: no finding in ${secs}s"
