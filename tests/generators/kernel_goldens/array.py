#!/usr/bin/env python3
"""Goldens for the array (data-movement) kernels.

Read by tests/kernels/{shape,transpose,concat_split,slice,pad,gather_tile}_ops_test.cc.
Run with /work/main/.venv/bin/python (TensorFlow 2.x); every expected output
comes from tf.raw_ops.<Op>. Writes under tests/data/kernels/array/:
  <case>_in<i>.npy    input i, in the op's input order (list inputs flattened)
  <case>_out<k>.npy   expected output k
  <case>_attrs.npy    int64 values of the case's non-type attrs, per op:
                        Squeeze: squeeze_dims; Pack, Unpack: [axis];
                        GatherV2: [batch_dims]; MirrorPad: [0 REFLECT | 1 SYMMETRIC];
                        StridedSlice: [begin, end, ellipsis, new_axis, shrink] masks
Type attrs (T, Tidx, out_type...) follow from the inputs and outputs. The C++
tests list the case names; keep them in sync.
"""
import glob
import os
import sys

# This file is named like the standard library's `array`, which TensorFlow
# imports: keep its own directory off the import path.
sys.path = [p for p in sys.path
            if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(REPO, "tests", "data", "kernels", "array")
R = tf.raw_ops

rng = np.random.default_rng(20240612)


def arr(shape, dtype=np.float32):
    """Distinct, recognisable values: 0, 1, 2, ... (bool: a random pattern)."""
    n = int(np.prod(shape)) if shape else 1
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.complexfloating):
        v = np.arange(n) + 1j * (np.arange(n) + 0.5)
        return v.reshape(shape).astype(dtype)
    return np.arange(n).reshape(shape).astype(dtype)


def case(name, op, inputs, attrs=None, extra=None):
    """inputs: the op's inputs by name in op order (a list value is a list input)."""
    out = getattr(R, op)(**inputs, **(attrs or {}))
    outs = out if isinstance(out, (list, tuple)) else [out]
    i = 0
    for v in inputs.values():
        for t in (v if isinstance(v, list) else [v]):
            np.save(os.path.join(OUT, f"{name}_in{i}.npy"), np.asarray(t))
            i += 1
    for k, o in enumerate(outs):
        np.save(os.path.join(OUT, f"{name}_out{k}.npy"), o.numpy())
    if extra is not None:
        np.save(os.path.join(OUT, f"{name}_attrs.npy"), np.asarray(extra, dtype=np.int64))


def i32(v):
    return np.asarray(v, dtype=np.int32)


def i64(v):
    return np.asarray(v, dtype=np.int64)


def shape_cases():
    x = arr((2, 3, 4))
    case("reshape_basic", "Reshape", dict(tensor=x, shape=i32([4, 6])))
    case("reshape_infer", "Reshape", dict(tensor=x, shape=i64([-1, 2, 3])))
    case("reshape_scalar", "Reshape", dict(tensor=arr((1, 1)), shape=i32(np.zeros((0,)))))
    case("reshape_empty", "Reshape", dict(tensor=np.zeros((0, 4), np.float32), shape=i32([0, -1])))
    case("reshape_empty_infer", "Reshape",
         dict(tensor=np.zeros((0, 4), np.float32), shape=i32([-1, 0])))
    y = arr((1, 3, 1, 2), np.int16)
    case("squeeze_all", "Squeeze", dict(input=y), extra=[])
    case("squeeze_listed", "Squeeze", dict(input=y), dict(axis=[-2]), extra=[-2])
    case("expand_dims_last", "ExpandDims", dict(input=x, axis=i32(-1)))
    case("expand_dims_first", "ExpandDims", dict(input=arr((3,), np.int64), axis=i64(0)))
    case("shape_int32", "Shape", dict(input=x))
    case("shape_int64", "Shape", dict(input=arr(()), ), dict(out_type=tf.int64))
    case("shape_n", "ShapeN", dict(input=[x, arr((5,)), arr(())]))
    case("size_int64", "Size", dict(input=x), dict(out_type=tf.int64))
    case("rank", "Rank", dict(input=x))


