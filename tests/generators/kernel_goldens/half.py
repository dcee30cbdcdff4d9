"""float16/bfloat16 goldens for the ops mixed-precision models run (half_precision_ops.cc)."""
import os

import numpy as np
import tensorflow as tf

out = 'tests/data/kernels/half'
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(16)


def save(name, a):
    a = np.asarray(a)
    if a.dtype.name == 'bfloat16':  # .npy has no bfloat16: stored as float32 (exact)
        a = a.astype(np.float32)
    np.save(f'{out}/{name}.npy', a)


x = rng.standard_normal((2, 9, 9, 8)).astype(np.float16)
w = (rng.standard_normal((3, 3, 8, 16)) * 0.3).astype(np.float16)
dw = (rng.standard_normal((3, 3, 8, 2)) * 0.3).astype(np.float16)
a = rng.standard_normal((5, 64)).astype(np.float16)
b = (rng.standard_normal((64, 7)) * 0.2).astype(np.float16)
ba = rng.standard_normal((2, 3, 4, 32)).astype(np.float32)
bb = rng.standard_normal((2, 3, 32, 5)).astype(np.float32)
scale = rng.random(8).astype(np.float32) + 0.5
offset = rng.standard_normal(8).astype(np.float32)
mean = rng.standard_normal(8).astype(np.float32) * 0.1
var = rng.random(8).astype(np.float32) + 0.5
for n, v in dict(x=x, w=w, dw=dw, a=a, b=b, ba=ba, bb=bb, scale=scale, offset=offset,
                 mean=mean, var=var).items():
    save(n, v)

save('conv', tf.raw_ops.Conv2D(input=x, filter=w, strides=[1, 2, 2, 1], padding='SAME'))
save('depthwise', tf.raw_ops.DepthwiseConv2dNative(input=x, filter=dw, strides=[1, 1, 1, 1],
                                                   padding='VALID'))
save('matmul', tf.raw_ops.MatMul(a=a, b=b))
bf_a, bf_b = tf.cast(ba, tf.bfloat16), tf.cast(bb, tf.bfloat16)
save('bmm_bf16', tf.raw_ops.BatchMatMulV2(x=bf_a, y=bf_b))
y = tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean, variance=var,
                                epsilon=1e-3, is_training=False)
save('bn', y[0])
save('avgpool', tf.raw_ops.AvgPool(value=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                                   padding='VALID'))
# A NumPy input would make raw_ops.MaxPool run its default T, float32.
save('maxpool', tf.raw_ops.MaxPool(input=tf.constant(x), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                   padding='SAME'))
save('softmax', tf.raw_ops.Softmax(logits=a))
# Windows of -inf and NaN alone: TensorFlow's float16 MaxPool gives -65504 (its start), not -inf.
inf, nan = np.inf, np.nan
x_masked = np.array([[-inf, -inf, nan, nan],
                     [-inf, -inf, nan, nan],
                     [-inf, nan, -inf, 3.5],
                     [nan, -inf, nan, -inf]], np.float16).reshape(1, 4, 4, 1)
save('x_masked', x_masked)
save('maxpool_masked', tf.raw_ops.MaxPool(input=tf.constant(x_masked), ksize=[1, 2, 2, 1],
                                          strides=[1, 2, 2, 1], padding='VALID'))
