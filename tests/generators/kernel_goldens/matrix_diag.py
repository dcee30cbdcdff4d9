# Goldens for MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3} and MatrixSetDiag{,V2,V3}: a single
# diagonal and bands k = [lower, upper] above, below and across the main diagonal, square, wide
# and tall matrices, num_rows / num_cols given or not, padding values, the four align values,
# batch dims, empty shapes, several dtypes, and every error TensorFlow's kernels give.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/matrix_diag.py
# Writes tests/data/kernels/matrix_diag/matrix_diag.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens): per case <name>, the string <name>.op, the inputs <name>.in0,
# <name>.in1, ..., the string <name>.attr.align (V3 only), and TensorFlow's output <name>.out0;
# where TensorFlow refuses the call, the string <name>.error instead: its message, with its
# "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import struct
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/matrix_diag'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3535)
records = []
KINDS = {np.dtype(np.float32): 'float32', np.dtype(np.float64): 'float64',
         np.dtype(np.int64): 'int64', np.dtype(np.int32): 'int32', np.dtype(bool): 'bool',
         np.dtype(np.uint8): 'uint8', np.dtype(np.int8): 'int8', np.dtype(np.int16): 'int16',
         np.dtype(np.uint16): 'uint16'}
ARGS = {'MatrixDiag': ['diagonal'], 'MatrixDiagPart': ['input'],
        'MatrixSetDiag': ['input', 'diagonal'],
        'MatrixDiagV2': ['diagonal', 'k', 'num_rows', 'num_cols', 'padding_value'],
        'MatrixDiagPartV2': ['input', 'k', 'padding_value'],
        'MatrixSetDiagV2': ['input', 'diagonal', 'k']}
for v in ('MatrixDiag', 'MatrixDiagPart', 'MatrixSetDiag'):
    ARGS[v + 'V3'] = ARGS[v + 'V2']


def save(name, a):
    a = np.asarray(a)
    if a.dtype.kind in 'SU':
        kind, payload = 'string', [s.encode() for s in a.reshape(-1).tolist()]
    else:
        kind = KINDS[a.dtype]
        payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
    records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] + payload)


def message(e):
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', str(e))
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m, flags=re.S)


count = 0


def case(op, inputs, align=None):
    global count
    name = f'c{count:03d}'
    count += 1
    save(f'{name}.op', op)
    inputs = [np.asarray(x) for x in inputs]
    for i, x in enumerate(inputs):
        save(f'{name}.in{i}', x)
    attrs = {}
    if align is not None:
        attrs['align'] = align
        save(f'{name}.attr.align', align)
    try:
        y = getattr(tf.raw_ops, op)(**dict(zip(ARGS[op], inputs)), **attrs)
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        save(f'{name}.error', message(e))
        return
    save(f'{name}.out0', y.numpy())


def values(shape, dt):
    if dt == bool:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dt).kind in 'iu':
        return rng.integers(1, 100, shape).astype(dt)
    return rng.uniform(-9, 9, shape).astype(dt)


i32 = np.int32
ALIGNS = ['RIGHT_LEFT', 'LEFT_RIGHT', 'LEFT_LEFT', 'RIGHT_RIGHT']
# The V1 ops: main diagonal.
for dt in (np.float32, np.int32, bool):
    case('MatrixDiag', [values((4,), dt)])
    case('MatrixDiag', [values((2, 3), dt)])
    case('MatrixDiagPart', [values((3, 3), dt)])
    case('MatrixDiagPart', [values((2, 3, 5), dt)])
    case('MatrixDiagPart', [values((2, 5, 3), dt)])
    case('MatrixSetDiag', [values((2, 3, 4), dt), values((2, 3), dt)])
