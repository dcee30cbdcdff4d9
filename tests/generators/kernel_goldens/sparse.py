# Goldens for the sparse ops (SparseFillEmptyRows, SparseReshape, SparseReorder, SparseConcat,
# SparseSlice, SparseAdd, SparseTensorDenseAdd, SparseReduceSum, SparseSegmentSum/Mean/SqrtN and
# their WithNumSegments forms, SparseToDense, SparseTensorDenseMatMul, DynamicPartition,
# DynamicStitch, ParallelDynamicStitch): tests/kernels/
# sparse_ops_test.cc. Error messages are TensorFlow's own, with its "{{function_node ...}} "
# prefix and " [Op:...]" suffix cut, one "case<TAB>message" per line in messages.txt (a newline
# in a message is written as the two characters \n).
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/sparse.py
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/sparse'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(35)
raw = tf.raw_ops


def save(name, a):
    a = np.asarray(a)
    if a.dtype.name == 'bfloat16':  # .npy has no bfloat16: stored as float32 (exact)
        a = a.astype(np.float32)
    if a.dtype == object or a.dtype.kind == 'S':  # strings: .strings, flat (4-byte length, bytes)
        with open(f'{out}/{name}.strings', 'wb') as f:
            for v in a.reshape(-1):
                f.write(len(v).to_bytes(4, 'little') + v)
        return
    np.save(f'{out}/{name}.npy', a)


def i64(a): return np.array(a, np.int64)


# --- SparseFillEmptyRows: empty rows between, before and after; rows out of order; full and
# ordered (passed through); full but out of order; rank 3; strings; nothing at all.
fill_cases = {
    'gaps': (i64([[1, 1], [1, 3], [3, 0], [3, 2]]), np.float32([1, 2, 3, 4]), i64([6, 4]),
             np.float32(-1)),
    'unordered': (i64([[3, 0], [1, 1], [3, 1], [1, 0], [4, 3], [1, 2]]),
                  np.float32([1, 2, 3, 4, 5, 6]), i64([5, 4]), np.float32(9)),
    'full': (i64([[0, 0], [1, 2], [1, 3], [2, 1]]), np.float32([1, 2, 3, 4]), i64([3, 4]),
             np.float32(0)),
    'full_unordered': (i64([[1, 0], [0, 2], [2, 1], [0, 1]]), np.float32([1, 2, 3, 4]),
                       i64([3, 4]), np.float32(0)),
    'rank3': (i64([[0, 1, 2], [2, 0, 1], [2, 1, 1]]), np.int64([7, 8, 9]), i64([4, 2, 3]),
              np.int64(-5)),
    'strings': (i64([[1, 0], [1, 1]]), np.array([b'a', b'bc'], object), i64([3, 2]),
                np.array(b'empty', object)),
    'none': (np.zeros((0, 2), np.int64), np.zeros((0,), np.int32), i64([3, 5]), np.int32(4)),
    'zero_rows': (np.zeros((0, 2), np.int64), np.zeros((0,), np.float32), i64([0, 5]),
                  np.float32(4)),
}
for name, (ind, val, shape, dflt) in fill_cases.items():
    r = raw.SparseFillEmptyRows(indices=ind, values=val, dense_shape=shape, default_value=dflt)
    for k, v in dict(ind=ind, val=val, shape=shape, dflt=dflt, out_ind=r[0], out_val=r[1],
                     empty=r[2], rmap=r[3]).items():
        save(f'fill_{name}_{k}', v)

# --- SparseReshape: -1 inferred, same shape (passed through), rank changes, empty tensors.
ri = i64([[0, 0, 1], [0, 2, 3], [1, 1, 0], [1, 2, 2]])
save('reshape_ind', ri)
reshape_cases = {
    'm1': ([2, 3, 4], [6, -1]), 'flat': ([2, 3, 4], [-1]), 'same': ([2, 3, 4], [2, 3, 4]),
    'more': ([2, 3, 4], [2, 2, 3, 2]), 'first_m1': ([2, 3, 4], [-1, 4, 3]),
}
for name, (shape, new) in reshape_cases.items():
    r = raw.SparseReshape(input_indices=ri, input_shape=i64(shape), new_shape=i64(new))
    save(f'reshape_{name}_ind', r[0]); save(f'reshape_{name}_shape', r[1])
r = raw.SparseReshape(input_indices=np.zeros((0, 2), np.int64), input_shape=i64([0, 3]),
                      new_shape=i64([3, 0, 5]))
