#!/usr/bin/env python3
"""Goldens for ParseExample / ParseExampleV2 (tests/kernels/parse_example_ops_test.cc).

Run with /work/main/.venv/bin/python (TensorFlow 2.x). Writes under
tests/data/kernels/parse_example/:
  <case>_serialized.bin   the serialized tf.Example inputs, length-prefixed
                          (4-byte little-endian length, then the bytes, per example)
  <case>_out<k>.npy       expected numeric output k
  <case>_out<k>.bin       expected string output k (flattened, length-prefixed)
  <case>_out<k>_shape.npy its shape (int64)
The op configurations here are repeated in the C++ test; keep them in sync.
"""
import os
import struct

import numpy as np
import tensorflow as tf

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OUT = os.path.join(REPO, "tests", "data", "kernels", "parse_example")
HALF_PLUS_TWO = os.path.join(REPO, "..", "shared", "models", "tf-serving",
                             "saved_model_half_plus_two_cpu", "00000123")

rng = np.random.default_rng(20240611)


def floats(n):
    return [float(v) for v in rng.standard_normal(n).astype(np.float32)]


def ints(n):
    return [int(v) for v in rng.integers(-(1 << 40), 1 << 40, size=n)]


def feature(v):
    if isinstance(v, tf.train.Feature):
        return v
    if v and isinstance(v[0], float):
        return tf.train.Feature(float_list=tf.train.FloatList(value=v))
    if v and isinstance(v[0], bytes):
        return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
    return tf.train.Feature(int64_list=tf.train.Int64List(value=v))


def example(**feats):
    return tf.train.Example(features=tf.train.Features(
        feature={k: feature(v) for k, v in feats.items()})).SerializeToString()


def write_bin(path, strings):
    with open(path, "wb") as f:
        for s in strings:
            f.write(struct.pack("<I", len(s)))
            f.write(s)


def save(case, serialized, outputs):
    write_bin(os.path.join(OUT, f"{case}_serialized.bin"),
              [serialized] if isinstance(serialized, bytes) else serialized)
    for k, t in enumerate(outputs):
        a = t.numpy() if hasattr(t, "numpy") else np.asarray(t)
        if a.dtype == object:
            write_bin(os.path.join(OUT, f"{case}_out{k}.bin"), list(a.reshape(-1)))
            np.save(os.path.join(OUT, f"{case}_out{k}_shape.npy"),
                    np.array(a.shape, dtype=np.int64))
        else:
            np.save(os.path.join(OUT, f"{case}_out{k}.npy"), a)


def flat(result):
    out = []
    for x in result:
        out.extend(x if isinstance(x, list) else [x])
    return out


# Shared feature configuration of the v1_mixed and v2_batch cases.
SPARSE_KEYS = ["s_int", "s_float", "s_str"]
SPARSE_TYPES = [tf.int64, tf.float32, tf.string]
DENSE_KEYS = ["d_float", "d_int", "d_str", "d_req"]
DENSE_SHAPES = [[3], [2, 2], [2], [1]]


def dense_defaults():
    return [tf.constant([0.5, -1.0, 2.0]), tf.constant([[1, 2], [3, 4]], tf.int64),
            tf.constant([b"x", b"y"]), tf.zeros([0], tf.float32)]


def mixed_examples():
    return [
        example(s_int=ints(3), s_float=floats(2), s_str=[b"a", b"bc"], d_float=floats(3),
                d_int=ints(4), d_str=[b"p", b""], d_req=floats(1)),
        example(s_str=tf.train.Feature(bytes_list=tf.train.BytesList()), s_float=floats(1),
                d_int=ints(4), d_req=floats(1)),
        example(s_float=floats(5), s_int=ints(1), d_float=floats(3), d_str=[b"\x00\xff", b"q"],
                d_req=floats(1), other=ints(2)),
        example(d_float=tf.train.Feature(), s_int=ints(2), d_req=floats(1)),
    ]


