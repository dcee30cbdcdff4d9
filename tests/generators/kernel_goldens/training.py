"""Goldens for kernels/cpu/reference/training_ops.cc (gradient and loss ops).

Run: TF_ENABLE_ONEDNN_OPTS=0 .venv/bin/python -P tests/generators/kernel_goldens/training.py
"""
import os

import numpy as np
import tensorflow as tf

R = tf.raw_ops
out = "tests/data/kernels/training"
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(7)


def save(name, t):
    np.save(f"{out}/{name}.npy", np.asarray(t))


g = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
save("bias_grad_in", g)
save("bias_grad_nhwc", R.BiasAddGrad(out_backprop=g, data_format="NHWC"))
save("bias_grad_nchw", R.BiasAddGrad(out_backprop=g, data_format="NCHW"))
f = rng.standard_normal((3, 7)).astype(np.float32)
f[0, :3] = 0  # features exactly 0 get no gradient
gr = rng.standard_normal((3, 7)).astype(np.float32)
save("relu_grad_g", gr)
save("relu_grad_f", f)
save("relu_grad", R.ReluGrad(gradients=gr, features=f))
logits = (rng.standard_normal((4, 6)) * 5).astype(np.float32)
logits[3] = [100, -100, 3, 3, 0, 50]  # large spreads
labels = rng.random((4, 6)).astype(np.float32)
labels /= labels.sum(1, keepdims=True)
save("xent_logits", logits)
save("xent_labels", labels)
loss, back = R.SoftmaxCrossEntropyWithLogits(features=logits, labels=labels)
save("xent_loss", loss)
save("xent_backprop", back)
sparse = np.array([0, 5, 2, 1], np.int64)
save("sparse_labels", sparse)
loss, back = R.SparseSoftmaxCrossEntropyWithLogits(features=logits, labels=sparse)
save("sparse_loss", loss)
save("sparse_backprop", back)
print("wrote", len(os.listdir(out)), "files to", out)
