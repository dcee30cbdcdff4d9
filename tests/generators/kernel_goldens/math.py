"""Goldens for the element-wise math family (math_ops.cc): inverse and hyperbolic trigonometry,
IsInf, Rint, Atan2, Mod, TruncateDiv/Mod, MulNoNan, Xlogy, Xdivy, Xlog1py, NextAfter and
ApproximateEqual; EuclideanNorm, CumulativeLogsumexp, ToBool, and complex Sum/Mean/Prod (issue 35).

Run from the repository root:

    .venv-peers/bin/python -P tests/generators/kernel_goldens/math.py

Writes tests/data/kernels/math/<name>.npy, wiping the folder first: inputs x_<dtype> (unary),
bx_/by_<dtype> (binary), and TensorFlow's outputs <Op>_<dtype>. bfloat16 tensors are stored as
float32 (exact). messages.txt holds TensorFlow's errors, one "case<TAB>code<TAB>message" a line.
TensorFlow's native CPU kernels (oneDNN off); no randomness beyond a fixed seed.
"""
import os
import pathlib
import re
import shutil
import sys

# Sibling generators (e.g. array.py) would shadow standard modules that TensorFlow imports.
_HERE = pathlib.Path(__file__).resolve().parent
sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np
import tensorflow as tf

OUT = _HERE.parents[2] / "tests" / "data" / "kernels" / "math"
R = tf.raw_ops
rng = np.random.default_rng(35)
inf, nan = np.inf, np.nan

FLOATS = {"f16": tf.float16, "bf16": tf.bfloat16, "f32": tf.float32, "f64": tf.float64}
COMPLEX = {"c64": tf.complex64, "c128": tf.complex128}


def save(name, value):
    value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    if value.dtype.name == "bfloat16":
        value = value.astype(np.float32)
    np.save(OUT / f"{name}.npy", np.array(value, order="C"))


# Unary inputs: edges (zeros, infinities, NaN, the domain limits and beyond, tiny, huge,
# overflow points of sinh/cosh) and random values.
edges = [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 0.999, -0.999, 1.0001,
         1e-30, -1e-30, 1e-45, 1e-300, 1e30, -1e30, 3e38, 1e300, 88.7, 89.5, -89.5, 710.0,
         -711.0, 1.5707963267948966, 3.141592653589793, 1e10, 12.5, -0.1]
unary_x = np.concatenate([edges, rng.standard_normal(24) * 3, rng.uniform(-1, 1, 16)])
complex_x = (rng.standard_normal(20) * 2 + 1j * rng.standard_normal(20) * 2)
complex_x = np.concatenate([[0, 1, -1, 1j, -1j, 0.5 + 0.5j, 3 - 4j], complex_x])

UNARY = ["Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Sinh", "Cosh", "Tan"]


def unary():
    for dt, tft in FLOATS.items():
        x = tf.constant(unary_x, tf.float64)
        x = tf.cast(x, tft)
        save(f"x_{dt}", x)
        for op in UNARY:
            save(f"{op}_{dt}", getattr(R, op)(x=x))
        save(f"IsInf_{dt}", R.IsInf(x=x))
        if dt in ("f32", "f64"):
            save(f"Rint_{dt}", R.Rint(x=x))
    for dt, tft in COMPLEX.items():
        x = tf.constant(complex_x, tft)
        save(f"x_{dt}", x)
        for op in UNARY:
            save(f"{op}_{dt}", getattr(R, op)(x=x))
    # Rint's halves, which round to even.
    halves = np.array([-3.5, -2.5, -1.5, -0.5, -0.3, 0.5, 1.5, 2.5, 3.5, 4.5, 1e16 + 2, 8388609.5],
                      np.float64)
    save("rint_halves", halves)
    save("Rint_halves_f32", R.Rint(x=halves.astype(np.float32)))
    save("Rint_halves_f64", R.Rint(x=halves))


# Binary inputs: every pair of the edge values below (x varies along dim 0, y along dim 1).
bvals = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, inf, -inf, nan, 1e-30, 1e30, 0.1, 3.75,
         -1e-45]
bx, by = np.meshgrid(bvals, bvals, indexing="ij")

FLOAT_BINARY = {
    "Atan2": ["f16", "bf16", "f32", "f64"],
    "Mod": ["f32", "f64"],
    "TruncateDiv": ["f16", "bf16", "f32", "f64"],
    "TruncateMod": ["f32", "f64"],
    "MulNoNan": ["f16", "bf16", "f32", "f64"],
    "Xlogy": ["f16", "bf16", "f32", "f64"],
    "Xdivy": ["f16", "bf16", "f32", "f64"],
    "Xlog1py": ["f16", "bf16", "f32", "f64"],
    "NextAfter": ["f32", "f64"],
}

