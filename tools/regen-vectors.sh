#!/usr/bin/env bash
# tools/regen-vectors.sh - regenerate the checked-in level-1 golden vectors
# (vectors/**/*.csv and vectors/MANIFEST) with the current reference.
# Run it whenever the reference changes behaviour, then commit vectors/.
#   MX_BUILD_DIR  build directory holding tools/mxconform (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MX_BUILD_DIR:-build}
cmake --build "$build" --target mxconform -j "${MX_JOBS:-2}"
tmp=$(mktemp -d /tmp/mxconform-regen.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$build/tools/mxconform" gen --out "$tmp/vectors"
# Replace the generated files only (vectors/README.md stays).
find vectors -name '*.csv' -type f -delete
find vectors -mindepth 1 -type d -empty -delete
rm -f vectors/MANIFEST
cp -R "$tmp/vectors/." vectors/
"$build/tools/mxconform" verify-manifest --manifest vectors/MANIFEST --dir vectors
echo "regen-vectors: vectors/ regenerated; review 'git status vectors' and commit"
