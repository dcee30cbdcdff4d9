"""Graphs with run-time checks and masks that real exports carry (issue 35): a Keras 3 causal
self-attention (MatrixBandPart builds the mask), and a tf.Module with tf.debugging asserts (Assert
as a control input), tf.ensure_shape, tf.debugging.check_numerics and Keras Discretization
(Bucketize)."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything


def _causal_attention(export_dir):
    import keras

    seed_everything("keras3_causal_attention")
    x = keras.Input((6, 8), name="x")
    y = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(x, x, use_causal_mask=True)
    model = keras.Model(x, keras.layers.LayerNormalization()(x + y))
    model.export(export_dir)
    rng = rng_for("keras3_causal_attention/inputs")
    return [Case(f"b{b}", "serve", {"x": rng.standard_normal((b, 6, 8)).astype(np.float32)})
            for b in (1, 3)]


def _checks_module(export_dir):
    import keras
    import tensorflow as tf

    class Checks(tf.Module):
        def __init__(self):
            super().__init__()
            self.bins = keras.layers.Discretization(bin_boundaries=[-1.0, 0.0, 0.5, 2.0])

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
        def __call__(self, x):
            x = tf.ensure_shape(x, [None, 4])
            with tf.control_dependencies([tf.debugging.assert_all_finite(x, "x has NaN or Inf"),
                                          tf.debugging.assert_less(x, 100.0)]):
                x = tf.identity(x)
            band = tf.linalg.band_part(tf.einsum("bi,bj->bij", x, x), 1, 0)
            log = tf.debugging.check_numerics(tf.math.log(tf.abs(x) + 1.0), "log of |x|+1")
            return {"bucket": self.bins(x), "band": band, "log": log}

    m = Checks()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    rng = rng_for("checks_module/inputs")
    return [Case(f"b{b}", "serving_default",
                 {"x": rng.standard_normal((b, 4)).astype(np.float32)}) for b in (1, 5)]


def models():
    return [
        ZooModel("keras3_causal_attention", _causal_attention, commit=True,
                 exporter="keras3 export",
                 note="MultiHeadAttention(use_causal_mask=True): MatrixBandPart"),
        ZooModel("checks_module", _checks_module, commit=True, exporter="tf.saved_model.save",
                 note="Assert (control inputs), EnsureShape, Bucketize, MatrixBandPart, CheckNumerics"),
    ]
