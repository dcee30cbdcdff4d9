#!/usr/bin/env python3
"""Train and export the smrt demo model: an 8x8 digit classifier (TF2 SavedModel).

How to run (from the repository root):

    python3 -m venv .venv
    .venv/bin/pip install tensorflow-cpu scikit-learn numpy
    .venv/bin/python scripts/make_demo_model.py

Writes:
    examples/models/digits/saved_model.pb, variables/     TF2 SavedModel
    examples/models/digits/samples/inputs.npy              float32 (8, 64), pixels in [0, 1]
    examples/models/digits/samples/labels.npy              int64   (8,)
    examples/models/digits/samples/expected_probabilities.npy  float32 (8, 10), TF's output

The data is scikit-learn's bundled 8x8 digits set (load_digits, shipped inside the package:
no download). The network is Dense(64, relu) -> Dense(32, relu) -> Dense(10, softmax),
trained with Keras under fixed seeds and deterministic ops. The trained weights are copied
into a plain tf.Module so the exported graph holds only MatMul / BiasAdd / Relu / Softmax
(plus ReadVariableOp), with one signature:

    serving_default(pixels: float32[-1, 64]) -> {probabilities: float32[-1, 10]}

Re-running the script rewrites the same files (same weights, same outputs).
"""

import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("PYTHONHASHSEED", "0")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

SEED = 1234
NUM_SAMPLES = 8
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "examples", "models", "digits")


class DigitsModule(tf.Module):
    """Plain-op MLP: the exported graph is MatMul/BiasAdd/Relu/Softmax only."""

    def __init__(self, weights):
        super().__init__(name="digits")
        (w1, b1), (w2, b2), (w3, b3) = weights
        self.w1 = tf.Variable(w1, name="dense1/kernel")
        self.b1 = tf.Variable(b1, name="dense1/bias")
        self.w2 = tf.Variable(w2, name="dense2/kernel")
        self.b2 = tf.Variable(b2, name="dense2/bias")
        self.w3 = tf.Variable(w3, name="logits/kernel")
        self.b3 = tf.Variable(b3, name="logits/bias")

    @tf.function(input_signature=[tf.TensorSpec([None, 64], tf.float32, name="pixels")])
    def serve(self, pixels):
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(pixels, self.w1), self.b1))
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(h, self.w2), self.b2))
        logits = tf.nn.bias_add(tf.matmul(h, self.w3), self.b3)
        return {"probabilities": tf.nn.softmax(logits)}


def clear_fingerprint_uuid(model_dir):
    """fingerprint.pb carries a random uuid; clear it so re-runs write identical files."""
    path = os.path.join(model_dir, "fingerprint.pb")
    if not os.path.exists(path):
        return
    from tensorflow.core.protobuf import fingerprint_pb2
    fp = fingerprint_pb2.FingerprintDef()
    with open(path, "rb") as f:
        fp.ParseFromString(f.read())
    if "uuid" in fp.DESCRIPTOR.fields_by_name:
        fp.ClearField("uuid")
        with open(path, "wb") as f:
            f.write(fp.SerializeToString(deterministic=True))


def dir_size(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(dirpath, f))
    return total


def main():
    tf.keras.utils.set_random_seed(SEED)
    tf.config.experimental.enable_op_determinism()

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)  # pixel values 0..16 -> [0, 1]
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.2, random_state=SEED, stratify=y)

    model = tf.keras.Sequential([
        tf.keras.Input(shape=(64,), dtype="float32"),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(x_train, y_train, epochs=60, batch_size=32, shuffle=True, verbose=0)
    _, keras_acc = model.evaluate(x_test, y_test, verbose=0)

    weights = [tuple(np.asarray(v, dtype=np.float32) for v in layer.get_weights())
               for layer in model.layers]
    module = DigitsModule(weights)

    if os.path.exists(OUT_DIR):
        shutil.rmtree(OUT_DIR)
    tf.saved_model.save(module, OUT_DIR, signatures={"serving_default": module.serve})
    clear_fingerprint_uuid(OUT_DIR)

    # Reference outputs come from the exported SavedModel itself, reloaded from disk.
    loaded = tf.saved_model.load(OUT_DIR)
    fn = loaded.signatures["serving_default"]
    probs_all = fn(pixels=tf.constant(x_test))["probabilities"].numpy()
    acc = float(np.mean(np.argmax(probs_all, axis=1) == y_test))

    samples = os.path.join(OUT_DIR, "samples")
    os.makedirs(samples, exist_ok=True)
    inputs = np.ascontiguousarray(x_test[:NUM_SAMPLES], dtype=np.float32)
    labels = np.ascontiguousarray(y_test[:NUM_SAMPLES], dtype=np.int64)
    expected = fn(pixels=tf.constant(inputs))["probabilities"].numpy().astype(np.float32)
    np.save(os.path.join(samples, "inputs.npy"), inputs)
    np.save(os.path.join(samples, "labels.npy"), labels)
    np.save(os.path.join(samples, "expected_probabilities.npy"), expected)

    print(f"TensorFlow {tf.__version__}")
    print(f"train/test: {len(x_train)}/{len(x_test)}")
    print(f"test accuracy (SavedModel): {acc:.4f}  (keras: {keras_acc:.4f})")
    print(f"sample labels:      {labels.tolist()}")
    print(f"sample predictions: {np.argmax(expected, axis=1).tolist()}")
    print(f"wrote {OUT_DIR} ({dir_size(OUT_DIR)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
