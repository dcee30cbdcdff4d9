#!/usr/bin/env python3
"""Differential op fuzzing against TensorFlow: random single-op graphs (random
shapes, broadcasting, attributes, dtypes, and values with NaN, infinities,
signed zeros and empty dimensions), saved as SavedModels by TensorFlow, run by
TensorFlow and by smrt, compared. Needs TensorFlow (the oracle) and smrt's
Python module; it is a script of its own, not part of scripts/test.sh.

  PYTHONPATH=build/python .venv-peers/bin/python scripts/op_fuzz.py \
      [--cases 500] [--seed 1] [--only Conv2D,Pad] [--keep DIR] [--device CUDA:0]
      [--save DIR]

Prints one line per disagreement (op, attributes, shapes, what differs) and a
count per op. With --keep, the SavedModel and the inputs of each disagreeing
case stay in DIR to reproduce it (`smrt run`). With --save, the cases that
agree are written to DIR as a conformance zoo (<batch>/{saved_model,
model.json, cases/}, TensorFlow's outputs as the goldens), for
`smrt_conformance --zoo DIR` where TensorFlow is not (a GPU machine:
scripts/gpu_bundle.sh takes it as GPU_BUNDLE_CORPUS). Exits 1 on any
disagreement.
"""
import argparse
import collections
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile

import numpy as np

if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:
    # smrt runs in a process of its own: its TensorFlow protos and
    # TensorFlow's own cannot share one protobuf descriptor pool.
    import smrt
    path, device = sys.argv[2], sys.argv[3]
    with open(os.path.join(path, "cases.pkl"), "rb") as f:
        jobs = pickle.load(f)
    results = {}
    for key, feeds in jobs.items():
        try:
            opts = {"device": device} if device else {}
            got = smrt.load(os.path.join(path, "model"), signatures=key, **opts).run(key, feeds)
            results[key] = {k: np.array(v) for k, v in got.items()}
        except Exception as e:  # smrt refused what TF ran
            results[key] = f"error: {str(e).splitlines()[0][:300]}"
    with open(os.path.join(path, "results.pkl"), "wb") as f:
        pickle.dump(results, f)
    sys.exit(0)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# TensorFlow's own kernels, as the kernel goldens use (tests/generators/kernel_goldens):
# its oneDNN ones differ at the edges (Softmax of a row with +inf or NaN).
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import tensorflow as tf  # noqa: E402

R = tf.raw_ops
FLOATS = [np.float32, np.float32, np.float32, np.float64, np.float16]


class Case:
    def __init__(self, op, fn, inputs, attrs, rtol=None, atol=0.0):
        self.op, self.fn, self.inputs, self.attrs = op, fn, inputs, attrs
        self.rtol, self.atol = rtol, atol
        self.dynamic = False  # signature dims left unknown (run_batch)


def values(rng, shape, dtype, special=0.1, low=-3.0, high=3.0):
    """Random values of a dtype; floats with NaN, infinities and zeros mixed in."""
    shape = tuple(shape)
    if np.issubdtype(dtype, np.integer):
        lo = max(int(low), np.iinfo(dtype).min)
        return rng.integers(lo, int(high) + 1, size=shape).astype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    x = rng.uniform(low, high, size=shape)
    if special and x.size:
        mask = rng.random(shape) < special
        pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0])
        x = np.where(mask, rng.choice(pool, size=shape), x)
    return x.astype(dtype)


def rand_shape(rng, rank, low=0, high=5, empty=0.05):
    dims = [int(rng.integers(1, high + 1)) for _ in range(rank)]
    if rank and rng.random() < empty:
        dims[int(rng.integers(rank))] = low
    return dims


def broadcast_pair(rng, rank):
    a = rand_shape(rng, rank, empty=0.03)
    b = list(a)
    for i in range(rank):
        if rng.random() < 0.3:
            b[i] = 1
        elif rng.random() < 0.15:
            a[i] = 1
    drop = int(rng.integers(0, rank + 1)) if rng.random() < 0.3 else 0
    b = b[drop:]
    return (a, b) if rng.random() < 0.5 else (b, a)


BINARY = ["AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "SquaredDifference",
          "FloorDiv", "FloorMod", "Pow", "DivNoNan", "Equal", "NotEqual", "Less", "LessEqual",
          "Greater", "GreaterEqual"]
UNARY = ["Abs", "Neg", "Exp", "Log", "Log1p", "Sqrt", "Rsqrt", "Tanh", "Sigmoid", "Erf",
         "Erfc", "Round", "Floor", "Ceil", "Sign", "Softplus", "Softsign", "Elu", "Selu",
         "Relu", "Relu6", "Reciprocal", "Square", "Sin", "Cos", "Expm1", "IsNan", "IsFinite"]
TRANSCENDENTAL = {"Exp", "Log", "Log1p", "Tanh", "Sigmoid", "Erf", "Erfc", "Softplus", "Elu",
                  "Selu", "Sin", "Cos", "Expm1", "Pow", "Rsqrt", "Sqrt", "Softsign"}


def gen_binary(rng):
    op = str(rng.choice(BINARY))
    ints = op in ("AddV2", "Sub", "Mul", "Maximum", "Minimum", "FloorDiv", "FloorMod",
                  "Equal", "Less", "GreaterEqual", "SquaredDifference")
    dtype = rng.choice([np.int32, np.int64] if ints and rng.random() < 0.3 else FLOATS)
    a, b = broadcast_pair(rng, int(rng.integers(0, 5)))
    x, y = values(rng, a, dtype), values(rng, b, dtype)
    if op in ("FloorDiv", "FloorMod") and np.issubdtype(dtype, np.integer):
        y[y == 0] = 3  # TF raises on integer division by zero
    if op == "Pow" and np.issubdtype(dtype, np.integer):
        y = np.abs(y)
    f = getattr(R, op)
    # Maximum/Minimum of +0 and -0: TF's sign depends on the element's position
    # (docs/differences.md); a zero relative tolerance still compares values.
    exact = 0.0 if op in ("Maximum", "Minimum") else None
    return Case(op, lambda x, y: f(x=x, y=y), [x, y], {"dtype": np.dtype(dtype).name},
                rtol=1e-5 if op in TRANSCENDENTAL else exact)


def gen_unary(rng):
    op = str(rng.choice(UNARY))
    dtype = rng.choice(FLOATS)
    x = values(rng, rand_shape(rng, int(rng.integers(0, 4))), dtype, low=-6, high=6)
    if op == "Erf" and dtype == np.float64:
        x[np.isinf(x)] = 0  # TF's float64 Erf(±inf) is NaN (docs/differences.md)
    f = getattr(R, op)
    if op in ("IsNan", "IsFinite", "Round", "Floor", "Ceil", "Sign", "Abs", "Neg", "Square"):
        rtol = None
    elif op in ("Relu", "Relu6"):
        rtol = 0.0  # exact values; TF's sign of Relu(-0) depends on the position
    elif dtype == np.float16:
        rtol = 1e-3  # TF's float16 Rsqrt goes through Eigen's float estimate: 1 unit apart
    else:
        rtol = 2e-6
    # atol: Elu's exp(x) - 1 near 0 keeps exp's last-place difference (TF's
    # vectorised Eigen exp against the C library's).
    return Case(op, lambda x: f(x=x) if op not in ("Relu", "Relu6", "Elu", "Selu", "Softplus",
                                                   "Softsign") else f(features=x),
                [x], {"dtype": np.dtype(dtype).name}, rtol=rtol,
                atol=2e-7 if rtol is not None else 0.0)