save('reshape_empty_ind', r[0]); save('reshape_empty_shape', r[1])

# --- Sparse segment reductions: segments of 1 to 12 rows (every branch of TensorFlow's
# unrolled sum; Mean and SqrtN multiply by 1/n below 10 rows and divide from 10), gaps between
# segments, indices repeated and in any order.
lengths = [3, 1, 2, 0, 4, 5, 6, 0, 7, 8, 9, 10, 11, 12]
seg = np.concatenate([np.full(n, i) for i, n in enumerate(lengths)]).astype(np.int32)
nidx = len(seg)
sd = rng.standard_normal((20, 3)).astype(np.float32)
sidx = rng.integers(0, 20, (nidx,)).astype(np.int32)
sdi = rng.integers(-1000, 1000, (20, 3)).astype(np.int32)
sd8 = rng.integers(-128, 128, (20, 3)).astype(np.int8)  # sums wrap
sdu8 = rng.integers(0, 256, (20, 3)).astype(np.uint8)
sd3 = rng.standard_normal((20, 2, 2)).astype(np.float32)
for n, v in dict(seg=seg, sd=sd, sidx=sidx, sdi=sdi, sd8=sd8, sdu8=sdu8, sd3=sd3).items():
    save(n, v)
for op in ['SparseSegmentSum', 'SparseSegmentMean', 'SparseSegmentSqrtN']:
    f = getattr(raw, op)
    fn = getattr(raw, op + 'WithNumSegments')
    save(f'{op}_f32', f(data=sd, indices=sidx, segment_ids=seg))
    save(f'{op}_f64', f(data=sd.astype(np.float64), indices=sidx.astype(np.int64),
                        segment_ids=seg.astype(np.int64)))
    save(f'{op}_f16', f(data=sd.astype(np.float16), indices=sidx, segment_ids=seg.astype(np.int64)))
    save(f'{op}_bf16', f(data=tf.cast(sd, tf.bfloat16), indices=sidx.astype(np.int64),
                         segment_ids=seg))
    save(f'{op}_3d', f(data=sd3, indices=sidx, segment_ids=seg))
    save(f'{op}_n20', fn(data=sd, indices=sidx, segment_ids=seg, num_segments=20))
    save(f'{op}_n20_64', fn(data=sd, indices=sidx.astype(np.int64), segment_ids=seg,
                            num_segments=np.int64(20)))
    save(f'{op}_n4_empty', fn(data=sd, indices=sidx[:0], segment_ids=seg[:0], num_segments=4))
    save(f'{op}_empty', f(data=sd, indices=sidx[:0], segment_ids=seg[:0]))
save('SparseSegmentSum_i32', raw.SparseSegmentSum(data=sdi, indices=sidx, segment_ids=seg))
save('SparseSegmentSum_i8', raw.SparseSegmentSum(data=sd8, indices=sidx, segment_ids=seg))
save('SparseSegmentSum_u8', raw.SparseSegmentSum(data=sdu8, indices=sidx, segment_ids=seg))
save('SparseSegmentSum_i64', raw.SparseSegmentSum(data=sdi.astype(np.int64) * 2**40,
                                                  indices=sidx, segment_ids=seg))
save('SparseSegmentSum_n20_i32', raw.SparseSegmentSumWithNumSegments(
    data=sdi, indices=sidx, segment_ids=seg, num_segments=20))

# --- SparseReorder: rows and columns out of order, rank 3, already sorted (passed through),
# indices out of bounds (reordered, no error), strings.
reorder_cases = {
    'mat': (i64([[2, 1], [0, 3], [1, 0], [0, 1], [2, 0]]), np.float32([1, 2, 3, 4, 5]), i64([3, 4])),
    'rank3': (i64([[1, 0, 2], [0, 1, 1], [1, 0, 0], [0, 0, 5]]), np.int64([1, 2, 3, 4]),
              i64([2, 2, 6])),
    'sorted': (i64([[0, 1], [1, 0], [1, 2]]), np.float32([1, 2, 3]), i64([2, 3])),
    'bounds': (i64([[5, 1], [0, 9]]), np.int32([1, 2]), i64([2, 2])),
    'strings': (i64([[1], [0], [3]]), np.array([b'x', b'y', b'zz'], object), i64([4])),
}
for name, (ind, val, shape) in reorder_cases.items():
    r = raw.SparseReorder(input_indices=ind, input_values=val, input_shape=shape)
    for k, v in dict(ind=ind, val=val, shape=shape, out_ind=r[0], out_val=r[1]).items():
        save(f'reorder_{name}_{k}', v)

