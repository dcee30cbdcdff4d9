# Goldens for the linear-algebra ops on the CPU, float32 and float64: MatrixInverse (adjoint),
# MatrixDeterminant, LogMatrixDeterminant, Cholesky, MatrixSolve (adjoint), MatrixTriangularSolve
# (lower, adjoint, broadcast batch dims) and SelfAdjointEigV2 (compute_v). Batched and single
# matrices, empty matrices, singular and non-positive-definite input, and every shape error.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/linalg.py
# Writes tests/data/kernels/linalg/linalg.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens): per case <name>, the string <name>.op, the inputs <name>.in0,
# <name>.in1, the attrs <name>.attr.<attr> (bool), and TensorFlow's outputs <name>.out0,
# <name>.out1 (not v of SelfAdjointEigV2 with compute_v false, which TensorFlow 2.21 leaves
# uninitialized; the upper triangle of a failed Cholesky, also left uninitialized, as zeros);
# where TensorFlow refuses the call, the string <name>.error instead of the outputs: its
# message, with its "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import struct
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/linalg'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(35)
records = []
KINDS = {np.dtype(np.float32): 'float32', np.dtype(np.float64): 'float64',
         np.dtype(np.int64): 'int64', np.dtype(np.int32): 'int32', np.dtype(bool): 'bool'}


def save(name, a):
    a = np.asarray(a)
    if a.dtype.kind in 'SU':
        kind, payload = 'string', [s.encode() for s in a.reshape(-1).tolist()]
    else:
        kind = KINDS[a.dtype]
        payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
    records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] + payload)


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


def case(name, op, inputs, **attrs):
    save(f'{name}.op', op)
    for i, x in enumerate(inputs):
        save(f'{name}.in{i}', x)
    for k, v in attrs.items():
        save(f'{name}.attr.{k}', np.bool_(v))
    args = dict(zip(ARGS[op], [tf.constant(x) for x in inputs]))
    try:
        y = getattr(tf.raw_ops, op)(**args, **attrs)
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        save(f'{name}.error', message(e))
        return
    ys = [t.numpy() for t in (y if isinstance(y, (list, tuple)) else [y])]
    if op == 'SelfAdjointEigV2' and not attrs['compute_v']:
        ys = ys[:1]  # TF 2.21 leaves v an uninitialized scalar
    if op == 'Cholesky' and ys[0].size:
        # A failed matrix's upper triangle is left uninitialized: stored as zeros.
        n = ys[0].shape[-1]
        failed = np.isnan(ys[0][..., :1, :1])
        ys[0] = np.where(failed & (np.triu(np.ones((n, n)), 1) > 0), 0, ys[0]).astype(ys[0].dtype)
    for i, t in enumerate(ys):
        save(f'{name}.out{i}', t)


ARGS = {'MatrixInverse': ['input'], 'MatrixDeterminant': ['input'],
        'LogMatrixDeterminant': ['input'], 'Cholesky': ['input'],
        'MatrixSolve': ['matrix', 'rhs'], 'MatrixTriangularSolve': ['matrix', 'rhs'],
        'SelfAdjointEigV2': ['input']}


def general(shape, dt):
    """Well-conditioned matrices: uniform entries plus n on the diagonal."""
    n = shape[-1]
    return (rng.uniform(-1, 1, shape) + n * np.eye(n)).astype(dt)


def spd(shape, dt):
    a = rng.uniform(-1, 1, shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dt)


def symmetric(shape, dt):
    a = rng.uniform(-2, 2, shape)
    return ((a + np.swapaxes(a, -1, -2)) / 2).astype(dt)


