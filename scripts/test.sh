#!/usr/bin/env bash
# Installs what is missing, builds smrt and runs every test through ctest.
# Tests on the real models in ../shared/models skip when it is absent, except
# under CI=true (or SMRT_REQUIRE_SHARED=1), where they fail.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh

if [ "${CI:-}" = "true" ]; then export SMRT_REQUIRE_SHARED=1; fi
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