# --- SparseConcat: along each dim (negative too), three inputs, an empty one, unsorted inputs
# (kept in order along dim 0, sorted otherwise), strings.
ca = (i64([[1, 0], [0, 2], [1, 1]]), np.float32([1, 2, 3]), i64([2, 3]))
cb = (i64([[0, 1], [2, 2]]), np.float32([4, 5]), i64([3, 3]))
cc = (i64([[1, 0]]), np.float32([6]), i64([2, 1]))
ce = (np.zeros((0, 2), np.int64), np.zeros((0,), np.float32), i64([2, 4]))
concat_cases = {
    'd0': ([ca, cb], 0), 'd1': ([ca, cc, ca], 1), 'dm1': ([cc, ca], -1), 'empty': ([ca, ce], 1),
    'rank3': ([(i64([[0, 1, 1], [0, 0, 2]]), np.int32([1, 2]), i64([1, 2, 3])),
               (i64([[0, 1, 0]]), np.int32([3]), i64([1, 2, 1]))], 2),
    'strings': ([(i64([[1], [0]]), np.array([b'a', b'b'], object), i64([2])),
                 (i64([[0]]), np.array([b'cc'], object), i64([1]))], 0),
}
for name, (inputs, dim) in concat_cases.items():
    r = raw.SparseConcat(indices=[x[0] for x in inputs], values=[x[1] for x in inputs],
                         shapes=[x[2] for x in inputs], concat_dim=dim)
    save(f'concat_{name}_ind', r[0]); save(f'concat_{name}_val', r[1])
    save(f'concat_{name}_shape', r[2])
for n, v in dict(ca_ind=ca[0], ca_val=ca[1], cb_ind=cb[0], cb_val=cb[1], cc_ind=cc[0],
                 cc_val=cc[1]).items():
    save(n, v)

# --- SparseSlice: inside, past the end, beyond the input, a negative start; indices out of
# bounds are not checked.
si = i64([[0, 1], [1, 0], [1, 3], [2, 2]])
save('slice_ind', si)
for name, (start, size) in dict(inside=([1, 0], [2, 3]), past=([1, 1], [5, 5]),
                                beyond=([4, 0], [1, 1]), neg=([-1, 0], [2, 2])).items():
    r = raw.SparseSlice(indices=si, values=np.float32([1, 2, 3, 4]), shape=i64([3, 4]),
                        start=i64(start), size=i64(size))
    save(f'slice_{name}_ind', r[0]); save(f'slice_{name}_val', r[1])
    save(f'slice_{name}_shape', r[2])
r = raw.SparseSlice(indices=i64([[0, 1], [9, 0], [1, -3]]), values=np.int32([1, 2, 3]),
                    shape=i64([3, 4]), start=i64([0, 0]), size=i64([2, 2]))
save('slice_unchecked_ind', r[0]); save('slice_unchecked_val', r[1])
save('slice_unchecked_shape', r[2])

# --- SparseAdd (thresholds 0, 1 and 8.5; an entry summing to 0; unsorted operands merged as
# TensorFlow merges them) and SparseTensorDenseAdd (an index twice).
adi = i64([[0, 1], [1, 0], [2, 2]])
adv = np.float32([1, 2, 3])
bdi = i64([[0, 0], [1, 0], [2, 2]])
bdv = np.float32([4, -2, 5])
for n, v in dict(add_ai=adi, add_av=adv, add_bi=bdi, add_bv=bdv).items():
    save(n, v)
for name, (ai_, bi_, th) in dict(t0=(adi, bdi, 0), t1=(adi, bdi, 1), t85=(adi, bdi, 8.5),
                                 unsorted=(i64([[1, 1], [0, 0], [2, 2]]), bdi, 0)).items():
    r = raw.SparseAdd(a_indices=ai_, a_values=adv, a_shape=i64([3, 3]), b_indices=bi_,
                      b_values=bdv, b_shape=i64([3, 3]), thresh=np.float32(th))
    save(f'add_{name}_ind', r[0]); save(f'add_{name}_val', r[1]); save(f'add_{name}_shape', r[2])
r = raw.SparseAdd(a_indices=adi, a_values=np.int32([1, 2, 3]), a_shape=i64([3, 3]),
                  b_indices=bdi, b_values=np.int32([4, -2, 5]), b_shape=i64([3, 3]),
                  thresh=np.int32(1))
