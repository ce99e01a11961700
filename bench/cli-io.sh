#!/usr/bin/env bash
# bench/cli-io.sh - issue 15: `mxconform quantize` and `dequantize` on large
# fp32 tensors (256 MiB and 1 GiB), CPU path and, when mxconform has CUDA
# kernels and a GPU is visible, the device path: wall time against the I/O
# floor (cat of the input to /dev/null + dd of the output sizes, page cache
# warm) and maximum resident memory (/usr/bin/time -v, else Python's
# wait4) against the input size. One run writes one results file.
#
#   bench/cli-io.sh --prepare   here: build mxconform and mx_vectors_gpu_test
#                               with CUDA for sm_90a in build-cuda, and
#                               bench/cuda_init.cpp (cudaFree(0), exit), pack
#                               them into .cli-bin/bins.tar.gz (carry .cli-bin)
#   OUT=dir bench/cli-io.sh     anywhere: the GPU CLI tests (when the packed
#                               test binary is there and a GPU is visible),
#                               then the measurements; results in
#                               $OUT/cli-io.md (and bench/results/cli-io.md)
# The CPU rows run pinned to CPU_SET (default 0,1: the 2-core target) with
# MXCONFORM_THREADS=2; the device rows are preceded by the fixed cost of a CUDA
# process (cuda_init: wall and RSS, median of 3) and of the CLI on a 32x32
# tensor, and report (wall - cuda_init) / floor beside wall / floor.
# Env: MXCONFORM (binary; default .cli-bin/mxconform, else build-x/tools/mxconform),
#      SIZES_MIB (default "256 1024"), RECIPE (default mxfp8_e4m3), WORK (scratch dir),
#      CPU_SET (default 0,1; empty: no pinning).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=.cli-bin
if [ "${1:-}" = "--prepare" ]; then
  cmake -S . -B build-cuda -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA=ON -DMX_CUDA_ARCHS=90a -DMX_WERROR=ON >/dev/null &&
    cmake --build build-cuda -j "${JOBS:-2}" --target mxconform mx_vectors_gpu_test || exit 1
  mkdir -p "$bin"
  rm -f "$bin"/mxconform "$bin"/mx_vectors_gpu_test "$bin"/cuda_init "$bin"/bins.tar.gz
  nvcc -O2 bench/cuda_init.cpp -o "$bin"/cuda_init || exit 1
  cp build-cuda/tools/mxconform build-cuda/conformance/vectors/mx_vectors_gpu_test "$bin"/
  strip "$bin"/mxconform "$bin"/mx_vectors_gpu_test "$bin"/cuda_init 2>/dev/null || true
  tar -C "$bin" -czf "$bin"/bins.tar.gz mxconform mx_vectors_gpu_test cuda_init &&
    rm -f "$bin"/mxconform "$bin"/mx_vectors_gpu_test "$bin"/cuda_init
  ex=$(git rev-parse --git-path info/exclude 2>/dev/null)  # works in a worktree too
  [ -n "$ex" ] && mkdir -p "$(dirname "$ex")" && { grep -qx "/$bin/" "$ex" 2>/dev/null || echo "/$bin/" >> "$ex"; }
  ls -la "$bin"
  exit 0
fi
OUT=${OUT:-$root/bench/results}
mkdir -p "$OUT"
[ -f "$bin/bins.tar.gz" ] && [ ! -x "$bin/mxconform" ] && tar -C "$bin" -xzf "$bin/bins.tar.gz"
MX=${MXCONFORM:-}
[ -z "$MX" ] && [ -x "$bin/mxconform" ] && MX=$root/$bin/mxconform
[ -z "$MX" ] && MX=$root/build-x/tools/mxconform
[ -x "$MX" ] || { echo "cli-io: no mxconform at $MX (build it, or run --prepare)"; exit 1; }
PY=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null && PY=/usr/bin/python3
res=$OUT/cli-io.md
gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then gpu=1; fi
# 1. Measurements (below), then 2. the GPU CLI tests (label gpu), when their
# binary came along: the device dequantize test beside the others, the
# out-of-memory test alone (it fills the GPU); GPU_TEST_TIMEOUT (default 400 s).
gpu_tests() {
  [ "$gpu" = 1 ] && [ -x "$bin/mx_vectors_gpu_test" ] || return 0
  local t=${GPU_TEST_TIMEOUT:-400} lg="$OUT/cli-gpu-test.log" rc1 rc2 rc3
  export MXCONFORM_EXE=$MX
  timeout "$t" "$bin/mx_vectors_gpu_test" --gtest_filter='CliGpu.Dequantize*' > "$WORK/t1.log" 2>&1 &
  local pid=$!
  timeout "$t" "$bin/mx_vectors_gpu_test" --gtest_filter='CliGpu.Quantize*' > "$WORK/t2.log" 2>&1; rc2=$?
  wait "$pid"; rc1=$?
  timeout 60 "$bin/mx_vectors_gpu_test" --gtest_filter='CliGpu.OutOfDevice*' > "$WORK/t3.log" 2>&1; rc3=$?
  cat "$WORK/t1.log" "$WORK/t2.log" "$WORK/t3.log" > "$lg"
  echo "mx_vectors_gpu_test rc: dequantize $rc1, quantize $rc2, out of memory/no device $rc3" | tee -a "$lg"
  grep -hE "^\[ +(OK|FAILED|SKIPPED) +\]" "$lg" | sort -u
}
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/cli-io.XXXXXX")}
trap 'rm -rf "$WORK"' EXIT
RECIPE=${RECIPE:-mxfp8_e4m3}
CPU_SET=${CPU_SET-0,1}
devices="cpu"
if [ "$gpu" = 1 ]; then  # (the probe fails either way: only its message tells whether CUDA is built in)
  msg=$("$MX" quantize --recipe "$RECIPE" --device cuda --in /dev/null --out "$WORK/probe" 2>&1)
  case "$msg" in *"without CUDA"*) ;; *) devices="cpu cuda" ;; esac
