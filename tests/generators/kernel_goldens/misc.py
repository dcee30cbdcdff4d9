#!/usr/bin/env python3
"""Goldens for the misc kernel family (image resizes, scans, one-hot, top-k, gather_nd, where,
clip, broadcast_to/args, einsum, Conv2DBackpropInput).

Run from the repository root:

    .venv/bin/python tests/generators/kernel_goldens/misc.py

Writes tests/data/kernels/misc/<case>_<role>.npy (inputs and TensorFlow's outputs), wiping the
folder first. Uses tf.raw_ops with TensorFlow's native CPU kernels (oneDNN off), so the values
are TensorFlow's own semantics. Fixed seeds: the output is deterministic.
"""
import os
import pathlib
import sys

# Sibling generators (e.g. array.py) would shadow standard modules that TensorFlow imports.
_HERE = pathlib.Path(__file__).resolve().parent
sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import shutil

import numpy as np
import tensorflow as tf

OUT = _HERE.parents[2] / "tests" / "data" / "kernels" / "misc"
R = tf.raw_ops
rng = np.random.default_rng(20240612)


def rand(*shape, dtype=np.float32, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def save(case, **arrays):
    for role, value in arrays.items():
        value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        # np.ascontiguousarray would turn a 0-d array into shape (1,).
        np.save(OUT / f"{case}_{role}.npy", np.array(value, order="C"))


# The three attr combinations TensorFlow accepts (align_corners with half_pixel_centers is an
# error), as (suffix, align_corners, half_pixel_centers).
SWEEP_WIDTHS = (5, 13)
SWEEP_MAX = 32
RESIZE_MODES = [("plain", False, False), ("ac", True, False), ("hp", False, True)]


def resize_cases():
    x = rand(2, 5, 7, 3, scale=10.0)
    xu8 = rng.integers(0, 256, size=(1, 4, 6, 2)).astype(np.uint8)
    save("resize", x=x, x_u8=xu8)
    # "half": with align_corners the scales are 1 and 0.5, so sources land on .5 exactly.
    sizes = {"up": [8, 11], "down": [3, 4], "one": [1, 1], "mixed": [9, 2], "half": [9, 13]}
    ops = {"bilinear": R.ResizeBilinear, "nearest": R.ResizeNearestNeighbor,
           "bicubic": R.ResizeBicubic}
    for op_name, op in ops.items():
        for mode, ac, hp in RESIZE_MODES:
            for size_name, size in sizes.items():
                out = op(images=x, size=size, align_corners=ac, half_pixel_centers=hp)
                save(f"resize_{op_name}_{mode}_{size_name}", out=out)
            out = op(images=xu8, size=[7, 5], align_corners=ac, half_pixel_centers=hp)
            save(f"resize_{op_name}_{mode}_u8", out=out)
            # A sweep over output widths 1..SWEEP_MAX of one-row images of widths 5 and 13,
            # every result flattened into one array (widths in order).
            sweep = []
            for width in SWEEP_WIDTHS:
                row = np.arange(width, dtype=np.float32).reshape(1, 1, width, 1) * 1.5 - 3.0
                for n in range(1, SWEEP_MAX + 1):
                    out = op(images=row, size=[1, n], align_corners=ac, half_pixel_centers=hp)
                    sweep.append(out.numpy().astype(np.float32).ravel())
            save(f"resize_{op_name}_{mode}_sweep", out=np.concatenate(sweep))


def scan_cases():
    x = rand(3, 4, 5)
    xp = (1.0 + 0.2 * rand(3, 4, 5)).astype(np.float32)
    xi = rng.integers(-50, 50, size=(3, 4, 5)).astype(np.int32)
    save("scan", x=x, xp=xp, xi=xi)
    for axis in (0, 1, -1):
        for exclusive in (False, True):
            for reverse in (False, True):
                tag = f"a{axis}_e{int(exclusive)}_r{int(reverse)}".replace("-", "m")
                save(f"cumsum_{tag}",
                     out=R.Cumsum(x=x, axis=axis, exclusive=exclusive, reverse=reverse))
                save(f"cumprod_{tag}",
                     out=R.Cumprod(x=xp, axis=axis, exclusive=exclusive, reverse=reverse))
    save("cumsum_int", out=R.Cumsum(x=xi, axis=1, exclusive=True, reverse=True))
    save("cumprod_int", out=R.Cumprod(x=(xi % 5).astype(np.int32), axis=2))


def one_hot_cases():
    idx = np.array([[0, 3, -1], [2, 5, 1]], np.int32)
    for axis in (-1, 0, 1, 2):
        save(f"one_hot_axis{axis}".replace("-", "m"), indices=idx,
             out=R.OneHot(indices=idx, depth=4, on_value=5.0, off_value=-1.0, axis=axis))
    idx64 = np.array([1, 0, 7, 2], np.int64)
    save("one_hot_int64", indices=idx64,
         out=R.OneHot(indices=idx64, depth=3, on_value=np.int32(1), off_value=np.int32(0)))


def top_k_cases():
    x = np.round(rand(3, 10, scale=2.0)).astype(np.float32)  # rounded: plenty of ties
    save("top_k", x=x)
    for k in (0, 1, 4, 10):
        v, i = R.TopKV2(input=x, k=k, sorted=True)
        save(f"top_k_k{k}", values=v, indices=i)
    xi = rng.integers(-5, 5, size=(2, 3, 6)).astype(np.int32)
    v, i = R.TopKV2(input=xi, k=3)
    save("top_k_int", x=xi, values=v, indices=i)
    v, i = R.TopKV2(input=x, k=4, index_type=tf.int64)
    save("top_k_i64", values=v, indices=i)


def gather_nd_cases():
    params = rand(4, 5, 3)
    save("gather_nd", params=params)
    cases = {
        "d2": rng.integers(0, [4, 5], size=(2, 3, 2)).astype(np.int32),
        "d3": rng.integers(0, [4, 5, 3], size=(6, 3)).astype(np.int32),
        "d1": rng.integers(0, 4, size=(3, 1)).astype(np.int64),
        "d0": np.zeros((2, 0), np.int32),
    }
    for name, idx in cases.items():
        save(f"gather_nd_{name}", indices=idx, out=R.GatherNd(params=params, indices=idx))


def where_cases():
    b = rng.random((3, 4)) > 0.5
    save("where_bool", x=b, out=R.Where(condition=b))
    f = np.array([[[0.0, -0.0], [np.nan, 1.5], [0.0, -2.0]],
                  [[3.0, 0.0], [0.0, 0.0], [np.inf, 0.0]]], np.float32)
    save("where_float", x=f, out=R.Where(condition=f))
    i = rng.integers(-1, 2, size=(5,)).astype(np.int32)
    save("where_int", x=i, out=R.Where(condition=i))


def clip_cases():
    t = rand(3, 4, scale=2.0)
    t[0, 0] = np.nan
    lo = rand(3, 4) - 1.0
    hi = lo + np.abs(rand(3, 4)) + 0.5
    save("clip", t=t, lo=lo, hi=hi,
         scalar=R.ClipByValue(t=t, clip_value_min=np.float32(-0.5), clip_value_max=np.float32(1)),
         tensor=R.ClipByValue(t=t, clip_value_min=lo, clip_value_max=hi),
         mixed=R.ClipByValue(t=t, clip_value_min=lo, clip_value_max=np.float32(0.75)))


def broadcast_cases():
    x = rand(3, 1)
    save("broadcast_to", x=x, out=R.BroadcastTo(input=x, shape=[2, 3, 4]))
    xi = rng.integers(0, 9, size=(1, 4)).astype(np.int32)
    save("broadcast_to_int", x=xi, out=R.BroadcastTo(input=xi, shape=np.array([3, 4], np.int64)))


EINSUM_CASES = {
    # Keras MultiHeadAttention projections and attention.
    "mha_proj": ("abc,cde->abde", [(2, 3, 4), (4, 5, 6)]),
    "mha_out": ("abcd,cde->abe", [(2, 3, 4, 5), (4, 5, 6)]),
    "mha_scores": ("aecd,abcd->acbe", [(2, 3, 4, 5), (2, 6, 4, 5)]),
    "mha_context": ("acbe,aecd->abcd", [(2, 4, 6, 3), (2, 3, 4, 5)]),
    "matmul": ("ij,jk->ik", [(3, 4), (4, 5)]),
    "bmm": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    "outer": ("i,j->ij", [(3,), (4,)]),
    "dot_batch": ("bi,bi->b", [(3, 5), (3, 5)]),
    "transpose": ("ijk->kij", [(2, 3, 4)]),
    "sum_all": ("ij->", [(3, 4)]),
    "trace": ("ii->", [(4, 4)]),
    "diag": ("ii->i", [(4, 4)]),
    "diag3": ("iij->ji", [(3, 3, 2)]),
    "inflate": ("i->ii", [(3,)]),
    "reduce_both": ("abc,cd->a", [(2, 3, 4), (4, 5)]),
    "ellipsis": ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    "ellipsis_mid": ("a...b,b...->a...", [(2, 3, 4), (4, 3)]),
    "ellipsis_unary": ("...ij->...ji", [(2, 3, 4)]),
    "batch_first_contract": ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
}


def einsum_cases():
    for name, (eq, shapes) in EINSUM_CASES.items():
        ins = [rand(*s) for s in shapes]
        out = R.Einsum(inputs=ins, equation=eq)
        save(f"einsum_{name}", **{f"in{i}": t for i, t in enumerate(ins)}, out=out)
    a = rng.integers(-3, 4, size=(3, 4)).astype(np.int32)
    b = rng.integers(-3, 4, size=(4, 2)).astype(np.int32)
    save("einsum_int", in0=a, in1=b, out=R.Einsum(inputs=[a, b], equation="ij,jk->ik"))


def conv_backprop_cases():
    # name: (input_sizes NHWC, filter HWIO, strides, padding, dilations, explicit)
    cases = {
        "same_s2": ((2, 7, 8, 3), (3, 3, 3, 4), [1, 2, 2, 1], "SAME", [1, 1, 1, 1], []),
        "same_s2_even": ((1, 8, 8, 2), (3, 3, 2, 3), [1, 2, 2, 1], "SAME", [1, 1, 1, 1], []),
        "valid_s2": ((1, 9, 7, 2), (3, 2, 2, 3), [1, 2, 2, 1], "VALID", [1, 1, 1, 1], []),
        "valid_s1": ((2, 5, 6, 3), (2, 3, 3, 2), [1, 1, 1, 1], "VALID", [1, 1, 1, 1], []),
        "same_s3": ((1, 10, 11, 2), (4, 4, 2, 2), [1, 3, 3, 1], "SAME", [1, 1, 1, 1], []),
        "same_dilated": ((1, 7, 7, 2), (3, 3, 2, 3), [1, 1, 1, 1], "SAME", [1, 2, 2, 1], []),
        "explicit": ((1, 6, 5, 2), (3, 2, 2, 3), [1, 2, 1, 1], "EXPLICIT", [1, 1, 1, 1],
                     [0, 0, 1, 2, 2, 0, 0, 0]),
        "k1": ((2, 4, 4, 5), (1, 1, 5, 3), [1, 1, 1, 1], "VALID", [1, 1, 1, 1], []),
    }
    for name, (sizes, fs, strides, padding, dilations, explicit) in cases.items():
        f = rand(*fs)
        # out_backprop has the forward convolution's output shape.
        probe = R.Conv2D(input=np.zeros(sizes, np.float32), filter=f, strides=strides,
                         padding=padding, dilations=dilations, explicit_paddings=explicit)
        dy = rand(*probe.shape)
        # TensorFlow's CPU kernel rejects dilations > 1; a dilated filter is the same as the
        # filter with zeros inserted between its taps, which the kernel does accept.
        dh, dw = dilations[1], dilations[2]
        fd = np.zeros(((fs[0] - 1) * dh + 1, (fs[1] - 1) * dw + 1, fs[2], fs[3]), np.float32)
        fd[::dh, ::dw] = f
        out = R.Conv2DBackpropInput(input_sizes=np.array(sizes, np.int32), filter=fd,
                                    out_backprop=dy, strides=strides, padding=padding,
                                    explicit_paddings=explicit)
        save(f"conv_bp_{name}", filter=f, dy=dy, out=out)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    resize_cases()
    scan_cases()
    one_hot_cases()
    top_k_cases()
    gather_nd_cases()
    where_cases()
    clip_cases()
    broadcast_cases()
    einsum_cases()
    conv_backprop_cases()
    total = sum(p.stat().st_size for p in OUT.glob("*.npy"))
    print(f"wrote {len(list(OUT.glob('*.npy')))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
