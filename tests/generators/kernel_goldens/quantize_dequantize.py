"""Goldens for QuantizeAndDequantizeV2/V3/V4 (quantize_dequantize_ops.cc), what quantization-aware
training exports (tfmot, the TF Lite converter's QAT path) leave in a SavedModel (issue 35).

Run from the repository root:

    .venv-peers/bin/python -P tests/generators/kernel_goldens/quantize_dequantize.py

Writes tests/data/kernels/quantize_dequantize/<name>.npy, wiping the folder first: inputs x_f32,
x_f64, x3 (a [2, 3, 4] tensor for the per-channel cases), and TensorFlow's outputs: v2/v3/v4_<dtype>
stack one row per attr combination (signed, bits, range given, round mode, narrow range);
axis<axis>_<dtype>_<range given>_<narrow range>[_v3] the per-channel ones; messages.txt with TensorFlow's errors ("case<TAB>message" a line). TensorFlow's
native CPU kernels (oneDNN off); fixed seed.
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

OUT = _HERE.parents[2] / "tests" / "data" / "kernels" / "quantize_dequantize"
R = tf.raw_ops
rng = np.random.default_rng(37)


def save(name, value):
    value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    np.save(OUT / f"{name}.npy", np.array(value, order="C"))


def cases():
    # Halves of the 8-bit grid (ties for both round modes), zeros, the range ends and beyond.
    x = np.concatenate([rng.uniform(-3, 5, 40), [0.0, -0.0, 5.0, -3.0, 7.5, -9.0, 1e-6],
                        np.arange(-6, 7) * (5.0 / 127) / 2])
    x3 = rng.uniform(-2, 3, (2, 3, 4))
    x3[:, 1, :] *= 0.1  # a channel with a narrower range
    for dt, t in {"f32": np.float32, "f64": np.float64}.items():
        save(f"x_{dt}", x.astype(t))
        save(f"x3_{dt}", x3.astype(t))
        # One row per attr combination, in this loop's order (the test walks it alike).
        rows = {"v2": [], "v3": [], "v4": []}
        for signed in (True, False):
            for bits in (8, 4, 16):
                for given in (False, True):
                    for mode in ("HALF_TO_EVEN", "HALF_UP"):
                        for narrow in (False, True):
                            lo, hi = (-2.5, 4.0) if signed else (0.0, 4.0)
                            args = dict(input=x.astype(t), input_min=t(lo), input_max=t(hi),
                                        signed_input=signed, num_bits=bits, range_given=given,
                                        round_mode=mode, narrow_range=narrow)
                            rows["v2"].append(R.QuantizeAndDequantizeV2(**args).numpy())
                            rows["v4"].append(R.QuantizeAndDequantizeV4(**args).numpy())
                            if mode == "HALF_TO_EVEN":
                                rows["v3"].append(R.QuantizeAndDequantizeV3(
                                    input=x.astype(t), input_min=t(lo), input_max=t(hi),
                                    num_bits=np.int32(bits), signed_input=signed,
                                    range_given=given, narrow_range=narrow).numpy())
        for op, r in rows.items():
            save(f"{op}_{dt}", np.stack(r))
        # Per channel along axis 1 and axis 2 (the last).
        for axis in (1, 2):
            depth = x3.shape[axis]
            lo = np.linspace(-1.5, -0.1, depth).astype(t)
            hi = np.linspace(0.2, 2.5, depth).astype(t)
            save(f"axis{axis}_lo_{dt}", lo)
            save(f"axis{axis}_hi_{dt}", hi)
            for given in (False, True):
                for narrow in (False, True):
                    name = f"axis{axis}_{dt}_{int(given)}_{int(narrow)}"
                    # TF 2.21's V2/V4 refuse every range given per channel (messages below).
                    if not given:
                        save(name, R.QuantizeAndDequantizeV2(
                            input=x3.astype(t), input_min=lo, input_max=hi, range_given=given,
                            narrow_range=narrow, axis=axis))
                    save(name + "_v3", R.QuantizeAndDequantizeV3(
                        input=x3.astype(t), input_min=lo, input_max=hi, num_bits=np.int32(8),
                        range_given=given, narrow_range=narrow, axis=axis))


def message(f):
    try:
        f()
    except tf.errors.OpError as e:
        m = str(e).split("\n")[0]
        m = re.sub(r"^\{\{function_node [^}]*\}\} ", "", m)
        return re.sub(r" \[Op:\w+\]( name: .*)?$", "", m)
    raise AssertionError("no error")


def messages():
    z = np.zeros([2, 3], np.float32)
    f = np.float32
    v2 = R.QuantizeAndDequantizeV2
    v3 = R.QuantizeAndDequantizeV3
    cases = {
        "bits_zero": lambda: v2(input=z, input_min=f(0), input_max=f(1), num_bits=0),
        "bits_unsigned": lambda: v2(input=z, input_min=f(0), input_max=f(1), num_bits=63,
                                    signed_input=False),
        "round_mode": lambda: v2(input=z, input_min=f(0), input_max=f(1), round_mode="HALF_DOWN"),
        "axis_low": lambda: v2(input=z, input_min=f(0), input_max=f(1), axis=-2),
        "axis_high": lambda: v2(input=z, input_min=np.zeros(3, f), input_max=np.ones(3, f),
                                axis=2),
        "range": lambda: v2(input=z, input_min=f(1), input_max=f(0), range_given=True),
        "min_scalar": lambda: v2(input=z, input_min=np.zeros(3, f), input_max=f(1),
                                 range_given=True),
        "max_scalar": lambda: v2(input=z, input_min=f(0), input_max=np.ones(3, f),
                                 range_given=True, axis=1),
        "axis_given": lambda: v2(input=z, input_min=f(0), input_max=f(1), range_given=True,
                                 axis=1),
        "v3_min_size": lambda: v3(input=z, input_min=np.zeros(2, f), input_max=np.ones(3, f),
                                  num_bits=8, axis=1),
        "v3_max_size": lambda: v3(input=z, input_min=np.zeros(3, f), input_max=np.ones(2, f),
                                  num_bits=8, axis=1),
        "v3_axis": lambda: v3(input=z, input_min=f(0), input_max=f(1), num_bits=8, axis=2),
        "v3_bits_shape": lambda: v3(input=z, input_min=f(0), input_max=f(1),
                                    num_bits=np.array([8], np.int32)),
        "v3_bits": lambda: v3(input=z, input_min=f(0), input_max=f(1), num_bits=62),
        "v3_range": lambda: v3(input=z, input_min=f(1), input_max=f(0), num_bits=8),
    }
    with open(OUT / "messages.txt", "w") as out:
        for name, fn in cases.items():
            out.write(f"{name}\t{message(fn)}\n")


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    cases()
    messages()