def transpose_cases():
    case("transpose_2d", "Transpose", dict(x=arr((3, 5)), perm=i32([1, 0])))
    case("transpose_3d", "Transpose", dict(x=arr((2, 3, 4), np.int8), perm=i32([2, 0, 1])))
    case("transpose_4d_nchw", "Transpose",
         dict(x=arr((2, 3, 4, 5), np.float64), perm=i64([0, 3, 1, 2])))
    case("transpose_5d", "Transpose", dict(x=arr((2, 1, 3, 2, 4), np.uint16),
                                           perm=i32([4, 2, 0, 3, 1])))
    case("transpose_negative_perm", "Transpose", dict(x=arr((2, 3, 4)), perm=i32([-1, 0, -2])))
    case("transpose_bool", "Transpose", dict(x=arr((3, 4), np.bool_), perm=i32([1, 0])))
    case("transpose_complex128", "Transpose",
         dict(x=arr((2, 3), np.complex128), perm=i32([1, 0])))
    case("transpose_identity", "Transpose", dict(x=arr((2, 3)), perm=i32([0, 1])))


def concat_split_cases():
    a, b, c = arr((2, 3)), arr((2, 1)) + 100, arr((2, 2)) + 200
    case("concat_axis1", "ConcatV2", dict(values=[a, b, c], axis=i32(1)))
    case("concat_axis0", "ConcatV2", dict(values=[a, a + 10], axis=i64(0)))
    case("concat_negative_axis", "ConcatV2",
         dict(values=[arr((2, 2, 2), np.int64), arr((2, 2, 3), np.int64)], axis=i32(-1)))
    case("concat_with_empty", "ConcatV2",
         dict(values=[np.zeros((0, 3), np.float32), a], axis=i32(0)))
    case("concat_legacy", "Concat", dict(concat_dim=i32(1), values=[a, b]))
    case("pack_axis0", "Pack", dict(values=[a, a + 10, a + 20]), dict(axis=0), extra=[0])
    case("pack_axis1", "Pack", dict(values=[a, a + 10]), dict(axis=1), extra=[1])
    case("pack_axis_neg1", "Pack", dict(values=[arr((3,), np.int8), arr((3,), np.int8)]),
         dict(axis=-1), extra=[-1])
    case("pack_scalars", "Pack", dict(values=[np.float32(1), np.float32(2)]), dict(axis=0),
         extra=[0])
    x = arr((2, 3, 4))
    case("unpack_axis0", "Unpack", dict(value=x), dict(num=2, axis=0), extra=[0])
    case("unpack_axis1", "Unpack", dict(value=x), dict(num=3, axis=1), extra=[1])
    case("unpack_axis_neg1", "Unpack", dict(value=x), dict(num=4, axis=-1), extra=[-1])
    case("split_axis1", "Split", dict(axis=i32(1), value=arr((2, 6, 2))), dict(num_split=3))
    case("split_axis_neg1", "Split", dict(axis=i32(-1), value=arr((2, 4), np.uint8)),
         dict(num_split=2))
    case("splitv_infer", "SplitV", dict(value=arr((3, 7)), size_splits=i64([2, -1, 1]),
                                        axis=i32(1)), dict(num_split=3))
    case("splitv_zero_piece", "SplitV", dict(value=arr((5, 2)), size_splits=i32([2, 0, 3]),
                                             axis=i32(0)), dict(num_split=3))


