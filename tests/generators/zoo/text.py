"""Text classifiers that take raw strings: TextVectorization (string ops + lookup tables)."""

import os
import tempfile

import numpy as np

from zoo.common import Case, ZooModel, seed_everything

CORPUS = [
    "The movie was great, GREAT fun!", "a dull and boring film", "I loved the acting",
    "Terrible plot; awful pacing.", "not bad at all", "an instant classic, truly great",
    "the worst thing I have seen", "Fun for the whole family", "boring boring boring",
    "acting was fine but the plot was dull",
]
QUERIES = ["great acting, fun plot", "BORING!!! awful", "", "unseen words only zzz qqq",
           "the movie the movie the movie the movie the movie the movie", "Not   bad",
           "loved it", "a classic"]


def _cases():
    return [Case(f"b{b}", "serving_default",
                 {"text": np.array(QUERIES[:b], dtype=object).reshape(b, 1)}) for b in (1, 8)]


def _keras3(export_dir):
    import keras
    seed_everything("text_keras3")
    vec = keras.layers.TextVectorization(max_tokens=40, output_sequence_length=12)
    vec.adapt(np.array(CORPUS))
    inp = keras.Input((1,), dtype="string", name="text")
    x = vec(keras.layers.Reshape(())(inp))
    x = keras.layers.Embedding(40, 8)(x)
    x = keras.layers.GlobalAveragePooling1D()(x)
    out = keras.layers.Dense(2)(x)
    keras.Model(inp, {"logits": out, "tokens": x}).export(export_dir)
    return _cases()


def _tf_keras(export_dir):
    import tf_keras
    seed_everything("text_tfkeras")
    with tempfile.TemporaryDirectory() as tmp:
        vocab_file = os.path.join(tmp, "vocab.txt")
        words = sorted({w.strip(".,;!").lower() for s in CORPUS for w in s.split()})
        with open(vocab_file, "w") as f:
            f.write("\n".join(words) + "\n")
        # ngrams=2 and a vocabulary file: the table is initialised from an asset at load.
        vec = tf_keras.layers.TextVectorization(
            standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
            output_mode="int", output_sequence_length=10, vocabulary=vocab_file)
        inp = tf_keras.Input((1,), dtype="string", name="text")
        x = vec(inp)
        x = tf_keras.layers.Embedding(len(words) + 2, 8)(x)
        x = tf_keras.layers.Bidirectional(tf_keras.layers.LSTM(4))(x)
        out = tf_keras.layers.Dense(2, activation="softmax", name="probs")(x)
        tf_keras.Model(inp, out).save(export_dir, save_format="tf")
    return _cases()


def models():
    return [
        ZooModel("text_vectorization", _keras3, commit=True, exporter="keras3 export",
                 note="TextVectorization (adapted vocabulary), Embedding, pooling"),
        ZooModel("text_vocab_file", _tf_keras, exporter="tf_keras save",
                 note="TextVectorization from a vocabulary asset file, BiLSTM"),
    ]
