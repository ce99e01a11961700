#!/usr/bin/env bash
# tools/setup.sh - the README's first command: install what is missing (apt-get),
# configure and build, then run the main job (regenerate the golden vectors
# into a fresh directory and verify them against vectors/MANIFEST).
#   MX_BUILD_DIR   build directory (default: build)
#   MX_SKIP_MAIN=1 only install and build (tools/test.sh uses this)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MX_BUILD_DIR:-build}

pkgs=(build-essential cmake ninja-build pkg-config git
      libgtest-dev libgmock-dev googletest librapidcheck-dev libfccp-dev libbenchmark-dev
      llvm-19-dev libcli11-dev libssl-dev clang-19 libclang-rt-19-dev python3 python3-numpy
      python3-dev pybind11-dev python3-pytest python3-hypothesis nlohmann-json3-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMX_WERROR="$werror" ${MX_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"

[ "${MX_SKIP_MAIN:-0}" = "1" ] && exit 0

# Main job: regenerate the level-1 golden vectors into a fresh directory and
# verify them byte for byte against the checked-in MANIFEST.
out=$(mktemp -d /tmp/mxconform-gen.XXXXXX)
"$build/tools/mxconform" gen --out "$out/vectors"
"$build/tools/mxconform" verify-manifest --manifest vectors/MANIFEST --dir "$out/vectors"
echo "setup: vectors regenerated in $out/vectors and verified against vectors/MANIFEST"
echo "setup: next, 'bash tools/test.sh' runs every test; '$build/tools/mxconform --help' shows the command line"