# StridedSlice cases: (name, shape, begin, end, strides, masks), masks in
# the order begin, end, ellipsis, new_axis, shrink_axis. Comments give the
# Python spelling.
STRIDED = [
    ("ss_ellipsis_index", (3, 4, 5), [0, 1], [0, 2], [1, 1], [0, 0, 1, 0, 2]),  # x[..., 1]
    ("ss_newaxis_reverse2", (3, 4, 5), [0, 0, 0], [0, 0, 0], [1, 1, -2],
     [5, 5, 0, 2, 0]),  # x[:, None, ::-2]
    ("ss_last", (3, 4, 5), [-1], [0], [1], [0, 0, 0, 0, 1]),  # x[-1]
    ("ss_step_reverse", (6, 4), [1, 0], [-1, 0], [2, -1], [2, 2, 0, 0, 0]),  # x[1:-1:2, ::-1]
    ("ss_clamped", (5, 3), [-100, 1], [100, 100], [1, 1], [0, 0, 0, 0, 0]),  # x[-100:100, 1:100]
    ("ss_empty", (5, 3), [3], [1], [1], [0, 0, 0, 0, 0]),  # x[3:1]
    ("ss_reverse_clamped", (7,), [5], [-100], [-2], [0, 0, 0, 0, 0]),  # x[5:-100:-2]
    ("ss_reverse_from_far", (7,), [100], [-100], [-3], [0, 0, 0, 0, 0]),  # x[100:-100:-3]
    ("ss_reverse_all", (7,), [0], [0], [-1], [1, 1, 0, 0, 0]),  # x[::-1]
    ("ss_multi", (4, 6, 5), [0, 0, 1], [0, 0, 5], [-1, -3, 2], [3, 3, 0, 0, 0]),
    # x[::-1, ::-3, 1:5:2]
    ("ss_newaxis_both_ends", (2, 3), [0, 0, 0], [0, 0, 0], [1, 1, 1],
     [0, 0, 2, 5, 0]),  # x[None, ..., None]
    ("ss_newaxis_after_ellipsis", (2, 3, 4), [0, 0, 2], [0, 0, 3], [1, 1, 1],
     [0, 0, 1, 2, 4]),  # x[..., None, 2]
    ("ss_index_ellipsis_tail", (3, 4, 5), [1, 0, -2], [2, 0, 0], [1, 1, 1],
     [0, 4, 2, 0, 1]),  # x[1, ..., -2:]
    ("ss_prefix_only", (5, 4, 3), [1], [3], [1], [0, 0, 0, 0, 0]),  # x[1:3]
    ("ss_big_stride", (10,), [0], [0], [7], [1, 1, 0, 0, 0]),  # x[::7]
    ("ss_negative_window", (10,), [-1], [-10], [-1], [0, 0, 0, 0, 0]),  # x[-1:-10:-1]
    ("ss_all_indices", (3, 4, 5), [1, 2, 3], [2, 3, 4], [1, 1, 1],
     [0, 0, 0, 0, 7]),  # x[1, 2, 3]
    ("ss_scalar_newaxis", (), [0], [0], [1], [0, 0, 0, 1, 0]),  # s[None]
    ("ss_newaxis_and_shrink_same_bit", (2, 3), [0, 1], [0, 2], [1, 1],
     [0, 0, 0, 1, 1]),  # new axis wins
    ("ss_ellipsis_and_newaxis_same_bit", (2, 3), [0, 1], [0, 2], [1, 1],
     [0, 0, 1, 1, 0]),  # ellipsis wins
    ("ss_shrink_ignores_begin_mask", (3, 4), [1], [0], [1], [1, 0, 0, 0, 1]),  # x[1]
    ("ss_ellipsis_middle", (2, 3, 4, 5), [1, 0, 0], [2, 0, 0], [1, 1, 2],
     [4, 4, 2, 0, 1]),  # x[1, ..., ::2]
    ("ss_end_before_begin_reverse", (6,), [1], [4], [-1], [0, 0, 0, 0, 0]),  # x[1:4:-1]
    ("ss_masked_negative_stride_2d", (4, 5), [0, 3], [0, 0], [-1, -2],
     [1, 3, 0, 0, 0]),  # x[::-1, 3::-2]
]