def gen_reduce(rng):
    op = str(rng.choice(["Sum", "Mean", "Max", "Min", "Prod", "ArgMax", "ArgMin", "All", "Any"]))
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, empty=0.05)
    if op in ("All", "Any"):
        dtype = np.bool_
    elif op in ("ArgMax", "ArgMin"):
        dtype = rng.choice([np.float32, np.int32, np.float64])
        shape = [max(d, 1) for d in shape]
    else:
        dtype = rng.choice([np.float32, np.float32, np.float64, np.int32, np.int64, np.float16])
    special = 0.05 if op not in ("ArgMax", "ArgMin") else 0.0
    x = values(rng, shape, dtype, special=special, low=-2, high=2)
    keep = bool(rng.random() < 0.5)
    if op in ("ArgMax", "ArgMin"):
        axis = int(rng.integers(-rank, rank))
        out_type = rng.choice([tf.int32, tf.int64])
        f = getattr(R, op)
        return Case(op, lambda x: f(input=x, dimension=axis, output_type=out_type), [x],
                    {"axis": axis, "dtype": np.dtype(dtype).name})
    naxes = int(rng.integers(0, rank + 1))
    axes = sorted(rng.choice(rank, size=naxes, replace=False).tolist())
    axes = [a - rank if rng.random() < 0.3 else a for a in axes]
    if rng.random() < 0.2 and axes:
        axes = axes[0]
    f = getattr(R, op)
    # Max/Min: +0 against -0 as Maximum/Minimum (docs/differences.md)
    rtol = 1e-5 if op in ("Sum", "Mean", "Prod") else 0.0 if op in ("Max", "Min") else None
    if dtype == np.float16 and op in ("Sum", "Mean", "Prod"):
        rtol = 1e-2
    return Case(op, lambda x: f(input=x, axis=axes, keep_dims=keep), [x],
                {"axes": axes, "keep_dims": keep, "dtype": np.dtype(dtype).name}, rtol=rtol,
                atol=1e-5)


def gen_transpose(rng):
    rank = int(rng.integers(0, 6))
    x = values(rng, rand_shape(rng, rank), np.float32)
    perm = rng.permutation(rank).tolist()
    return Case("Transpose", lambda x: R.Transpose(x=x, perm=perm), [x], {"perm": perm})


def gen_strided_slice(rng):
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, high=6)
    x = values(rng, shape, np.float32, special=0)
    n = int(rng.integers(1, rank + 1))
    begin, end, strides = [], [], []
    for i in range(n):
        d = max(shape[i], 1)
        s = int(rng.choice([1, 1, 2, 3, -1, -2]))
        begin.append(int(rng.integers(-d - 1, d + 2)))
        end.append(int(rng.integers(-d - 1, d + 2)))
        strides.append(s)
    masks = {k: int(rng.integers(0, 1 << n)) if rng.random() < 0.4 else 0
             for k in ("begin_mask", "end_mask", "new_axis_mask")}
    masks["shrink_axis_mask"] = 0
    if rng.random() < 0.3:
        i = int(rng.integers(n))
        if shape[i] > 0 and not (masks["new_axis_mask"] >> i) & 1:
            masks["shrink_axis_mask"] = 1 << i
            begin[i] = int(rng.integers(-shape[i], shape[i]))
            end[i], strides[i] = begin[i] + 1, 1
    masks["ellipsis_mask"] = (1 << int(rng.integers(n))) if rng.random() < 0.2 else 0
    masks["ellipsis_mask"] &= ~masks["shrink_axis_mask"]
    b, e, s = (np.array(v, np.int32) for v in (begin, end, strides))
    return Case("StridedSlice",
                lambda x: R.StridedSlice(input=x, begin=b, end=e, strides=s, **masks), [x],
                dict(begin=begin, end=end, strides=strides, shape=shape, **masks))


def gen_pad(rng):
    rank = int(rng.integers(1, 5))
    shape = rand_shape(rng, rank, empty=0.0)
    x = values(rng, shape, rng.choice([np.float32, np.int32]), special=0)
    mode = str(rng.choice(["CONSTANT", "REFLECT", "SYMMETRIC"]))
    pads = []
    for d in shape:
        lim = d - 1 if mode == "REFLECT" else d
        lim = min(lim, 3) if mode != "CONSTANT" else 3
        pads.append([int(rng.integers(0, lim + 1)), int(rng.integers(0, lim + 1))])
    p = np.array(pads, np.int32)
    if mode == "CONSTANT":
        cv = x.dtype.type(rng.integers(-3, 3))
        return Case("PadV2", lambda x: R.PadV2(input=x, paddings=p, constant_values=cv), [x],
                    {"pads": pads})
    return Case("MirrorPad", lambda x: R.MirrorPad(input=x, paddings=p, mode=mode), [x],
                {"pads": pads, "mode": mode})


def gen_gather(rng):
    rank = int(rng.integers(1, 4))
    shape = rand_shape(rng, rank, empty=0.0)
    batch_dims = int(rng.integers(0, rank)) if rng.random() < 0.3 else 0
    axis = int(rng.integers(batch_dims, rank))
    x = values(rng, shape, np.float32, special=0)
    ishape = shape[:batch_dims] + rand_shape(rng, int(rng.integers(0, 3)), empty=0.05)
    idx = rng.integers(0, shape[axis], size=ishape).astype(rng.choice([np.int32, np.int64]))
    if rng.random() < 0.3:
        idx = idx - shape[axis] * (rng.random(idx.shape) < 0.0)  # (negatives are errors)
    return Case("GatherV2",
                lambda x, i: R.GatherV2(params=x, indices=i, axis=axis, batch_dims=batch_dims),
                [x, idx], {"axis": axis, "batch_dims": batch_dims, "shape": shape})


def conv_geometry(rng, kernel_max=4):
    n = int(rng.integers(1, 3))
    h, w = int(rng.integers(1, 10)), int(rng.integers(1, 10))
    kh, kw = int(rng.integers(1, kernel_max + 1)), int(rng.integers(1, kernel_max + 1))
    sh, sw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    dh, dw = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) if rng.random() < 0.3 else (1, 1)
    return n, h, w, kh, kw, sh, sw, dh, dw


