"""TF1 dataflow control flow: v1 cond (Switch/Merge), v1 while_loop (Enter/Exit/NextIteration/
LoopCond) and dynamic_rnn (TensorArrayV3), exported with tf.compat.v1 SavedModelBuilder.

Control flow v2 is disabled while building, so the graphs hold the TF1 ops rather than
If/While functions; check with `smrt show --all`.
"""

import numpy as np

from zoo.common import Case, ZooModel, rng_for


def _save(sess, export_dir, inputs, outputs):
    import tensorflow as tf
    v1 = tf.compat.v1
    builder = v1.saved_model.Builder(export_dir)
    sig = v1.saved_model.signature_def_utils.predict_signature_def(inputs, outputs)
    builder.add_meta_graph_and_variables(
        sess, [v1.saved_model.tag_constants.SERVING],
        signature_def_map={"serving_default": sig}, strip_default_attrs=True)
    builder.save()


def _graph_mode():
    import tensorflow as tf
    v1 = tf.compat.v1
    v1.disable_control_flow_v2()
    return tf, v1


def _build_cond(export_dir):
    tf, v1 = _graph_mode()
    rng = rng_for("tf1_cond")
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        flag = v1.placeholder(tf.bool, [], name="flag")
        w = v1.get_variable("w", initializer=rng.standard_normal((3, 3)).astype(np.float32))
        positive = tf.reduce_sum(x) > 0

        def outer_true():
            # Nested cond; the branches use a variable, a constant (pivot control edge only)
            # and a value from outside.
            return v1.cond(positive, lambda: tf.matmul(x, w),
                           lambda: x * tf.constant(-2.0) + tf.constant(1.0))

        def outer_false():
            return tf.tanh(x) + tf.constant([[1.0, 2.0, 3.0]])

        y = tf.identity(v1.cond(flag, outer_true, outer_false), name="y")
        # A cond whose branches return constants only (dead-token propagation through ^pivot)
        # and one that mixes in a shape-changing branch result.
        k = tf.identity(v1.cond(positive, lambda: tf.constant(7), lambda: tf.constant(-7)), name="k")
        z = tf.identity(v1.cond(flag, lambda: tf.reduce_max(x, axis=1),
                                lambda: tf.reduce_min(x, axis=1) - 1.0), name="z")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            _save(sess, export_dir, {"x": x, "flag": flag}, {"y": y, "k": k, "z": z})
    cases = []
    for f in (True, False):
        for sign in (1.0, -1.0):
            xs = (np.abs(rng.standard_normal((4, 3))) * sign).astype(np.float32)
            name = f"{'t' if f else 'f'}_{'pos' if sign > 0 else 'neg'}"
            cases.append(Case(name, "serving_default", {"x": xs, "flag": np.array(f)}))
    return cases


def _build_while(export_dir):
    tf, v1 = _graph_mode()
    rng = rng_for("tf1_while")
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        n = v1.placeholder(tf.int32, [], name="n")
        w = v1.get_variable("w", initializer=(rng.standard_normal((4, 4)) * 0.5).astype(np.float32))
        scale = tf.constant(0.5)

        def body(i, acc, count):
            # Loop-invariant tensors from outside (x, w, scale), and a nested loop.
            acc = tf.tanh(tf.matmul(acc, w) + x * scale)
            _, inner = v1.while_loop(lambda j, c: j < i, lambda j, c: (j + 1, c + j),
                                     [tf.constant(0), count])
            return i + 1, acc, inner

        _, acc, count = v1.while_loop(lambda i, acc, c: i < n, body,
                                      [tf.constant(0), tf.zeros_like(x), tf.constant(0)])
        acc = tf.identity(acc, name="acc")
        count = tf.identity(count, name="count")
        # A growing loop variable (shape invariant): concatenates a row per iteration.
        _, rows = v1.while_loop(
            lambda i, r: i < n, lambda i, r: (i + 1, tf.concat([r, x[:1] * tf.cast(i, tf.float32)], 0)),
            [tf.constant(0), tf.zeros([0, 4])],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 4])])
        rows = tf.identity(rows, name="rows")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            _save(sess, export_dir, {"x": x, "n": n}, {"acc": acc, "count": count, "rows": rows})
    cases = []
    for steps in (0, 1, 4):
        xs = rng.standard_normal((3, 4)).astype(np.float32)
        cases.append(Case(f"n{steps}", "serving_default",
                          {"x": xs, "n": np.array(steps, dtype=np.int32)}))
    return cases


def _build_dynamic_rnn(export_dir):
    import os
    os.environ["TF_USE_LEGACY_KERAS"] = "1"  # tf.compat.v1.nn.rnn_cell needs Keras 2
    tf, v1 = _graph_mode()
    rng = rng_for("tf1_dynamic_rnn")
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(1)
        x = v1.placeholder(tf.float32, [None, None, 5], name="x")
        lengths = v1.placeholder(tf.int32, [None], name="lengths")
        cell = v1.nn.rnn_cell.LSTMCell(8, initializer=v1.glorot_uniform_initializer(seed=3))
        outputs, state = v1.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
        outputs = tf.identity(outputs, name="outputs")
        c = tf.identity(state.c, name="c")
        h = tf.identity(state.h, name="h")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            _save(sess, export_dir, {"x": x, "lengths": lengths},
                  {"outputs": outputs, "c": c, "h": h})
    cases = []
    for batch, time, lens in ((1, 3, [3]), (4, 6, [6, 1, 4, 0]), (2, 1, [1, 1])):
        xs = rng.standard_normal((batch, time, 5)).astype(np.float32)
        cases.append(Case(f"b{batch}_t{time}", "serving_default",
                          {"x": xs, "lengths": np.array(lens, dtype=np.int32)}))
    return cases


def models():
    return [
        ZooModel("tf1_cond", _build_cond, commit=True, exporter="tf1 SavedModelBuilder",
                 note="v1 cond: nested Switch/Merge, constant-only branches"),
        ZooModel("tf1_while", _build_while, commit=True, exporter="tf1 SavedModelBuilder",
                 note="v1 while_loop: invariants, a nested loop, a growing loop variable"),
        ZooModel("tf1_dynamic_rnn", _build_dynamic_rnn, commit=True,
                 exporter="tf1 SavedModelBuilder",
                 note="dynamic_rnn LSTM: TensorArrayV3, sequence_length, any batch and time"),
    ]