def case_v1_mixed():
    serialized = mixed_examples()
    r = tf.raw_ops.ParseExample(serialized=serialized, names=[], sparse_keys=SPARSE_KEYS,
                                dense_keys=DENSE_KEYS, dense_defaults=dense_defaults(),
                                sparse_types=SPARSE_TYPES, dense_shapes=DENSE_SHAPES)
    save("v1_mixed", serialized, flat(r))


def case_v2_batch():
    serialized = mixed_examples()[:3]
    serialized[0] = example(s_int=ints(2), d_req=floats(1), r_int=ints(3), r_str=[b"u"])
    serialized[2] = example(d_req=floats(1), r_int=ints(1), r_str=[b"v", b"w", b"xyz"],
                            s_str=[b"only"])
    r = tf.raw_ops.ParseExampleV2(
        serialized=serialized, names=["first", "second", "third"], sparse_keys=SPARSE_KEYS,
        dense_keys=DENSE_KEYS, ragged_keys=["r_int", "r_str"], dense_defaults=dense_defaults(),
        num_sparse=3, sparse_types=SPARSE_TYPES, ragged_value_types=[tf.int64, tf.string],
        ragged_split_types=[tf.int64, tf.int32], dense_shapes=DENSE_SHAPES)
    save("v2_batch", serialized, flat(r))


def case_v2_scalar():
    serialized = example(s_int=ints(4), d_float=floats(3), r_float=floats(3))
    r = tf.raw_ops.ParseExampleV2(
        serialized=serialized, names=[], sparse_keys=["s_int"], dense_keys=["d_float", "d_int"],
        ragged_keys=["r_float"],
        dense_defaults=[tf.zeros([0]), tf.constant([[1, 2], [3, 4]], tf.int64)],
        num_sparse=1, sparse_types=[tf.int64], ragged_value_types=[tf.float32],
        ragged_split_types=[tf.int64], dense_shapes=[[3], [2, 2]])
    save("v2_scalar", serialized, flat(r))


def case_v1_varlen():
    serialized = [
        example(v_float=floats(4), v_str=[b"a"], v_int=ints(3)),
        example(v_int=ints(1)),
        example(v_float=floats(6), v_str=[b"b", b"c", b"d"]),
    ]
    r = tf.raw_ops.ParseExample(
        serialized=serialized, names=[], sparse_keys=[], dense_keys=["v_float", "v_str", "v_int"],
        dense_defaults=[tf.constant(-1.0), tf.constant(b"pad"), tf.constant([7], tf.int64)],
        sparse_types=[], dense_shapes=[tf.TensorShape([None, 2]), tf.TensorShape([None]),
                                       tf.TensorShape([None])])
    save("v1_varlen", serialized, flat(r))


def case_half_plus_two():
    """Runs the real TF Serving half_plus_two graph: its ParseExample node and y."""
    serialized = [example(x=[1.0]), example(x=[2.0], x2=[5.0]), example(x=[-3.5], other=[1])]
    graph = tf.Graph()
    with tf.compat.v1.Session(graph=graph) as sess:
        tf.compat.v1.saved_model.loader.load(sess, ["serve"], HALF_PLUS_TWO)
        node = graph.get_operation_by_name("ParseExample/ParseExample")
        assert node.type == "ParseExample"
        assert node.get_attr("Nsparse") == 0 and node.get_attr("Ndense") == 2
        assert node.get_attr("Tdense") == [tf.float32, tf.float32]
        assert [[d.size for d in s.dim] for s in node.get_attr("dense_shapes")] == [[1], [1]]
        x, x2, y = sess.run(["ParseExample/ParseExample:0", "ParseExample/ParseExample:1",
                             "y:0"], feed_dict={"tf_example:0": serialized})
    save("half_plus_two", serialized, [x, x2, y])


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    case_v1_mixed()
    case_v2_batch()
    case_v2_scalar()
    case_v1_varlen()
    case_half_plus_two()


if __name__ == "__main__":
    main()