for dt in (np.float32, np.float64):
    s = np.dtype(dt).name
    # MatrixInverse
    for shape in [(1, 1), (3, 3), (2, 4, 4), (2, 3, 6, 6), (0, 0), (2, 0, 0), (0, 3, 3)]:
        x = general(shape, dt)
        for adj in (False, True):
            case(f'inv_{s}_{"x".join(map(str, shape))}_{int(adj)}', 'MatrixInverse', [x],
                 adjoint=adj)
    case(f'inv_{s}_singular', 'MatrixInverse', [np.array([[1, 2], [2, 4]], dt)], adjoint=False)
    case(f'inv_{s}_zero', 'MatrixInverse', [np.zeros((2, 3, 3), dt)], adjoint=False)
    case(f'inv_{s}_rank1', 'MatrixInverse', [np.ones((3,), dt)], adjoint=False)
    case(f'inv_{s}_square', 'MatrixInverse', [np.ones((2, 3), dt)], adjoint=False)
    # MatrixDeterminant, LogMatrixDeterminant: positive, negative, zero, overflowing
    dets = [general((3, 3), dt), general((2, 3, 5, 5), dt), np.zeros((0, 0), dt),
            np.zeros((2, 0, 0), dt), np.array([[0, 1], [1, 0]], dt),
            np.array([[1, 2], [2, 4]], dt), np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dt),
            np.diag(np.full(12, 1e30)).astype(dt), np.diag(np.full(12, 1e-30)).astype(dt),
            np.diag([-1, 2, -3, -4]).astype(dt), rng.uniform(-1, 1, (4, 7, 7)).astype(dt)]
    for i, x in enumerate(dets):
        case(f'det_{s}_{i}', 'MatrixDeterminant', [x])
        case(f'logdet_{s}_{i}', 'LogMatrixDeterminant', [x])
    for op, key in (('MatrixDeterminant', 'det'), ('LogMatrixDeterminant', 'logdet')):
        case(f'{key}_{s}_rank1', op, [np.ones((3,), dt)])
        case(f'{key}_{s}_square', op, [np.ones((2, 3, 4), dt)])
    # Cholesky: only the lower triangle is read; the upper holds noise
    for shape in [(1, 1), (4, 4), (2, 3, 3), (2, 2, 6, 6), (0, 0), (3, 0, 0)]:
        x = spd(shape, dt)
        x = x + np.triu(rng.uniform(-5, 5, shape), 1).astype(dt)
        case(f'chol_{s}_{"x".join(map(str, shape))}', 'Cholesky', [x])
    # Not positive definite: TensorFlow fills the failed matrix's lower triangle with NaN.
    notpd = np.stack([spd((3, 3), dt), np.diag([1, -1, 1]).astype(dt), spd((3, 3), dt)])
    case(f'chol_{s}_notpd', 'Cholesky', [notpd])
    case(f'chol_{s}_rank1', 'Cholesky', [np.ones((3,), dt)])
    case(f'chol_{s}_square', 'Cholesky', [np.ones((3, 2), dt)])
    # MatrixSolve
    for a, b in [((3, 3), (3, 2)), ((4, 4), (4, 1)), ((2, 5, 5), (2, 5, 3)),
                 ((2, 2, 3, 3), (2, 2, 3, 4)), ((0, 0), (0, 2)), ((3, 3), (3, 0)),
                 ((0, 2, 2), (0, 2, 2))]:
        x, y = general(a, dt), rng.uniform(-3, 3, b).astype(dt)
        for adj in (False, True):
            case(f'solve_{s}_{"x".join(map(str, a))}_{"x".join(map(str, b))}_{int(adj)}',
                 'MatrixSolve', [x, y], adjoint=adj)
    case(f'solve_{s}_singular', 'MatrixSolve',
         [np.array([[1, 2], [2, 4]], dt), np.ones((2, 1), dt)], adjoint=False)
    for i, (a, b) in enumerate([((3,), (3, 1)), ((3, 3), (3,)), ((3, 4), (3, 1)),
                                ((3, 3), (4, 1)), ((2, 3, 3), (3, 1)), ((2, 3, 3), (3, 3, 1))]):
        case(f'solve_{s}_bad{i}', 'MatrixSolve',
             [np.ones(a, dt), np.ones(b, dt)], adjoint=False)
    # MatrixTriangularSolve: the other triangle holds noise; batch dims broadcast
    for a, b in [((3, 3), (3, 2)), ((4, 4), (4, 1)), ((2, 5, 5), (2, 5, 3)),
                 ((2, 1, 3, 3), (4, 3, 2)), ((3, 3), (2, 2, 3, 2)), ((1, 3, 3), (3, 3, 1)),
                 ((0, 0), (0, 2)), ((3, 3), (3, 0)), ((0, 2, 2), (2, 2))]:
        x = general(a, dt) + rng.uniform(-9, 9, a).astype(dt) * (1 - np.eye(a[-1], dtype=dt))
        y = rng.uniform(-3, 3, b).astype(dt)
        for lower in (True, False):
            for adj in (False, True):
                case(f'trisolve_{s}_{"x".join(map(str, a))}_{"x".join(map(str, b))}_'
                     f'{int(lower)}{int(adj)}', 'MatrixTriangularSolve', [x, y],
                     lower=lower, adjoint=adj)
    for i, (a, b) in enumerate([((3,), (3, 1)), ((3, 3), (3,)), ((3, 4), (4, 1)),
                                ((3, 3), (4, 1)), ((2, 3, 3), (3, 3, 1))]):
        case(f'trisolve_{s}_bad{i}', 'MatrixTriangularSolve',
             [np.ones(a, dt), np.ones(b, dt)], lower=True, adjoint=False)
    # SelfAdjointEigV2
    for shape in [(1, 1), (4, 4), (2, 5, 5), (2, 2, 3, 3), (0, 0), (2, 0, 0)]:
        x = symmetric(shape, dt)
        for v in (True, False):
            case(f'eig_{s}_{"x".join(map(str, shape))}_{int(v)}', 'SelfAdjointEigV2', [x],
                 compute_v=v)
    case(f'eig_{s}_repeated', 'SelfAdjointEigV2', [np.diag([2, 1, 2, 3]).astype(dt)],
         compute_v=True)
    case(f'eig_{s}_rank1', 'SelfAdjointEigV2', [np.ones((3,), dt)], compute_v=True)
    case(f'eig_{s}_square', 'SelfAdjointEigV2', [np.ones((3, 2), dt)], compute_v=True)

with open(f'{out}/linalg.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(struct.pack('<I', len(field)) + field)
print(len(records), 'records,', os.path.getsize(f'{out}/linalg.rec'), 'bytes')