def slice_cases():
    x = arr((4, 5, 6))
    case("slice_basic", "Slice", dict(input=x, begin=i32([1, 0, 2]), size=i32([2, 5, 3])))
    case("slice_to_end", "Slice", dict(input=x, begin=i64([3, 1, 0]), size=i64([-1, -1, 2])))
    case("slice_empty", "Slice", dict(input=x, begin=i32([4, 0, 0]), size=i32([0, 2, 2])))
    case("slice_int8", "Slice", dict(input=arr((5,), np.int8), begin=i32([1]), size=i32([3])))
    for name, shape, begin, end, strides, masks in STRIDED:
        x = arr(shape)
        attrs = dict(zip(["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                          "shrink_axis_mask"], masks))
        case(name, "StridedSlice",
             dict(input=x, begin=i64(begin), end=i64(end), strides=i64(strides)), attrs,
             extra=masks)


def strided_slice_random_cases(count=240):
    """Random index specs on one (3, 4, 5) iota input, TensorFlow errors included.

    ss_random_in0.npy   the float32 input
    ss_random_specs.npy int32 (count, 29) rows: k (sparse length, 0-4),
                        begin[4], end[4], strides[4] (first k used), masks[5]
                        (begin, end, ellipsis, new_axis, shrink), out_rank
                        (-1: TensorFlow rejects the spec), out_shape[8],
                        offset and size of the output in values
    ss_random_values.npy float32: every output, flattened and concatenated
    """
    x = arr((3, 4, 5))
    rows, values = [], []
    for _ in range(count):
        k = int(rng.integers(0, 5))
        begin, end, strides = [0] * 4, [0] * 4, [1] * 4
        masks = [0] * 5
        for i in range(k):
            kind = rng.random()
            if kind < 0.12:
                masks[2] |= 1 << i  # ellipsis (sometimes twice: an error)
            elif kind < 0.27:
                masks[3] |= 1 << i  # new axis
            elif kind < 0.47:
                masks[4] |= 1 << i  # single index
                begin[i] = int(rng.integers(-6, 6))
                end[i] = begin[i] + 1
            else:
                begin[i], end[i] = (int(v) for v in rng.integers(-7, 8, size=2))
                strides[i] = int(rng.choice([-3, -2, -1, 1, 1, 2, 3, 0] if rng.random() < 0.05
                                            else [-3, -2, -1, 1, 1, 2, 3]))
                if rng.random() < 0.3:
                    masks[0] |= 1 << i
                if rng.random() < 0.3:
                    masks[1] |= 1 << i
        try:
            out = R.StridedSlice(input=x, begin=i64(begin[:k]), end=i64(end[:k]),
                                 strides=i64(strides[:k]), begin_mask=masks[0],
                                 end_mask=masks[1], ellipsis_mask=masks[2],
                                 new_axis_mask=masks[3], shrink_axis_mask=masks[4]).numpy()
            shape = list(out.shape)
            offset = sum(v.size for v in values)
            values.append(out.ravel())
            rows.append([k] + begin + end + strides + masks + [len(shape)] +
                        shape + [0] * (8 - len(shape)) + [offset, out.size])
        except tf.errors.InvalidArgumentError:
            rows.append([k] + begin + end + strides + masks + [-1] + [0] * 8 + [0, 0])
    np.save(os.path.join(OUT, "ss_random_in0.npy"), x)
    np.save(os.path.join(OUT, "ss_random_specs.npy"), np.asarray(rows, np.int32))
    np.save(os.path.join(OUT, "ss_random_values.npy"),
            np.concatenate(values).astype(np.float32))


def pad_cases():
    x = arr((2, 3))
    case("pad_2d", "Pad", dict(input=x, paddings=i32([[1, 2], [0, 1]])))
    case("pad_3d_int64", "Pad", dict(input=arr((2, 2, 2), np.int64),
                                     paddings=i64([[0, 1], [2, 0], [1, 1]])))
    case("pad_empty_input", "Pad", dict(input=np.zeros((0, 2), np.float32),
                                        paddings=i32([[1, 1], [0, 1]])))
    case("padv2_constant", "PadV2", dict(input=x, paddings=i32([[1, 0], [2, 2]]),
                                         constant_values=np.float32(-7.5)))
    case("padv2_uint8", "PadV2", dict(input=arr((3,), np.uint8), paddings=i32([[2, 1]]),
                                      constant_values=np.uint8(9)))
    y = arr((3, 4))
    case("mirror_reflect_2d", "MirrorPad", dict(input=y, paddings=i32([[2, 1], [3, 3]])),
         dict(mode="REFLECT"), extra=[0])
    case("mirror_symmetric_2d", "MirrorPad", dict(input=y, paddings=i32([[3, 2], [4, 1]])),
         dict(mode="SYMMETRIC"), extra=[1])
    case("mirror_reflect_3d", "MirrorPad",
         dict(input=arr((2, 3, 4), np.int32), paddings=i64([[1, 1], [0, 2], [3, 0]])),
         dict(mode="REFLECT"), extra=[0])
    case("mirror_symmetric_1d", "MirrorPad",
         dict(input=arr((3,), np.float64), paddings=i32([[3, 3]])),
         dict(mode="SYMMETRIC"), extra=[1])


def gather_tile_cases():
    case("tile_2d", "Tile", dict(input=arr((2, 3)), multiples=i32([2, 3])))
    case("tile_3d_int64", "Tile", dict(input=arr((2, 1, 3), np.int64),
                                       multiples=i64([1, 4, 2])))
    case("tile_zero", "Tile", dict(input=arr((2, 3)), multiples=i32([0, 2])))
    case("tile_bool", "Tile", dict(input=arr((3,), np.bool_), multiples=i32([3])))
    p = arr((4, 3, 2))
    case("gather_axis0", "GatherV2", dict(params=p, indices=i32([3, 0, 2, 2]), axis=i32(0)),
         extra=[0])
    case("gather_axis1_2d_indices", "GatherV2",
         dict(params=p, indices=i64([[2, 0], [1, 1], [0, 2]]), axis=i64(1)), extra=[0])
    case("gather_axis_neg1", "GatherV2",
         dict(params=p, indices=np.asarray([1, 0, 1], np.int16), axis=i32(-1)), extra=[0])
    case("gather_scalar_index", "GatherV2", dict(params=p, indices=i32(2), axis=i32(1)),
         extra=[0])
    case("gather_batch1", "GatherV2",
         dict(params=p, indices=i32([[2, 0], [1, 1], [0, 2], [1, 0]]), axis=i32(1)),
         dict(batch_dims=1), extra=[1])
    case("gather_batch_neg1_axis2", "GatherV2",
         dict(params=arr((2, 3, 4), np.int8), indices=i32([[3, 0, 1], [2, 2, 1]]),
              axis=i32(2)), dict(batch_dims=-1), extra=[-1])
    case("gather_batch2", "GatherV2",
         dict(params=arr((2, 3, 4, 2)), indices=i32([[[0], [3], [1]], [[2], [2], [0]]]),
              axis=i32(2)), dict(batch_dims=2), extra=[2])
    case("gather_empty_indices", "GatherV2",
         dict(params=p, indices=np.zeros((0,), np.int32), axis=i32(0)), extra=[0])
    case("gather_legacy", "Gather", dict(params=arr((5, 2), np.float64),
                                         indices=i32([[4, 0], [1, 3]])))
    case("fill_float", "Fill", dict(dims=i32([2, 3]), value=np.float32(1.5)))
    case("fill_int64_dims", "Fill", dict(dims=i64([4]), value=np.int64(-3)))
    case("fill_empty", "Fill", dict(dims=i32([3, 0]), value=np.float32(2)))
    case("fill_scalar", "Fill", dict(dims=i32(np.zeros((0,))), value=np.int32(7)))
    def rng_case(name, dtype, start, limit, delta):
        case(name, "Range", dict(start=tf.constant(start, dtype), limit=tf.constant(limit, dtype),
                                 delta=tf.constant(delta, dtype)))

    rng_case("range_int32", tf.int32, 3, 17, 3)
    rng_case("range_int64_negative", tf.int64, 10, -5, -4)
    # Float ranges are start + i * delta in T (not an accumulated sum).
    rng_case("range_float_many_steps", tf.float32, 0.1, 10, 0.1)
    rng_case("range_float_negative", tf.float32, 1, -2, -0.7)
    rng_case("range_double", tf.float64, -1, 1, 0.3)
    rng_case("range_half", tf.float16, 0.1, 7.3, 0.07)
    rng_case("range_empty", tf.int32, 4, 4, 1)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in glob.glob(os.path.join(OUT, "*.npy")):
        os.remove(f)
    shape_cases()
    transpose_cases()
    concat_split_cases()
    slice_cases()
    strided_slice_random_cases()
    pad_cases()
    gather_tile_cases()
    total = sum(os.path.getsize(f) for f in glob.glob(os.path.join(OUT, "*.npy")))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
