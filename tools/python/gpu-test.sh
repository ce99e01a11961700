#!/usr/bin/env bash
# tools/python/gpu-test.sh - the mxconform Python package on the GPU machine
# (python3 3.12, pip's pybind11, numpy 2.x, torch): builds the module with
# pip's pybind11 (tools/python/standalone, -j16) and runs the package tests,
# the torch ones included. Run from the repository root: OUT=<dir> bash tools/python/gpu-test.sh
# Writes $OUT/py-build.log and $OUT/py-tests.log; about 2 minutes.
# Tests that need the CLI (side files) are skipped here (MX_NO_CLI=1; they run
# in the cpu label); hypothesis properties are skipped if hypothesis is absent.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/py-out}
mkdir -p "$OUT"
py=$(command -v python3)
{ "$py" --version; "$py" -c "import numpy, pybind11; print('numpy', numpy.__version__, 'pybind11', pybind11.__version__)";
  "$py" -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"; } > "$OUT/py-build.log" 2>&1
if ! { cmake -S tools/python/standalone -B build-py -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" -DMX_PYTHON="$py" \
        ${MX_JSON_INCLUDE:+-DMX_JSON_INCLUDE="$MX_JSON_INCLUDE"} &&
       cmake --build build-py -j16 --target mxconform_py; } >> "$OUT/py-build.log" 2>&1; then
  tail -30 "$OUT/py-build.log"; echo "gpu-test: build failed"; exit 1
fi
PYTHONPATH=$PWD/build-py/tools/python MX_NO_CLI=1 MX_VECTORS=$PWD/vectors PYTHONDONTWRITEBYTECODE=1 \
  timeout 400 "$py" -m pytest -q -p no:cacheprovider -rs tools/python/tests > "$OUT/py-tests.log" 2>&1
rc=$?
tail -25 "$OUT/py-tests.log"
exit $rc
