"""Array, index and image-geometry ops of older vision and ranking graphs (issue 35): a tf.Module
that takes a batch of images and scores and uses tf.image.extract_patches, local response
normalization, max_pool_with_argmax, dilation2d / erosion2d, tf.roll, tf.searchsorted,
tf.histogram_fixed_width, tf.math.in_top_k, tf.linalg.cross, tf.tensor_scatter_nd_max / _sub,
tf.unravel_index, tf.linalg.tensor_diag_part, tf.linspace, tf.fingerprint and seeded
tf.nn.fractional_max_pool / fractional_avg_pool."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for


def _array_geometry(export_dir):
    import tensorflow as tf

    class Geometry(tf.Module):
        def __init__(self):
            super().__init__()
            rng = rng_for("array_geometry/weights")
            self.kernel = tf.Variable(rng.uniform(-0.5, 0.5, (2, 2, 3)).astype(np.float32))
            self.edges = tf.constant(np.linspace(-2, 2, 9).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 3], tf.float32, name="image"),
                                      tf.TensorSpec([None, 5], tf.float32, name="scores"),
                                      tf.TensorSpec([None], tf.int32, name="label"),
                                      tf.TensorSpec([None], tf.string, name="key")])
        def __call__(self, image, scores, label, key):
            patches = tf.image.extract_patches(image, sizes=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                                               rates=[1, 1, 1, 1], padding="SAME")
            lrn = tf.nn.local_response_normalization(image, depth_radius=1, bias=1.0, alpha=0.5,
                                                     beta=0.75)
            pooled, argmax = tf.nn.max_pool_with_argmax(image, 2, 2, "SAME",
                                                        include_batch_in_index=True)
            dil = tf.nn.dilation2d(image, self.kernel, [1, 1, 1, 1], "SAME", "NHWC",
                                   [1, 1, 1, 1])
            ero = tf.nn.erosion2d(image, self.kernel, [1, 1, 1, 1], "VALID", "NHWC",
                                  [1, 1, 1, 1])
            rolled = tf.roll(scores, shift=[2, -1], axis=[1, 0])
            flat = tf.reshape(scores, [-1])
            bins = tf.searchsorted(self.edges, flat, side="left")
            upper = tf.searchsorted(self.edges, flat, side="right")
            hist = tf.histogram_fixed_width(flat, [-2.0, 2.0], nbins=6)
            in_top = tf.math.in_top_k(label, scores, k=2)
            v = scores[:, :3]
            cross = tf.linalg.cross(v, tf.roll(v, 1, axis=1))
            best = tf.argmax(scores, axis=1, output_type=tf.int32)
            idx = tf.stack([tf.range(tf.shape(scores)[0]), best], axis=1)
            capped = tf.tensor_scatter_nd_max(tf.zeros_like(scores), idx,
                                              tf.gather_nd(scores, idx))
            lowered = tf.tensor_scatter_nd_sub(scores, idx, tf.ones_like(best, tf.float32))
            coords = tf.unravel_index(argmax[:, 0, 0, 0], tf.constant([3, 6, 6, 3], tf.int64))
            diag = tf.linalg.tensor_diag_part(tf.einsum("bi,bj->ij", v, v))
            ramp = tf.linspace(0.0, 1.0, 7)
            frac_max, rows, _ = tf.nn.fractional_max_pool(image, [1.0, 1.5, 1.44, 1.0],
                                                          pseudo_random=True, overlapping=True,
                                                          seed=5)
            frac_avg = tf.nn.fractional_avg_pool(image, [1.0, 1.44, 1.5, 1.0], seed=6)[0]
            return {"patches": patches, "lrn": lrn, "pooled": pooled, "argmax": argmax,
                    "dilation": dil, "erosion": ero, "rolled": rolled, "lower": bins,
                    "upper": upper, "hist": hist, "in_top": in_top, "cross": cross,
                    "capped": capped, "lowered": lowered, "coords": coords, "diag": diag,
                    "ramp": ramp, "fingerprint": tf.fingerprint(key), "frac_max": frac_max,
                    "frac_rows": rows, "frac_avg": frac_avg}

    m = Geometry()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    rng = rng_for("array_geometry/inputs")
    cases = []
    for b in (1, 3):
        cases.append(Case(f"b{b}", "serving_default", {
            "image": rng.uniform(-1, 1, (b, 6, 6, 3)).astype(np.float32),
            "scores": rng.uniform(-2.5, 2.5, (b, 5)).round(1).astype(np.float32),
            "label": rng.integers(0, 5, (b,)).astype(np.int32),
            "key": np.array([f"user-{i}".encode() for i in range(b)], dtype=object)}))
    return cases


def models():
    return [
        ZooModel("array_geometry", _array_geometry, commit=True, exporter="tf.saved_model.save",
                 note="ExtractImagePatches, LRN, MaxPoolWithArgmax, Dilation2D, Roll, "
                      "LowerBound/UpperBound, HistogramFixedWidth, InTopKV2, Cross, "
                      "TensorScatterMax/Sub, UnravelIndex, DiagPart, LinSpace, Fingerprint, "
                      "FractionalMaxPool/AvgPool"),
    ]
