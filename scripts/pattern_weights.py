#!/usr/bin/env python3
"""Copies a SavedModel with every float variable replaced by a periodic pattern.

For benchmarking on machines the real weights cannot reach: the lent GPU
machines take at most 64 MiB from here, and ResNet50's or BERT-base's weights
are 200-900 MB of incompressible floats. The copy has the same graph
(saved_model.pb as is), the same checkpoint keys, dtypes and shapes, so smrt
does exactly the same work on it; only the answers are meaningless. Its
variables.data compresses to almost nothing (scripts/gpu_bundle.sh packs it).

Usage: .venv/bin/python scripts/pattern_weights.py SRC_SAVED_MODEL DST_DIR
Needs TensorFlow (the peers' venv has it); smrt itself never does.
"""
import os
import shutil
import sys

import numpy as np
import tensorflow as tf

PERIOD = 1031  # a prime, so the pattern does not line up with tensor dims


def patterned(name, value):
    if not isinstance(value, np.ndarray) or not np.issubdtype(value.dtype, np.floating):
        return value  # counters, ids, the object graph (bytes): keep
    base = (np.arange(PERIOD) * 7919 % 101 - 50).astype(np.float32) / 1000.0  # [-0.05, 0.05]
    flat = np.resize(base, value.size)
    if "variance" in name or "gamma" in name or "scale" in name:
        flat = 1.0 + np.abs(flat)  # stays positive, near 1: no blow-up through norms
    return flat.reshape(value.shape).astype(value.dtype)


def main(src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("variables"))
    prefix = os.path.join(src, "variables", "variables")
    reader = tf.train.load_checkpoint(prefix)
    names, tensors = [], []
    for name in sorted(reader.get_variable_to_shape_map()):
        names.append(name)
        tensors.append(tf.constant(patterned(name, reader.get_tensor(name))))
    os.makedirs(os.path.join(dst, "variables"))
    tf.raw_ops.SaveV2(prefix=os.path.join(dst, "variables", "variables"),
                      tensor_names=names, shape_and_slices=[""] * len(names), tensors=tensors)
    print(f"{dst}: {len(names)} variables patterned")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