def gen_conv(rng):
    n, h, w, kh, kw, sh, sw, dh, dw = conv_geometry(rng)
    depthwise = rng.random() < 0.35
    c = int(rng.integers(1, 6))
    padding = str(rng.choice(["SAME", "VALID", "EXPLICIT"]))
    if padding == "VALID" and ((h - (kh - 1) * dh - 1) < 0 or (w - (kw - 1) * dw - 1) < 0):
        padding = "SAME"
    explicit = []
    if padding == "EXPLICIT":
        explicit = [0, 0] + [int(v) for v in rng.integers(0, 3, size=4)] + [0, 0]
    if depthwise:
        if padding == "EXPLICIT":
            padding = "SAME"
        sw = sh  # TF's depthwise needs equal strides
        mult = int(rng.integers(1, 3))
        x = values(rng, [n, h, w, c], np.float32, special=0.01)
        k = values(rng, [kh, kw, c, mult], np.float32, special=0)
        return Case("DepthwiseConv2dNative",
                    lambda x, k: R.DepthwiseConv2dNative(
                        input=x, filter=k, strides=[1, sh, sw, 1], padding=padding,
                        dilations=[1, dh, dw, 1]),
                    [x, k], {"x": x.shape, "k": k.shape, "s": (sh, sw), "d": (dh, dw),
                             "padding": padding}, rtol=1e-4, atol=1e-4)
    groups = int(rng.choice([1, 1, 1, 2])) if c % 2 == 0 else 1
    o = int(rng.integers(1, 5)) * groups
    x = values(rng, [n, h, w, c], np.float32, special=0.01)
    k = values(rng, [kh, kw, c // groups, o], np.float32, special=0)
    return Case("Conv2D",
                lambda x, k: R.Conv2D(input=x, filter=k, strides=[1, sh, sw, 1],
                                      padding=padding, explicit_paddings=explicit,
                                      dilations=[1, dh, dw, 1]),
                [x, k], {"x": x.shape, "k": k.shape, "s": (sh, sw), "d": (dh, dw),
                         "padding": padding, "explicit": explicit}, rtol=1e-4, atol=1e-4)


def gen_pool(rng):
    n, h, w, kh, kw, sh, sw, _, _ = conv_geometry(rng)
    c = int(rng.integers(1, 4))
    padding = str(rng.choice(["SAME", "VALID"]))
    if padding == "VALID" and (h < kh or w < kw):
        padding = "SAME"
    op = str(rng.choice(["MaxPool", "AvgPool"]))
    dtype = rng.choice([np.float32, np.float32, np.float16])
    x = values(rng, [n, h, w, c], dtype, special=0.05)
    f = getattr(R, op)
    return Case(op, lambda x: f(value=x, ksize=[1, kh, kw, 1], strides=[1, sh, sw, 1],
                                padding=padding),
                [x], {"x": x.shape, "k": (kh, kw), "s": (sh, sw), "padding": padding,
                      "dtype": np.dtype(dtype).name},
                rtol=1e-5 if dtype == np.float32 else 1e-2,
                atol=1e-6 if dtype == np.float32 else 1e-3)  # docs/precision.md


def gen_conv_transpose(rng):
    n, h, w, kh, kw, sh, sw, _, _ = conv_geometry(rng)
    c, o = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    padding = str(rng.choice(["SAME", "VALID"]))
    if padding == "SAME":
        oh, ow = h * sh - int(rng.integers(0, sh)), w * sw - int(rng.integers(0, sw))
    else:
        oh = (h - 1) * sh + kh + int(rng.integers(0, sh))
        ow = (w - 1) * sw + kw + int(rng.integers(0, sw))
    x = values(rng, [n, h, w, c], np.float32, special=0)
    k = values(rng, [kh, kw, o, c], np.float32, special=0)
    sizes = np.array([n, oh, ow, o], np.int32)
    return Case("Conv2DBackpropInput",
                lambda x, k: R.Conv2DBackpropInput(input_sizes=sizes, filter=k, out_backprop=x,
                                                   strides=[1, sh, sw, 1], padding=padding),
                [x, k], {"x": x.shape, "k": k.shape, "s": (sh, sw), "out": sizes.tolist(),
                         "padding": padding}, rtol=1e-4, atol=1e-4)


def gen_matmul(rng):
    if rng.random() < 0.5:
        m, k, n = (int(v) for v in rng.integers(1, 9, size=3))
        ta, tb = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
        a = values(rng, [k, m] if ta else [m, k], np.float32, special=0.01)
        b = values(rng, [n, k] if tb else [k, n], np.float32, special=0)
        return Case("MatMul", lambda a, b: R.MatMul(a=a, b=b, transpose_a=ta, transpose_b=tb),
                    [a, b], {"a": a.shape, "b": b.shape, "ta": ta, "tb": tb}, rtol=1e-4,
                    atol=1e-4)
    ba, bb = broadcast_pair(rng, int(rng.integers(0, 3)))
    m, k, n = (int(v) for v in rng.integers(1, 7, size=3))
    adj_x, adj_y = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
    a = values(rng, ba + ([k, m] if adj_x else [m, k]), np.float32, special=0)
    b = values(rng, bb + ([n, k] if adj_y else [k, n]), np.float32, special=0)
    return Case("BatchMatMulV2",
                lambda a, b: R.BatchMatMulV2(x=a, y=b, adj_x=adj_x, adj_y=adj_y), [a, b],
                {"a": a.shape, "b": b.shape, "adj_x": adj_x, "adj_y": adj_y}, rtol=1e-4,
                atol=1e-4)


def gen_resize(rng):
    n, h, w = int(rng.integers(1, 3)), int(rng.integers(1, 7)), int(rng.integers(1, 7))
    oh, ow = int(rng.integers(1, 13)), int(rng.integers(1, 13))
    op = str(rng.choice(["ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"]))
    align = bool(rng.random() < 0.3)
    half = (not align) and bool(rng.random() < 0.6)
    x = values(rng, [n, h, w, 2], np.float32, special=0)
    size = np.array([oh, ow], np.int32)
    f = getattr(R, op)
    return Case(op, lambda x: f(images=x, size=size, align_corners=align,
                                half_pixel_centers=half),
                [x], {"x": x.shape, "size": (oh, ow), "align": align, "half": half},
                rtol=1e-5, atol=1e-5)


def gen_softmax(rng):
    op = str(rng.choice(["Softmax", "LogSoftmax"]))
    dtype = rng.choice([np.float32, np.float32, np.float64, np.float16])
    x = values(rng, rand_shape(rng, int(rng.integers(1, 4))), dtype, special=0.03, low=-20,
               high=20)
    f = getattr(R, op)
    # TF's float16 kernel rounds each step in float16 (docs/precision.md)
    return Case(op, lambda x: f(logits=x), [x], {"dtype": np.dtype(dtype).name},
                rtol=1e-5 if dtype != np.float16 else 2e-3,
                atol=1e-6 if dtype != np.float16 else 2e-3)


def gen_cumsum(rng):
    op = str(rng.choice(["Cumsum", "Cumprod"]))
    rank = int(rng.integers(1, 4))
    dtype = rng.choice([np.float32, np.int32, np.float64])
    x = values(rng, rand_shape(rng, rank), dtype, special=0.02, low=-2, high=2)
    axis = int(rng.integers(-rank, rank))
    ex, rev = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
    f = getattr(R, op)
    return Case(op, lambda x: f(x=x, axis=axis, exclusive=ex, reverse=rev), [x],
                {"axis": axis, "exclusive": ex, "reverse": rev,
                 "dtype": np.dtype(dtype).name}, rtol=1e-5, atol=1e-5)


def gen_topk(rng):
    rank = int(rng.integers(1, 3))
    shape = rand_shape(rng, rank, empty=0.0, high=8)
    dtype = rng.choice([np.float32, np.int32])
    x = values(rng, shape, dtype, special=0.1, low=-3, high=3)
    if np.issubdtype(dtype, np.floating):
        # TF's order of NaNs depends on k and the row length (its comparator
        # finds NaN neither greater nor less); smrt ranks NaN above +inf.
        x[np.isnan(x)] = np.inf
    k = int(rng.integers(0, shape[-1] + 1))
    srt = bool(rng.random() < 0.8)

    def top_k(x):  # sorted=False leaves the order to the kernel: compare sorted
        values, indices = R.TopKV2(input=x, k=k, sorted=srt)
        return (values, indices) if srt else (tf.sort(values), tf.sort(indices))
    return Case("TopKV2", top_k, [x],
                {"k": k, "sorted": srt, "dtype": np.dtype(dtype).name})


def gen_concat_split(rng):
    rank = int(rng.integers(1, 4))
    shape = rand_shape(rng, rank, empty=0.1)
    axis = int(rng.integers(-rank, rank))
    if rng.random() < 0.5:
        parts = int(rng.integers(1, 4))
        xs = []
        for _ in range(parts):
            s = list(shape)
            s[axis] = int(rng.integers(0, 4))
            xs.append(values(rng, s, np.float32, special=0))
        return Case("ConcatV2", lambda *xs: R.ConcatV2(values=list(xs), axis=axis), xs,
                    {"axis": axis, "shapes": [x.shape for x in xs]})
    d = shape[axis]
    cuts = sorted(int(v) for v in rng.integers(0, d + 1, size=int(rng.integers(0, 3))))
    sizes = np.diff([0] + cuts + [d]).astype(np.int32)
    if rng.random() < 0.3 and len(sizes) > 1:
        sizes[int(rng.integers(len(sizes)))] = -1
    x = values(rng, shape, np.float32, special=0)
    return Case("SplitV",
                lambda x: tuple(R.SplitV(value=x, size_splits=sizes, axis=axis,
                                         num_split=len(sizes))),
                [x], {"axis": axis, "sizes": sizes.tolist(), "shape": shape})


def gen_cast(rng):
    src = rng.choice([np.float32, np.float64, np.float16, np.int32, np.int64, np.bool_])
    dst = rng.choice([np.float32, np.float64, np.float16, np.int32, np.int64, np.bool_,
                      np.uint8, np.int8])
    big = 300
    if np.issubdtype(src, np.floating) and np.issubdtype(dst, np.integer):
        big = min(big, np.iinfo(dst).max)  # out of range is undefined in TF's C++ cast
    low = 0 if np.issubdtype(src, np.floating) and dst == np.uint8 else -big
    x = values(rng, rand_shape(rng, 2), src, special=0.0, low=low, high=big)
    return Case("Cast", lambda x: R.Cast(x=x, DstT=tf.as_dtype(dst)), [x],
                {"src": np.dtype(src).name, "dst": np.dtype(dst).name})


def gen_tile_reverse(rng):
    rank = int(rng.integers(1, 5))
    x = values(rng, rand_shape(rng, rank), np.float32, special=0)
    if rng.random() < 0.5:
        m = np.array(rng.integers(0, 4, size=rank), np.int32)
        return Case("Tile", lambda x: R.Tile(input=x, multiples=m), [x],
                    {"multiples": m.tolist()})
    axes = np.array(sorted(rng.choice(rank, size=int(rng.integers(0, rank + 1)),
                                      replace=False).tolist()), np.int32)
    return Case("ReverseV2", lambda x: R.ReverseV2(tensor=x, axis=axes), [x],
                {"axes": axes.tolist()})


def gen_fused_bn(rng):
    n, h, w, c = 2, int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 5))
    x = values(rng, [n, h, w, c], np.float32, special=0)
    scale, offset = values(rng, [c], np.float32, special=0), values(rng, [c], np.float32, 0)
    mean = values(rng, [c], np.float32, special=0)
    var = np.abs(values(rng, [c], np.float32, special=0))
    training = bool(rng.random() < 0.4)
    eps = float(rng.choice([1e-3, 1e-5]))
    return Case("FusedBatchNormV3",
                lambda x, s, o, m, v: R.FusedBatchNormV3(
                    x=x, scale=s, offset=o, mean=m, variance=v, epsilon=eps,
                    is_training=training)[0],
                [x, scale, offset, mean, var], {"training": training, "c": c}, rtol=1e-4,
                atol=1e-4)


