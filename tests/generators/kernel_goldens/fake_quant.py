# Goldens for FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and
# FakeQuantWithMinMaxVarsPerChannel: values inside, below and above the range, exact ties
# and their float neighbours, NaN and infinities, num_bits 4/8/16, narrow_range, ranges that
# leave out 0 (nudged), min == max, min > max (Vars accepts it), channels with their own ranges.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/fake_quant.py
# Writes tests/data/kernels/fake_quant/fake_quant.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens): per case <name>, the float32 tensors <name>.x, .min, .max (Args'
# attrs too) and .y (TensorFlow's output), the string <name>.op, int64 <name>.num_bits and bool
# <name>.narrow_range; per refused call, the string message.<key>: TensorFlow's message, with
# its "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import struct
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/fake_quant'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(2077)
f32 = np.float32
records = []


def save(name, a):
    a = np.asarray(a)
    if a.dtype.kind in 'SU':
        kind, payload = 'string', [s.encode() for s in a.reshape(-1).tolist()]
    else:
        kind = {np.dtype(f32): 'float32', np.dtype(np.int64): 'int64', np.dtype(bool): 'bool'}[a.dtype]
        payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
    records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] + payload)


def values(lo, hi, num_bits, narrow, n):
    """n values for the range [lo, hi]: the grid's points, ties halfway between them and the
    floats either side of each tie, random values in and beyond the range, and the specials."""
    qmin, qmax = (1 if narrow else 0), 2 ** num_bits - 1
    lo, hi = f32(lo), f32(hi)
    if lo == hi or not np.isfinite(lo) or not np.isfinite(hi):
        scale, nmin = f32(1), lo if np.isfinite(lo) else f32(0)
    else:
        scale = f32((hi - lo) / f32(qmax - qmin))
        zp = np.clip(np.round(qmin - lo / scale), qmin, qmax)
        nmin = f32((qmin - zp) * scale)
    k = rng.integers(0, min(qmax - qmin, 300), 24).astype(f32)
    ties = (nmin + (k + f32(0.5)) * abs(scale)).astype(f32)
    grid = (nmin + k * abs(scale)).astype(f32)
    span = max(abs(hi - lo), f32(1e-3))
    rnd = rng.uniform(min(lo, hi) - span / 2, max(lo, hi) + span / 2, 30).astype(f32)
    specials = np.array([np.nan, np.nan, np.inf, -np.inf, 0.0, -0.0, lo, hi, nmin,
                         np.nextafter(lo, f32(-np.inf)), np.nextafter(hi, f32(np.inf))], f32)
    v = np.concatenate([ties, np.nextafter(ties, f32(np.inf)), np.nextafter(ties, f32(-np.inf)),
                        grid, rnd, specials])
    v = rng.permutation(v)
    return np.resize(v, n).astype(f32) if n > v.size else v[:n].astype(f32)


def case(name, op, x, mn, mx, num_bits, narrow):
    x, mn, mx = np.asarray(x, f32), np.asarray(mn, f32), np.asarray(mx, f32)
    if op == 'Args':
        y = tf.raw_ops.FakeQuantWithMinMaxArgs(inputs=x, min=float(mn), max=float(mx),
                                               num_bits=num_bits, narrow_range=narrow)
    elif op == 'Vars':
        y = tf.raw_ops.FakeQuantWithMinMaxVars(inputs=x, min=mn, max=mx, num_bits=num_bits,
                                               narrow_range=narrow)
    else:
        y = tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(inputs=x, min=mn, max=mx,
                                                         num_bits=num_bits, narrow_range=narrow)
    for part, a in (('x', x), ('min', mn), ('max', mx), ('y', y.numpy()),
                    ('op', f'FakeQuantWithMinMax{op}'), ('num_bits', np.int64(num_bits)),
                    ('narrow_range', np.bool_(narrow))):
        save(f'{name}.{part}', a)


