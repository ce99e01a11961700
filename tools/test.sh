#!/usr/bin/env bash
# tools/test.sh - the README's test command (what CI runs): install and build
# as tools/setup.sh does, then run every CTest label (cpu, exhaustive, gpu) in
# one ctest run. Without a GPU the `gpu` tests are reported as skipped, never
# as passed. Extra arguments go to ctest (e.g. -L cpu).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MX_BUILD_DIR:-build}
MX_SKIP_MAIN=1 bash tools/setup.sh
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure "$@"
