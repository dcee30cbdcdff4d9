"""A tf.Module whose tf.function signatures use control flow and common tf.* ops."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for


def _build(export_dir):
    import tensorflow as tf

    class Ops(tf.Module):
        def __init__(self):
            super().__init__()
            rng = rng_for("tf_module")
            self.w = tf.Variable(rng.standard_normal((8, 8)).astype(np.float32), name="w")
            self.table = tf.constant(rng.standard_normal((10, 4)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32, name="x")])
        def branchy(self, x):
            s = tf.reduce_sum(x)
            y = tf.cond(s > 0.0, lambda: tf.matmul(x, self.w), lambda: tf.nn.relu(x) - 1.0)
            z = tf.where(y > 0.0, y, 0.1 * y)
            return {"y": z, "mean": tf.reduce_mean(z, axis=1), "max": tf.reduce_max(z, axis=0),
                    "cumsum": tf.cumsum(x, axis=1), "prod": tf.reduce_prod(x[:, :3], axis=1)}

        @tf.function(input_signature=[tf.TensorSpec([None, 8], tf.float32, name="x"),
                                      tf.TensorSpec([], tf.int32, name="n")])
        def loop(self, x, n):
            i = tf.constant(0)
            def body(i, acc):
                return i + 1, tf.tanh(tf.matmul(acc, self.w)) + x
            _, acc = tf.while_loop(lambda i, acc: i < n, body, [i, x])
            return {"acc": acc}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int32, name="ids"),
                                      tf.TensorSpec([None, 2], tf.int32, name="pairs")])
        def lookup(self, ids, pairs):
            return {"gathered": tf.gather(self.table, ids),
                    "gathered_nd": tf.gather_nd(self.table, pairs),
                    "one_hot": tf.one_hot(ids, 10, on_value=2.0, off_value=-1.0),
                    "argmax": tf.argmax(tf.gather(self.table, ids), axis=1)}

        @tf.function(input_signature=[tf.TensorSpec([None, 12, 10, 3], tf.float32, name="image")])
        def vision(self, image):
            r = tf.image.resize(image, [7, 5])
            n = tf.image.resize(image, [24, 20], method="nearest")
            v, idx = tf.math.top_k(tf.reshape(image, [tf.shape(image)[0], -1]), k=5)
            return {"bilinear": r, "nearest": n, "top_values": v, "top_indices": idx,
                    "std": tf.math.reduce_std(image, axis=[1, 2]),
                    "any": tf.reduce_any(image > 0.9, axis=[1, 2, 3])}

    m = Ops()
    tf.saved_model.save(m, export_dir, signatures={
        "serving_default": m.branchy.get_concrete_function(),
        "loop": m.loop.get_concrete_function(),
        "lookup": m.lookup.get_concrete_function(),
        "vision": m.vision.get_concrete_function()})
    rng = rng_for("tf_module/inputs")
    cases = []
    for b in (1, 8):
        x = rng.standard_normal((b, 8)).astype(np.float32)
        cases.append(Case(f"b{b}", "serving_default", {"x": x}))
        cases.append(Case(f"b{b}_neg", "serving_default", {"x": -np.abs(x)}))
        cases.append(Case(f"loop_b{b}", "loop", {"x": x * 0.3, "n": np.int32(4 + b)}))
        ids = rng.integers(0, 10, size=(b,)).astype(np.int32)
        pairs = np.stack([rng.integers(0, 10, b), rng.integers(0, 4, b)], 1).astype(np.int32)
        cases.append(Case(f"lookup_b{b}", "lookup", {"ids": ids, "pairs": pairs}))
        img = rng.random((b, 12, 10, 3)).astype(np.float32)
        cases.append(Case(f"vision_b{b}", "vision", {"image": img}))
    return cases


def models():
    return [ZooModel("tf_module", _build, commit=True, exporter="tf.saved_model.save",
                     note="tf.cond, tf.while_loop, where, gather(_nd), reductions, cumsum, "
                          "one_hot, image.resize, top_k")]