INTS = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8,
        "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
INT_BINARY = {
    "Mod": ["i32", "i64"],
    "TruncateDiv": list(INTS),
    "TruncateMod": ["i32", "i64"],
}


def int_operands(dt):
    t = INTS[dt]
    info = np.iinfo(t)
    if info.min == 0:
        xs = [0, 1, 2, 7, 13, 100, info.max, info.max - 1]
        ys = [1, 2, 7, 13, info.max]
    else:
        xs = [0, 1, -1, 2, -2, 7, -7, 13, -13, info.min, info.max, info.min + 1]
        ys = [1, -1, 2, -2, 7, -7, 13, info.min, info.max]
    x, y = np.meshgrid(np.array(xs, t), np.array(ys, t), indexing="ij")
    return x, y


def binary():
    for dt, tft in FLOATS.items():
        x, y = tf.cast(tf.constant(bx), tft), tf.cast(tf.constant(by), tft)
        save(f"bx_{dt}", x)
        save(f"by_{dt}", y)
        for op, dts in FLOAT_BINARY.items():
            if dt in dts:
                save(f"{op}_{dt}", getattr(R, op)(x=x, y=y) if op != "NextAfter"
                     else R.NextAfter(x1=x, x2=y))
    for dt, tft in COMPLEX.items():
        x = tf.constant(np.concatenate([[0, 0, 0j], complex_x[:17]]), tft)
        y = tf.constant(np.concatenate([[1 + 1j, 0, -2], complex_x[3:20]]), tft)
        save(f"bx_{dt}", x)
        save(f"by_{dt}", y)
        for op in ["MulNoNan", "Xlogy", "Xdivy", "Xlog1py"]:
            save(f"{op}_{dt}", getattr(R, op)(x=x, y=y))
    for dt in INTS:
        x, y = int_operands(dt)
        save(f"bx_{dt}", x)
        save(f"by_{dt}", y)
        for op, dts in INT_BINARY.items():
            if dt in dts:
                save(f"{op}_{dt}", getattr(R, op)(x=x, y=y))
    # Broadcasting: [3, 1] against [4], and a scalar against [2, 3].
    xs = rng.standard_normal((3, 1)).astype(np.float32) * 4
    ys = rng.standard_normal(4).astype(np.float32) * 4
    save("bcast_x", xs)
    save("bcast_y", ys)
    for op in ["Atan2", "Mod", "TruncateDiv", "TruncateMod", "Xlogy", "Xdivy", "Xlog1py"]:
        save(f"bcast_{op}", getattr(R, op)(x=xs, y=ys))
    save("bcast_NextAfter", R.NextAfter(x1=xs, x2=ys))
    # ApproximateEqual: same shapes only, |x - y| < tolerance in T.
    ax = np.array([1.0, 1.0, 1.0, 0.0, nan, inf, inf, 2.0, -3.0], np.float64)
    ay = np.array([1.0, 1.000001, 1.01, 0.0, nan, inf, 1.0, 2.5, -3.4], np.float64)
    save("approx_x", ax)
    save("approx_y", ay)
    for tol, name in [(1e-5, "default"), (0.5, "half")]:
        save(f"ApproximateEqual_{name}_f32",
             R.ApproximateEqual(x=ax.astype(np.float32), y=ay.astype(np.float32), tolerance=tol))
        save(f"ApproximateEqual_{name}_f64", R.ApproximateEqual(x=ax, y=ay, tolerance=tol))


