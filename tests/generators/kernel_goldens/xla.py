# Goldens for the tf2xla ops jax2tf exports: XlaDotV2, XlaGather,
# XlaDynamicSlice, XlaDynamicUpdateSlice, XlaPad. Dimension numbers are
# written as serialized protos (*.pb) so the C++ test parses exactly what
# TensorFlow was given.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/xla.py
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import numpy as np, tensorflow as tf
from tensorflow.compiler.xla import xla_data_pb2 as xd
from tensorflow.compiler.tf2xla.ops import gen_xla_ops as xla
out = 'tests/data/kernels/xla'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)

def save(name, a): np.save(f'{out}/{name}.npy', np.asarray(a))
def save_pb(name, msg):
    with open(f'{out}/{name}.pb', 'wb') as f: f.write(msg.SerializeToString())

# XlaDotV2: (name, lhs shape, rhs shape, lhs_contract, rhs_contract, lhs_batch, rhs_batch, in, out)
dots = [
    ('dot_mm', (3, 4), (4, 5), [1], [0], [], [], np.float32, tf.float32),
    ('dot_bmm', (2, 3, 4), (2, 4, 5), [2], [1], [0], [0], np.float32, tf.float32),
    # batch and contracting dims in unusual places, two contracting dims.
    ('dot_perm', (4, 2, 3, 6), (3, 5, 2, 4), [0, 2], [3, 0], [1], [2], np.float32, tf.float32),
    ('dot_outer', (3,), (2,), [], [], [], [], np.float32, tf.float32),
    ('dot_int', (2, 3), (3, 2), [1], [0], [], [], np.int32, tf.int32),
    ('dot_mixed', (2, 3), (3, 4), [1], [0], [], [], np.float32, tf.float64),
]
for name, ls, rs, lc, rc, lb, rb, it, ot in dots:
    if it == np.int32:
        l = rng.integers(-9, 9, ls).astype(it); r = rng.integers(-9, 9, rs).astype(it)
    else:
        l = rng.standard_normal(ls).astype(it); r = rng.standard_normal(rs).astype(it)
    dn = xd.DotDimensionNumbers(lhs_contracting_dimensions=lc, rhs_contracting_dimensions=rc,
                                lhs_batch_dimensions=lb, rhs_batch_dimensions=rb)
    save(f'{name}_lhs', l); save(f'{name}_rhs', r); save_pb(f'{name}_dn', dn)
    save(name, xla.xla_dot_v2(lhs=l, rhs=r, dimension_numbers=dn.SerializeToString(),
                              precision_config='', preferred_element_type=ot).numpy())

# XlaGather: jax's x[idx] (take along axis 0), a 2-D point gather, and
# out-of-range starts (clamped).
op = rng.standard_normal((5, 4, 3)).astype(np.float32)
save('g_operand', op)
gathers = [
    ('g_take', np.array([[4], [0], [2]], np.int32),
     xd.GatherDimensionNumbers(offset_dims=[1, 2], collapsed_slice_dims=[0], start_index_map=[0],
                               index_vector_dim=1), [1, 4, 3]),
    ('g_points', np.array([[1, 3], [4, 0]], np.int64),
     xd.GatherDimensionNumbers(offset_dims=[1], collapsed_slice_dims=[0, 1], start_index_map=[0, 1],
                               index_vector_dim=1), [1, 1, 3]),
    ('g_window', np.array([[7, -2], [1, 1]], np.int32),
     xd.GatherDimensionNumbers(offset_dims=[0, 2, 3], collapsed_slice_dims=[], start_index_map=[2, 0],
                               index_vector_dim=0), [2, 3, 2]),
    ('g_implicit', np.array([[3, 9], [-1, 0]], np.int32),
     xd.GatherDimensionNumbers(offset_dims=[2], collapsed_slice_dims=[0, 2], start_index_map=[0],
                               index_vector_dim=2), [1, 4, 1]),
]
for name, idx, dn, sizes in gathers:
    save(f'{name}_idx', idx); save_pb(f'{name}_dn', dn); save(f'{name}_sizes', np.array(sizes, idx.dtype))
    save(name, xla.xla_gather(operand=op, start_indices=idx, slice_sizes=np.array(sizes, idx.dtype),
                              dimension_numbers=dn.SerializeToString(), indices_are_sorted=False).numpy())

# XlaDynamicSlice / XlaDynamicUpdateSlice with starts in range, past the end
# and negative (all clamped).
x = rng.standard_normal((4, 5, 3)).astype(np.float32)
save('ds_x', x)
upd = rng.standard_normal((2, 3, 3)).astype(np.float32)
save('dus_update', upd)
for name, starts, dt in [('in', [1, 2, 0], np.int32), ('past', [3, 9, 1], np.int64), ('neg', [-5, 1, -1], np.int32)]:
    save(f'ds_{name}', xla.xla_dynamic_slice(input=x, start_indices=np.array(starts, dt),
                                             size_indices=np.array([2, 3, 3], dt)).numpy())
    save(f'dus_{name}', xla.xla_dynamic_update_slice(input=x, update=upd, indices=np.array(starts, dt)).numpy())

# XlaPad: low/high (negative crops) and interior.
p = rng.integers(-50, 50, (3, 4)).astype(np.int32)
save('pad_x', p)
for name, low, high, interior in [('pad_plain', [1, 0], [2, 3], [0, 0]),
                                  ('pad_interior', [0, 2], [1, 0], [2, 1]),
                                  ('pad_negative', [-1, 1], [0, -2], [1, 0]),
                                  ('pad_crop_all', [-3, 0], [0, 0], [0, 0])]:
    save(name, xla.xla_pad(input=p, padding_value=np.int32(7), padding_low=np.array(low, np.int32),
                           padding_high=np.array(high, np.int32),
                           padding_interior=np.array(interior, np.int32)).numpy())
