"""Goldens for the random ops: TensorFlow's exact Philox streams.

Writes tests/data/kernels/random/<case>.npy, read by tests/kernels/random_ops_test.cc,
which holds the same case table. Run from the repo root:
  TF_ENABLE_ONEDNN_OPTS=0 /work/main/.venv/bin/python -P tests/generators/kernel_goldens/random.py

Stateful ops run in a TF1 graph: one op node, run `calls` times in one Session,
so the golden holds the successive answers a loaded model gives (stacked on a
new leading axis). Fill ops run on TF's default thread pool (their answers do
not depend on sharding); Multinomial with many rows runs in a child process
with one intra-op thread, the sharding smrt reproduces (TensorFlow sizes its
CPU thread pool once per process, so it cannot be changed per Session).
bfloat16 outputs are stored as their uint16 bits.
"""
import os
import subprocess
import sys

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

ONE_THREAD = sys.argv[1:] == ["one-thread"]

import numpy as np
import tensorflow as tf

if ONE_THREAD:
    tf.config.threading.set_intra_op_parallelism_threads(1)

OUT = "tests/data/kernels/random"
os.makedirs(OUT, exist_ok=True)

DT = {"f32": tf.float32, "f64": tf.float64, "f16": tf.float16, "bf16": tf.bfloat16,
      "i32": tf.int32, "i64": tf.int64, "u32": tf.uint32, "u64": tf.uint64}


def save(name, value):
    value = np.asarray(value)
    if value.dtype.name == "bfloat16":
        value = value.view(np.uint16)
    np.save(f"{OUT}/{name}.npy", value)


def run_stateful(name, build, calls, single_thread=False):
    if single_thread != ONE_THREAD:
        return
    g = tf.Graph()
    with g.as_default():
        op = build()
    config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1 if single_thread else 0)
    with tf.compat.v1.Session(graph=g, config=config) as sess:
        save(name, np.stack([sess.run(op) for _ in range(calls)]))


# Stateful fill ops: (case, op, dtype, shape, seed, seed2, calls).
FILL = [
    ("uniform_f32_7", "RandomUniform", "f32", [7], 1, 2, 3),
    ("uniform_f32_1029", "RandomUniform", "f32", [3, 343], 87654321, 5, 2),
    ("uniform_f64_5", "RandomUniform", "f64", [5], 3, 0, 3),
    ("uniform_f16_9", "RandomUniform", "f16", [9], 0, 7, 2),
    ("uniform_bf16_6", "RandomUniform", "bf16", [2, 3], 11, 12, 2),
    ("normal_f32_11", "RandomStandardNormal", "f32", [11], 1, 2, 3),
    ("normal_f32_1030", "RandomStandardNormal", "f32", [1030], -4, 9, 2),
    ("normal_f64_7", "RandomStandardNormal", "f64", [7], 5, 6, 2),
    ("normal_f16_5", "RandomStandardNormal", "f16", [5], 5, 6, 2),
    ("truncated_f32_13", "TruncatedNormal", "f32", [13], 1, 2, 3),
    ("truncated_f32_601", "TruncatedNormal", "f32", [601], 42, 0, 2),
    ("truncated_f64_7", "TruncatedNormal", "f64", [7], 8, 9, 2),
    ("truncated_f16_6", "TruncatedNormal", "f16", [6], 8, 9, 2),
]
for case, op, dt, shape, seed, seed2, calls in FILL:
    run_stateful(case, lambda: getattr(tf.raw_ops, op)(
        shape=tf.constant(shape, tf.int32), dtype=DT[dt], seed=seed, seed2=seed2), calls)

# RandomUniformInt: (case, dtype, shape, minval, maxval, seed, seed2, calls).
UNIFORM_INT = [
    ("uniform_int_i32_10", "i32", [10], -5, 17, 1, 2, 3),
    ("uniform_int_i32_wide", "i32", [9], -2**31, 2**31 - 1, 3, 4, 2),
    ("uniform_int_i64_7", "i64", [7], -2**40, 2**40 + 3, 5, 6, 3),
]
for case, dt, shape, lo, hi, seed, seed2, calls in UNIFORM_INT:
    run_stateful(case, lambda: tf.raw_ops.RandomUniformInt(
        shape=tf.constant(shape, tf.int64), minval=tf.constant(lo, DT[dt]),
        maxval=tf.constant(hi, DT[dt]), seed=seed, seed2=seed2), calls)

# Multinomial: logits are saved beside the samples.
rng = np.random.default_rng(7)
MULTINOMIAL = [
    # (case, logits dtype, rows, classes, num_samples, output, seed, seed2, calls, single_thread)
    ("multinomial_f32", "f32", 3, 5, 7, "i64", 1, 2, 3, False),
    ("multinomial_f64", "f64", 2, 4, 3, "i32", 3, 4, 2, False),
    ("multinomial_inf", "f32", 2, 6, 5, "i64", 5, 6, 2, False),
    ("multinomial_rows", "f32", 40, 9, 33, "i64", 7, 8, 2, True),
]
for case, dt, rows, classes, ns, out, seed, seed2, calls, single in MULTINOMIAL:
    logits = (rng.standard_normal((rows, classes)) * 2).astype(DT[dt].as_numpy_dtype)
    if case == "multinomial_inf":
        logits[0, 1] = -np.inf
        logits[1, 0] = -np.inf
        logits[1, 4] = np.inf
    save(case + "_logits", logits)
    run_stateful(case, lambda: tf.raw_ops.Multinomial(
        logits=tf.constant(logits), num_samples=tf.constant(ns, tf.int32), seed=seed,
        seed2=seed2, output_dtype=DT[out]), calls, single_thread=single)