def gen_space_depth(rng):
    b = int(rng.integers(2, 5))
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 5))
    dtype = rng.choice([np.float32, np.float32, np.int32, np.float16])
    h, w = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    if rng.random() < 0.5:
        x = values(rng, [n, b * h, b * w, c], dtype, special=0)
        return Case("SpaceToDepth", lambda x: R.SpaceToDepth(input=x, block_size=b), [x],
                    {"b": b, "x": x.shape, "dtype": x.dtype.name})
    x = values(rng, [n, h, w, c * b * b], dtype, special=0)
    return Case("DepthToSpace", lambda x: R.DepthToSpace(input=x, block_size=b), [x],
                {"b": b, "x": x.shape, "dtype": x.dtype.name})


def gen_onehot_select(rng):
    if rng.random() < 0.5:
        depth = int(rng.integers(0, 5))
        idx = rng.integers(-1, depth + 2, size=rand_shape(rng, 2)).astype(np.int32)
        axis = int(rng.integers(-1, 3))
        return Case("OneHot", lambda i: R.OneHot(indices=i, depth=depth, on_value=2.5,
                                                 off_value=-1.0, axis=axis),
                    [idx], {"depth": depth, "axis": axis})
    a, b = broadcast_pair(rng, int(rng.integers(0, 4)))
    cshape = a if rng.random() < 0.5 else b
    cond = values(rng, cshape, np.bool_)
    x, y = values(rng, a, np.float32), values(rng, b, np.float32)
    return Case("SelectV2", lambda c, x, y: R.SelectV2(condition=c, t=x, e=y), [cond, x, y],
                {"c": cond.shape, "x": x.shape, "y": y.shape})


