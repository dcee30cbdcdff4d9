"""Goldens for the special functions (special_math_ops.cc): Lgamma, Digamma, Erfinv, Ndtri,
the Bessel functions, Igamma, Igammac, Zeta, Polygamma and Betainc (issue 35).

Run from the repository root:

    .venv-peers/bin/python -P tests/generators/kernel_goldens/special_math.py

Writes tests/data/kernels/special_math/<name>.npy, wiping the folder first: the unary input
x_<dtype> and TensorFlow's <Op>_<dtype>; the binary inputs a_<dtype> and b_<dtype> (every pair of
the edge values) and <Op>_<dtype>; Betainc's a, b, x (every triple) and its scalar-broadcast
case; messages.txt with TensorFlow's errors ("case<TAB>message" a line). TensorFlow's native CPU
kernels (oneDNN off); fixed seed.
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

OUT = _HERE.parents[2] / "tests" / "data" / "kernels" / "special_math"
R = tf.raw_ops
rng = np.random.default_rng(36)
inf, nan = np.inf, np.nan
DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}

# Unary ops and the dtypes TensorFlow's CPU kernels take.
UNARY = {
    "Lgamma": ["f16", "f32", "f64"],
    "Digamma": ["f16", "f32", "f64"],
    "Erfinv": ["f32", "f64"],
    "Ndtri": ["f32", "f64"],
}
for bessel in ["I0", "I0e", "I1", "I1e", "J0", "J1", "K0", "K0e", "K1", "K1e", "Y0", "Y1"]:
    UNARY["Bessel" + bessel] = ["f16", "f32", "f64"]

BINARY = ["Igamma", "Igammac", "Zeta", "Polygamma"]
ARGS = {"Igamma": ("a", "x"), "Igammac": ("a", "x"), "Zeta": ("x", "q"), "Polygamma": ("a", "x")}


def save(name, value):
    value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    np.save(OUT / f"{name}.npy", np.array(value, order="C"))


def unary():
    # Poles (0, negative integers), domain edges of Erfinv/Ndtri (+-1, 0, 1), tiny, huge,
    # infinities, NaN, then random values of either sign and in (0, 1). Nothing near float32's
    # denormals: TensorFlow flushes them to zero (inputs and intermediates), smrt does not.
    edges = [0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, -3.0, -2.5, 1e-30,
             1e-20, 1e30, 3e38, 50.0, 100.0, 171.7, 700.0, -1e-10, 0.999999, -0.999999, 1e-8,
             1e8, 0.025, 0.975, 1e-300, 12.5, -7.25, 30.0]
    x64 = np.concatenate([edges, rng.standard_normal(24) * 5, rng.uniform(-1, 1, 12),
                          rng.uniform(0, 1, 12)])
    for dt, t in DTYPES.items():
        x = x64.astype(t)
        save(f"x_{dt}", x)
        for op, dts in UNARY.items():
            if dt in dts:
                save(f"{op}_{dt}", getattr(R, op)(x=x))


def binary():
    vals = [0.0, -1.0, -1.5, 0.5, 1.0, 2.0, 2.5, 3.0, 10.0, 100.0, 1e-5, inf, nan, 4.5, 30.0,
            0.1]
    a, b = np.meshgrid(vals, vals, indexing="ij")
    for dt in ["f32", "f64"]:
        at, bt = a.astype(DTYPES[dt]), b.astype(DTYPES[dt])
        save(f"a_{dt}", at)
        save(f"b_{dt}", bt)
        for op in BINARY:
            first, second = ARGS[op]
            save(f"{op}_{dt}", getattr(R, op)(**{first: at, second: bt}))
    # Broadcasting: [3, 1] against [4].
    ba = rng.uniform(0.5, 6, (3, 1)).astype(np.float32)
    bb = rng.uniform(0.5, 6, 4).astype(np.float32)
    save("bcast_a", ba)
    save("bcast_b", bb)
    for op in BINARY:
        first, second = ARGS[op]
        save(f"bcast_{op}", getattr(R, op)(**{first: ba, second: bb}))


def betainc():
    ab = [0.5, 1.0, 2.0, 5.0, 0.0, -1.0, nan, 20.0, 1e-3]
    xs = [0.0, 0.1, 0.5, 0.9, 1.0, -0.1, 1.5, nan, 0.999]
    a, b, x = np.meshgrid(ab, ab, xs, indexing="ij")
    for dt in ["f32", "f64"]:
        t = DTYPES[dt]
        save(f"betainc_a_{dt}", a.astype(t))
        save(f"betainc_b_{dt}", b.astype(t))
        save(f"betainc_x_{dt}", x.astype(t))
        save(f"Betainc_{dt}", R.Betainc(a=a.astype(t), b=b.astype(t), x=x.astype(t)))
    # Scalars broadcast against the others (which must share one shape).
    sb = rng.uniform(0.5, 4, (2, 3)).astype(np.float32)
    sx = rng.uniform(0, 1, (2, 3)).astype(np.float32)
    save("betainc_sb", sb)
    save("betainc_sx", sx)
    save("Betainc_scalar_a", R.Betainc(a=np.float32(2.5), b=sb, x=sx))
    save("Betainc_scalar_ax", R.Betainc(a=np.float32(2.5), b=sb, x=np.float32(0.25)))


def message(f):
    try:
        f()
    except tf.errors.OpError as e:
        m = str(e).split("\n")[0]
        m = re.sub(r"^\{\{function_node [^}]*\}\} ", "", m)
        return re.sub(r" \[Op:\w+\]( name: .*)?$", "", m)
    raise AssertionError("no error")


def messages():
    z = lambda *s: np.zeros(s, np.float32)
    cases = {
        "betainc_ab": lambda: R.Betainc(a=z(2, 1), b=z(3), x=z(3)),
        "betainc_ax": lambda: R.Betainc(a=z(3), b=np.float32(1), x=z(1)),
        "betainc_bx": lambda: R.Betainc(a=np.float32(1), b=z(3), x=z(2, 3)),
        "igamma_bcast": lambda: R.Igamma(a=z(2), x=z(3)),
    }
    with open(OUT / "messages.txt", "w") as f:
        for name, fn in cases.items():
            f.write(f"{name}\t{message(fn)}\n")


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    unary()
    binary()
    betainc()
    messages()
