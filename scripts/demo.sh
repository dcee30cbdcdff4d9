#!/usr/bin/env bash
# Installs what is missing, builds the smrt CLI and shows what is inside the
# small digit-classifier SavedModel shipped in examples/models/digits.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh smrt

smrt="${BUILD_DIR:-build}/bin/smrt"
model=examples/models/digits
echo "== smrt show --dir $model --all"
"$smrt" show --dir "$model" --all
echo
echo "== smrt show --dir $model --variables"
"$smrt" show --dir "$model" --variables
