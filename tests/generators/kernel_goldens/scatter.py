# Goldens for ScatterNd, TensorScatterAdd and TensorScatterUpdate: slices and
# single elements, duplicate indices (summed by ScatterNd/TensorScatterAdd),
# int32 and int64 indices.
# Run from the repo root: python -P tests/generators/kernel_goldens/scatter.py
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/scatter'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)

def save(name, a): np.save(f'{out}/{name}.npy', np.asarray(a))

# (name, indices, output shape, updates dtype)
cases = [
    ('elements', np.array([[0, 1], [2, 3], [0, 1], [1, 0]], np.int32), [3, 4], np.float32),
    ('rows', np.array([[2], [0], [2]], np.int64), [4, 3], np.float32),
    ('batched', np.array([[[1, 0], [0, 2]], [[1, 0], [1, 1]]], np.int32), [2, 3, 2], np.int32),
]
for name, idx, shape, dt in cases:
    ushape = idx.shape[:-1] + tuple(shape[idx.shape[-1]:])
    if dt == np.int32:
        upd = rng.integers(-9, 9, ushape).astype(dt)
        base = rng.integers(-9, 9, shape).astype(dt)
    else:
        upd = rng.standard_normal(ushape).astype(dt)
        base = rng.standard_normal(shape).astype(dt)
    save(f'{name}_indices', idx); save(f'{name}_updates', upd); save(f'{name}_tensor', base)
    save(f'{name}_scatter_nd', tf.raw_ops.ScatterNd(indices=idx, updates=upd,
                                                    shape=np.array(shape, idx.dtype)).numpy())
    save(f'{name}_add', tf.raw_ops.TensorScatterAdd(tensor=base, indices=idx, updates=upd).numpy())
    # TensorScatterUpdate's result is defined only without duplicates: keep the first of each.
    _, first = np.unique(idx.reshape(-1, idx.shape[-1]), axis=0, return_index=True)
    keep = np.sort(first)
    uidx = idx.reshape(-1, idx.shape[-1])[keep]
    uupd = upd.reshape((-1,) + ushape[idx.ndim - 1:])[keep]
    save(f'{name}_uindices', uidx); save(f'{name}_uupdates', uupd)
    save(f'{name}_update', tf.raw_ops.TensorScatterUpdate(tensor=base, indices=uidx, updates=uupd).numpy())
