"""Goldens for the element-wise kernels (binary, unary, reductions, cast, select).

Run with the project's venv (TensorFlow 2.21, NumPy):
    .venv/bin/python tests/generators/kernel_goldens/elementwise.py
Writes tests/data/kernels/elementwise/*.npy. Every expected output comes from
tf.raw_ops.<Op>, so the tests check TensorFlow's exact semantics. bfloat16
arrays are stored as their raw uint16 bits (NumPy has no bfloat16).

Several outputs for one input are stacked (or concatenated) into one file to
keep the file count small; the op order here must match the tests:
tests/kernels/{binary,unary,reduction,cast_select}_ops_test.cc.
"""
import os
import sys

# Sibling generator scripts (e.g. array.py) would shadow standard modules.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

R = tf.raw_ops
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "data",
                   "kernels", "elementwise")

FLOATS = ["float32", "float64", "float16", "bfloat16"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]


def tf_dtype(name):
    return tf.dtypes.as_dtype(name)


def const(values, dtype):
    """A TF tensor of `dtype` from float64/int values (bfloat16 via float32, RNE)."""
    if dtype == "bfloat16":
        return tf.cast(tf.constant(np.asarray(values, np.float32)), tf.bfloat16)
    return tf.constant(np.asarray(values).astype(dtype))


def to_np(t):
    if t.dtype == tf.bfloat16:
        return tf.bitcast(t, tf.uint16).numpy()
    return t.numpy()


def try_ops(name, ops, fn):
    """Runs fn(op) for each op TensorFlow supports for these inputs; saves the
    stacked outputs as `name` and the indices of those ops (into `ops`) as
    `name`_ops, which the tests read to know which op each slice belongs to."""
    outs, idx = [], []
    for i, op in enumerate(ops):
        try:
            outs.append(fn(op))
            idx.append(i)
        except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError,
                tf.errors.UnimplementedError):
            pass
    save(name, tf.stack(outs))
    save(name + "_ops", np.array(idx, np.int32))


def save(name, value):
    arr = to_np(value) if isinstance(value, tf.Tensor) else np.asarray(value)
    np.save(os.path.join(OUT, name + ".npy"), np.ascontiguousarray(arr))


# ----------------------------------------------------------------------------
# Binary ops.

ARITH_OPS = ["Add", "AddV2", "Sub", "Mul", "RealDiv", "Div", "DivNoNan", "FloorDiv", "FloorMod",
             "Maximum", "Minimum", "SquaredDifference"]
CMP_OPS = ["Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual"]


def binary_inputs(dtype, rng):
    if dtype in FLOATS:
        x = np.round(rng.uniform(-6, 6, (2, 3, 4)), 2)
        y = np.round(rng.uniform(-4, 4, (3, 1)), 2)
        y[y == 0] = 1.5
    elif dtype in SIGNED:
        hi = 100 if dtype == "int8" else 1000
        x = rng.integers(-hi, hi, (2, 3, 4))
        y = rng.integers(-9, 10, (3, 1))
        y[y == 0] = 7
    else:
        x = rng.integers(0, 250, (2, 3, 4))
        y = rng.integers(1, 20, (3, 1))
    x[0, 0, 0] = y[0, 0]  # a tie for the comparisons
    return const(x, dtype), const(y, dtype)