def gen_gather_nd(rng):
    rank = int(rng.integers(1, 4))
    shape = rand_shape(rng, rank, empty=0.0)
    depth = int(rng.integers(1, rank + 1))
    ishape = rand_shape(rng, int(rng.integers(0, 3)), empty=0.05) + [depth]
    idx = np.stack([rng.integers(0, shape[i], size=ishape[:-1]) for i in range(depth)], -1)
    idx = idx.astype(rng.choice([np.int32, np.int64]))
    x = values(rng, shape, rng.choice([np.float32, np.int32]), special=0)
    return Case("GatherNd", lambda x, i: R.GatherNd(params=x, indices=i), [x, idx],
                {"shape": shape, "indices": idx.shape})


def gen_scatter_nd(rng):
    shape = rand_shape(rng, int(rng.integers(1, 4)), empty=0.0)
    depth = int(rng.integers(1, len(shape) + 1))
    n = int(rng.integers(0, 6))
    idx = np.stack([rng.integers(0, shape[i], size=n) for i in range(depth)], -1)
    idx = idx.reshape(n, depth).astype(np.int32)
    upd = values(rng, [n] + shape[depth:], np.float32, special=0)
    sh = np.array(shape, np.int32)
    return Case("ScatterNd", lambda i, u: R.ScatterNd(indices=i, updates=u, shape=sh),
                [idx, upd], {"shape": shape, "indices": idx.shape}, rtol=1e-6, atol=1e-6)


EINSUMS = ["ij,jk->ik", "bij,bjk->bik", "bhqd,bhkd->bhqk", "ij->ji", "i,i->", "ij,j->i",
           "bsh,hd->bsd", "...ij,...jk->...ik", "ij->i", "abc->cab", "ab,cb->ac", "i,j->ij",
           "bqhd,bkhd->bhqk", "bhqk,bkhd->bqhd", "ijk->", "ii->i"]


def gen_einsum(rng):
    eq = str(rng.choice(EINSUMS))
    ins, _ = eq.split("->")
    size = {}
    shapes = []
    for term in ins.split(","):
        shape = []
        if term.startswith("..."):
            shape += [int(v) for v in rng.integers(1, 3, size=int(rng.integers(0, 3)))]
            term = term[3:]
        for ch in term:
            size.setdefault(ch, int(rng.integers(1, 5)))
            shape.append(size[ch])
        shapes.append(shape)
    if eq.startswith("...") and len(shapes) == 2:
        shapes[1] = shapes[0][:len(shapes[0]) - 2] + shapes[1]
    xs = [values(rng, s, np.float32, special=0) for s in shapes]
    return Case("Einsum", lambda *xs: R.Einsum(inputs=list(xs), equation=eq), xs,
                {"equation": eq, "shapes": shapes}, rtol=1e-5, atol=1e-5)


def gen_small_ops(rng):
    kind = int(rng.integers(0, 9))
    if kind == 0:
        a, b = broadcast_pair(rng, int(rng.integers(0, 3)))
        x = values(rng, a, np.float32)
        lo, hi = values(rng, [], np.float32, special=0), values(rng, [], np.float32, special=0)
        lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
        return Case("ClipByValue", lambda x, lo, hi: R.ClipByValue(
            t=x, clip_value_min=lo, clip_value_max=hi), [x, lo, hi], {"x": x.shape})
    if kind == 1:
        alpha = float(rng.choice([0.2, 0.01, 0.0, 1.5, -0.5]))
        x = values(rng, rand_shape(rng, 3), rng.choice([np.float32, np.float16]))
        return Case("LeakyRelu", lambda x: R.LeakyRelu(features=x, alpha=alpha), [x],
                    {"alpha": alpha, "dtype": x.dtype.name})
    if kind == 2:
        shape = rand_shape(rng, int(rng.integers(0, 4)))
        xs = [values(rng, shape, np.float32) for _ in range(int(rng.integers(1, 5)))]
        return Case("AddN", lambda *xs: R.AddN(inputs=list(xs)), xs, {"n": len(xs)},
                    rtol=1e-6, atol=1e-6)
    if kind == 3:
        rank = int(rng.integers(2, 5))
        fmt = "NCHW" if rank == 4 and rng.random() < 0.4 else "NHWC"
        shape = rand_shape(rng, rank)
        c = shape[1] if fmt == "NCHW" else shape[-1]
        x, bias = values(rng, shape, np.float32), values(rng, [c], np.float32)
        return Case("BiasAdd", lambda x, b: R.BiasAdd(value=x, bias=b, data_format=fmt),
                    [x, bias], {"format": fmt, "x": x.shape})
    if kind == 4:
        shape = rand_shape(rng, int(rng.integers(0, 3)))
        n = int(rng.integers(1, 4))
        axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
        xs = [values(rng, shape, np.int32) for _ in range(n)]
        return Case("Pack", lambda *xs: R.Pack(values=list(xs), axis=axis), xs,
                    {"axis": axis, "shape": shape})
    if kind == 5:
        shape = rand_shape(rng, int(rng.integers(1, 4)), empty=0.0)
        axis = int(rng.integers(-len(shape), len(shape)))
        x = values(rng, shape, np.float32)
        return Case("Unpack", lambda x: tuple(R.Unpack(value=x, num=shape[axis], axis=axis)),
                    [x], {"axis": axis, "shape": shape})
    if kind == 6:
        dtype = rng.choice([np.int32, np.int64, np.float32])
        start = dtype(rng.integers(-10, 10))
        delta = dtype(rng.choice([1, 2, 3, -1, -2]) if dtype != np.float32
                      else rng.choice([0.5, 1.5, -0.7, 0.3]))
        limit = dtype(rng.integers(-10, 10))
        return Case("Range", lambda a, b, c: R.Range(start=a, limit=b, delta=c),
                    [np.array(start), np.array(limit), np.array(delta)],
                    {"start": start, "limit": limit, "delta": delta}, rtol=1e-6, atol=1e-6)
    if kind == 7:
        shape = rand_shape(rng, int(rng.integers(0, 3)), empty=0.0)
        target = [int(v) for v in rng.integers(1, 4, size=int(rng.integers(0, 2)))] + [
            d if rng.random() < 0.7 else 1 for d in shape]
        shape = [1 if rng.random() < 0.3 else d for d in shape]
        x = values(rng, shape, np.float32)
        t = np.array(target, np.int32)
        return Case("BroadcastTo", lambda x: R.BroadcastTo(input=x, shape=t), [x],
                    {"shape": shape, "target": target})
    n = int(rng.integers(1, 4))
    axis = int(rng.integers(-2, 2))
    shape = rand_shape(rng, 2, empty=0.0)
    shape[axis] *= n
    x = values(rng, shape, np.float32)
    return Case("Split", lambda x: tuple(R.Split(axis=axis, value=x, num_split=n)), [x],
                {"axis": axis, "n": n, "shape": shape})