case('MatrixDiag', [np.zeros((0,), np.float32)])
case('MatrixDiag', [np.zeros((2, 0), np.float32)])
case('MatrixDiagPart', [np.zeros((0, 3), np.float32)])
case('MatrixSetDiag', [np.zeros((0, 3, 3), np.float32), np.zeros((0, 3), np.float32)])
# MatrixDiagPart V2/V3 on square, wide and tall matrices; every band, align and padding.
bands = [0, 1, -1, [0, 0], [-1, 1], [-2, 0], [1, 3], [-3, -1], [-2, 2]]
for shape in [(4, 4), (2, 4, 6), (6, 4)]:
    for k in bands:
        kk = np.asarray(k, i32)
        case('MatrixDiagPartV2', [values(shape, np.int64), kk, np.int64(7)])
        for align in ALIGNS:
            case('MatrixDiagPartV3', [values(shape, np.float32), kk, np.float32(-1)], align)
# MatrixDiag V2/V3: the band of a matrix, given and inferred num_rows / num_cols.
for (rows, cols) in [(4, 4), (4, 6), (6, 4)]:
    for k in bands:
        kk = np.asarray(k, i32)
        lo, hi = (k, k) if np.ndim(k) == 0 else tuple(k)
        if not (-rows < lo < cols and -rows < hi < cols):
            continue
        for dt in ((np.float64, np.int8, np.uint16, bool) if k in (1, [-2, 2]) else ()):
            m = values((rows, cols), dt)
            d = tf.raw_ops.MatrixDiagPartV3(input=m, k=kk, padding_value=np.zeros((), dt),
                                            align='RIGHT_LEFT').numpy()
            pad = np.asarray(True if dt == bool else 5, dt)
            case('MatrixDiagV3', [d, kk, i32(rows), i32(cols), pad], 'RIGHT_LEFT')
        m = values((rows, cols), np.float32)
        for align in ALIGNS:
            d = tf.raw_ops.MatrixDiagPartV3(input=m, k=kk, padding_value=np.float32(0),
                                            align=align).numpy()
            case('MatrixDiagV3', [d, kk, i32(rows), i32(cols), np.float32(-2)], align)
            case('MatrixDiagV3', [d, kk, i32(-1), i32(-1), np.float32(0)], align)
            case('MatrixSetDiagV3', [values((rows, cols), np.float32), d, kk], align)
        case('MatrixDiagV3', [d, kk, i32(rows), i32(-1), np.float32(0)], 'LEFT_RIGHT')
        case('MatrixDiagV3', [d, kk, i32(-1), i32(cols), np.float32(0)], 'RIGHT_RIGHT')
        m = values((2, rows, cols), np.float32)
        d = tf.raw_ops.MatrixDiagPartV2(input=m, k=kk, padding_value=np.float32(0)).numpy()
        case('MatrixDiagV2', [d, kk, i32(rows), i32(cols), np.float32(1)])
        case('MatrixDiagV2', [d, kk, i32(-1), i32(-1), np.float32(1)])
        case('MatrixSetDiagV2', [values((2, rows, cols), np.float32), d, kk])
        for dt in ((np.int16, np.uint8, bool, np.float64) if k in (-1, [-2, 2]) else ()):
            x = values((rows, cols), dt)
            d = tf.raw_ops.MatrixDiagPartV3(input=values((rows, cols), dt), k=kk,
                                            padding_value=np.zeros((), dt)).numpy()
            case('MatrixSetDiagV3', [x, d, kk], 'LEFT_RIGHT')
# tf.linalg.diag with a bigger num_rows: wider output than the band needs.
case('MatrixDiagV3', [values((3,), np.float32), i32(1), i32(5), i32(-1), np.float32(0)],
     'RIGHT_LEFT')
case('MatrixDiagV3', [values((3,), np.float32), i32(-1), i32(-1), i32(6), np.float32(0)],
     'RIGHT_LEFT')
case('MatrixDiagV3', [values((2, 3), np.float32), i32(0), i32(3), i32(7), np.float32(9)],
     'RIGHT_LEFT')
