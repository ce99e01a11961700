#!/usr/bin/env bash
# bench/peers-prepare.sh - build (here, no GPU needed) the reference CLI that
# bench/peers.py uses on the GPU machine to check the peer quantizers' bytes
# (issue 9 point 2), and put it in .gpu-bin/mxconform (carry .gpu-bin, as for
# tools/gpu-check.sh --prepare). CPU-only build, linked as usual: it needs
# glibc >= 2.34, libstdc++ with GLIBCXX_3.4.30 (GCC 12) and libcrypto.so.3 there
# (Ubuntu 22.04 and later). A static libstdc++ would need glibc 2.36
# (arc4random). Without a working CLI, peers.py checks against its NumPy twin.
#   bench/peers-prepare.sh [BUILD_DIR]      (default build-peers, -j2)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build-peers}
cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_CUDA=OFF >/dev/null
cmake --build "$b" -j "${JOBS:-2}" --target mxconform
mkdir -p .gpu-bin
cp "$b/tools/mxconform" .gpu-bin/mxconform
strip .gpu-bin/mxconform 2>/dev/null || true
if [ -d .git ]; then  # as tools/gpu-check.sh --prepare does
  mkdir -p .git/info && { grep -qx "/.gpu-bin/" .git/info/exclude 2>/dev/null || echo "/.gpu-bin/" >> .git/info/exclude; }
fi
.gpu-bin/mxconform formats >/dev/null
ls -la .gpu-bin/mxconform
