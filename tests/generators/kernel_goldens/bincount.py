# Goldens for Bincount, DenseBincount and ReverseSequence.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/bincount.py
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/bincount'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)

def save(name, a): np.save(f'{out}/{name}.npy', np.asarray(a))

arr = rng.integers(0, 9, (40,)).astype(np.int32)   # some values >= size 7
w = rng.standard_normal((40,)).astype(np.float32)
save('arr', arr); save('w', w)
save('bincount_counts', tf.raw_ops.Bincount(arr=arr, size=7, weights=np.zeros((0,), np.float32)).numpy())
save('bincount_w', tf.raw_ops.Bincount(arr=arr, size=7, weights=w).numpy())
save('bincount_w_f64', tf.raw_ops.Bincount(arr=arr, size=10, weights=w.astype(np.float64)).numpy())

arr2 = rng.integers(0, 6, (3, 8)).astype(np.int64)
w2 = rng.integers(-5, 5, (3, 8)).astype(np.int32)
save('arr2', arr2); save('w2', w2)
for name, x, wt, size, binary in [
    ('dense1d', arr.astype(np.int64), np.zeros((0,), np.int64), 7, False),
    ('dense1d_w', arr, w, 8, False),
    ('dense1d_bin', arr, np.zeros((0,), np.float32), 5, True),
    ('dense1d_bin_w', arr, w, 5, True),
    ('dense2d', arr2, np.zeros((0,), np.int32), 5, False),
    ('dense2d_w', arr2, w2, 6, False),
    ('dense2d_bin', arr2, np.zeros((0,), np.float64), 4, True),
    ('dense2d_bin_w', arr2, w2, 7, True),
]:
    save(name, tf.raw_ops.DenseBincount(input=x, size=tf.constant(size, x.dtype), weights=wt,
                                        binary_output=binary).numpy())

x = rng.standard_normal((3, 5, 4)).astype(np.float32)
save('rs_x', x)
for name, lens, seq, batch, dt in [
    ('rs_s1_b0', [5, 0, 3], 1, 0, np.int64),
    ('rs_s2_b0', [4, 1, 2], 2, 0, np.int32),
    ('rs_s0_b1', [3, 2, 0, 1, 3], 0, 1, np.int32),
    ('rs_s0_b2', [1, 3, 2, 0], 0, 2, np.int64),
    ('rs_s2_b1', [4, 4, 0, 2, 3], 2, 1, np.int64),
]:
    save(name, tf.raw_ops.ReverseSequence(input=x, seq_lengths=np.array(lens, dt), seq_dim=seq,
                                          batch_dim=batch).numpy())