save('add_i32_ind', r[0]); save('add_i32_val', r[1])
dense = rng.standard_normal((3, 3)).astype(np.float32)
save('dadd_b', dense)
save('dadd', raw.SparseTensorDenseAdd(a_indices=i64([[0, 1], [1, 0], [0, 1]]), a_values=adv,
                                      a_shape=i64([3, 3]), b=dense))
save('dadd_i32', raw.SparseTensorDenseAdd(a_indices=np.int32([[0, 1], [2, 0]]),
                                          a_values=np.int32([5, 7]), a_shape=np.int32([3, 2]),
                                          b=np.arange(6, dtype=np.int32).reshape(3, 2)))

# --- SparseReduceSum: one axis, a negative one with keep_dims, a scalar axis, every axis (with
# and without keep_dims), an axis twice; groups of fewer than 8 entries (Eigen sums 8 or more
# float values in packets), entries out of order.
rdi = i64([[0, 1, 0], [1, 0, 2], [1, 2, 1], [0, 1, 1], [0, 1, 2], [1, 2, 0]])
rdv = np.random.default_rng(36).standard_normal((6,)).astype(np.float32)  # own stream
save('reduce_ind', rdi); save('reduce_val', rdv)
for name, (axes, keep) in dict(a1=([1], False), am1_keep=([-1], True), a0=(0, False),
                               all=([0, 1, 2], False), all_keep=([0, 2, 1], True),
                               twice=([1, 1], False)).items():
    save(f'reduce_{name}', raw.SparseReduceSum(input_indices=rdi, input_values=rdv,
                                               input_shape=i64([2, 3, 3]),
                                               reduction_axes=np.int32(axes), keep_dims=keep))
save('reduce_i32', raw.SparseReduceSum(input_indices=rdi, input_values=np.int32([1, 2, 3, 4, 5, 6]),
                                       input_shape=i64([2, 3, 3]), reduction_axes=np.int32([0, 2])))

# --- DynamicPartition and DynamicStitch (partitioned embedding lookups): an empty partition,
# 2-D partitions, a gap row (0) and an index written twice (the later wins).
dd = np.arange(12, dtype=np.float32).reshape(4, 3)
save('dyn_data', dd)
for k, v in enumerate(raw.DynamicPartition(data=dd, partitions=np.int32([1, 0, 1, 1]),
                                           num_partitions=3)):
    save(f'dynpart_{k}', v)
for k, v in enumerate(raw.DynamicPartition(data=dd, partitions=np.int32([[1, 0, 2], [1, 1, 1],
                                                                         [0, 0, 0], [2, 2, 2]]),
                                           num_partitions=3)):
    save(f'dynpart2d_{k}', v)
save('dynstitch_gap', raw.DynamicStitch(indices=[np.int32([0, 2]), np.int32([1, 4])],
                                        data=[dd[:2], dd[2:]]))
save('dynstitch_twice', raw.DynamicStitch(indices=[np.int32([0, 2]), np.int32([2, 1])],
                                          data=[dd[:2], dd[2:]]))
save('dynstitch_2d', raw.DynamicStitch(indices=[np.int32([[0, 2]]), np.int32(1)],
                                       data=[dd[None, :2], dd[2]]))
save('pdynstitch', raw.ParallelDynamicStitch(indices=[np.int32([0, 2]), np.int32([3, 1])],
                                             data=[dd[:2], dd[2:]]))

# --- SparseToDense: matrix, vector and scalar indices, a scalar value for all, int32 indices,
# strings and bools; without validation, repeated indices keep the last value.
std_cases = {
    'mat': (i64([[0, 1], [1, 0], [1, 3], [2, 2]]), i64([3, 4]), np.float32([1, 2, 3, 4]),
            np.float32(-1), True),
    'vec': (i64([0, 3, 4]), i64([6]), np.int32([5, 6, 7]), np.int32(0), True),
    'scalar_idx': (np.int64(2), i64([4]), np.float64(3.5), np.float64(1), True),
    'scalar_val': (np.int32([[0, 0, 1], [1, 1, 0]]), np.int32([2, 2, 2]), np.float32(7),
                   np.float32(0), True),
    'strings': (i64([[0, 1], [1, 0]]), i64([2, 2]), np.array([b'x', b'yz'], object),
                np.array(b'', object), True),
    'bools': (i64([[1], [2]]), i64([4]), np.array([True, True]), np.array(False), True),
    'unchecked': (i64([[1, 1], [0, 0], [1, 1]]), i64([2, 2]), np.float32([1, 2, 3]),
                  np.float32(0), False),
}
for name, (ind, shape, val, dflt, validate) in std_cases.items():
    r = raw.SparseToDense(sparse_indices=ind, output_shape=shape, sparse_values=val,
                          default_value=dflt, validate_indices=validate)
    for k, v in dict(ind=ind, shape=shape, val=val, dflt=dflt, out=r).items():
        save(f'std_{name}_{k}', v)

