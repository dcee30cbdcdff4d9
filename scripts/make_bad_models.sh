#!/usr/bin/env bash
# Rebuilds the hostile-input corpus tests/data/bad/ with smrt's own generator
# (tests/generators/make_bad_models.cc; no TensorFlow needed).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build} bash scripts/build.sh smrt_make_bad_models
"${BUILD_DIR:-build}/bin/smrt_make_bad_models" tests/data/bad