if ONE_THREAD:
    sys.exit(0)
subprocess.run([sys.executable, "-P", __file__, "one-thread"], check=True)

# RandomShuffle: the input is arange, so the golden is the permutation.
SHUFFLE = [("shuffle_i32_10", [10], "i32", 1, 2, 3), ("shuffle_f32_6x3", [6, 3], "f32", 3, 4, 2)]
for case, shape, dt, seed, seed2, calls in SHUFFLE:
    value = np.arange(np.prod(shape)).reshape(shape).astype(DT[dt].as_numpy_dtype)
    run_stateful(case, lambda: tf.raw_ops.RandomShuffle(
        value=tf.constant(value), seed=seed, seed2=seed2), calls)

# Stateless V1 ops: (case, op, dtype, shape, seed, seed dtype).
STATELESS = [
    ("sl_uniform_f32_7", "StatelessRandomUniform", "f32", [7], [1, 2], "i32"),
    ("sl_uniform_f32_1029", "StatelessRandomUniform", "f32", [1029], [-7, 99], "i64"),
    ("sl_uniform_f64_5", "StatelessRandomUniform", "f64", [5], [-3, 2**40], "i64"),
    ("sl_uniform_f16_9", "StatelessRandomUniform", "f16", [9], [4, 5], "i32"),
    ("sl_uniform_bf16_6", "StatelessRandomUniform", "bf16", [6], [4, 5], "i32"),
    ("sl_normal_f32_11", "StatelessRandomNormal", "f32", [11], [1, 2], "i32"),
    ("sl_normal_f64_5", "StatelessRandomNormal", "f64", [5], [1, 2], "i64"),
    ("sl_truncated_f32_13", "StatelessTruncatedNormal", "f32", [13], [1, 2], "i32"),
    ("sl_truncated_f64_5", "StatelessTruncatedNormal", "f64", [5], [6, 7], "i64"),
]
for case, op, dt, shape, seed, sdt in STATELESS:
    save(case, getattr(tf.raw_ops, op)(shape=tf.constant(shape, tf.int32),
                                        seed=tf.constant(seed, DT[sdt]), dtype=DT[dt]))

for case, dt, shape, lo, hi, seed in [("sl_uniform_int_i32", "i32", [10], -5, 17, [1, 2]),
                                      ("sl_uniform_int_i64", "i64", [7], -2**40, 3, [3, 4])]:
    save(case, tf.raw_ops.StatelessRandomUniformInt(
        shape=tf.constant(shape, tf.int32), seed=tf.constant(seed, tf.int64),
        minval=tf.constant(lo, DT[dt]), maxval=tf.constant(hi, DT[dt])))

for dt in ["i32", "i64", "u32", "u64"]:
    save(f"sl_full_int_{dt}", tf.raw_ops.StatelessRandomUniformFullInt(
        shape=tf.constant([7], tf.int32), seed=tf.constant([8, 9], tf.int64), dtype=DT[dt]))

logits = rng.standard_normal((3, 5)).astype(np.float32)
save("sl_multinomial_logits", logits)
save("sl_multinomial", tf.raw_ops.StatelessMultinomial(
    logits=logits, num_samples=tf.constant(7, tf.int32), seed=tf.constant([4, 5], tf.int64),
    output_dtype=tf.int64))

# Key, counter and alg from a seed; then the V2 ops on that key/counter and on
# a hand-picked one whose counter words are large.
key, counter = tf.raw_ops.StatelessRandomGetKeyCounter(seed=tf.constant([1, 2], tf.int64))
save("sl_key", key)
save("sl_counter", counter)
k2, c2, alg = tf.raw_ops.StatelessRandomGetKeyCounterAlg(seed=tf.constant([-3, 5], tf.int32))
save("sl_key_alg_key", k2)
save("sl_key_alg_counter", c2)
assert int(alg) == 1 and int(tf.raw_ops.StatelessRandomGetAlg()) == 1

KEYS = {"k": (key, counter),
        "h": (tf.constant([0x123456789ABCDEF], tf.uint64),
              tf.constant([0xFFFFFFFFFFFFFFFE, 2**63 + 5], tf.uint64))}
alg = tf.constant(1, tf.int32)
V2 = [("v2_uniform_f32_k", "StatelessRandomUniformV2", "f32", [7], "k"),
      ("v2_uniform_f32_h", "StatelessRandomUniformV2", "f32", [9], "h"),
      ("v2_uniform_f64_h", "StatelessRandomUniformV2", "f64", [5], "h"),
      ("v2_normal_f32_k", "StatelessRandomNormalV2", "f32", [11], "k"),
      ("v2_normal_f64_h", "StatelessRandomNormalV2", "f64", [5], "h"),
      ("v2_truncated_f32_k", "StatelessTruncatedNormalV2", "f32", [13], "k"),
      ("v2_truncated_f32_h", "StatelessTruncatedNormalV2", "f32", [301], "h")]
