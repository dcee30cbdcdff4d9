#!/usr/bin/env bash
# Configures and builds smrt into $BUILD_DIR (default: build/).
# Usage: scripts/build.sh [cmake target...]
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
werror=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; fi

cmake -S . -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DSMRT_WERROR="$werror" -DSMRT_BUILD_BENCHMARKS=ON >/dev/null
jobs=$(nproc)
if [ $# -gt 0 ]; then
  cmake --build "$build_dir" -j "$jobs" --target "$@"
else
  cmake --build "$build_dir" -j "$jobs"
fi