# Empty shapes.
case('MatrixDiagPartV3', [np.zeros((2, 0, 3), np.float32), i32(0), np.float32(0)], 'RIGHT_LEFT')
case('MatrixDiagPartV3', [np.zeros((0, 3, 3), np.float32), np.asarray([-1, 1], i32),
                          np.float32(0)], 'RIGHT_LEFT')
case('MatrixDiagV3', [np.zeros((0, 3), np.float32), i32(0), i32(-1), i32(-1), np.float32(0)],
     'RIGHT_LEFT')
case('MatrixSetDiagV3', [np.zeros((2, 0, 3), np.float32), np.zeros((2, 0), np.float32), i32(0)],
     'RIGHT_LEFT')
# Errors.
x, f0 = values((3, 4), np.float32), np.float32(0)
for op_inputs in [
        ('MatrixDiagPartV3', [x, np.zeros((2, 2), i32), f0]),
        ('MatrixDiagPartV3', [x, np.asarray([1, 2, 3], i32), f0]),
        ('MatrixDiagPartV3', [values((4,), np.float32), i32(0), f0]),
        ('MatrixDiagPartV3', [x, i32(4), f0]),
        ('MatrixDiagPartV3', [x, np.asarray([-4, 4], i32), f0]),
        ('MatrixDiagPartV3', [x, i32(-3), f0]),
        ('MatrixDiagPartV3', [x, np.asarray([-1, 4], i32), f0]),
        ('MatrixDiagPartV3', [x, np.asarray([2, 1], i32), f0]),
        ('MatrixDiagV3', [np.float32(1), i32(0), i32(-1), i32(-1), f0]),
        ('MatrixDiagV3', [values((2, 3), np.float32), np.asarray([1, 0], i32), i32(-1), i32(-1),
                          f0]),
        ('MatrixDiagV3', [values((2, 3), np.float32), np.asarray([0, 2], i32), i32(-1), i32(-1),
                          f0]),
        ('MatrixDiagV3', [values((3,), np.float32), i32(0), i32(2), i32(-1), f0]),
        ('MatrixDiagV3', [values((3,), np.float32), i32(0), i32(-1), i32(2), f0]),
        ('MatrixDiagV3', [values((3,), np.float32), i32(1), i32(5), i32(5), f0]),
        ('MatrixDiagV3', [values((3,), np.float32), np.zeros((1, 1), i32), i32(-1), i32(-1),
                          f0]),
        ('MatrixSetDiagV3', [x, values((3,), np.float32), np.zeros((0,), i32)]),
        ('MatrixSetDiagV3', [x, values((3,), np.float32), np.zeros((2, 1), i32)]),
        ('MatrixSetDiagV3', [values((4,), np.float32), values((3,), np.float32), i32(0)]),
        ('MatrixSetDiagV3', [x, np.float32(1), i32(0)]),
        ('MatrixSetDiagV3', [x, values((3,), np.float32), i32(-3)]),
        ('MatrixSetDiagV3', [x, values((3,), np.float32), i32(4)]),
        ('MatrixSetDiagV3', [x, values((3,), np.float32), np.asarray([1, 0], i32)]),
        ('MatrixSetDiagV3', [x, values((3, 3), np.float32), np.asarray([0, 1], i32)]),
        ('MatrixSetDiagV3', [x, values((4,), np.float32), i32(0)]),
        ('MatrixSetDiagV3', [values((2, 3, 4), np.float32), values((3, 3), np.float32), i32(0)]),
        ('MatrixDiagPart', [values((4,), np.float32)]),
        ('MatrixSetDiag', [x, values((4,), np.float32)])]:
    op, inputs = op_inputs
    case(op, inputs, 'RIGHT_LEFT' if op.endswith('V3') else None)

with open(f'{out}/matrix_diag.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(struct.pack('<I', len(field)) + field)
print(count, 'cases,', os.path.getsize(f'{out}/matrix_diag.rec'), 'bytes')
