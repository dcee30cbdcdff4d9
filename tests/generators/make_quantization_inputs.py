#!/usr/bin/env python3
"""Writes the calibration and validation inputs of the int8 tests
(tests/api/quantize_test.cc) into tests/data/quantization: float32 .npy files
of samples along dim 0, one per signature input, from Python's own random
module (no NumPy, no TensorFlow). Images are smooth random fields on the
8-bit grid (k / 255), as decoded photos are; features are normal(0, 1), as
the zoo's mlp_bn_dropout cases are.

usage: make_quantization_inputs.py [OUT_DIR]
"""
import array
import os
import random
import sys


def npy(path, shape, values):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        f.write(array.array("f", values).tobytes())


def smooth_images(n, h, w, c, seed, grid=7):
    r = random.Random(seed)
    out = [0.0] * (n * h * w * c)
    for s in range(n):
        for ch in range(c):
            g = [[r.random() for _ in range(grid + 1)] for _ in range(grid + 1)]
            for y in range(h):
                fy = y * grid / h
                iy, ty = int(fy), fy - int(fy)
                for x in range(w):
                    fx = x * grid / w
                    ix, tx = int(fx), fx - int(fx)
                    v = (g[iy][ix] * (1 - ty) * (1 - tx) + g[iy + 1][ix] * ty * (1 - tx) +
                         g[iy][ix + 1] * (1 - ty) * tx + g[iy + 1][ix + 1] * ty * tx)
                    v = min(1.0, max(0.0, v + r.gauss(0, 0.05)))
                    out[((s * h + y) * w + x) * c + ch] = round(v * 255) / 255
    return out


def normal(n, seed):
    r = random.Random(seed)
    return [r.gauss(0, 1) for _ in range(n)]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "data", "quantization")
    ae = os.path.join(out, "conv_autoencoder")
    npy(os.path.join(ae, "calibration", "image.npy"), (16, 28, 28, 1),
        smooth_images(16, 28, 28, 1, seed=1))
    npy(os.path.join(ae, "validation", "image.npy"), (16, 28, 28, 1),
        smooth_images(16, 28, 28, 1, seed=2))
    mlp = os.path.join(out, "mlp_bn_dropout")
    npy(os.path.join(mlp, "calibration", "features.npy"), (64, 20), normal(64 * 20, seed=3))
    npy(os.path.join(mlp, "validation", "features.npy"), (64, 20), normal(64 * 20, seed=4))


if __name__ == "__main__":
    main()
