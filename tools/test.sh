#!/usr/bin/env bash
# tools/test.sh - the README's test command (what CI runs): install and build
# as tools/setup.sh does, then run every CTest label (cpu, exhaustive, gpu) in
# one ctest run. Without a GPU the `gpu` tests are reported as skipped, never
# as passed. Extra arguments go to ctest (e.g. -L cpu).
# After the run it lists how many cases each cross-check and table compared
# (from the test log), then repeats ctest's own summary as the last lines.
# Then the `cpu` label runs again under AddressSanitizer + UBSan (CMake preset
# `asan`, build-asan/, no CUDA; any report fails the test that made it):
# MX_SKIP_ASAN=1 leaves that step out.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${MX_BUILD_DIR:-build}
MX_SKIP_MAIN=1 bash tools/setup.sh || exit $?
log="$build/ctest-output.log"
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
full="$build/Testing/Temporary/LastTest.log"
if [ -f "$full" ]; then
  echo
  echo "=== cases compared (from $full) ==="
  # tables (label cpu), every exhaustive 2^32 sweep, the per-test totals of
  # the cross-checks, then one grand total over every individual sweep.
  grep -hE '^\[ cases    \] ' "$full" | sed -E 's/^\[ cases    \] /[table] /' || true
  grep -hE '^\[xcheck\] .*(compared 4294967296 cases|sweeps, compared|decode vs)' "$full" || true
  grep -hE '^\[xcheck\] .*: compared [0-9]+ cases, [0-9]+ mismatches' "$full" | grep -v 'sweeps, compared' |
    awk '{ for (i = 1; i < NF; i++) { if ($i == "compared") c += $(i+1); if ($(i+1) ~ /^mismatches/) m += $i } n++ }
         END { if (n) printf "[total] %d cross-check sweeps: compared %.0f cases, %.0f mismatches\n", n, c, m }'

fi
asan_rc=0
if [ "${MX_SKIP_ASAN:-0}" != "1" ]; then
  echo
  echo "=== cpu label under ASan + UBSan (preset asan, build-asan/) ==="
  alog=build-asan/ctest-output.log
  t_asan=$(date +%s)
  if cmake --preset asan >/dev/null && cmake --build --preset asan -j "$(nproc)"; then
    mkdir -p build-asan
    ctest --preset asan -j "$(nproc)" 2>&1 | tee "$alog"
    asan_rc=${PIPESTATUS[0]}
  else
    asan_rc=1
  fi
  echo "asan: build and cpu label in $(( $(date +%s) - t_asan )) s, rc=$asan_rc"
fi
echo
echo "=== ctest summary ==="
sed -n '/tests passed, /,$p' "$log"
if [ "${MX_SKIP_ASAN:-0}" != "1" ]; then
  echo "--- cpu label under ASan + UBSan ---"
  sed -n '/tests passed, /,$p' build-asan/ctest-output.log 2>/dev/null
fi
[ "$rc" -ne 0 ] && exit "$rc"
exit "$asan_rc"
