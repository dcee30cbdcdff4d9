"""Recurrent Keras models: they export While loops over TensorList ops."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything

FEATURES = 6


def _cases(name, input_name="inputs"):
    rng = rng_for(name)
    cases = []
    for b in (1, 8):
        for t in (5, 12):
            x = rng.standard_normal((b, t, FEATURES)).astype(np.float32)
            cases.append(Case(f"b{b}_len{t}", "serving_default", {input_name: x}))
    return cases


def _keras3(name, make_layers):
    def build(export_dir):
        import keras
        seed_everything(name)
        inp = keras.Input((None, FEATURES), name="inputs")
        x = inp
        for layer in make_layers(keras):
            x = layer(x)
        keras.Model(inp, x).export(export_dir)
        return _cases(name)
    return build


def _tf_keras_lstm(export_dir):
    import tf_keras
    seed_everything("lstm_tfkeras")
    inp = tf_keras.Input((None, FEATURES), name="inputs")
    x = tf_keras.layers.LSTM(16, return_sequences=True)(inp)
    x = tf_keras.layers.GRU(8)(x)
    out = tf_keras.layers.Dense(3)(x)
    tf_keras.Model(inp, out).save(export_dir, save_format="tf")
    return _cases("lstm_tfkeras")


def models():
    return [
        ZooModel("lstm", _keras3("lstm", lambda k: [k.layers.LSTM(16, return_sequences=True),
                                                    k.layers.LSTM(8), k.layers.Dense(3)]),
                 commit=True, exporter="keras3 export", note="2 stacked LSTMs"),
        ZooModel("gru", _keras3("gru", lambda k: [k.layers.GRU(12), k.layers.Dense(3)]),
                 commit=True, exporter="keras3 export", note="GRU (reset_after)"),
        ZooModel("bilstm", _keras3("bilstm", lambda k: [
            k.layers.Bidirectional(k.layers.LSTM(10, return_sequences=True)),
            k.layers.GlobalAveragePooling1D(), k.layers.Dense(2)]),
                 commit=True, exporter="keras3 export", note="Bidirectional(LSTM)"),
        ZooModel("simplernn", _keras3("simplernn", lambda k: [
            k.layers.SimpleRNN(12, return_sequences=True), k.layers.Dense(4)]),
                 commit=True, exporter="keras3 export", note="SimpleRNN, per-step outputs"),
        ZooModel("lstm_tfkeras", _tf_keras_lstm, exporter="tf_keras save",
                 note="LSTM + GRU through tf_keras 2"),
    ]