fi
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }  # calc EXPR [DIGITS]
# measure NAME CMD...: prints "wall_s maxrss_kib"
measure() {
  local t0 t1 rss
  t0=$(now)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$WORK/time.txt" "$@" > "$WORK/cmd.log" 2>&1 || { cat "$WORK/cmd.log" >&2; echo "FAIL FAIL"; return; }
    t1=$(now)
    rss=$(awk -F': ' '/Maximum resident set size/{print $2}' "$WORK/time.txt")
  else
    rss=$("$PY" -c 'import os,sys,subprocess
p=subprocess.Popen(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
_,st,ru=os.wait4(p.pid,0); print(ru.ru_maxrss if st==0 else "FAIL")' "$@")
    t1=$(now)
  fi
  echo "$(calc "$t1 - $t0") $rss"
}
# row OP DEV IN_MIB OUT_BYTES WALL RSS_KIB IN_BYTES FLOOR CAT DD
row() {
  if [ "$5" = FAIL ] || [ "$6" = FAIL ]; then echo "| $1 | $2 | $3 | - | FAILED | | | | | |" >> "$res"; return; fi
  local net="-"
  [ "$2" = cuda ] && [ -n "$init_s" ] && net=$(calc "($5 - $init_s) / $8" 2)
  echo "| $1 | $2 | $3 | $(( $4 / 1048576 )) | $(calc "$5") | $(calc "$8") ($(calc "$9") + $(calc "${10}")) | $(calc "$5 / $8" 2) | $net | $(( $6 / 1024 )) | $(calc "$6 * 1024 / $7" 2) |" >> "$res"
}
# median3 CMD...: "wall_s maxrss_kib" of the run with the median wall time of three
# (the files named by RM_BEFORE are removed before each run: no run replaces a previous one's output)
median3() {
  local k
  for k in 1 2 3; do
    [ -n "${RM_BEFORE:-}" ] && rm -f $RM_BEFORE
    sync  # no writeback of earlier steps' files during the run
    measure "$@"
  done | sort -n | sed -n 2p
}
floor1() {  # floor1 IN_BYTES_FILE OUT_BYTES: seconds of cat + dd
  local t0 t1 t2 mib
  sync
  t0=$(now); cat "$1" > /dev/null; t1=$(now)
  mib=$(( ($2 + 1048575) / 1048576 ))
  dd if=/dev/zero of="$WORK/floor.bin" bs=1M count="$mib" status=none
  t2=$(now)
  rm -f "$WORK/floor.bin"
  echo "$(calc "$t2 - $t0") $(calc "$t1 - $t0") $(calc "$t2 - $t1")"
}
floor() {  # the best of three (by total), after one warming read: a floor is the best case
  cat "$1" > /dev/null
  { floor1 "$@"; floor1 "$@"; floor1 "$@"; } | sort -n | sed -n 1p
}
{
  echo "# mxconform quantize/dequantize on large tensors (bench/cli-io.sh)"
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); host: $(uname -n); cores: $(nproc); memory: $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
  [ "$gpu" = 1 ] && echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader | head -1) (name, driver, persistence mode)"
  echo "- mxconform: $MX; recipe $RECIPE (rowwise, dense scales); input fp32 .npy (standard normal); page cache warm"
  echo "- floor = cat input > /dev/null + dd of the output bytes (data + scales for quantize, the fp32 .npy for dequantize); wall and RSS: the median of 3 runs, floor: the best of 3, each after a sync"
  echo "- targets (issue 15): device wall <= 1.5x floor and max RSS < input/2; CPU wall <= 3x floor (2 cores)"
  echo "- CPU rows: ${CPU_SET:+taskset -c $CPU_SET, }MXCONFORM_THREADS=2; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- (wall - init)/floor: device rows less the fixed cost of a CUDA process (cuda_init below)"
} > "$res"
init_s=""
if [ "$devices" != cpu ] && [ -x "$bin/cuda_init" ]; then
  set -- $(median3 "$bin/cuda_init"); init_s=$1; init_rss=$2
  "$PY" -c 'import sys
