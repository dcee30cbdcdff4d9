# Goldens for the segment ops (Segment*, UnsortedSegment*), the set ops (Unique*, ListDiff) and
# the bitwise ops (Bitwise*, shifts, Invert, PopulationCount, Bitcast): tests/kernels/
# segment_ops_test.cc, set_ops_test.cc and bitwise_ops_test.cc.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/segment.py
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/segment'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(35)


def save(name, a):
    a = np.asarray(a)
    if a.dtype.name == 'bfloat16':  # .npy has no bfloat16: stored as float32 (exact)
        a = a.astype(np.float32)
    np.save(f'{out}/{name}.npy', a)


def bf16(a): return tf.cast(a, tf.bfloat16)


nan, inf = np.nan, np.inf

# --- Sorted segments: ids with gaps (rows 2 and 5 get the gap value).
ids = np.array([0, 0, 1, 3, 3, 3, 4, 6, 6, 6], np.int32)
d = rng.standard_normal((10, 3)).astype(np.float32)
di = rng.integers(-5, 6, (10, 3)).astype(np.int32)
d8 = np.array([100, 90, 7, -128, -1, 3, 77, 60, 50, 9], np.int8)  # sums and products wrap
d3 = rng.standard_normal((10, 2, 2)).astype(np.float32)
special = np.array([nan, 2, 2, nan, -inf, -inf, 5, -0.0], np.float32)
special_ids = np.array([0, 0, 1, 1, 2, 2, 4, 4], np.int64)
for n, v in dict(ids=ids, d=d, di=di, d8=d8, d3=d3, special=special,
                 special_ids=special_ids).items():
    save(n, v)
for op in ['SegmentSum', 'SegmentMean', 'SegmentMax', 'SegmentMin', 'SegmentProd']:
    f = getattr(tf.raw_ops, op)
    save(f'{op}_f32', f(data=d, segment_ids=ids))
    save(f'{op}_f64', f(data=d.astype(np.float64), segment_ids=ids.astype(np.int64)))
    save(f'{op}_i32', f(data=di, segment_ids=ids))
    save(f'{op}_i8', f(data=d8, segment_ids=ids))
    save(f'{op}_f16', f(data=d.astype(np.float16), segment_ids=ids))
    save(f'{op}_bf16', f(data=bf16(d), segment_ids=ids))
    save(f'{op}_3d', f(data=d3, segment_ids=ids))
    save(f'{op}_special', f(data=special, segment_ids=special_ids))

# --- Unsorted segments: negative ids are dropped, segments 2 and 4 stay empty.
uids = np.array([3, 0, -1, 3, 1, 0, -2, 3], np.int32)
ud = rng.standard_normal((8, 3)).astype(np.float32)
udi = rng.integers(-5, 6, (8, 3)).astype(np.int32)
ud8 = np.array([100, 90, 7, -128, -1, 3, 77, 60], np.int8)
ud3 = rng.standard_normal((3, 4, 2)).astype(np.float32)
uids2 = rng.integers(-1, 4, (3, 4)).astype(np.int64)
uspecial = np.array([nan, 2, 2, nan, -inf, 1, inf], np.float32)
uspecial_ids = np.array([0, 0, 1, 1, 2, 2, 3], np.int32)
for n, v in dict(uids=uids, ud=ud, udi=udi, ud8=ud8, ud3=ud3, uids2=uids2, uspecial=uspecial,
                 uspecial_ids=uspecial_ids).items():
    save(n, v)
for op in ['UnsortedSegmentSum', 'UnsortedSegmentMax', 'UnsortedSegmentMin',
           'UnsortedSegmentProd']:
    f = getattr(tf.raw_ops, op)
    save(f'{op}_f32', f(data=ud, segment_ids=uids, num_segments=5))
    save(f'{op}_f64', f(data=ud.astype(np.float64), segment_ids=uids.astype(np.int64),
                        num_segments=np.int64(5)))
    save(f'{op}_i32', f(data=udi, segment_ids=uids, num_segments=5))
    save(f'{op}_i8', f(data=ud8, segment_ids=uids, num_segments=5))
    save(f'{op}_f16', f(data=ud.astype(np.float16), segment_ids=uids, num_segments=5))
    save(f'{op}_bf16', f(data=bf16(ud), segment_ids=uids, num_segments=5))
    save(f'{op}_2dids', f(data=ud3, segment_ids=uids2, num_segments=4))
    save(f'{op}_fullids', f(data=ud3[:, :, 0], segment_ids=uids2, num_segments=4))
    save(f'{op}_special', f(data=uspecial, segment_ids=uspecial_ids, num_segments=5))

# --- Unique, UniqueWithCounts, UniqueV2, UniqueWithCountsV2, ListDiff.
ux = rng.integers(0, 10, (30,)).astype(np.int32)
ufloat = np.array([1.5, nan, -0.0, 0.0, 1.5, nan, 2, -0.0], np.float32)
urows = np.array([[1, 2, 1], [3, 4, 3], [1, 2, 1], [0, 0, 0], [3, 4, 3]], np.int64)
u3 = rng.integers(0, 2, (2, 5, 2)).astype(np.int32)
for n, v in dict(ux=ux, ufloat=ufloat, urows=urows, u3=u3).items():
    save(n, v)