def gen_space_batch(rng):
    n, h, w, c = int(rng.integers(1, 3)), int(rng.integers(1, 6)), int(rng.integers(1, 6)), 2
    bh, bw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    if rng.random() < 0.5:
        ph = [int(rng.integers(0, 3)), 0]
        ph[1] = (-(h + ph[0])) % bh
        pw = [int(rng.integers(0, 3)), 0]
        pw[1] = (-(w + pw[0])) % bw
        x = values(rng, [n, h, w, c], np.float32, special=0)
        bs, pads = np.array([bh, bw], np.int32), np.array([ph, pw], np.int32)
        return Case("SpaceToBatchND",
                    lambda x: R.SpaceToBatchND(input=x, block_shape=bs, paddings=pads), [x],
                    {"x": x.shape, "block": (bh, bw), "pads": pads.tolist()})
    x = values(rng, [n * bh * bw, h, w, c], np.float32, special=0)
    ch = [int(rng.integers(0, min(2, h * bh) + 1)), 0]
    cw = [0, int(rng.integers(0, min(2, w * bw) + 1))]
    bs, crops = np.array([bh, bw], np.int32), np.array([ch, cw], np.int32)
    return Case("BatchToSpaceND", lambda x: R.BatchToSpaceND(input=x, block_shape=bs,
                                                             crops=crops),
                [x], {"x": x.shape, "block": (bh, bw), "crops": crops.tolist()})


def gen_volume(rng):
    n, d, h, w, c = 1, int(rng.integers(1, 5)), int(rng.integers(1, 5)), int(rng.integers(1, 5)), 2
    k = [int(v) for v in rng.integers(1, 3, size=3)]
    s = [int(v) for v in rng.integers(1, 3, size=3)]
    padding = str(rng.choice(["SAME", "VALID"]))
    if padding == "VALID" and (d < k[0] or h < k[1] or w < k[2]):
        padding = "SAME"
    x = values(rng, [n, d, h, w, c], np.float32, special=0)
    op = str(rng.choice(["Conv3D", "MaxPool3D", "AvgPool3D"]))
    if op == "Conv3D":
        f = values(rng, k + [c, 3], np.float32, special=0)
        return Case(op, lambda x, f: R.Conv3D(input=x, filter=f, strides=[1] + s + [1],
                                              padding=padding),
                    [x, f], {"x": x.shape, "k": k, "s": s, "padding": padding}, rtol=1e-4,
                    atol=1e-4)
    fn = getattr(R, op)
    return Case(op, lambda x: fn(input=x, ksize=[1] + k + [1], strides=[1] + s + [1],
                                 padding=padding),
                [x], {"x": x.shape, "k": k, "s": s, "padding": padding}, rtol=1e-5, atol=1e-6)


def gen_where_reverse_seq(rng):
    if rng.random() < 0.5:
        x = values(rng, rand_shape(rng, int(rng.integers(1, 4))), np.bool_)
        return Case("Where", lambda x: R.Where(input=x), [x], {"x": x.shape})
    b, t = int(rng.integers(1, 4)), int(rng.integers(1, 6))
    x = values(rng, [b, t, 2], np.float32, special=0)
    lens = rng.integers(0, t + 1, size=b).astype(np.int64)
    return Case("ReverseSequence", lambda x, l: R.ReverseSequence(
        input=x, seq_lengths=l, seq_dim=1, batch_dim=0), [x, lens], {"x": x.shape})


def gen_sparse_xent(rng):
    b, c = int(rng.integers(1, 5)), int(rng.integers(1, 6))
    logits = values(rng, [b, c], np.float32, special=0, low=-10, high=10)
    labels = rng.integers(0, c, size=b).astype(np.int32)
    return Case("SparseSoftmaxCrossEntropyWithLogits",
                lambda x, l: tuple(R.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=l)),
                [logits, labels], {"x": logits.shape}, rtol=1e-5, atol=1e-6)


ACTIVATIONS = {
    "none": lambda x: x, "relu": tf.nn.relu, "relu6": tf.nn.relu6, "elu": tf.nn.elu,
    "leaky": lambda x: tf.nn.leaky_relu(x, 0.1), "sigmoid": tf.sigmoid, "tanh": tf.tanh,
    "swish": tf.nn.silu, "gelu_erf": lambda x: tf.nn.gelu(x, approximate=False),
    "gelu_tanh": lambda x: tf.nn.gelu(x, approximate=True),
    "hard_swish": lambda x: x * tf.nn.relu6(x + 3.0) / 6.0,
}


def gen_conv_chain(rng):
    """What the fusion passes fold: (pad ->) conv -> bias or batch norm ->
    activation (-> residual add -> activation), the weights constants."""
    n, h, w = int(rng.integers(1, 3)), int(rng.integers(3, 12)), int(rng.integers(3, 12))
    c, o = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    k, st = int(rng.choice([1, 3, 5])), int(rng.choice([1, 1, 2]))
    depthwise = rng.random() < 0.3
    padding = str(rng.choice(["SAME", "VALID"]))
    pad = int(rng.integers(1, 3)) if rng.random() < 0.3 else 0
    act = str(rng.choice(list(ACTIVATIONS)))
    norm = str(rng.choice(["bias", "bn", "none"]))
    residual = (not depthwise) and st == 1 and padding == "SAME" and c == o and rng.random() < 0.4
    post = str(rng.choice(["none", "relu"])) if residual else "none"
    if padding == "VALID" and min(h, w) + 2 * pad < k:
        padding = "SAME"
    x = values(rng, [n, h, w, c], np.float32, special=0)
    filt = values(rng, [k, k, c, 1 if depthwise else o], np.float32, special=0) * 0.5
    outc = c if depthwise else o
    bias = values(rng, [outc], np.float32, special=0)
    gamma, beta = values(rng, [outc], np.float32, special=0), values(rng, [outc], np.float32, 0)
    mean = values(rng, [outc], np.float32, special=0)
    var = np.abs(values(rng, [outc], np.float32, special=0)) + 0.1

    def fn(x):
        y = x
        if pad:
            y = tf.pad(y, [[0, 0], [pad, pad], [pad, pad], [0, 0]])
        if depthwise:
            y = tf.nn.depthwise_conv2d(y, filt, [1, st, st, 1], padding)
        else:
            y = tf.nn.conv2d(y, filt, st, padding)
        if norm == "bias":
            y = tf.nn.bias_add(y, bias)
        elif norm == "bn":
            y = tf.compat.v1.nn.fused_batch_norm(y, gamma, beta, mean, var, epsilon=1e-3,
                                                 is_training=False)[0]
        y = ACTIVATIONS[act](y)
        if residual:
            y = ACTIVATIONS[post](y + x)
        return y
    return Case("conv_chain", fn, [x],
                {"x": x.shape, "k": k, "s": st, "padding": padding, "pad": pad,
                 "depthwise": depthwise, "norm": norm, "act": act, "residual": residual,
                 "post": post}, rtol=1e-4, atol=1e-4)


