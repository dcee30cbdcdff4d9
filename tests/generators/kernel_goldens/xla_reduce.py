# A tiny SavedModel of XlaReduceWindow and XlaReduce (the reducer is a
# function attr, so the ops are tested through a loaded model), with its
# inputs and TensorFlow's outputs as .npy. Reducers: common ops (the kernel's
# fast path) and multi-node bodies (the kernel calls the function).
# Run from the repo root: python -P tests/generators/kernel_goldens/xla_reduce.py
import os, shutil
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import numpy as np, tensorflow as tf
from tensorflow.compiler.tf2xla.python import xla
out = 'tests/data/kernels/xla_reduce'
shutil.rmtree(out, ignore_errors=True); os.makedirs(out)
rng = np.random.default_rng(0)

def reducer(fn, dtype):
    s = tf.TensorSpec([], dtype)
    return tf.function(fn).get_concrete_function(s, s)

f32, i32, f16 = tf.float32, tf.int32, tf.float16
custom_max = lambda a, b: tf.where(a > b, a, b)      # Greater + Select
custom_add = lambda a, b: tf.math.subtract(a, -b)   # Neg + Sub

def model(x, y, h):
    ninf = np.float32(-np.inf)
    return {
        'rw_max': xla.reduce_window(x, ninf, reducer(tf.math.maximum, f32), [2, 2], [1, 2],
                                    padding=[[0, 1], [1, 0]]),
        'rw_sum_dilated': xla.reduce_window(x, np.float32(0), reducer(tf.math.add, f32), [2, 3],
                                            [2, 1], base_dilations=[2, 1], window_dilations=[1, 2],
                                            padding=[[1, 1], [2, 0]]),
        'rw_custom_max': xla.reduce_window(x, ninf, reducer(custom_max, f32), [3, 2], [1, 1]),
        'rw_int_mul': xla.reduce_window(y, np.int32(1), reducer(tf.math.multiply, i32), [1, 2, 2],
                                        [1, 1, 2]),
        'rw_half_min': xla.reduce_window(h, np.float16(np.inf), reducer(tf.math.minimum, f16),
                                         [2, 2], [2, 1], padding=[[0, 0], [1, 1]]),
        'r_int_min': xla.reduce(y, np.int32(2**31 - 1), [0, 2], reducer(tf.math.minimum, i32)),
        'r_sum': xla.reduce(x, np.float32(0.5), [1], reducer(tf.math.add, f32)),
        'r_custom_add': xla.reduce(x, np.float32(0), [0, 1], reducer(custom_add, f32)),
    }

m = tf.Module()
m.f = tf.function(model, input_signature=[tf.TensorSpec([3, 5], f32), tf.TensorSpec([2, 3, 4], i32),
                                          tf.TensorSpec([4, 3], f16)])
inputs = {'x': rng.standard_normal((3, 5)).astype(np.float32),
          'y': rng.integers(-4, 5, (2, 3, 4)).astype(np.int32),
          'h': rng.standard_normal((4, 3)).astype(np.float16)}
outputs = m.f(**inputs)
tf.saved_model.save(m, f'{out}/model', signatures={'serving_default': m.f})
shutil.rmtree(f'{out}/model/assets', ignore_errors=True)
for k, v in inputs.items(): np.save(f'{out}/in_{k}.npy', v)
for k, v in outputs.items(): np.save(f'{out}/out_{k}.npy', v.numpy())