y, idx = tf.raw_ops.Unique(x=ux)
save('unique_y', y); save('unique_idx', idx)
y, idx, count = tf.raw_ops.UniqueWithCounts(x=ux, out_idx=tf.int64)
save('uwc_y', y); save('uwc_idx', idx); save('uwc_count', count)
y, idx = tf.raw_ops.Unique(x=ufloat)
save('unique_float_y', y); save('unique_float_idx', idx)
y, idx = tf.raw_ops.Unique(x=ux.astype(np.float16))
save('unique_f16_y', y); save('unique_f16_idx', idx)
for name, x, axis in [('uv2_rows', urows, 0), ('uv2_cols', urows, 1), ('uv2_neg', urows, -1),
                      ('uv2_3d', u3, 1), ('uv2_vec', ux, None)]:
    a = np.zeros((0,), np.int64) if axis is None else np.array([axis], np.int32)
    y, idx = tf.raw_ops.UniqueV2(x=x, axis=a)
    save(f'{name}_y', y); save(f'{name}_idx', idx)
y, idx, count = tf.raw_ops.UniqueWithCountsV2(x=u3, axis=np.array([2], np.int64), out_idx=tf.int64)
save('uwcv2_y', y); save('uwcv2_idx', idx); save('uwcv2_count', count)

lx = rng.integers(0, 10, (20,)).astype(np.int32)
ly = np.array([1, 3, 5, 7, 11], np.int32)
lfx = np.array([1, 2, nan, -0.0, 3, 2], np.float32)
lfy = np.array([nan, 2, 0.0], np.float32)
for n, v in dict(lx=lx, ly=ly, lfx=lfx, lfy=lfy).items():
    save(n, v)
o, idx = tf.raw_ops.ListDiff(x=lx, y=ly)
save('listdiff_out', o); save('listdiff_idx', idx)
o, idx = tf.raw_ops.ListDiff(x=lx.astype(np.int64), y=ly.astype(np.int64), out_idx=tf.int64)
save('listdiff64_out', o); save('listdiff64_idx', idx)
o, idx = tf.raw_ops.ListDiff(x=lfx, y=lfy)
save('listdiff_float_out', o); save('listdiff_float_idx', idx)

# --- Bitwise: every integer type, shift amounts from -3 to bits + 3.
for dt in [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]:
    info = np.iinfo(dt)
    bits = info.bits
    n = dt.__name__
    x = rng.integers(info.min, info.max, (4, 6), dtype=dt, endpoint=True)
    x[0, :4] = [info.min, info.max, 0, 1]
    y = rng.integers(info.min, info.max, (4, 6), dtype=dt, endpoint=True)
    lo = -3 if info.min < 0 else 0
    s = rng.integers(lo, bits + 4, (4, 6)).astype(dt)
    s[0, :] = [0, 1, bits - 1, bits, lo, bits + 3][:6]
    save(f'bx_{n}', x); save(f'by_{n}', y); save(f'bs_{n}', s)
    save(f'and_{n}', tf.raw_ops.BitwiseAnd(x=x, y=y))
    save(f'or_{n}', tf.raw_ops.BitwiseOr(x=x, y=y))
    save(f'xor_{n}', tf.raw_ops.BitwiseXor(x=x, y=y[:1]))  # broadcast along dim 0
    save(f'lshift_{n}', tf.raw_ops.LeftShift(x=x, y=s))
    save(f'rshift_{n}', tf.raw_ops.RightShift(x=x, y=s))
    save(f'invert_{n}', tf.raw_ops.Invert(x=x))
    save(f'popcount_{n}', tf.raw_ops.PopulationCount(x=x))

bf = rng.standard_normal((2, 3)).astype(np.float32)
bu8 = rng.integers(0, 256, (3, 8)).astype(np.uint8)
bi64 = rng.integers(-2**62, 2**62, (3,)).astype(np.int64)
bh = rng.standard_normal((5,)).astype(np.float16)
for n, v in dict(bf=bf, bu8=bu8, bi64=bi64, bh=bh).items():
    save(n, v)
save('bitcast_f32_u8', tf.raw_ops.Bitcast(input=bf, type=tf.uint8))
save('bitcast_f32_i32', tf.raw_ops.Bitcast(input=bf, type=tf.int32))
save('bitcast_f32_f16', tf.raw_ops.Bitcast(input=bf, type=tf.float16))
save('bitcast_u8_f64', tf.raw_ops.Bitcast(input=bu8, type=tf.float64))
save('bitcast_u8_u16', tf.raw_ops.Bitcast(input=bu8[:, :2], type=tf.uint16))
save('bitcast_i64_f64', tf.raw_ops.Bitcast(input=bi64, type=tf.float64))
save('bitcast_f16_i16', tf.raw_ops.Bitcast(input=bh, type=tf.int16))
save('bitcast_f32vec_f64', tf.raw_ops.Bitcast(input=bf[0, :2], type=tf.float64))  # a scalar