def gen_binary(rng):
    for dtype in FLOATS + SIGNED + UNSIGNED:
        x, y = binary_inputs(dtype, rng)
        save(f"binary_{dtype}_x", x)
        save(f"binary_{dtype}_y", y)
        try_ops(f"binary_{dtype}_arith", ARITH_OPS, lambda op: getattr(R, op)(x=x, y=y))
        try_ops(f"binary_{dtype}_cmp", CMP_OPS, lambda op: getattr(R, op)(x=x, y=y))
    for dtype in FLOATS + SIGNED:
        if dtype in FLOATS:
            px = np.round(rng.uniform(0.1, 4, (3, 4)), 2)
            px[0, :2] = [-2.0, -1.5]  # negative bases: integer and fractional exponents
            py = np.round(rng.uniform(-3, 3, (4,)), 1)
            py[0] = 2.0
        else:
            px = rng.integers(-6, 7, (3, 4))
            py = rng.integers(0, 5, (4,))
        x, y = const(px, dtype), const(py, dtype)
        save(f"pow_{dtype}_x", x)
        save(f"pow_{dtype}_y", y)
        save(f"pow_{dtype}_out", R.Pow(x=x, y=y))
    # Every pair of special float32 values, for every arithmetic op and Pow.
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 3.0], np.float32)
    x = tf.constant(special.reshape(8, 1))
    y = tf.constant(special)
    save("binary_special_x", x)
    save("binary_special_y", y)
    save("binary_special_arith",
         tf.stack([getattr(R, op)(x=x, y=y) for op in ARITH_OPS + ["Pow"]]))
    save("binary_special_cmp", tf.stack([getattr(R, op)(x=x, y=y) for op in CMP_OPS]))
    # Integer wrap-around on int32 extremes.
    big = np.array([2**31 - 1, -2**31, -7, 7, 46341], np.int32)
    x = tf.constant(big.reshape(5, 1))
    y = tf.constant(np.array([2**31 - 1, -2**31, -1, 3, 46341], np.int32))
    save("binary_wrap_x", x)
    save("binary_wrap_y", y)
    save("binary_wrap_out", tf.stack([getattr(R, op)(x=x, y=y)
                                      for op in ["Add", "Sub", "Mul", "FloorDiv", "FloorMod",
                                                 "Div"]]))
    # bool
    bx = tf.constant(np.array([[True], [False], [True], [False]]))
    by = tf.constant(np.array([True, False]))
    save("binary_bool_x", bx)
    save("binary_bool_y", by)
    save("binary_bool_out", tf.stack([R.Equal(x=bx, y=by), R.NotEqual(x=bx, y=by),
                                      R.LogicalAnd(x=bx, y=by), R.LogicalOr(x=bx, y=by)]))
    # BiasAdd
    for name, shape, channels, fmt, dtype in [("nhwc_float32", (2, 3, 4), 4, "NHWC", "float32"),
                                              ("nchw_float32", (2, 3, 2, 2), 3, "NCHW", "float32"),
                                              ("nhwc_int32", (3, 2), 2, "NHWC", "int32"),
                                              ("nchw_float16", (2, 3, 5), 3, "NCHW", "float16")]:
        if dtype == "int32":
            v, b = rng.integers(-50, 50, shape), rng.integers(-50, 50, (channels,))
        else:
            v, b = rng.uniform(-3, 3, shape), rng.uniform(-3, 3, (channels,))
        v, b = const(v, dtype), const(b, dtype)
        save(f"biasadd_{name}_value", v)
        save(f"biasadd_{name}_bias", b)
        save(f"biasadd_{name}_out", R.BiasAdd(value=v, bias=b, data_format=fmt))
    # AddN
    for dtype in ["float32", "int32", "float16"]:
        ins = [const(rng.uniform(-100, 100, (2, 5)), dtype) for _ in range(3)]
        for i, t in enumerate(ins):
            save(f"addn_{dtype}_in{i}", t)
        save(f"addn_{dtype}_out", R.AddN(inputs=ins))


# ----------------------------------------------------------------------------
# Unary ops.

FLOAT_UNARY = ["Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Sigmoid", "Tanh", "Softplus",
               "Softsign", "Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log",
               "Log1p", "Erf", "Floor", "Ceil", "Round", "Sign", "Reciprocal", "Sin", "Cos",
               "Erfc"]
FLOAT_PRED = ["IsNan", "IsFinite"]
# Round is left out: TF 2.21's CPU Round on integers returns 0 (a bug); smrt
# returns the input.
INT_UNARY = ["Relu", "Relu6", "Neg", "Abs", "Square", "Sign"]


def unary(op, x):
    arg = "features" if op in ("Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Softplus",
                               "Softsign") else "x"
    return getattr(R, op)(**{arg: x})


def gen_unary(rng):
    special = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-8, -1e-8, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
               3.5, 6.0, 6.5, -1.0, 1.0, 13.0, 14.5, -14.5, 20.0, -20.0, 40.0, -90.0, 100.0]
    for dtype in FLOATS:
        values = np.concatenate([special, np.round(rng.uniform(-8, 8, 22), 3)])
        x = const(values, dtype)
        save(f"unary_{dtype}_x", x)
        try_ops(f"unary_{dtype}_out", FLOAT_UNARY, lambda op: unary(op, x))
        try_ops(f"unary_{dtype}_pred", FLOAT_PRED, lambda op: unary(op, x))
    for dtype in SIGNED + ["uint8", "uint32"]:
        info = np.iinfo(dtype)
        values = np.concatenate([[info.min, info.max, 0, 1, 6, 7, info.min + 1],
                                 rng.integers(max(info.min, -300), min(info.max, 300), 17)])
        if dtype in UNSIGNED:
            values = values[values >= 0]
        x = const(values, dtype)
        save(f"unary_{dtype}_x", x)
        try_ops(f"unary_{dtype}_out", INT_UNARY, lambda op: unary(op, x))
    x = tf.constant(np.array([-3.0, -0.5, 0.0, 0.5, 2.0], np.float32))
    save("leakyrelu_alpha_x", x)
    save("leakyrelu_alpha_out", R.LeakyRelu(features=x, alpha=1.5))