# --- SparseTensorDenseMatMul: every adjoint pair, unordered and repeated indices.
ai = i64([[0, 1], [2, 0], [1, 3], [0, 1], [2, 3], [1, 0]])
av = rng.standard_normal((6,)).astype(np.float32)
bm = rng.standard_normal((4, 5)).astype(np.float32)
save('spmm_ai', ai); save('spmm_av', av); save('spmm_b', bm)
for adj_a in (False, True):
    for adj_b in (False, True):
        shape = i64([4, 3] if adj_a else [3, 4])
        ind = ai[:, ::-1].copy() if adj_a else ai
        b = bm.T.copy() if adj_b else bm
        name = f'spmm_{int(adj_a)}{int(adj_b)}'
        save(f'{name}_ind', ind); save(f'{name}_shape', shape); save(f'{name}_bin', b)
        save(name, raw.SparseTensorDenseMatMul(a_indices=ind, a_values=av, a_shape=shape, b=b,
                                               adjoint_a=adj_a, adjoint_b=adj_b))
save('spmm_f64', raw.SparseTensorDenseMatMul(a_indices=ai.astype(np.int32),
                                             a_values=av.astype(np.float64), a_shape=i64([3, 4]),
                                             b=bm.astype(np.float64)))
save('spmm_f16', raw.SparseTensorDenseMatMul(a_indices=ai, a_values=av.astype(np.float16),
                                             a_shape=i64([3, 4]), b=bm.astype(np.float16)))
save('spmm_bf16', raw.SparseTensorDenseMatMul(a_indices=ai, a_values=tf.cast(av, tf.bfloat16),
                                              a_shape=i64([3, 4]), b=tf.cast(bm, tf.bfloat16)))
# 40 columns: TensorFlow's vectorized path (32 columns or more).
bw = rng.standard_normal((4, 40)).astype(np.float32)
save('spmm_bw', bw)
save('spmm_wide', raw.SparseTensorDenseMatMul(a_indices=ai, a_values=av, a_shape=i64([3, 4]),
                                              b=bw))
save('spmm_wide_adj', raw.SparseTensorDenseMatMul(a_indices=ai, a_values=av, a_shape=i64([3, 4]),
                                                  b=bw.T.copy(), adjoint_b=True))
save('spmm_i32', raw.SparseTensorDenseMatMul(a_indices=ai, a_values=np.int32([1, 2, 3, 4, 5, 6]),
                                             a_shape=i64([3, 4]),
                                             b=np.arange(20, dtype=np.int32).reshape(4, 5)))


def message(f):
    try:
        f()
    except (tf.errors.InvalidArgumentError, tf.errors.OutOfRangeError) as e:
        m = str(e)
        m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
        m = re.sub(r' \[Op:\w+\]( name: .*)?$', '', m, flags=re.S)
        return m.replace('\n', '\\n')
    raise AssertionError('no error')


def fill(ind, val, shape, dflt=np.float32(0)):
    return lambda: raw.SparseFillEmptyRows(indices=i64(ind), values=np.float32(val),
                                           dense_shape=i64(shape), default_value=dflt)


def reshape(ind, shape, new):
    return lambda: raw.SparseReshape(input_indices=i64(ind), input_shape=i64(shape),
                                     new_shape=i64(new))


def sss(op, data, idx, seg, n=None):
    if n is None:
        return lambda: getattr(raw, op)(data=data, indices=np.int32(idx), segment_ids=np.int32(seg))
    return lambda: getattr(raw, op + 'WithNumSegments')(
        data=data, indices=np.int32(idx), segment_ids=np.int32(seg), num_segments=n)


def std(ind, shape, val, dflt=np.float32(0), validate=True):
    return lambda: raw.SparseToDense(sparse_indices=ind, output_shape=shape, sparse_values=val,
                                     default_value=dflt, validate_indices=validate)


def spmm(ind, shape, b, adj_a=False, adj_b=False, val=None):
    ind = i64(ind)
    if val is None:
        val = np.ones((ind.shape[0],), np.float32)
    return lambda: raw.SparseTensorDenseMatMul(a_indices=ind, a_values=val, a_shape=i64(shape),
                                               b=b, adjoint_a=adj_a, adjoint_b=adj_b)