for case, op, dt, shape, kc in V2:
    k, c = KEYS[kc]
    save(case, getattr(tf.raw_ops, op)(shape=tf.constant(shape, tf.int32), key=k, counter=c,
                                        alg=alg, dtype=DT[dt]))
for case, dt, lo, hi, kc in [("v2_uniform_int_i32", "i32", -5, 17, "k"),
                             ("v2_uniform_int_i64", "i64", -2**40, 2**40, "h")]:
    k, c = KEYS[kc]
    save(case, tf.raw_ops.StatelessRandomUniformIntV2(
        shape=tf.constant([10], tf.int32), key=k, counter=c, alg=alg,
        minval=tf.constant(lo, DT[dt]), maxval=tf.constant(hi, DT[dt])))
for dt in ["i32", "i64", "u32", "u64"]:
    k, c = KEYS["h"]
    save(f"v2_full_int_{dt}", tf.raw_ops.StatelessRandomUniformFullIntV2(
        shape=tf.constant([7], tf.int32), key=k, counter=c, alg=alg, dtype=DT[dt]))

# What tf.random.stateless_uniform emits today, end to end: the same numbers
# as the V2 op on GetKeyCounter's output.
np.testing.assert_array_equal(
    tf.random.stateless_uniform([7], seed=[1, 2]).numpy(), np.load(f"{OUT}/v2_uniform_f32_k.npy"))

# A TF1 SavedModel with seeded random nodes, as an RL policy exports them:
# loaded afresh (as TF Serving would) and run three times, so the goldens are
# the successive answers of one loaded model. Read by tests/api/random_models_test.cc.
MODEL = f"{OUT}/model"
if os.path.exists(MODEL):
    import shutil
    shutil.rmtree(MODEL)
g = tf.Graph()
with g.as_default():
    shape = tf.compat.v1.placeholder(tf.int32, [None], name="shape")
    logits = tf.compat.v1.placeholder(tf.float32, [None, 4], name="logits")
    outputs = {
        "uniform": tf.raw_ops.RandomUniform(shape=shape, dtype=tf.float32, seed=3, seed2=4),
        "action": tf.raw_ops.RandomUniformInt(shape=shape, minval=tf.constant(0, tf.int64),
                                              maxval=tf.constant(6, tf.int64), seed=5, seed2=6),
        "sample": tf.raw_ops.Multinomial(logits=logits, num_samples=tf.constant(3), seed=7,
                                         seed2=8, output_dtype=tf.int64),
        "noise": tf.random.stateless_normal(tf.shape(logits), seed=[9, 10]),
    }
    with tf.compat.v1.Session(graph=g) as sess:
        builder = tf.compat.v1.saved_model.Builder(MODEL)
        sig = tf.compat.v1.saved_model.predict_signature_def(
            inputs={"shape": shape, "logits": logits}, outputs=outputs)
        builder.add_meta_graph_and_variables(sess, ["serve"], {"serving_default": sig})
        builder.save()
os.rmdir(f"{MODEL}/variables")  # empty: the graph has no variables
feeds = {"shape": np.array([5], np.int32),
         "logits": np.array([[0.1, 1.0, -0.5, 2.0], [3.0, 0.0, 0.0, -1.0]], np.float32)}
for name, value in feeds.items():
    save(f"model_in_{name}", value)
g = tf.Graph()
with tf.compat.v1.Session(graph=g) as sess:
    meta = tf.compat.v1.saved_model.loader.load(sess, ["serve"], MODEL)
    sig = meta.signature_def["serving_default"]
    feed = {sig.inputs[k].name: v for k, v in feeds.items()}
    fetch = {k: v.name for k, v in sig.outputs.items()}
    for call in range(3):
        for k, v in sess.run(fetch, feed).items():
            save(f"model_call{call}_{k}", v)

# The same through TF2: seeded tf.random ops inside a tf.function, saved with
# tf.saved_model.save, loaded and its signature called three times.
MODEL2 = f"{OUT}/model_tf2"
if os.path.exists(MODEL2):
    import shutil
    shutil.rmtree(MODEL2)


class Policy(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32),
                                  tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, shape, logits):
        return {"uniform": tf.random.uniform(shape, seed=5),
                "normal": tf.random.truncated_normal(shape, seed=6),
                "sample": tf.random.categorical(logits, 3, seed=7)}


tf.saved_model.save(Policy(), MODEL2)
serve = tf.saved_model.load(MODEL2).signatures["serving_default"]
for call in range(3):
    for k, v in serve(shape=tf.constant(feeds["shape"]), logits=tf.constant(feeds["logits"])).items():
        save(f"model_tf2_call{call}_{k}", v)

total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(OUT) for f in fs)
print(f"wrote {len(os.listdir(OUT))} files, {total} bytes, to {OUT}")