# ----------------------------------------------------------------------------
# Reductions.

REDUCE_OPS = ["Sum", "Mean", "Max", "Min", "Prod"]
# (axes, keep_dims); None axes means the scalar axis 1.
REDUCE_CONFIGS = [([0], False), ([1], True), ([2], False), ([-1], False), ([0, 2], False),
                  ([2, 0], True), ([0, 1, 2], False), ([1, -1], False), (None, False),
                  ([], False)]


def gen_reductions(rng):
    for dtype in ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "uint8"]:
        if dtype in FLOATS:
            values = np.round(rng.uniform(-2, 2, (2, 3, 4)), 2)
            values[1, 2, 3] = 0.75
        else:
            values = rng.integers(0 if dtype == "uint8" else -4, 5, (2, 3, 4))
        x = const(values, dtype)
        save(f"reduce_{dtype}_x", x)
        for op in REDUCE_OPS:
            parts = []
            for axes, keep in REDUCE_CONFIGS:
                axis = tf.constant(1) if axes is None else tf.constant(axes, tf.int32)
                parts.append(tf.reshape(getattr(R, op)(input=x, axis=axis, keep_dims=keep), [-1]))
            save(f"reduce_{dtype}_{op}", tf.concat(parts, 0))
    b = tf.constant(rng.uniform(0, 1, (2, 3, 4)) < 0.7)
    save("reduce_bool_x", b)
    for op in ["All", "Any"]:
        parts = []
        for axes, keep in REDUCE_CONFIGS:
            axis = tf.constant(1) if axes is None else tf.constant(axes, tf.int32)
            parts.append(tf.reshape(getattr(R, op)(input=b, axis=axis, keep_dims=keep), [-1]))
        save(f"reduce_bool_{op}", tf.concat(parts, 0))
    # Max/Min propagate NaN; ArgMax/ArgMin skip it.
    nan_x = tf.constant(np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, -1.0],
                                  [2.0, 5.0, np.nan]], np.float32))
    save("reduce_nan_x", nan_x)
    save("reduce_nan_out", tf.stack([R.Max(input=nan_x, axis=1), R.Min(input=nan_x, axis=1),
                                     tf.cast(R.ArgMax(input=nan_x, dimension=1), tf.float32),
                                     tf.cast(R.ArgMin(input=nan_x, dimension=1), tf.float32)]))
    for dtype in ["float32", "int32", "uint8", "float16", "bool"]:
        if dtype == "bool":
            x = tf.constant(rng.uniform(0, 1, (3, 4, 5)) < 0.5)
        elif dtype in FLOATS:
            x = const(np.round(rng.uniform(-3, 3, (3, 4, 5)), 0), dtype)  # many ties
        else:
            x = const(rng.integers(0, 4, (3, 4, 5)), dtype)
        save(f"arg_{dtype}_x", x)
        for op in ["ArgMax", "ArgMin"]:
            parts = [tf.reshape(getattr(R, op)(input=x, dimension=a), [-1]) for a in [0, 1, 2, -1]]
            save(f"arg_{dtype}_{op}", tf.concat(parts, 0))


# ----------------------------------------------------------------------------
# Cast, Select, SelectV2.

CAST_TYPES = ["bool"] + SIGNED + UNSIGNED + FLOATS


def cast_input(src, rng):
    if src == "bool":
        return np.array([True, False, True, True, False, False, True, False])
    if src in UNSIGNED:
        return np.concatenate([[0, 1, 2, 127, 128, 255], rng.integers(0, 256, 10)])
    if src in SIGNED:
        return np.concatenate([[0, 1, -1, 127, -128, 42], rng.integers(-128, 128, 10)])
    return np.array([-100.7, -3.5, -1.0, -0.5, 0.0, 0.3, 0.5, 1.0, 1.5, 2.5, 3.7, 42.0, 99.9,
                     100.0, 127.0, -128.0])


