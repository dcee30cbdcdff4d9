# Goldens for Conv3D, MaxPool3D, AvgPool3D (NDHWC).
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/volume.py
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/volume'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)

def save(name, a): np.save(f'{out}/{name}.npy', np.asarray(a))

x = rng.standard_normal((2, 5, 6, 7, 3)).astype(np.float32)
w = rng.standard_normal((2, 3, 2, 3, 4)).astype(np.float32)
save('x', x); save('w', w)
for name, strides, padding in [('conv_valid', [1, 1, 1, 1, 1], 'VALID'),
                               ('conv_same', [1, 1, 1, 1, 1], 'SAME'),
                               ('conv_same_s2', [1, 2, 1, 3, 1], 'SAME'),
                               ('conv_valid_s2', [1, 2, 2, 2, 1], 'VALID')]:
    save(name, tf.raw_ops.Conv3D(input=x, filter=w, strides=strides, padding=padding).numpy())

# TensorFlow's Eigen Conv3D rejects dilations; the dilated golden is the
# undilated Conv3D with the filter spread out by zeros (the same sum).
def spread(f, d):
    kd, kh, kw, i, o = f.shape
    g = np.zeros(((kd - 1) * d[0] + 1, (kh - 1) * d[1] + 1, (kw - 1) * d[2] + 1, i, o), f.dtype)
    g[::d[0], ::d[1], ::d[2]] = f
    return g
for name, dil, padding in [('conv_dil_valid', [2, 1, 3], 'VALID'), ('conv_dil_same', [1, 2, 2], 'SAME')]:
    save(name, tf.raw_ops.Conv3D(input=x, filter=spread(w, dil), strides=[1] * 5,
                                 padding=padding).numpy())

xd = rng.standard_normal((1, 3, 4, 3, 2))
wd = rng.standard_normal((1, 2, 2, 2, 1))
save('xd', xd); save('wd', wd)
save('conv_f64', tf.raw_ops.Conv3D(input=xd, filter=wd, strides=[1] * 5, padding='SAME').numpy())

for op in ['MaxPool3D', 'AvgPool3D']:
    f = getattr(tf.raw_ops, op)
    for name, ksize, strides, padding in [('valid', [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], 'VALID'),
                                          ('same', [1, 3, 2, 3, 1], [1, 2, 1, 2, 1], 'SAME'),
                                          ('same_s1', [1, 2, 3, 2, 1], [1, 1, 1, 1, 1], 'SAME')]:
        save(f'{op}_{name}', f(input=x, ksize=ksize, strides=strides, padding=padding).numpy())

# Conv3DBackpropInputV2 (Keras Conv3DTranspose): the gradient of the Conv3D
# cases above with respect to x, for a random out_backprop of each one's shape.
for name, strides, padding in [('valid', [1, 1, 1, 1, 1], 'VALID'),
                               ('same', [1, 1, 1, 1, 1], 'SAME'),
                               ('same_s2', [1, 2, 1, 3, 1], 'SAME'),
                               ('valid_s2', [1, 2, 2, 2, 1], 'VALID')]:
    dy = rng.standard_normal(
        tf.raw_ops.Conv3D(input=x, filter=w, strides=strides, padding=padding).shape).astype(np.float32)
    save(f'bpi_dy_{name}', dy)
    save(f'bpi_{name}', tf.raw_ops.Conv3DBackpropInputV2(
        input_sizes=np.array(x.shape, np.int32), filter=w, out_backprop=dy, strides=strides,
        padding=padding).numpy())
