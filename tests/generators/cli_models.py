"""Writes the small SavedModels the CLI tests run (tests/tools/run_command_test.cc).

.venv-peers/bin/python -P tests/generators/cli_models.py
parse_example: a tf.Module whose serving signature parses serialized
tf.Examples (tf.io.parse_example, ParseExampleV2), as a model exported for
TF Serving's Classify/Regress APIs does; it answers a float and a string
output, so `smrt run --input_examples ... --outdir` writes both kinds.
"""
import os

import tensorflow as tf

OUT = os.path.join(os.path.dirname(__file__), "..", "data", "cli")


class ParseExample(tf.Module):
    FEATURES = {
        "f0": tf.io.FixedLenFeature([2], tf.float32),
        "f1": tf.io.FixedLenFeature([], tf.string),
        "f2": tf.io.FixedLenFeature([1], tf.int64, default_value=[3]),
    }

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
    def serve(self, examples):
        parsed = tf.io.parse_example(examples, self.FEATURES)
        total = tf.reduce_sum(parsed["f0"], axis=1) * tf.cast(parsed["f2"][:, 0], tf.float32)
        return {"total": total, "label": tf.strings.join([parsed["f1"], "!"])}


def main():
    module = ParseExample()
    path = os.path.join(OUT, "parse_example")
    tf.saved_model.save(module, path, signatures={"serving_default": module.serve})


if __name__ == "__main__":
    main()