def gen_dense_chain(rng):
    """Dense -> activation, a Keras LayerNormalization, or attention's
    matmul -> scale -> mask -> softmax -> matmul, as TF builds them."""
    kind = int(rng.integers(0, 3))
    if kind == 0:
        b, i, o = int(rng.integers(1, 5)), int(rng.integers(1, 20)), int(rng.integers(1, 20))
        x = values(rng, [b, i], np.float32, special=0)
        wt = values(rng, [i, o], np.float32, special=0) * 0.3
        bias = values(rng, [o], np.float32, special=0)
        act = str(rng.choice(list(ACTIVATIONS)))
        lead = rng.random() < 0.3
        if lead:
            x = values(rng, [2, b, i], np.float32, special=0)

        def fn(x):
            y = tf.tensordot(x, wt, 1) if lead else tf.matmul(x, wt)
            return ACTIVATIONS[act](tf.nn.bias_add(y, bias))
        return Case("dense_chain", fn, [x], {"x": x.shape, "o": o, "act": act}, rtol=1e-4,
                    atol=1e-4)
    if kind == 1:
        # (rows of at least 2 random values: a constant row is where TF's formula
        # cancels, docs/differences.md)
        shape = [int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(2, 40))]
        x = values(rng, shape, np.float32, special=0) * float(rng.choice([1, 10, 100]))
        gamma, beta = values(rng, shape[-1:], np.float32, 0), values(rng, shape[-1:], np.float32, 0)
        eps = float(rng.choice([1e-3, 1e-5, 1e-12]))

        def fn(x):  # tf.keras.layers.LayerNormalization's graph
            mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
            return tf.nn.batch_normalization(x, mean, var, beta, gamma, eps)
        return Case("layer_norm", fn, [x], {"x": x.shape, "eps": eps}, rtol=1e-4, atol=1e-4)
    b, h, q, kk, d = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 9)),
                      int(rng.integers(1, 9)), int(rng.choice([4, 8, 16])))
    qx = values(rng, [b, h, q, d], np.float32, special=0)
    kx = values(rng, [b, h, kk, d], np.float32, special=0)
    vx = values(rng, [b, h, kk, d], np.float32, special=0)
    mask = (rng.random([b, 1, 1, kk]) < 0.8).astype(np.float32)

    def fn(qx, kx, vx, mask):
        s = tf.matmul(qx, kx, transpose_b=True) * (1.0 / np.sqrt(d))
        s += (1.0 - mask) * -10000.0
        return tf.matmul(tf.nn.softmax(s, axis=-1), vx)
    return Case("attention", fn, [qx, kx, vx, mask], {"q": qx.shape, "k": kx.shape},
                rtol=1e-4, atol=1e-5)


def gen_large(rng):
    """Bigger tensors, where the vectorised, tiled and threaded paths run."""
    kind = int(rng.integers(0, 5))
    if kind == 0:
        a, b = broadcast_pair(rng, int(rng.integers(2, 5)))
        a = [d * int(rng.integers(1, 9)) if d > 1 else d for d in a]
        b = [bd if bd == 1 else ad for ad, bd in zip(a[len(a) - len(b):], b)]
        op = str(rng.choice(["AddV2", "Mul", "Sub", "Maximum", "RealDiv", "SquaredDifference"]))
        x, y = values(rng, a, np.float32), values(rng, b, np.float32)
        f = getattr(R, op)
        return Case(op, lambda x, y: f(x=x, y=y), [x, y], {"large": True, "a": a, "b": b},
                    rtol=0.0 if op == "Maximum" else None)  # (+0 and -0, as above)
    if kind == 1:
        shape = [int(v) for v in rng.integers(1, 33, size=int(rng.integers(2, 5)))]
        x = values(rng, shape, np.float32, special=0.001)
        perm = rng.permutation(len(shape)).tolist()
        return Case("Transpose", lambda x: R.Transpose(x=x, perm=perm), [x],
                    {"large": True, "perm": perm, "shape": shape})
    if kind == 2:
        shape = [int(v) for v in rng.integers(1, 40, size=int(rng.integers(2, 4)))]
        x = values(rng, shape, np.float32, special=0)
        axes = sorted(rng.choice(len(shape), size=int(rng.integers(1, len(shape) + 1)),
                                 replace=False).tolist())
        op = str(rng.choice(["Sum", "Mean", "Max"]))
        f = getattr(R, op)
        return Case(op, lambda x: f(input=x, axis=axes, keep_dims=False), [x],
                    {"large": True, "axes": axes, "shape": shape}, rtol=1e-4, atol=1e-4)
    if kind == 3:
        shape = [int(rng.integers(1, 50)), int(rng.integers(1, 300))]
        x = values(rng, shape, np.float32, special=0, low=-30, high=30)
        op = str(rng.choice(["Softmax", "LogSoftmax"]))
        f = getattr(R, op)
        return Case(op, lambda x: f(logits=x), [x], {"large": True, "shape": shape},
                    rtol=1e-5, atol=1e-6)
    m, k, n = (int(v) for v in rng.integers(1, 200, size=3))
    a = values(rng, [m, k], np.float32, special=0)
    b = values(rng, [k, n], np.float32, special=0)
    return Case("MatMul", lambda a, b: R.MatMul(a=a, b=b), [a, b],
                {"large": True, "m": m, "k": k, "n": n}, rtol=1e-4, atol=1e-3)


GENERATORS = [gen_conv_chain, gen_conv_chain, gen_conv_chain, gen_dense_chain, gen_dense_chain,
              gen_large, gen_large,
gen_gather_nd, gen_scatter_nd, gen_einsum, gen_einsum, gen_small_ops,
              gen_small_ops, gen_small_ops, gen_space_batch, gen_volume, gen_where_reverse_seq,
              gen_sparse_xent,
gen_binary, gen_binary, gen_unary, gen_unary, gen_reduce, gen_reduce,
              gen_transpose, gen_strided_slice, gen_strided_slice, gen_pad, gen_gather,
              gen_conv, gen_conv, gen_pool, gen_conv_transpose, gen_matmul, gen_resize,
              gen_softmax, gen_cumsum, gen_topk, gen_concat_split, gen_cast, gen_tile_reverse,
              gen_fused_bn, gen_space_depth, gen_onehot_select]


@np.errstate(invalid="ignore", over="ignore")
def compare(got, want, rtol, atol):
    """None when they agree, else what differs."""
    if got.shape != want.shape:
        return f"shape {got.shape} vs TF {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} vs TF {want.dtype}"
    if want.size == 0:
        return None
    if not np.issubdtype(want.dtype, np.floating):
        bad = got != want
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        nan_g, nan_w = np.isnan(g), np.isnan(w)
        if rtol is None:  # exact, the sign of zero included
            close = ((g == w) & (np.signbit(g) == np.signbit(w))) | (nan_g & nan_w)
        else:
            scale = np.where(np.isfinite(w), np.abs(w), 0)
            close = (np.abs(g - w) <= atol + rtol * scale) | (g == w) | (nan_g & nan_w)
        bad = ~close
    if not bad.any():
        return None
    i = tuple(int(v) for v in np.argwhere(bad)[0])
    return f"{int(bad.sum())} of {want.size} differ; at {i}: smrt {got[i]!r}, TF {want[i]!r}"