ranges = [  # min, max, num_bits, narrow_range
    (-6, 6, 8, False), (-6, 6, 8, True), (-1, 1, 4, False), (-1, 1, 4, True),
    (-3, 5, 16, False), (-3, 5, 16, True),
    (0, 255, 8, False),        # scale 1: the ties are exact
    (-128, 127, 8, False),     # scale 1, zero point 128
    (0.5, 3, 8, False),        # leaves out 0: nudged to [0, 2.5]
    (-5, -1, 8, True),         # leaves out 0 from above: nudged to [-4, 0]
    (-2.3, 0.7, 4, False),     # a zero point rounded
    (-0.1, 20, 8, True), (-1e-6, 1e-6, 8, False), (-6, 6, 2, False),
]
for i, (lo, hi, bits, narrow) in enumerate(ranges):
    x = values(lo, hi, bits, narrow, 150)
    case(f'args{i}', 'Args', x, lo, hi, bits, narrow)
    case(f'vars{i}', 'Vars', x, lo, hi, bits, narrow)
# Only Vars takes these: TensorFlow's Args refuses min >= max.
for name, lo, hi in [('eq', 1, 1), ('zero', 0, 0), ('negzero', -0.0, 0.0), ('gt', 2, 1),
                     ('gt2', 1, -1), ('nanmin', np.nan, 1), ('infmin', -np.inf, 1)]:
    case(f'vars_{name}', 'Vars', values(-2, 2, 8, False, 40), lo, hi, 8, False)

channels = [(-6, 6), (0.5, 3), (-5, -1), (0, 0), (-2.3, 0.7), (1, 1), (2, 1), (-3, 5)]
for name, shape, bits, narrow in [('pc0', (7, 3, 8), 8, False), ('pc1', (5, 8), 4, True),
                                  ('pc2', (4, 2, 8), 16, False), ('pc3', (8,), 8, True),
                                  ('pc4', (2, 3, 3, 8), 2, False), ('pc5', (40, 8), 8, False)]:
    rows = int(np.prod(shape[:-1]))
    x = np.stack([values(lo, hi, bits, narrow, rows) for lo, hi in channels], axis=-1)
    mn, mx = zip(*channels)
    case(name, 'VarsPerChannel', x.reshape(shape), mn, mx, bits, narrow)


def message(fn):
    try:
        fn()
    except tf.errors.InvalidArgumentError as e:
        m = str(e).split('\n')[0]
        m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
        return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)
    raise AssertionError('no error')


z, s = tf.zeros([3, 4]), lambda v: tf.constant(v, tf.float32)
messages = {
    'args_equal': lambda: tf.raw_ops.FakeQuantWithMinMaxArgs(inputs=z, min=1.0, max=1.0),
    'args_greater': lambda: tf.raw_ops.FakeQuantWithMinMaxArgs(inputs=z, min=2.5, max=-0.1),
    'args_bits1': lambda: tf.raw_ops.FakeQuantWithMinMaxArgs(inputs=z, num_bits=1),
    'args_bits17': lambda: tf.raw_ops.FakeQuantWithMinMaxArgs(inputs=z, num_bits=17),
    'vars_bits': lambda: tf.raw_ops.FakeQuantWithMinMaxVars(inputs=z, min=s(-1), max=s(1),
                                                            num_bits=17),
    'vars_min_rank': lambda: tf.raw_ops.FakeQuantWithMinMaxVars(inputs=z, min=s([-1]), max=s(1)),
    'vars_max_rank': lambda: tf.raw_ops.FakeQuantWithMinMaxVars(inputs=z, min=s(-1), max=s([1])),
    'pc_bits': lambda: tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(
        inputs=z, min=s([-1] * 4), max=s([1] * 4), num_bits=1),
    'pc_min_rank': lambda: tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(
        inputs=z, min=s(-1), max=s([1] * 4)),
    'pc_max_rank': lambda: tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(
        inputs=z, min=s([-1] * 4), max=s([[1] * 4])),
    'pc_min_size': lambda: tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(
        inputs=z, min=s([-1] * 3), max=s([1] * 4)),
    'pc_max_size': lambda: tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(
        inputs=z, min=s([-1] * 4), max=s([1] * 5)),
}
for key, fn in messages.items():
    save(f'message.{key}', message(fn))
with open(f'{out}/fake_quant.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(struct.pack('<I', len(field)) + field)
