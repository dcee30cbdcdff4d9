"""Makes examples/custom_op/model: a SavedModel whose serving_default applies
TensorFlow Addons' "Addons>Gelu" (tanh approximation), an op TensorFlow itself
does not have, so that smrt runs it only with the custom op library beside
this script.

Needs TensorFlow (run with the peers' venv: .venv-peers/bin/python -P
examples/custom_op/make_model.py); smrt's tests and the example read the
committed model and never run this. It exports y = relu(x) with
TensorFlow 2.21, then renames the op type Relu to Addons>Gelu in
saved_model.pb (the graph and its function library) and gives those nodes
Addons' attr approximate=true: Relu and Gelu have the same signature
(features -> activations, attr T). Prints the numbers the example's ctest
expects, computed with NumPy."""
import pathlib
import shutil

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "model"


class Gelu(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
    def serve(self, x):
        return {"y": tf.nn.relu(x)}


def rename(nodes):
    n = 0
    for node in nodes:
        if node.op == "Relu":
            node.op = "Addons>Gelu"
            node.attr["approximate"].b = True
            n += 1
    return n


def gelu_tanh(x):
    x = x.astype(np.float64)
    return (0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x**3)))).astype(
        np.float32)


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    m = Gelu()
    tf.saved_model.save(m, str(OUT), signatures={"serving_default": m.serve})
    pb = OUT / "saved_model.pb"
    sm = saved_model_pb2.SavedModel.FromString(pb.read_bytes())
    renamed = 0
    for mg in sm.meta_graphs:
        renamed += rename(mg.graph_def.node)
        for f in mg.graph_def.library.function:
            renamed += rename(f.node_def)
    assert renamed > 0, "no Relu node found"
    pb.write_bytes(sm.SerializeToString())
    # The example's input: x[i] = ((i * 7919) % 1009) / 1008 * 6 - 3, shape (2, 4).
    i = np.arange(8)
    x = (((i * 7919) % 1009) / 1008.0 * 6.0 - 3.0).astype(np.float32).reshape(2, 4)
    y = gelu_tanh(x)
    print("renamed", renamed, "nodes; saved_model.pb", pb.stat().st_size, "bytes")
    print("x", " ".join(f"{v:.4f}" for v in x.flat))
    print("y", " ".join(f"{v:.4f}" for v in y.flat))


if __name__ == "__main__":
    main()