NPY_DTYPES = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF",
              "int8": "DT_INT8", "int16": "DT_INT16", "int32": "DT_INT32", "int64": "DT_INT64",
              "uint8": "DT_UINT8", "bool": "DT_BOOL"}


def save_zoo_model(root, batch, path, agreed):
    """The batch's SavedModel and its agreeing cases as a conformance zoo model.
    Its tolerance (|smrt - tf| <= T * max(1, |tf|)) is what its loosest case
    allows, and at least 1e-3: a GPU may pick other algorithms (cuDNN's
    Winograd and FFT convolutions among them)."""
    if not agreed:
        return
    d = os.path.join(root, f"fuzz_{batch:04d}")
    shutil.copytree(path, os.path.join(d, "saved_model"))
    tolerance, names = 1e-3, []
    for key, case, feeds, outs in agreed:
        tolerance = max(tolerance, case.rtol or 0.0, case.atol)
        manifest = {"signature": key, "inputs": [], "outputs": []}
        name_dir = f"{key}_{case.op}"  # a failure's line names the op
        for side, tensors in (("inputs", feeds), ("outputs", outs)):
            os.makedirs(os.path.join(d, "cases", name_dir, side))
            for name, x in tensors.items():
                np.save(os.path.join(d, "cases", name_dir, side, f"{name}.npy"), x)
                manifest[side].append({"name": name, "file": f"{name}.npy",
                                       "dtype": NPY_DTYPES.get(x.dtype.name, x.dtype.name),
                                       "shape": list(x.shape)})
        with open(os.path.join(d, "cases", name_dir, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        names.append(name_dir)
    ops = sorted({case.op for _, case, _, _ in agreed})
    with open(os.path.join(d, "model.json"), "w") as f:
        json.dump({"name": f"fuzz_{batch:04d}", "family": "op_fuzz", "tolerance": tolerance,
                   "note": "scripts/op_fuzz.py: " + ",".join(ops), "cases": names}, f,
                  indent=1)


def run_batch(cases, tmp, device, report, save=None):
    module = tf.Module()
    sigs, wants = {}, {}
    for j, c in enumerate(cases):
        # Some signatures leave dims unknown (None), so that shapes are
        # inferred and planned when the inputs arrive, not at load.
        specs = [tf.TensorSpec([None if c.dynamic and (k + i) % 2 == 0 else d
                                for k, d in enumerate(x.shape)],
                               tf.as_dtype(x.dtype), name=f"in{i}")
                 for i, x in enumerate(c.inputs)]

        def wrap(fn=c.fn):
            def f(*xs):
                out = fn(*xs)
                outs = out if isinstance(out, (tuple, list)) else (out,)
                return {f"out{i}": tf.identity(o) for i, o in enumerate(outs)}
            return f
        try:
            concrete = tf.function(wrap(), input_signature=specs).get_concrete_function()
            want = concrete(*[tf.constant(x) for x in c.inputs])
            wants[j] = {k: v.numpy() for k, v in want.items()}
        except Exception:  # TensorFlow refuses this case: not one to compare
            continue
        sigs[f"case{j}"] = concrete
    if not sigs:
        return
    path = os.path.join(tmp, "model")
    shutil.rmtree(path, ignore_errors=True)
    tf.saved_model.save(module, path, signatures=sigs)
    jobs = {key: {f"in{i}": x for i, x in enumerate(cases[int(key[4:])].inputs)}
            for key in sigs}
    with open(os.path.join(tmp, "cases.pkl"), "wb") as f:
        pickle.dump(jobs, f)
    worker = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", tmp,
                             device], capture_output=True, text=True)
    try:
        with open(os.path.join(tmp, "results.pkl"), "rb") as f:
            results = pickle.load(f)
        os.remove(os.path.join(tmp, "results.pkl"))
    except OSError:  # the worker died: every case of the batch is reported
        tail = (worker.stderr or "").strip().splitlines()[-3:]
        results = {key: f"smrt process died (exit {worker.returncode}): {' | '.join(tail)}"
                   for key in sigs}
    agreed = []
    for key, got in results.items():
        j = int(key[4:])
        c = cases[j]
        what = got if isinstance(got, str) else None
        if what is None:
            for name, want in wants[j].items():
                what = compare(np.asarray(got[name]), want, c.rtol, c.atol)
                if what:
                    what = f"{name}: {what}"
                    break
        report(c, what, path, key, jobs[key])
        if what is None:
            agreed.append((key, c, jobs[key], wants[j]))
    if save:
        save[1](save[0], agreed, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=25)
    p.add_argument("--only", default="", help="comma-separated op names")
    p.add_argument("--keep", default="", help="directory for disagreeing cases")
    p.add_argument("--device", default="", help="e.g. CUDA:0 (default: smrt's default)")
    p.add_argument("--save", default="", help="directory for a conformance zoo of the "
                   "cases that agree")
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    only = set(filter(None, args.only.split(",")))
    counts, bad = collections.Counter(), collections.Counter()
    tmp = tempfile.mkdtemp(prefix="smrt-op-fuzz-")

    def report(case, what, path, key, feeds):
        counts[case.op] += 1
        if what is None:
            return
        bad[case.op] += 1
        shapes = [tuple(x.shape) for x in case.inputs]
        print(f"DIFF {case.op} {case.attrs} inputs {shapes}: {what}", flush=True)
        if args.keep:
            d = os.path.join(args.keep, f"{case.op}_{sum(bad.values())}")
            shutil.copytree(path, os.path.join(d, "saved_model"), dirs_exist_ok=True)
            for name, x in feeds.items():
                np.save(os.path.join(d, f"{name}.npy"), x)
            with open(os.path.join(d, "signature.txt"), "w") as f:
                f.write(key + "\n")

    made, batch = 0, 0
    if args.save:
        os.makedirs(args.save, exist_ok=True)
    try:
        while made < args.cases:
            cases = []
            while len(cases) < args.batch and made < args.cases:
                c = GENERATORS[int(rng.integers(len(GENERATORS)))](rng)
                if only and c.op not in only:
                    continue
                c.dynamic = bool(rng.random() < 0.3)
                if c.dynamic:
                    c.attrs = dict(c.attrs, dynamic=True)
                cases.append(c)
                made += 1
            save = None
            if args.save:
                save = (batch, lambda b, agreed, path: save_zoo_model(args.save, b, path, agreed))
            run_batch(cases, tmp, args.device, report, save)
            batch += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = sum(counts.values())
    print(f"{total} cases compared, {sum(bad.values())} disagree")
    for op in sorted(counts):
        print(f"  {op:24s} {counts[op]:5d} compared {bad[op]:4d} disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