import struct
h = "{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (32, 32), }"
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode() + struct.pack("<1024f", *([1.0] * 1024)))' "$WORK/tiny.npy"
  set -- $(median3 "$MX" quantize --recipe "$RECIPE" --in "$WORK/tiny.npy" --out "$WORK/tiny" --device cuda); tiny_s=$1; tiny_rss=$2
  {
    echo
    echo "Fixed cost of a CUDA process (median of 3): cuda_init (cudaFree(0), exit): $(calc "$init_s") s wall, $(( init_rss / 1024 )) MiB max RSS;"
    echo "mxconform quantize --device cuda of a 32x32 tensor: $(calc "$tiny_s") s wall, $(( tiny_rss / 1024 )) MiB max RSS."
  } >> "$res"
fi
{
  echo
  echo "| op | device | input MiB | output MiB | wall s | floor s (cat + dd) | wall/floor | (wall - init)/floor | max RSS MiB | RSS/input |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
} >> "$res"
for mib in ${SIZES_MIB:-256 1024}; do
  n=$(( mib * 1048576 / 4 )); k=16384; m=$(( n / k ))
  "$PY" - "$WORK/x.npy" "$m" "$k" <<'PYEOF' || { echo "cli-io: cannot make the input"; exit 1; }
import sys
m, k = int(sys.argv[2]), int(sys.argv[3])
try:
    import numpy as np
    a = np.lib.format.open_memmap(sys.argv[1], mode="w+", dtype=np.float32, shape=(m, k))
    g = np.random.default_rng(0)
    for i in range(0, m, 1024):
        a[i:i + 1024] = g.standard_normal((min(1024, m - i), k), dtype=np.float32)
    a.flush()
except ImportError:  # header by hand, random bits
    import os
    h = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (m, k)
    h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
    with open(sys.argv[1], "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode())
        for i in range(m):
            f.write(os.urandom(4 * k))
PYEOF
  in_bytes=$(stat -c %s "$WORK/x.npy")
  for dev in $devices; do
    rm -f "$WORK"/q.*
    q_out=0
    pin=()
    [ "$dev" = cpu ] && [ -n "$CPU_SET" ] && command -v taskset >/dev/null && pin=(taskset -c "$CPU_SET")
    [ "$dev" = cpu ] && export MXCONFORM_THREADS=2 || unset MXCONFORM_THREADS
    r=$(RM_BEFORE="$WORK/q.data.npy $WORK/q.scales.npy $WORK/q.json" median3 "${pin[@]}" "$MX" quantize --recipe "$RECIPE" --in "$WORK/x.npy" --out "$WORK/q" --device "$dev")
    q_out=$(( $(stat -c %s "$WORK/q.data.npy" 2>/dev/null || echo 0) + $(stat -c %s "$WORK/q.scales.npy" 2>/dev/null || echo 0) ))
    f=$(floor "$WORK/x.npy" "$q_out")
    set -- $r; wall=$1; rss=$2; set -- $f
    row quantize "$dev" "$mib" "$q_out" "$wall" "$rss" "$in_bytes" "$1" "$2" "$3"
    rm -f "$WORK/y.npy"
    r=$(RM_BEFORE="$WORK/y.npy" median3 "${pin[@]}" "$MX" dequantize "$WORK/q.json" --out "$WORK/y.npy" --device "$dev")
    y_out=$(stat -c %s "$WORK/y.npy" 2>/dev/null || echo 0)
    dq_in=$(stat -c %s "$WORK/q.data.npy" 2>/dev/null || echo 0)
    # dequantize reads the data file: floor = cat data + dd of the output
    f=$(floor "$WORK/q.data.npy" "$y_out")
    set -- $r; wall=$1; rss=$2; set -- $f
    row dequantize "$dev" "$(( dq_in / 1048576 ))" "$y_out" "$wall" "$rss" "$dq_in" "$1" "$2" "$3"
    rm -f "$WORK/y.npy"
  done
  rm -f "$WORK"/x.npy "$WORK"/q.*
done
[ "$res" != "$root/bench/results/cli-io.md" ] && mkdir -p "$root/bench/results" && cp "$res" "$root/bench/results/cli-io.md" 2>/dev/null
cat "$res"
gpu_tests
