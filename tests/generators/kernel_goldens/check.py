# Goldens for MatrixBandPart, Bucketize, EnsureShape, Assert and CheckNumerics (issue 35).
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/check.py
# Error messages are TensorFlow's own, with its "{{function_node ...}} " prefix and
# " [Op:...]" suffix cut, one "case<TAB>message" per line in messages.txt.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/check'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(35)

def save(name, a): np.save(f'{out}/{name}.npy', np.asarray(a))

x = rng.standard_normal((2, 4, 5)).astype(np.float32)
save('band_x', x)
for lo, up in [(0, -1), (-1, 0), (1, 2), (0, 0), (-1, -1), (4, 5), (2, 0)]:
    save(f'band_{lo}_{up}'.replace('-', 'm'),
         tf.raw_ops.MatrixBandPart(input=x, num_lower=np.int64(lo), num_upper=np.int64(up)).numpy())
xi = rng.integers(-9, 9, (3, 6, 2)).astype(np.int32)
save('band_xi', xi)
save('band_xi_1_0', tf.raw_ops.MatrixBandPart(input=xi, num_lower=np.int32(1),
                                              num_upper=np.int32(0)).numpy())

b = [-1.0, 0.0, 0.5, 0.5, 3.0]
xf = np.array([-2, -1, -0.5, 0, 0.25, 0.5, 0.75, 3, 4, np.inf, -np.inf, np.nan], np.float32)
save('bucket_xf', xf)
save('bucket_f', tf.raw_ops.Bucketize(input=xf, boundaries=b).numpy())
save('bucket_d', tf.raw_ops.Bucketize(input=xf.astype(np.float64) + 1e-9, boundaries=b).numpy())
xl = np.array([[-5, 0, 1], [2, 3, 16777217]], np.int64)
save('bucket_xl', xl)
save('bucket_l', tf.raw_ops.Bucketize(input=xl, boundaries=[0.0, 2.5, 16777216.5]).numpy())
save('bucket_i', tf.raw_ops.Bucketize(input=xl.astype(np.int32), boundaries=[0.0, 2.5]).numpy())

def message(f):
    try:
        f()
    except tf.errors.InvalidArgumentError as e:
        m = str(e).split('\n')[0]
        m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
        return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)
    raise AssertionError('no error')

messages = {
    'assert_mixed': lambda: tf.raw_ops.Assert(
        condition=False, data=[tf.constant('x > 0 failed'), tf.constant([1.5, 2.25, 3.0, 4.0, 5.0]),
                               tf.constant([[1, 2], [3, 4]]), tf.constant(True),
                               tf.constant(np.float32(1e-7))], summarize=3),
    'assert_all': lambda: tf.raw_ops.Assert(
        condition=False, data=[tf.constant(['a\nb', 'c']), tf.constant(0.1, tf.float64),
                               tf.constant(np.float16(0.1)), tf.constant([[[1, 2]], [[3, 4]]])],
        summarize=-1),
    'assert_cut3d': lambda: tf.raw_ops.Assert(
        condition=False, data=[tf.constant(np.arange(12, dtype=np.int64).reshape(2, 3, 2)),
                               tf.constant(np.zeros((0, 3), np.float32)),
                               tf.constant(np.float32(np.nan))], summarize=4),
    'assert_vector': lambda: tf.raw_ops.Assert(condition=[False], data=[tf.constant(1)]),
    'band_lower': lambda: tf.raw_ops.MatrixBandPart(input=tf.zeros([3, 4]), num_lower=4, num_upper=1),
    'band_upper': lambda: tf.raw_ops.MatrixBandPart(input=tf.zeros([3, 4]), num_lower=1, num_upper=5),
    'band_rank': lambda: tf.raw_ops.MatrixBandPart(input=tf.zeros([3]), num_lower=1, num_upper=1),
    'band_scalar': lambda: tf.raw_ops.MatrixBandPart(input=tf.zeros([3, 3]), num_lower=[1], num_upper=1),
    'bucket_unsorted': lambda: tf.raw_ops.Bucketize(input=tf.zeros([3]), boundaries=[1.0, 0.0]),
    'ensure_shape': lambda: tf.raw_ops.EnsureShape(input=tf.zeros([2, 3]), shape=[None, 4]),
}
# CheckNumerics{,V2}: which of NaN / -Inf / +Inf a tensor holds, in each dtype.
nf = {'nan': [1.0, np.nan], 'ninf': [-np.inf, 2.0], 'pinf': [np.inf], 'nan_pinf': [np.nan, np.inf, 0.0],
      'ninf_pinf': [-np.inf, np.inf], 'all': [np.inf, np.nan, -np.inf]}
for op in ('CheckNumerics', 'CheckNumericsV2'):
    for dt in (np.float32, np.float64, np.float16, tf.bfloat16.as_numpy_dtype):
        for case, values in nf.items():
            messages[f'{op}_{np.dtype(dt).name}_{case}'] = (
                lambda op=op, dt=dt, values=values: getattr(tf.raw_ops, op)(
                    tensor=tf.constant(np.array(values, dt)), message='layer 3 output'))
with open(f'{out}/messages.txt', 'w') as f:
    for name, fn in messages.items():
        f.write(f'{name}\t{message(fn)}\n')