def gen_cast(rng):
    for src in CAST_TYPES:
        base = cast_input(src, rng)
        x = const(base, src)
        save(f"cast_{src}_x", x)
        for dst in CAST_TYPES:
            if src in FLOATS and dst in ("uint8", "uint16"):
                # Negative floats to narrow unsigned types depend on the element's
                # position in TF (vectorised saturation vs scalar wrap): skip them.
                xin = const(np.abs(base), src)
                save(f"cast_{src}_x_{dst}", xin)
            else:
                xin = x
            save(f"cast_{src}_{dst}", R.Cast(x=xin, DstT=tf_dtype(dst)))
    specials = {
        "float32": ([np.nan, np.inf, -np.inf, 1e10, -1e10, 3e9, 5e9, -1.0, -1.7, 1.7, 300.0,
                     -300.0, 70000.0, 2.5, 9.3e18, 2e19],
                    ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                     "bool", "float16", "bfloat16", "float64"]),
        "float64": ([np.nan, np.inf, -np.inf, 1e10, -1e10, 3e9, 5e9, -1.7, 1.7, 2.5, 9.3e18, 2e19,
                     1e300, -1e300, 65520.0, 1e-300],
                    ["int32", "int64", "uint32", "uint64", "bool", "float32", "float16",
                     "bfloat16"]),
        "float16": ([np.nan, np.inf, -np.inf, 65504.0, -65504.0, 1e-7, -1.7, 300.0],
                    ["int32", "int64", "uint32", "float32", "bfloat16", "bool"]),
    }
    for src, (values, dsts) in specials.items():
        x = tf.constant(np.array(values, src))
        save(f"cast_special_{src}_x", x)
        for dst in dsts:
            save(f"cast_special_{src}_{dst}", R.Cast(x=x, DstT=tf_dtype(dst)))
    # Truncate=True versus the default rounding.
    f = np.concatenate([[1 + 2**-10 + 2**-11 + 2**-12, 1 + 2**-7 + 2**-8 + 2**-9, 65520.0,
                         1 + 2**-24 + 2**-25 + 2**-30, -3.3, 1e-3, 3e38, np.nan],
                        rng.uniform(-1000, 1000, 8)])
    pairs = [("float32", "float16"), ("float32", "bfloat16"), ("float64", "float32"),
             ("float64", "float16"), ("float64", "bfloat16"), ("float16", "bfloat16")]
    for src in ["float32", "float64", "float16"]:
        save(f"cast_trunc_{src}_x", tf.constant(f.astype(src)))
    for src, dst in pairs:
        x = tf.constant(f.astype(src))
        for truncate in [False, True]:
            save(f"cast_trunc_{src}_{dst}_{int(truncate)}",
                 R.Cast(x=x, DstT=tf_dtype(dst), Truncate=truncate))

    t = tf.constant(rng.uniform(-5, 5, (3, 4)).astype(np.float32))
    e = tf.constant(rng.uniform(-5, 5, (3, 4)).astype(np.float32))
    cond_full = tf.constant(rng.uniform(0, 1, (3, 4)) < 0.5)
    cond_vec = tf.constant(np.array([True, False, True]))
    save("select_t", t)
    save("select_e", e)
    save("select_cond_full", cond_full)
    save("select_cond_vec", cond_vec)
    save("select_full_out", R.Select(condition=cond_full, x=t, y=e))
    save("select_vec_out", R.Select(condition=cond_vec, x=t, y=e))
    c = tf.constant(np.array([[True], [False], [True]]))
    t2 = tf.constant(np.arange(4, dtype=np.int32).reshape(1, 4))
    e2 = tf.constant(np.arange(100, 112, dtype=np.int32).reshape(3, 4))
    save("selectv2_cond", c)
    save("selectv2_t", t2)
    save("selectv2_e", e2)
    save("selectv2_out", R.SelectV2(condition=c, t=t2, e=e2))
    c3 = tf.constant(np.array([True, False, True, False]))
    t3 = tf.constant(rng.uniform(-1, 1, (2, 1, 4)).astype(np.float16))
    e3 = tf.constant(np.float16(7.0))
    save("selectv2_b_cond", c3)
    save("selectv2_b_t", t3)
    save("selectv2_b_e", e3)
    save("selectv2_b_out", R.SelectV2(condition=c3, t=t3, e=e3))


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".npy"):
            os.remove(os.path.join(OUT, f))
    rng = np.random.default_rng(20240607)
    gen_binary(rng)
    gen_unary(rng)
    gen_reductions(rng)
    gen_cast(rng)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
