"""A graph as quantization-aware training exports it: fake-quant ops on the input
(FakeQuantWithMinMaxArgs), on the weights (FakeQuantWithMinMaxVarsPerChannel over the output
channels) and on the activations (FakeQuantWithMinMaxVars, ranges in variables) around a Conv2D
and a dense layer."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for

F32 = np.float32


def _ties_margin(v, lo, hi, num_bits, narrow_range):
    """How far, in steps, the unclamped values of v come to a rounding tie of TensorFlow's
    FakeQuantWithMinMaxVars with this range: smrt and TensorFlow sum the products of a
    convolution in different orders, so a value within a few ulps of a tie may round either
    way. Inputs are chosen to keep clear of them."""
    qmin, qmax = F32(1 if narrow_range else 0), F32(2 ** num_bits - 1)
    scale = F32((F32(hi) - F32(lo)) / (qmax - qmin))
    zero_point = np.clip(np.floor(qmin - F32(lo) / scale + F32(0.5)), qmin, qmax)
    nudged_min, nudged_max = (qmin - zero_point) * scale, (qmax - zero_point) * scale
    v = np.asarray(v, np.float64)
    inside = v[(v > nudged_min) & (v < nudged_max)]
    steps = (inside - nudged_min) / scale
    return np.min(np.abs(steps - np.floor(steps) - 0.5), initial=0.5)


def _qat_module(export_dir):
    import tensorflow as tf

    fq = tf.quantization

    class QatModule(tf.Module):
        def __init__(self):
            super().__init__()
            rng = rng_for("fake_quant_module/weights")
            self.conv_w = tf.Variable(rng.normal(0, 0.4, (3, 3, 2, 4)).astype(F32), name="conv_w")
            self.conv_b = tf.Variable(rng.normal(0, 0.1, (4,)).astype(F32), name="conv_b")
            # Per-channel weight ranges as QAT learns them; channel 2 leaves out 0 (nudged).
            self.conv_w_min = tf.Variable([-0.9, -0.6, 0.05, -1.2], name="conv_w_min")
            self.conv_w_max = tf.Variable([0.8, 0.7, 1.1, 0.3], name="conv_w_max")
            self.act_min = tf.Variable(-0.5, name="act_min")
            self.act_max = tf.Variable(2.75, name="act_max")
            self.dense_w = tf.Variable(rng.normal(0, 0.5, (4, 3)).astype(F32), name="dense_w")
            self.dense_b = tf.Variable(rng.normal(0, 0.1, (3,)).astype(F32), name="dense_b")
            self.dense_w_min = tf.Variable([-1.0, -0.8, -1.3], name="dense_w_min")
            self.dense_w_max = tf.Variable([1.0, 0.9, 0.6], name="dense_w_max")
            self.out_min = tf.Variable(-1.5, name="out_min")
            self.out_max = tf.Variable(1.5, name="out_max")

        def forward(self, x, probe=None):
            x = fq.fake_quant_with_min_max_args(x, min=-1.0, max=1.0, num_bits=8)
            w = fq.fake_quant_with_min_max_vars_per_channel(
                self.conv_w, self.conv_w_min, self.conv_w_max, num_bits=8, narrow_range=True)
            y = tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") + self.conv_b)
            if probe is not None:
                probe.append((y, self.act_min, self.act_max, 8, False))
            y = fq.fake_quant_with_min_max_vars(y, self.act_min, self.act_max, num_bits=8)
            features = y = tf.reduce_mean(y, axis=[1, 2])
            w2 = fq.fake_quant_with_min_max_vars_per_channel(
                self.dense_w, self.dense_w_min, self.dense_w_max, num_bits=4, narrow_range=True)
            z = tf.matmul(y, w2) + self.dense_b
            if probe is not None:
                probe.append((z, self.out_min, self.out_max, 4, False))
            z = fq.fake_quant_with_min_max_vars(z, self.out_min, self.out_max, num_bits=4)
            return {"logits": z, "features": features}

        @tf.function(input_signature=[tf.TensorSpec([None, 6, 6, 2], tf.float32, name="x")])
        def __call__(self, x):
            return self.forward(x)

    m = QatModule()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.__call__})
    rng = rng_for("fake_quant_module/inputs")
    cases = []
    for b in (1, 4):
        for _ in range(100):
            # Per image and channel offsets and contrasts, so that the images differ after
            # the pooling.
            x = (rng.uniform(-0.6, 0.6, (b, 1, 1, 2)) + rng.uniform(0.3, 1.2, (b, 1, 1, 2)) *
                 rng.uniform(-1, 1, (b, 6, 6, 2))).astype(F32)
            probe = []
            m.forward(tf.constant(x), probe)
            if all(_ties_margin(v.numpy(), float(lo.numpy()), float(hi.numpy()), bits, narrow)
                   > 1e-4 for v, lo, hi, bits, narrow in probe):
                break
        else:
            raise RuntimeError("no input keeps clear of the rounding ties")
        cases.append(Case(f"b{b}", "serving_default", {"x": x}))
    return cases


def models():
    return [
        ZooModel("fake_quant_module", _qat_module, commit=True, exporter="tf.saved_model.save",
                 note="QAT graph: FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars, "
                      "FakeQuantWithMinMaxVarsPerChannel around Conv2D and MatMul"),
    ]