def reductions():
    # EuclideanNorm over each axis set, keep_dims or not; integers whose squares stay in range.
    x = rng.standard_normal((3, 4, 5)) * 3
    x[0, 0, :] = [0, -0.0, 1e-30, 1e30, 3.0]
    xi = rng.integers(-11, 12, (3, 4, 5))
    for dt, t in {"f16": np.float16, "f32": np.float32, "f64": np.float64}.items():
        save(f"norm_x_{dt}", x.astype(t))
    save("norm_x_bf16", tf.cast(x, tf.bfloat16))
    for dt, t in {"i8": np.int8, "i32": np.int32, "i64": np.int64, "u8": np.uint8}.items():
        save(f"norm_x_{dt}", (np.abs(xi) if dt == "u8" else xi).astype(t))
    axes = {"all": [0, 1, 2], "a1": [1], "a02": [0, -1], "none": []}
    for dt in ["f16", "bf16", "f32", "f64", "i8", "i32", "i64", "u8"]:
        xt = tf.constant(np.load(OUT / f"norm_x_{dt}.npy"))
        if dt == "bf16":
            xt = tf.cast(xt, tf.bfloat16)
        for name, ax in axes.items():
            for keep in (False, True):
                save(f"EuclideanNorm_{dt}_{name}_{int(keep)}",
                     R.EuclideanNorm(input=xt, axis=np.array(ax, np.int32), keep_dims=keep))
    save("EuclideanNorm_empty", R.EuclideanNorm(input=np.zeros([2, 0], np.float32), axis=[1]))
    # complex64/complex128 Sum, Mean, Prod and EuclideanNorm.
    xc = (rng.standard_normal((3, 4, 5)) + 1j * rng.standard_normal((3, 4, 5))) * 0.8
    for dt, tft in COMPLEX.items():
        ct = tf.constant(xc, tft)
        save(f"creduce_x_{dt}", ct)
        for op in ["Sum", "Mean", "Prod", "EuclideanNorm"]:
            for name, ax in axes.items():
                save(f"{op}_{dt}_{name}", getattr(R, op)(input=ct, axis=np.array(ax, np.int32)))
    # CumulativeLogsumexp along each axis, exclusive and reverse, with -inf, inf and NaN.
    c = rng.standard_normal((4, 6)) * 4
    c[0, :] = [-inf, 1.0, inf, inf, nan, 2.0]
    c[1, :] = [-inf, -inf, 3.0, -inf, 100.0, -100.0]
    for dt, tft in FLOATS.items():
        ct = tf.cast(tf.constant(c), tft)
        save(f"cumlse_x_{dt}", ct)
        for axis in (0, 1, -1):
            for exclusive in (False, True):
                for reverse in (False, True):
                    save(f"CumulativeLogsumexp_{dt}_{axis}_{int(exclusive)}{int(reverse)}".replace(
                        "-", "m"), R.CumulativeLogsumexp(x=ct, axis=axis, exclusive=exclusive,
                                                         reverse=reverse))


# ToBool: a scalar's value (strings: non-empty), else whether there are elements.
TOBOOL = {
    "f32_0": np.float32(0), "f32_m0": np.float32(-0.0), "f32_nan": np.float32(nan),
    "f64_2": np.float64(2), "i8_0": np.int8(0), "u8_3": np.uint8(3), "i16_m1": np.int16(-1),
    "i32_5": np.int32(5), "i64_0": np.int64(0), "b_1": True, "b_0": False,
    "s_a": b"a", "s_": b"", "v_0": np.zeros([0], np.float32), "v_2": np.zeros([2], np.float32),
    "m_10": np.zeros([1, 0], np.int32), "vs_1": np.array([b""]),
}
TOBOOL_ERRORS = {"tobool_f16": np.float16(1), "tobool_bf16": tf.constant(1, tf.bfloat16),
                 "tobool_u16": np.uint16(1), "tobool_u32": np.uint32(1),
                 "tobool_u64": np.uint64(1),
                 "tobool_c64": np.complex64(1)}


def to_bool():
    save("tobool", np.array([R.ToBool(input=v).numpy() for v in TOBOOL.values()]))


def message(f):
    try:
        f()
    except tf.errors.OpError as e:
        m = str(e).split("\n")[0]
        m = re.sub(r"^\{\{function_node [^}]*\}\} ", "", m)
        return type(e).__name__, re.sub(r" \[Op:\w+\]( name: .*)?$", "", m)
    raise AssertionError("no error")


def messages():
    i32 = lambda v: np.array(v, np.int32)
    cases = {
        "mod_zero": lambda: R.Mod(x=i32([5, 3]), y=i32([1, 0])),
        "truncatediv_zero": lambda: R.TruncateDiv(x=i32([5, 3]), y=i32([1, 0])),
        "truncatediv_zero_u8": lambda: R.TruncateDiv(x=np.array([5], np.uint8),
                                                     y=np.array([0], np.uint8)),
        "truncatemod_zero": lambda: R.TruncateMod(x=np.array([5], np.int64),
                                                  y=np.array([0], np.int64)),
        "approx_shape": lambda: R.ApproximateEqual(x=np.zeros([2], np.float32),
                                                   y=np.zeros([3], np.float32)),
        "norm_dup": lambda: R.EuclideanNorm(input=np.zeros([2, 3], np.float32), axis=[1, -1]),
        "cumlse_axis": lambda: R.CumulativeLogsumexp(x=np.zeros([2, 3], np.float32), axis=2),
        "cumlse_axis_vector": lambda: R.CumulativeLogsumexp(x=np.zeros([2, 3], np.float32),
                                                            axis=[0]),
    }
    for name, v in TOBOOL_ERRORS.items():
        cases[name] = lambda v=v: R.ToBool(input=v)
    with open(OUT / "messages.txt", "w") as f:
        for name, fn in cases.items():
            code, text = message(fn)
            f.write(f"{name}\t{code}\t{text}\n")


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    unary()
    binary()
    reductions()
    to_bool()
    messages()
