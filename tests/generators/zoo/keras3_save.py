"""Keras 3 layers and models saved with tf.saved_model.save (not model.export), and a Keras 3
GRU encoder-decoder exported with model.export.

Keras 3 keeps two handles per variable in such exports: the signatures read `dense/kernel`,
while the restore function assigns copies named `Variable`, `Variable_1`. TensorFlow binds the
signature's handles through the SavedObjectGraph (bound inputs -> object -> checkpoint key);
these models check that smrt does the same (issue 35).
"""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything


def _dense_in_module(export_dir):
    import keras
    import tensorflow as tf

    seed_everything("keras3_dense_in_module")

    class Head(tf.Module):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(6, activation="relu")
            self.out = keras.layers.Dense(3)
            self.hidden.build((None, 4))
            self.out.build((None, 6))

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
        def __call__(self, x):
            return {"y": self.out(self.hidden(x))}

    m = Head()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    rng = rng_for("keras3_dense_in_module/inputs")
    return [Case(f"b{b}", "serving_default", {"x": rng.standard_normal((b, 4)).astype(np.float32)})
            for b in (1, 5)]


def _functional_saved(export_dir):
    import keras
    import tensorflow as tf

    seed_everything("keras3_functional_saved")
    inp = keras.Input((4,), name="inputs")
    h = keras.layers.Dense(5, activation="tanh")(inp)
    out = keras.layers.Dense(2, activation="relu")(keras.layers.LayerNormalization()(h))
    model = keras.Model(inp, out)
    tf.saved_model.save(model, export_dir)
    rng = rng_for("keras3_functional_saved/inputs")
    return [Case(f"b{b}", "serving_default",
                 {"inputs": rng.standard_normal((b, 4)).astype(np.float32)}) for b in (1, 3)]


def _gru_seq2seq(export_dir):
    import keras

    seed_everything("keras3_gru_seq2seq")
    src = keras.Input((7,), dtype="int32", name="src")
    tgt = keras.Input((5,), dtype="int32", name="tgt")
    emb_s = keras.layers.Embedding(20, 8)(src)
    _, state = keras.layers.GRU(12, return_state=True)(emb_s)
    emb_t = keras.layers.Embedding(20, 8)(tgt)
    dec = keras.layers.GRU(12, return_sequences=True)(emb_t, initial_state=state)
    logits = keras.layers.Dense(20)(dec)
    model = keras.Model([src, tgt], logits)
    model.export(export_dir)
    rng = rng_for("keras3_gru_seq2seq/inputs")
    cases = []
    for b in (1, 4):
        cases.append(Case(f"b{b}", "serving_default", {
            "src": rng.integers(0, 20, (b, 7)).astype(np.int32),
            "tgt": rng.integers(0, 20, (b, 5)).astype(np.int32)}))
    return cases


def models():
    return [
        ZooModel("keras3_dense_in_module", _dense_in_module, commit=True,
                 exporter="tf.saved_model.save", note="Keras 3 Dense layers inside a tf.Module"),
        ZooModel("keras3_functional_saved", _functional_saved, commit=True,
                 exporter="tf.saved_model.save",
                 note="a Keras 3 functional model saved with tf.saved_model.save"),
        ZooModel("keras3_gru_seq2seq", _gru_seq2seq, commit=True, exporter="keras3 export",
                 note="Keras 3 GRU encoder-decoder (encoder state into the decoder)"),
    ]