def sl(start, size, shape=i64([3, 4])):
    return lambda: raw.SparseSlice(indices=si, values=np.float32([1, 2, 3, 4]), shape=shape,
                                   start=i64(start), size=i64(size))


def add(ai=adi, av=adv, as_=i64([3, 3]), bi=bdi, bv=bdv, bs=i64([3, 3]), th=np.float32(0)):
    return lambda: raw.SparseAdd(a_indices=ai, a_values=av, a_shape=as_, b_indices=bi,
                                 b_values=bv, b_shape=bs, thresh=th)


def dadd(ai=adi, av=adv, b=np.ones((3, 3), np.float32)):
    return lambda: raw.SparseTensorDenseAdd(a_indices=ai, a_values=av, a_shape=i64([3, 3]), b=b)


def red(axes, val=rdv, shape=i64([2, 3, 3])):
    return lambda: raw.SparseReduceSum(input_indices=rdi, input_values=val, input_shape=shape,
                                       reduction_axes=np.int32(axes))


d4 = np.ones((4, 2), np.float32)
messages = {
    'fill_row_big': fill([[0, 0], [7, 1]], [1, 2], [6, 4]),
    'fill_row_neg': fill([[0, 0], [-1, 1]], [1, 2], [6, 4]),
    'fill_zero_rows': fill([[0, 0]], [1], [0, 4]),
    'fill_lengths': fill([[0, 0], [1, 1]], [1], [6, 4]),
    'fill_default': fill([[0, 0]], [1], [6, 4], np.float32([0])),
    'fill_indices': fill([0, 1], [1, 2], [6, 4]),
    'fill_values': lambda: raw.SparseFillEmptyRows(indices=i64([[0, 0]]), values=np.float32([[1]]),
                                                   dense_shape=i64([6, 4]), default_value=0.0),
    'fill_shape': fill([[0, 0]], [1], [[6, 4]]),
    'fill_shape_neg': fill([[0, 0]], [1], [-5, 4]),
    'fill_shape_empty': lambda: raw.SparseFillEmptyRows(
        indices=np.zeros((0, 0), np.int64), values=np.zeros((0,), np.float32),
        dense_shape=np.zeros((0,), np.int64), default_value=0.0),
    'reshape_two_m1': reshape([[0, 0]], [2, 3], [-1, -1]),
    'reshape_negative': reshape([[0, 0]], [2, 3], [3, -2]),
    'reshape_infer_empty': reshape([[0, 0]], [2, 3], [0, -1]),
    'reshape_multiple': reshape([[0, 0]], [2, 3], [4, -1]),
    'reshape_size': reshape([[0, 0]], [2, 3], [2, 2]),
    'reshape_rank': reshape([[0, 0]], [2, 3, 1], [6]),
    'reshape_indices': reshape([0, 0], [2, 3], [6]),
    'reshape_shape': reshape([[0, 0]], [[2, 3]], [6]),
    'reshape_new_shape': reshape([[0, 0]], [2, 3], [[6]]),
    'reshape_shape_neg': reshape([[0, 0]], [-2, 3], [6]),
    'reshape_nnz_empty': reshape([[0, 0]], [0, 3], [3, 0]),
    'sss_index': sss('SparseSegmentSum', d4, [0, 4, 1], [0, 0, 1]),
    'sss_index_neg': sss('SparseSegmentMean', d4, [0, 1, -1], [0, 1, 1]),
    'sss_not_increasing': sss('SparseSegmentSum', d4, [0, 1, 2], [1, 1, 0]),
    'sss_negative': sss('SparseSegmentSum', d4, [0, 1, 2], [-1, 0, 0]),
    'sss_all_negative': sss('SparseSegmentSum', d4, [0, 1], [-2, -1]),
    'sss_last_negative': sss('SparseSegmentSqrtN', d4, [0, 1], [0, -1]),
    'sss_num_segments': sss('SparseSegmentSum', d4, [0, 1], [0, 4], 4),
    'sss_num_segments_neg': sss('SparseSegmentSum', d4, [0, 1], [0, 1], -1),
    'sss_num_segments_shape': sss('SparseSegmentSum', d4, [0, 1], [0, 1], [4]),
    'sss_size': sss('SparseSegmentSum', d4, [0, 1, 2], [0, 1]),
    'sss_indices_vector': sss('SparseSegmentSum', d4, [[0, 1]], [0, 1]),
    'sss_segments_vector': sss('SparseSegmentSum', d4, [0, 1], [[0, 1]]),
    'sss_scalar_data': sss('SparseSegmentSum', np.float32(1), [0], [0]),
    'reorder_lengths': lambda: raw.SparseReorder(input_indices=i64([[0, 1]]),
                                                 input_values=np.float32([1, 2]),
                                                 input_shape=i64([2, 2])),
    'reorder_rank': lambda: raw.SparseReorder(input_indices=i64([[0, 1]]),
                                              input_values=np.float32([1]),
                                              input_shape=i64([2, 2, 2])),
    'reorder_indices': lambda: raw.SparseReorder(input_indices=i64([0, 1]),
                                                 input_values=np.float32([1]),
                                                 input_shape=i64([2, 2])),
    'reorder_values': lambda: raw.SparseReorder(input_indices=i64([[0, 1]]),
                                                input_values=np.float32([[1]]),
                                                input_shape=i64([2, 2])),
    'reorder_shape': lambda: raw.SparseReorder(input_indices=i64([[0, 1]]),
                                               input_values=np.float32([1]),
                                               input_shape=i64([[2, 2]])),
    'concat_dim': lambda: raw.SparseConcat(indices=[ca[0], cb[0]], values=[ca[1], cb[1]],
                                           shapes=[ca[2], cb[2]], concat_dim=2),
    'concat_dim_neg': lambda: raw.SparseConcat(indices=[ca[0], cb[0]], values=[ca[1], cb[1]],
                                               shapes=[ca[2], cb[2]], concat_dim=-3),
    'concat_dims': lambda: raw.SparseConcat(indices=[ca[0], cb[0]], values=[ca[1], cb[1]],
                                            shapes=[ca[2], cb[2]], concat_dim=1),
    'concat_ranks': lambda: raw.SparseConcat(indices=[ca[0], cb[0]], values=[ca[1], cb[1]],
                                             shapes=[ca[2], i64([3, 3, 1])], concat_dim=0),
    'concat_indices': lambda: raw.SparseConcat(indices=[ca[0], i64([0, 1])],
                                               values=[ca[1], cb[1]], shapes=[ca[2], cb[2]],
                                               concat_dim=0),
    'concat_values': lambda: raw.SparseConcat(indices=[ca[0], cb[0]],
                                              values=[ca[1], np.float32([[1]])],
                                              shapes=[ca[2], cb[2]], concat_dim=0),
    'concat_shapes': lambda: raw.SparseConcat(indices=[ca[0], cb[0]], values=[ca[1], cb[1]],
                                              shapes=[ca[2], i64([[3, 3]])], concat_dim=0),
    'concat_lengths': lambda: raw.SparseConcat(indices=[ca[0], cb[0]],
                                               values=[ca[1], np.float32([1])],
                                               shapes=[ca[2], cb[2]], concat_dim=0),
    'concat_index_rank': lambda: raw.SparseConcat(indices=[ca[0], i64([[0, 1, 0]])],
                                                  values=[ca[1], np.float32([1])],
                                                  shapes=[ca[2], cb[2]], concat_dim=0),
    'slice_size_neg': sl([0, 0], [-1, 2]),
    'slice_start_len': sl([0], [2, 2]),
    'slice_size_len': sl([0, 0], [2]),
    'slice_start_vec': sl([[0, 0]], [2, 2]),
    'slice_size_vec': sl([0, 0], [[2, 2]]),
    'slice_shape_neg': sl([0, 0], [2, 2], shape=i64([3, -4])),
    'slice_rank': sl([0, 0], [2, 2], shape=i64([3, 4, 1])),
    'dynpart_range': lambda: raw.DynamicPartition(data=dd, partitions=np.int32([1, 0, 5, 1]),
                                                  num_partitions=3),
    'dynpart_neg': lambda: raw.DynamicPartition(data=dd, partitions=np.int32([[1, 0, 1], [1, 1, 1],
                                                                             [0, -1, 0], [2, 2, 2]]),
                                                num_partitions=3),
    'dynpart_shape': lambda: raw.DynamicPartition(data=dd, partitions=np.int32([1, 0, 1]),
                                                  num_partitions=3),
    'dynstitch_range': lambda: raw.DynamicStitch(indices=[np.int32([0, -1]), np.int32([2, 1])],
                                                 data=[dd[:2], dd[2:]]),
    'dynstitch_prefix': lambda: raw.DynamicStitch(indices=[np.int32([0, 2]), np.int32([2, 1])],
                                                  data=[dd[:2], dd[2:3]]),
    'dynstitch_rows': lambda: raw.DynamicStitch(indices=[np.int32([0, 2]), np.int32([2, 1])],
                                                data=[dd[:2], dd[2:, :2]]),
    'add_dims': add(bi=i64([[0, 1, 0]]), bv=np.float32([1])),
    'add_matrices': add(bi=i64([0, 1])),
    'add_vectors': add(bv=np.float32([[1, 2, 3]])),
    'add_lengths': add(bv=np.float32([1, 2])),
    'add_shape_vectors': add(bs=i64([[3, 3]])),
    'add_shapes': add(bs=i64([3, 4])),
    'add_shape_len': add(as_=i64([3, 3, 1])),
    'add_thresh': add(th=np.float32([0])),
    'dadd_bounds': dadd(ai=i64([[0, 1], [9, 0], [2, 2]])),
    'dadd_bounds_neg': dadd(ai=i64([[0, 1], [1, -1], [2, 2]])),
    'dadd_dims': dadd(b=np.ones((3, 4), np.float32)),
    'dadd_ranks': dadd(b=np.ones((3,), np.float32)),
    'dadd_matrix': dadd(ai=i64([0, 1, 2])),
    'dadd_vectors': dadd(av=np.float32([[1, 2, 3]])),
    'dadd_lengths': dadd(av=np.float32([1, 2])),
    'reduce_axis': red([3]),
    'reduce_axis_neg': red([-4]),
    'reduce_axes_rank': red([[0]]),
    'reduce_shape_vec': red([0], shape=i64([[2, 3, 3]])),
    'reduce_lengths': red([0], val=np.float32([1, 2, 3])),
    'reduce_rank': red([0], shape=i64([2, 3])),
    'std_order': std(i64([[0, 1], [0, 0]]), i64([2, 2]), np.float32([1, 2])),
    'std_repeat': std(i64([[0, 1], [1, 0], [1, 0]]), i64([2, 2]), np.float32([1, 2, 3])),
    'std_bounds': std(i64([[0, 1], [2, 0]]), i64([2, 2]), np.float32([1, 2])),
    'std_bounds_neg': std(i64([[0, -1]]), i64([2, 2]), np.float32([1])),
    'std_vec_order': std(i64([3, 1]), i64([4]), np.float32([1, 2])),
    'std_vec_bounds': std(i64([1, 4]), i64([4]), np.float32([1, 2])),
    'std_unchecked_bounds': std(i64([[0, 1], [2, 0]]), i64([2, 2]), np.float32([1, 2]),
                                validate=False),
    'std_rank': std(np.zeros((1, 1, 1), np.int64), i64([2]), np.float32([1])),
    'std_shape_len': std(i64([[0, 1]]), i64([2, 2, 2]), np.float32([1])),
    'std_shape_vector': std(i64([[0, 1]]), i64([[2, 2]]), np.float32([1])),
    'std_values': std(i64([[0, 1]]), i64([2, 2]), np.float32([1, 2])),
    'std_default': std(i64([[0, 1]]), i64([2, 2]), np.float32([1]), np.float32([0])),
    'std_negative_shape': std(i64([[0, 1]]), i64([2, -2]), np.float32([1])),
    'spmm_bounds': spmm([[0, 1], [3, 0]], [3, 4], bm),
    'spmm_bounds_col': spmm([[0, 1], [2, 5]], [3, 4], bm),
    'spmm_bounds_adj': spmm([[0, 1], [2, 5]], [4, 3], bm, adj_a=True),
    'spmm_inner': spmm([[0, 1]], [3, 5], bm),
    'spmm_inner_adj': spmm([[0, 1]], [3, 4], bm, adj_a=True, adj_b=True),
    'spmm_b_rank': lambda: raw.SparseTensorDenseMatMul(
        a_indices=i64([[0, 1]]), a_values=np.float32([1]), a_shape=i64([3, 4]),
        b=np.ones((4,), np.float32)),
    'spmm_shape': spmm([[0, 1]], [3, 4, 1], bm),
    'spmm_values': spmm([[0, 1]], [3, 4], bm, val=np.float32([1, 2])),
    'spmm_indices_cols': spmm([[0, 1, 1]], [3, 4], bm),
}
with open(f'{out}/messages.txt', 'w') as f:
    for name, fn in messages.items():
        f.write(f'{name}\t{message(fn)}\n')
