"""What a zoo family module returns to scripts/make_zoo.py.

A family module tests/generators/zoo/<family>.py defines `models() -> list[ZooModel]`. Each
model's `build(export_dir)` writes one SavedModel into export_dir (it must not exist yet) and
returns the cases to run on it; make_zoo.py then reloads the SavedModel with TensorFlow and
stores the inputs with TensorFlow's outputs.
"""

import dataclasses
from typing import Callable, Dict, List, Optional

import numpy as np


@dataclasses.dataclass
class Case:
    name: str                      # "b1", "b8", "b1_len32", ... (unique per model)
    signature: str                 # signature key, e.g. "serving_default"
    inputs: Dict[str, np.ndarray]  # signature input name -> value (np.bytes_/object for strings)


@dataclasses.dataclass
class ZooModel:
    name: str                                   # unique across the zoo; a directory name
    build: Callable[[str], List[Case]]
    commit: bool = False       # tiny (< 1 MB with goldens): committed under tests/data/zoo
    tolerance: Optional[float] = None  # when 1e-4 * max(1, |tf|) is not the bound
    note: str = ""             # why the tolerance differs, or what the model exercises
    exporter: str = ""         # "keras3 export", "tf_keras save", "tf.saved_model.save", ...


def rng_for(name):
    """A generator seeded from the model name: same weights and inputs on every run."""
    import zlib
    return np.random.default_rng(zlib.crc32(name.encode()))


def seed_everything(name):
    """Fixes TF, Keras and NumPy seeds so that weights are reproducible."""
    import zlib
    import tensorflow as tf
    seed = zlib.crc32(name.encode()) % (2**31)
    tf.random.set_seed(seed)
    np.random.seed(seed)
    try:
        import keras
        keras.utils.set_random_seed(seed)
    except Exception:  # noqa: BLE001
        pass
    return seed


def image_cases(signature, input_name, hw, channels=3, batches=(1, 8), name="", scale=1.0):
    """Cases with a batch of random images of the given size, one per batch size."""
    rng = rng_for(name or input_name)
    cases = []
    for b in batches:
        x = (rng.random((b, hw[0], hw[1], channels)) * scale).astype(np.float32)
        cases.append(Case(f"b{b}", signature, {input_name: x}))
    return cases


def calibrate_batchnorm(model, x, rng=None):
    """Sets each BatchNormalization layer's moving statistics to the statistics of its input.

    With weights=None, moving mean/variance stay 0/1 and activations of deep nets shrink or blow
    up layer by layer (a MobileNetV2 ends with logits around 1e-10), which would make any
    comparison with TensorFlow vacuous. Re-estimating the statistics from a batch, as one does
    after training, keeps activations near unit scale. Layers are calibrated in order, each
    after those before it. gamma/beta get a little noise so the folded affine is not trivial.
    """
    rng = rng or np.random.default_rng(0)
    keras_mod = type(model).__module__.split(".")[0]
    k = __import__(keras_mod)
    for layer in model.layers:
        if layer.__class__.__name__ not in ("BatchNormalization", "SyncBatchNormalization"):
            continue
        probe = k.Model(model.inputs, layer.input)
        h = np.asarray(probe(x, training=False) if keras_mod == "keras" else probe.predict(x, verbose=0))
        axes = tuple(range(h.ndim - 1))
        weights = layer.get_weights()  # [gamma if scale] [beta if center] mean var
        new = []
        if layer.scale:
            g = weights.pop(0)
            new.append((g * (1 + 0.1 * rng.standard_normal(g.shape))).astype(np.float32))
        if layer.center:
            b = weights.pop(0)
            new.append((b + 0.1 * rng.standard_normal(b.shape)).astype(np.float32))
        new += [h.mean(axis=axes).astype(np.float32), (h.var(axis=axes) + 1e-3).astype(np.float32)]
        layer.set_weights(new)
