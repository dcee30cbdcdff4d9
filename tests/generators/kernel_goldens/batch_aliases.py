"""Goldens for the deprecated Batch* linear-algebra names and SelfAdjointEig (V1), which
TensorFlow 2.21 still registers CPU kernels for (issue 35): BatchMatrixBandPart,
BatchMatrixDeterminant, BatchMatrixDiag, BatchMatrixDiagPart, BatchMatrixInverse,
BatchMatrixSetDiag, BatchMatrixSolve, BatchMatrixTriangularSolve, BatchCholesky,
BatchSelfAdjointEig, SelfAdjointEig and BatchSelfAdjointEigV2.

Run from the repository root:

    .venv-peers/bin/python -P tests/generators/kernel_goldens/batch_aliases.py

Writes tests/data/kernels/batch_aliases/<name>.npy, wiping the folder first: the inputs (a: a
batch of well-conditioned matrices, spd: symmetric positive definite ones with distinct
eigenvalues, b: right-hand sides, d: diagonals) and TensorFlow's outputs, <Op>_<dtype>[_<n>].
TensorFlow's native CPU kernels (oneDNN off); fixed seed.
"""
import os
import pathlib
import shutil
import sys

# Sibling generators (e.g. array.py) would shadow standard modules that TensorFlow imports.
_HERE = pathlib.Path(__file__).resolve().parent
sys.path = [p for p in sys.path if pathlib.Path(p or ".").resolve() != _HERE]

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np
import tensorflow as tf

OUT = _HERE.parents[2] / "tests" / "data" / "kernels" / "batch_aliases"
R = tf.raw_ops
rng = np.random.default_rng(38)


def save(name, value):
    value = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
    np.save(OUT / f"{name}.npy", np.array(value, order="C"))


class OldGraph:
    """A GraphDef of producer version 10: TensorFlow 2.21 refuses these ops in newer graphs
    ("not available in GraphDef version ..."), and runs them in older ones."""

    def __init__(self):
        from tensorflow.core.framework import graph_pb2
        self.gd = graph_pb2.GraphDef()
        self.gd.versions.producer = 10
        self.fetches = {}

    def const(self, name, value):
        n = self.gd.node.add(name=name, op="Const")
        n.attr["dtype"].type = tf.as_dtype(value.dtype).as_datatype_enum
        n.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value))
        return name

    def op(self, name, op, inputs, outputs=1, **attrs):
        n = self.gd.node.add(name=name, op=op, input=inputs)
        for k, v in attrs.items():
            if isinstance(v, bool):
                n.attr[k].b = v
            else:
                n.attr[k].type = v
        for i in range(outputs):
            self.fetches[name if outputs == 1 else f"{name}_{'ev'[i]}"] = f"{name}:{i}"

    def run(self):
        g = tf.Graph()
        with g.as_default():
            tf.compat.v1.import_graph_def(self.gd, name="")
        with tf.compat.v1.Session(graph=g) as s:
            values = s.run(list(self.fetches.values()))
        return dict(zip(self.fetches, values))


def main():
    a = rng.standard_normal((2, 3, 4, 4)) + 4 * np.eye(4)
    q = np.linalg.qr(rng.standard_normal((2, 3, 4, 4)))[0]
    spd = q @ np.diag([0.5, 1.5, 3.0, 7.0]) @ np.swapaxes(q, -1, -2)
    spd = (spd + np.swapaxes(spd, -1, -2)) / 2
    b = rng.standard_normal((2, 3, 4, 2))
    d = rng.standard_normal((2, 3, 4))
    for dt, t in {"f32": np.float32, "f64": np.float64}.items():
        g = OldGraph()
        T = tf.as_dtype(t).as_datatype_enum
        for name, v in dict(a=a, spd=spd, b=b, d=d).items():
            save(f"{name}_{dt}", v.astype(t))
            g.const(name, v.astype(t))
        lo, up = g.const("lo", np.int64(1)), g.const("up", np.int64(0))
        g.op(f"BatchMatrixInverse_{dt}", "BatchMatrixInverse", ["a"], T=T)
        g.op(f"BatchMatrixInverse_{dt}_adj", "BatchMatrixInverse", ["a"], T=T, adjoint=True)
        g.op(f"BatchMatrixDeterminant_{dt}", "BatchMatrixDeterminant", ["a"], T=T)
        g.op(f"BatchCholesky_{dt}", "BatchCholesky", ["spd"], T=T)
        g.op(f"BatchMatrixSolve_{dt}", "BatchMatrixSolve", ["a", "b"], T=T)
        g.op(f"BatchMatrixTriangularSolve_{dt}", "BatchMatrixTriangularSolve", ["a", "b"], T=T,
             lower=False, adjoint=True)
        g.op(f"BatchSelfAdjointEigV2_{dt}", "BatchSelfAdjointEigV2", ["spd"], outputs=2, T=T)
        g.op(f"SelfAdjointEig_{dt}", "SelfAdjointEig", ["spd"], T=T)
        g.op(f"BatchSelfAdjointEig_{dt}", "BatchSelfAdjointEig", ["spd"], T=T)
        g.op(f"BatchMatrixBandPart_{dt}", "BatchMatrixBandPart", ["a", lo, up], T=T)
        g.op(f"BatchMatrixDiag_{dt}", "BatchMatrixDiag", ["d"], T=T)
        g.op(f"BatchMatrixDiagPart_{dt}", "BatchMatrixDiagPart", ["a"], T=T)
        g.op(f"BatchMatrixSetDiag_{dt}", "BatchMatrixSetDiag", ["a", "d"], T=T)
        for name, v in g.run().items():
            save(name, v)


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    main()
