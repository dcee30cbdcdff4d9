# Goldens for EditDistance (issue 35): tf.edit_distance on sparse hypothesis and truth.
# Run from the repo root:
#   TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/edit_distance.py
# Writes tests/data/kernels/text/edit_distance.rec in the layout of text.py: per case <name>.op,
# <name>.attrs, <name>.in0..in5 (hypothesis indices, values, shape, truth indices, values,
# shape), <name>.out0 or <name>.error. Each case runs in a tf.function of its own (TensorFlow
# 2.21's eager kernel cache can reuse a kernel made for other dtypes).
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/text'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3542)
records = []
KINDS = {np.dtype(np.int64): 'int64', np.dtype(np.int32): 'int32', np.dtype(np.float32): 'float32'}


def save(name, a):
    if isinstance(a, str):
        a = a.encode()
    if isinstance(a, bytes):
        records.append([name.encode(), b'string', b'', a])
        return
    a = np.asarray(a)
    if a.dtype.kind in 'SO':
        records.append([name.encode(), b'string', ' '.join(map(str, a.shape)).encode()] +
                       [bytes(s) for s in a.reshape(-1).tolist()])
        return
    records.append([name.encode(), KINDS[a.dtype].encode(), ' '.join(map(str, a.shape)).encode(),
                    a.astype(a.dtype.newbyteorder('<')).tobytes()])


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    m = re.sub(r'^Graph execution error:\s*', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


def sparse(batch_shape, max_len, values, fill=0.8):
    """Random ragged sequences as sparse (indices sorted row-major, values, dense shape)."""
    idx, val = [], []
    for g in np.ndindex(*batch_shape):
        n = 0 if rng.random() > fill else int(rng.integers(1, max_len + 1))
        for t in range(n):
            idx.append(list(g) + [t])
            val.append(values[int(rng.integers(0, len(values)))])
    rank = len(batch_shape) + 1
    return (np.array(idx, np.int64).reshape(-1, rank), np.array(val),
            np.array(list(batch_shape) + [max_len], np.int64))


def case(name, h, t, normalize):
    save(f'{name}.op', 'EditDistance')
    save(f'{name}.attrs', f'normalize={int(normalize)}')
    for i, v in enumerate(list(h) + list(t)):
        save(f'{name}.in{i}', v)
    try:
        tf.raw_ops.EditDistance(  # TensorFlow's refusals, eagerly
            hypothesis_indices=h[0], hypothesis_values=h[1], hypothesis_shape=h[2],
            truth_indices=t[0], truth_values=t[1], truth_shape=t[2], normalize=normalize)
        y = tf.function(lambda a, b: tf.raw_ops.EditDistance(
            hypothesis_indices=a[0], hypothesis_values=a[1], hypothesis_shape=a[2],
            truth_indices=b[0], truth_values=b[1], truth_shape=b[2], normalize=normalize))(h, t)
    except (tf.errors.InvalidArgumentError, tf.errors.InternalError) as e:
        save(f'{name}.error', message(e))
        save(f'{name}.code', 'internal' if isinstance(e, tf.errors.InternalError) else 'invalid')
        return
    save(f'{name}.out0', y.numpy())


alphabets = {'int64': np.arange(4, dtype=np.int64), 'int32': np.arange(3, dtype=np.int32),
             'string': np.array([b'a', b'bc', b'', b'd'], dtype=object),
             'float32': np.array([0.5, -0.0, 0.0, 2.0], np.float32)}
for kind, alphabet in alphabets.items():
    for batch in ([5], [2, 3]):
        h = sparse(batch, 6, alphabet)
        t = sparse([b + 1 for b in batch] if kind == 'int64' else batch, 5, alphabet)
        for normalize in (False, True):
            case(f'ed_{kind}_{len(batch)}_{int(normalize)}', h, t, normalize)
hi, hv, hs = sparse([3], 4, alphabets['int64'])
ti, tv, ts = sparse([3], 4, alphabets['int64'])
case('bad_cols', (hi[:, :1], hv, hs), (ti, tv, ts), True)
case('bad_values', (hi, hv[:-1], hs), (ti, tv, ts), True)
case('bad_rank1', (hi[:, :1], hv, hs[:1]), (ti[:, :1], tv, ts[:1]), True)
case('bad_ranks', (hi, hv, hs), (np.zeros((0, 3), np.int64), tv[:0], np.array([3, 4, 4])), True)
case('bad_outside', (hi + 7, hv, hs), (ti, tv, ts), True)

with open(f'{out}/edit_distance.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/edit_distance.rec'), 'bytes')
