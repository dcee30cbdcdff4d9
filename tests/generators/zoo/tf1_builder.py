"""A TF1-style export: tf.compat.v1 SavedModelBuilder with predict and classify signatures."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for


def _build(export_dir):
    import tensorflow as tf
    v1 = tf.compat.v1
    rng = rng_for("tf1_predict_classify")
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        w = v1.get_variable("w", initializer=rng.standard_normal((4, 3)).astype(np.float32))
        b = v1.get_variable("b", initializer=rng.standard_normal((3,)).astype(np.float32))
        logits = tf.matmul(x, w) + b
        probs = tf.nn.softmax(logits, name="probs")
        # classify: serialized tf.Example in, class names and scores out
        serialized = v1.placeholder(tf.string, [None], name="examples")
        feats = v1.parse_example(serialized, {"x": v1.FixedLenFeature([4], tf.float32)})
        scores = tf.nn.softmax(tf.matmul(feats["x"], w) + b)
        classes = tf.tile(tf.constant([[b"cat", b"dog", b"bird"]]), [tf.shape(scores)[0], 1])
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            builder = v1.saved_model.Builder(export_dir)
            sdu = v1.saved_model.signature_def_utils
            predict = sdu.predict_signature_def({"x": x}, {"probs": probs, "logits": logits})
            classify = sdu.classification_signature_def(serialized, classes, scores)
            builder.add_meta_graph_and_variables(
                sess, [v1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": predict, "predict": predict,
                                   "classify": classify},
                strip_default_attrs=True)
            builder.save()
    cases = []
    for bsz in (1, 8):
        xs = rng.standard_normal((bsz, 4)).astype(np.float32)
        cases.append(Case(f"b{bsz}", "serving_default", {"x": xs}))
        examples = []
        for row in xs:
            ex = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=row.tolist()))}))
            examples.append(ex.SerializeToString())
        cases.append(Case(f"classify_b{bsz}", "classify",
                          {"inputs": np.array(examples, dtype=object)}))
    return cases


def models():
    return [ZooModel("tf1_predict_classify", _build, commit=True, exporter="tf1 SavedModelBuilder",
                     note="TF1 ref variables, predict + classify (ParseExample) signatures")]
