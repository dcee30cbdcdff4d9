"""A tf.Module as a user of tf.math's special functions exports it (issue 35): a small
quantization-aware dense layer (QuantizeAndDequantizeV4 on the input with a given range and on the
weights per output channel) feeding a Poisson count head (Xlogy, Lgamma, Igammac), a Beta CDF
(Betainc), Digamma, cumulative log-sum-exp over the logits, and input features with Atan2,
EuclideanNorm, TruncateMod, BesselI0e and Erfinv."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for

F32 = np.float32


def _math_module(export_dir):
    import tensorflow as tf

    class MathSpecial(tf.Module):
        def __init__(self):
            super().__init__()
            rng = rng_for("math_special_module/weights")
            self.w = tf.Variable(rng.normal(0, 0.6, (4, 3)).astype(F32), name="w")
            self.b = tf.Variable(rng.normal(0, 0.1, (3,)).astype(F32), name="b")

        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x"),
                                      tf.TensorSpec([None, 3], tf.float32, name="counts")])
        def __call__(self, x, counts):
            xq = tf.quantization.quantize_and_dequantize_v2(x, -3.0, 3.0, range_given=True)
            wq = tf.quantization.quantize_and_dequantize_v2(self.w, [0.0] * 3, [0.0] * 3, axis=1,
                                                            narrow_range=True)
            logits = tf.matmul(xq, wq) + self.b
            rate = tf.nn.softplus(logits) + 0.1
            poisson_ll = tf.reduce_sum(
                tf.math.xlogy(counts, rate) - rate - tf.math.lgamma(counts + 1.0), axis=1)
            return {
                "poisson_ll": poisson_ll,
                "tail": tf.math.igammac(counts + 1.0, rate),
                "beta_cdf": tf.math.betainc(2.0, 3.0, tf.sigmoid(logits)),
                "digamma": tf.math.digamma(rate),
                "lse": tf.math.cumulative_logsumexp(logits, axis=1, reverse=True),
                "angle": tf.math.atan2(x[:, 0], x[:, 1]),
                "radius": tf.math.reduce_euclidean_norm(x, axis=1),
                "phase": tf.truncatemod(x, 1.5),
                "i0e": tf.math.special.bessel_i0e(x),
                "probit": tf.math.erfinv(tf.tanh(x) * 0.99),
            }

    m = MathSpecial()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    rng = rng_for("math_special_module/inputs")
    return [Case(f"b{b}", "serving_default",
                 {"x": rng.uniform(-3.5, 3.5, (b, 4)).astype(F32),
                  "counts": rng.integers(0, 6, (b, 3)).astype(F32)}) for b in (1, 6)]


def models():
    return [
        ZooModel("math_special_module", _math_module, commit=True, exporter="tf.saved_model.save",
                 note="QuantizeAndDequantizeV4 (given range, per channel), Xlogy, Lgamma, Igammac, "
                      "Betainc, Digamma, CumulativeLogsumexp, Atan2, EuclideanNorm, TruncateMod, "
                      "BesselI0e, Erfinv"),
    ]
