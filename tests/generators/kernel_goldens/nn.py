#!/usr/bin/env python3
"""Goldens for the nn kernel family (conv, depthwise, pools, batch norm, matmul, softmax).

Run from the repository root:

    .venv/bin/python tests/generators/kernel_goldens/nn.py

Writes tests/data/kernels/nn/<case>_<role>.npy (inputs and TensorFlow's outputs), wiping the
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

OUT = _HERE.parents[2] / "tests" / "data" / "kernels" / "nn"
R = tf.raw_ops
rng = np.random.default_rng(20240611)


def rand(*shape, dtype=np.float32, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def save(case, **arrays):
    for role, value in arrays.items():
        value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        np.save(OUT / f"{case}_{role}.npy", np.ascontiguousarray(value))


def conv_cases():
    # name: (input shape, filter shape, strides, padding, dilations, explicit, dtype)
    cases = {
        "conv_same_stride2": ((2, 7, 9, 3), (3, 3, 3, 4), [1, 2, 2, 1], "SAME", [1, 1, 1, 1], []),
        "conv_same_stride3_even": ((1, 8, 10, 2), (4, 2, 2, 3), [1, 3, 3, 1], "SAME",
                                   [1, 1, 1, 1], []),
        "conv_valid_dilated": ((1, 9, 8, 2), (3, 2, 2, 3), [1, 1, 1, 1], "VALID", [1, 2, 3, 1],
                               []),
        "conv_same_dilated_stride": ((1, 8, 7, 3), (3, 3, 3, 2), [1, 2, 2, 1], "SAME",
                                     [1, 2, 2, 1], []),
        "conv_explicit": ((1, 6, 5, 3), (2, 3, 3, 2), [1, 2, 1, 1], "EXPLICIT", [1, 1, 1, 1],
                          [0, 0, 1, 2, 3, 0, 0, 0]),
        "conv_1x1": ((2, 4, 4, 8), (1, 1, 8, 5), [1, 1, 1, 1], "SAME", [1, 1, 1, 1], []),
        "conv_1x1_stride2": ((1, 5, 5, 4), (1, 1, 4, 3), [1, 2, 2, 1], "VALID", [1, 1, 1, 1], []),
        "conv_grouped": ((1, 6, 6, 6), (3, 3, 2, 6), [1, 1, 1, 1], "SAME", [1, 1, 1, 1], []),
        "conv_grouped_1x1": ((1, 3, 3, 4), (1, 1, 2, 4), [1, 1, 1, 1], "VALID", [1, 1, 1, 1], []),
    }
    for name, (xs, fs, strides, padding, dilations, explicit) in cases.items():
        x, f = rand(*xs), rand(*fs)
        out = R.Conv2D(input=x, filter=f, strides=strides, padding=padding, dilations=dilations,
                       explicit_paddings=explicit)
        save(name, x=x, filter=f, out=out)
    x, f = rand(1, 5, 6, 2, dtype=np.float64), rand(3, 3, 2, 3, dtype=np.float64)
    save("conv_f64", x=x, filter=f,
         out=R.Conv2D(input=x, filter=f, strides=[1, 2, 1, 1], padding="SAME"))


def depthwise_cases():
    cases = {
        "dw_same_m2": ((2, 7, 7, 3), (3, 3, 3, 2), [1, 2, 2, 1], "SAME", []),
        "dw_valid": ((1, 6, 5, 4), (2, 2, 4, 1), [1, 1, 1, 1], "VALID", []),
        "dw_explicit": ((1, 5, 5, 2), (3, 3, 2, 2), [1, 1, 1, 1], "EXPLICIT",
                        [0, 0, 1, 0, 2, 1, 0, 0]),
    }
    for name, (xs, fs, strides, padding, explicit) in cases.items():
        x, f = rand(*xs), rand(*fs)
        out = R.DepthwiseConv2dNative(input=x, filter=f, strides=strides, padding=padding,
                                      explicit_paddings=explicit)
        save(name, x=x, filter=f, out=out)
    # TensorFlow's native kernel rejects dilations; tf.nn reaches the same maths through
    # space-to-batch.
    x, f = rand(1, 9, 8, 3), rand(3, 3, 3, 2)
    out = tf.nn.depthwise_conv2d(x, f, strides=[1, 1, 1, 1], padding="SAME", dilations=[2, 3])
    save("dw_dilated", x=x, filter=f, out=out)


def pool_cases():
    x = rand(2, 7, 9, 3)
    save("pool_odd", x=x)
    for op, name in [(R.MaxPool, "maxpool"), (R.AvgPool, "avgpool")]:
        arg = "input" if op is R.MaxPool else "value"
        save(f"{name}_same_odd",
             out=op(**{arg: x}, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"))
        save(f"{name}_same_k2",
             out=op(**{arg: x}, ksize=[1, 2, 4, 1], strides=[1, 2, 3, 1], padding="SAME"))
        save(f"{name}_valid",
             out=op(**{arg: x}, ksize=[1, 2, 3, 1], strides=[1, 2, 1, 1], padding="VALID"))
    save("maxpool_explicit",
         out=R.MaxPool(input=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="EXPLICIT",
                       explicit_paddings=[0, 0, 1, 2, 2, 1, 0, 0]))
    xd = rand(1, 3, 3, 6)
    save("maxpool_depth", x=xd,
         out=R.MaxPool(input=xd, ksize=[1, 1, 1, 3], strides=[1, 1, 1, 3], padding="VALID"))
    x64 = rand(1, 5, 4, 2, dtype=np.float64)
    save("avgpool_f64", x=x64,
         out=R.AvgPool(value=x64, ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1], padding="SAME"))
    xi = rng.integers(-100, 100, size=(1, 5, 5, 2)).astype(np.int32)
    save("maxpool_i32", x=xi,
         out=R.MaxPool(input=tf.constant(xi), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                       padding="SAME"))


def batch_norm_cases():
    def params(c):
        return (rand(c), rand(c), rand(c), np.abs(rand(c)) + 0.1)

    x = rand(2, 4, 5, 3)
    scale, offset, mean, var = params(3)
    save("bn_nhwc", x=x, scale=scale, offset=offset, mean=mean, variance=var)
    out = R.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean, variance=var,
                             epsilon=0.001, is_training=False)
    save("bn_nhwc_inference", y=out[0])
    empty = np.zeros((0,), np.float32)
    out = R.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=empty, variance=empty,
                             epsilon=0.001, is_training=True)
    save("bn_nhwc_training", y=out[0], batch_mean=out[1], batch_variance=out[2],
         reserve_space_1=out[3], reserve_space_2=out[4])
    out = R.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean, variance=var,
                             epsilon=0.001, is_training=True, exponential_avg_factor=0.25)
    save("bn_nhwc_training_avg", y=out[0], batch_mean=out[1], batch_variance=out[2])

    # NCHW: TensorFlow's native CPU kernel needs NHWC, so transpose around it.
    xc = rand(2, 3, 4, 5)
    scale, offset, mean, var = params(3)
    out = R.FusedBatchNormV3(x=np.transpose(xc, (0, 2, 3, 1)), scale=scale, offset=offset,
                             mean=mean, variance=var, is_training=False)
    save("bn_nchw", x=xc, scale=scale, offset=offset, mean=mean, variance=var,
         y=np.transpose(out[0].numpy(), (0, 3, 1, 2)))

    x5 = rand(1, 2, 3, 4, 2)
    scale, offset, mean, var = params(2)
    out = R.FusedBatchNormV3(x=x5, scale=scale, offset=offset, mean=mean, variance=var,
                             is_training=False, data_format="NDHWC")
    save("bn_ndhwc", x=x5, scale=scale, offset=offset, mean=mean, variance=var, y=out[0])


def matmul_cases():
    a, b = rand(5, 7), rand(7, 3)
    save("matmul", a=a, b=b, out=R.MatMul(a=a, b=b))
    save("matmul_ta", a=a.T.copy(), b=b, out=R.MatMul(a=a.T.copy(), b=b, transpose_a=True))
    save("matmul_tb", a=a, b=b.T.copy(), out=R.MatMul(a=a, b=b.T.copy(), transpose_b=True))
    save("matmul_tab", a=a.T.copy(), b=b.T.copy(),
         out=R.MatMul(a=a.T.copy(), b=b.T.copy(), transpose_a=True, transpose_b=True))
    a64, b64 = rand(4, 6, dtype=np.float64), rand(6, 2, dtype=np.float64)
    save("matmul_f64", a=a64, b=b64, out=R.MatMul(a=a64, b=b64))
    big_a, big_b = rand(64, 96), rand(96, 48)
    save("matmul_big", a=big_a, b=big_b, out=R.MatMul(a=big_a, b=big_b))

    x, y = rand(3, 2, 4), rand(3, 4, 5)
    save("bmm", x=x, y=y, out=R.BatchMatMul(x=x, y=y))
    x, y = rand(2, 1, 3, 4), rand(5, 2, 4)
    save("bmm_v2_bcast", x=x, y=y, out=R.BatchMatMulV2(x=x, y=y, adj_y=True))
    x, y = rand(2, 4, 3), rand(4, 5)
    save("bmm_v2_adjx_rank2", x=x, y=y, out=R.BatchMatMulV2(x=x, y=y, adj_x=True))
    x, y = rand(1, 3, 2, 3), rand(4, 1, 3, 2)
    save("bmm_v3", x=x, y=y, out=R.BatchMatMulV3(x=x, y=y, Tout=tf.float32))
    xi = rng.integers(-128, 128, size=(2, 3, 4)).astype(np.int8)
    yi = rng.integers(0, 256, size=(2, 4, 2)).astype(np.uint8)
    save("bmm_v3_int8", x=xi, y=yi,
         out=R.BatchMatMulV3(x=tf.constant(xi), y=tf.constant(yi), Tout=tf.int32))


def softmax_cases():
    x = rand(4, 10, scale=20.0)
    save("softmax_2d", x=x, softmax=R.Softmax(logits=x), log_softmax=R.LogSoftmax(logits=x))
    x = rand(2, 3, 5, dtype=np.float64, scale=3.0)
    save("softmax_3d_f64", x=x, softmax=R.Softmax(logits=x), log_softmax=R.LogSoftmax(logits=x))
    x = np.array([1000.0, 1001.0, -1000.0], np.float32)
    save("softmax_large", x=x, softmax=R.Softmax(logits=x), log_softmax=R.LogSoftmax(logits=x))
    # One dominant logit per row: log_softmax near 0 is log(1 + tiny), where an
    # approximate log is off by more than the value; a row of one logit is exactly 0.
    x = rand(8, 5, scale=2.0)
    x[np.arange(8), rng.integers(0, 5, size=8)] += np.linspace(8.0, 18.0, 8, dtype=np.float32)
    save("softmax_peaked", x=x, softmax=R.Softmax(logits=x), log_softmax=R.LogSoftmax(logits=x))
    x = rand(4, 1, scale=5.0)
    save("softmax_single", x=x, softmax=R.Softmax(logits=x), log_softmax=R.LogSoftmax(logits=x))


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    conv_cases()
    depthwise_cases()
    pool_cases()
    batch_norm_cases()
    matmul_cases()
    softmax_cases()
    total = sum(p.stat().st_size for p in OUT.glob("*.npy"))
    print(f"wrote {len(list(OUT.glob('*.npy')))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
