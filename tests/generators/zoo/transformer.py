"""A Transformer encoder from Keras layers, BERT-style.

Token and position embeddings, then per layer: MultiHeadAttention with a padding mask,
residual + LayerNormalization, Dense(gelu) feed-forward, residual + LayerNormalization, with
Dropout (inactive at inference). The sequence length is dynamic: cases use two lengths.
"""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything


def _encoder(keras, vocab, max_len, hidden, heads, layers, ffn):
    import tensorflow as tf

    class PositionEmbedding(keras.layers.Layer):
        def __init__(self, max_len, hidden, **kw):
            super().__init__(**kw)
            self.table = self.add_weight(shape=(max_len, hidden), initializer="random_normal",
                                         name="position_table")

        def call(self, x):
            length = tf.shape(x)[1]
            return x + tf.expand_dims(self.table[:length], 0)

    ids = keras.Input((None,), dtype="int32", name="input_ids")
    mask = keras.Input((None,), dtype="int32", name="attention_mask")
    x = keras.layers.Embedding(vocab, hidden)(ids)
    x = PositionEmbedding(max_len, hidden)(x)
    x = keras.layers.LayerNormalization(epsilon=1e-12)(x)
    attn_mask = keras.layers.Lambda(
        lambda m: tf.cast(m[:, tf.newaxis, :], "bool"), output_shape=(1, None))(mask)
    for _ in range(layers):
        a = keras.layers.MultiHeadAttention(heads, hidden // heads, dropout=0.1)(
            x, x, attention_mask=attn_mask)
        a = keras.layers.Dropout(0.1)(a)
        x = keras.layers.LayerNormalization(epsilon=1e-12)(x + a)
        f = keras.layers.Dense(ffn, activation="gelu")(x)
        f = keras.layers.Dense(hidden)(f)
        f = keras.layers.Dropout(0.1)(f)
        x = keras.layers.LayerNormalization(epsilon=1e-12)(x + f)
    pooled = keras.layers.Dense(hidden, activation="tanh")(x[:, 0, :])
    return keras.Model([ids, mask], {"sequence_output": x, "pooled_output": pooled})


def _cases(name, vocab, lengths, batches=(1, 8)):
    rng = rng_for(name)
    cases = []
    for b in batches:
        for t in lengths:
            ids = rng.integers(1, vocab, size=(b, t)).astype(np.int32)
            mask = np.ones((b, t), np.int32)
            for i in range(b):  # each row padded after a different length
                keep = max(1, t - (i * 3) % t)
                mask[i, keep:] = 0
                ids[i, keep:] = 0
            cases.append(Case(f"b{b}_len{t}", "serving_default",
                              {"input_ids": ids, "attention_mask": mask}))
    return cases


def _build(name, vocab, max_len, hidden, heads, layers, ffn, lengths):
    def build(export_dir):
        import keras
        seed_everything(name)
        _encoder(keras, vocab, max_len, hidden, heads, layers, ffn).export(export_dir)
        return _cases(name, vocab, lengths)
    return build


def models():
    return [
        ZooModel("transformer_small", _build("transformer_small", 1000, 64, 64, 4, 2, 128,
                                             (16, 32)),
                 commit=True, exporter="keras3 export",
                 note="2 layers, hidden 64, 4 heads, padding mask"),
        ZooModel("bert_base", _build("bert_base", 30522, 512, 768, 12, 12, 3072, (128, 64)),
                 exporter="keras3 export",
                 note="BERT-base size: 12 layers, hidden 768, 12 heads (benchmarks)"),
    ]
