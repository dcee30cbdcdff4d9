#!/usr/bin/env bash
# Installs what is missing, builds smrt, and runs the digit classifier shipped
# in examples/models/digits (a Keras-trained TF2 SavedModel, see
# scripts/make_demo_model.py) on its sample images.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
bash scripts/build.sh smrt classify_digits

bin="${BUILD_DIR:-build}/bin"
model=examples/models/digits
echo "== smrt show --dir $model --tag_set serve --signature_def serving_default"
"$bin/smrt" show --dir "$model" --tag_set serve --signature_def serving_default
echo
echo "== classify_digits $model   (C++ API: load, call serving_default, compare with labels)"
"$bin/classify_digits" "$model"
