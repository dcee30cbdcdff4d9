#!/usr/bin/env bash
# TensorFlow and smrt in one Python process, imported in either order (issue
# 37): each order runs in a fresh interpreter, loads the digits model (and the
# TF1 half_plus_two, whose assets collection holds Any values typed
# tensorflow.AssetFileDef) with both, and checks that smrt gives TensorFlow's
# answers. Not run by ctest, since TensorFlow is no test dependency; the C++
# side (protos under TensorFlow's names next to libsmrt) is ctest's
# coexistence_test.
#
#   PYTHON=.venv-peers/bin/python scripts/check_coexistence.sh [BUILD_DIR]
#
# PYTHON needs TensorFlow and NumPy and must be the Python the module in
# BUILD_DIR/python was built for.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
python=${PYTHON:-.venv-peers/bin/python}
shared=${SMRT_SHARED_DIR:-$(realpath ..)/shared}
[ -x "$python" ] || { echo "no Python at $python (set PYTHON)" >&2; exit 2; }
[ -d "$build/python/smrt" ] || { echo "no Python module in $build/python" >&2; exit 2; }

answers=()
for order in "tensorflow smrt" "smrt tensorflow"; do
  out=$(PYTHONPATH=$build/python TF_CPP_MIN_LOG_LEVEL=2 "$python" - $order "$shared" <<'PY'
import importlib
import os
import sys

first, second, shared = sys.argv[1:]
importlib.import_module(first)
importlib.import_module(second)
import numpy as np
import smrt
import tensorflow as tf

digits = "examples/models/digits"
x = (((np.arange(64) * 7919) % 1009) / 1008.0).astype(np.float32).reshape(1, 64)
got = smrt.load(digits).run("serving_default", pixels=x)["probabilities"]
want = tf.saved_model.load(digits).signatures["serving_default"](
    pixels=tf.constant(x))["probabilities"].numpy()
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
print(f"{first} then {second}: digits: smrt == tensorflow (max diff "
      f"{np.abs(got - want).max():.1e}):", " ".join(f"{v:.4f}" for v in got[0]))

tf1 = os.path.join(shared, "models/tf-serving/saved_model_half_plus_two_cpu/00000123")
if os.path.isdir(tf1):
    x = np.array([[0.0], [1.0], [2.0]], np.float32)
    got = smrt.load(tf1).run("serving_default", x=x)["y"]
    want = tf.saved_model.load(tf1).signatures["serving_default"](
        x=tf.constant(x))["y"].numpy()
    np.testing.assert_allclose(got, want)
    print(f"{first} then {second}: half_plus_two (TF1, Any assets): smrt == tensorflow:",
          " ".join(f"{v:g}" for v in got.ravel()))
else:
    print(f"{first} then {second}: half_plus_two skipped ({tf1} is missing)")
PY
  ) || { echo "FAILED: import $order (exit $?)" >&2; echo "$out" >&2; exit 1; }
  echo "$out"
  answers+=("$(grep digits <<<"$out" | sed 's/.*)://')")
done
[ "${answers[0]}" = "${answers[1]}" ] ||
  { echo "FAILED: the two orders gave different answers" >&2; exit 1; }
echo "coexistence: ok (both orders, equal answers)"
