#!/usr/bin/env bash
# conformance/survey/run.sh - the survey in one command (issue 8 point 3).
# Converts the fixed inputs with every library cast on this machine (torch
# CPU/CUDA, ml_dtypes, JAX CPU/GPU, Triton, CUDA __nv_cvt_* on the device,
# CuPy) and writes $OUT/survey.tgz (default ./survey-out); prints a summary last.
#   OUT=/tmp/x bash conformance/survey/run.sh [--only torch-cuda,cuda] [--budget 210]
# PYTHON selects the interpreter (default python3; it needs NumPy).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/survey-out}
mkdir -p "$OUT"
exec "${PYTHON:-python3}" conformance/survey/collect.py --out "$OUT" "$@"
