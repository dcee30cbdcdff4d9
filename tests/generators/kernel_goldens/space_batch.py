# Goldens for SpaceToBatchND, BatchToSpaceND, SpaceToDepth, DepthToSpace.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/space_batch.py
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/space_batch'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)

def save(name, a): np.save(f'{out}/{name}.npy', np.asarray(a))

# SpaceToBatchND cases: (name, input shape, block_shape, paddings, index dtype).
x4 = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
save('x4', x4)
x3 = rng.integers(-100, 100, (3, 7, 2)).astype(np.int32)
save('x3', x3)
x5 = rng.standard_normal((1, 2, 3, 4, 2)).astype(np.float32)
save('x5', x5)
cases = [
    ('s2b_2d', 'x4', x4, [2, 3], [[1, 0], [0, 0]], tf.int32),
    ('s2b_2d_pad', 'x4', x4, [2, 2], [[1, 2], [3, 1]], tf.int64),
    ('s2b_1d', 'x3', x3, [3], [[1, 1]], tf.int32),
    ('s2b_1d_rest', 'x4', x4, [5], [[0, 0]], tf.int64),
    ('s2b_3d', 'x5', x5, [2, 3, 2], [[0, 0], [1, 2], [0, 0]], tf.int32),
    ('s2b_m0', 'x3', x3, np.zeros((0,), np.int32), np.zeros((0, 2), np.int32), tf.int32),
]
for name, src, x, block, pads, it in cases:
    y = tf.raw_ops.SpaceToBatchND(input=x, block_shape=tf.constant(block, it),
                                  paddings=tf.constant(pads, it)).numpy()
    save(name, y)
    # BatchToSpaceND with the same block and crops = paddings round-trips.
    back = tf.raw_ops.BatchToSpaceND(input=y, block_shape=tf.constant(block, it),
                                     crops=tf.constant(pads, it)).numpy()
    assert np.array_equal(back, x)
# BatchToSpaceND on its own with crops that are not a padding.
b2s_in = rng.standard_normal((8, 3, 2, 2)).astype(np.float32)
save('b2s_in', b2s_in)
save('b2s_crop', tf.raw_ops.BatchToSpaceND(input=b2s_in, block_shape=tf.constant([2, 4], tf.int64),
                                           crops=tf.constant([[1, 2], [3, 0]], tf.int64)).numpy())

# SpaceToDepth / DepthToSpace.
d_in = rng.standard_normal((2, 4, 6, 3)).astype(np.float32)
save('d_in', d_in)
save('s2d_2', tf.raw_ops.SpaceToDepth(input=d_in, block_size=2).numpy())
d2_in = rng.integers(0, 255, (1, 2, 3, 18)).astype(np.uint8)
save('d2_in', d2_in)
save('d2s_3', tf.raw_ops.DepthToSpace(input=d2_in, block_size=3).numpy())

# TF1 SpaceToBatch / BatchToSpace (4-D, square block_size attr).
save('s2b_v1', tf.raw_ops.SpaceToBatch(input=x4, paddings=tf.constant([[1, 0], [0, 2]], tf.int64),
                                       block_size=2).numpy())
save('b2s_v1', tf.raw_ops.BatchToSpace(input=b2s_in, crops=tf.constant([[0, 1], [1, 1]], tf.int32),
                                       block_size=2).numpy())
