"""Mixed-precision models: Keras' mixed_float16 / mixed_bfloat16 policies.

Layers compute in float16 (bfloat16) with float32 variables, so the export carries Cast ops
around every layer and float16 Conv2D, DepthwiseConv2dNative, FusedBatchNormV3 (T=half,
U=float), MatMul, pooling and activations. The heads are float32, as Keras recommends.

TensorFlow's CPU kernels round each op's result to float16, and smrt does the same; inside one
op TF and smrt may accumulate in a different order, so results differ by a few float16 ulps
(2^-11 relative). The bound is stated per model.

tf_keras (Keras 2, what TF 2.4-2.15 users exported) differs from Keras 3 in what stays in float16:
its BatchNormalization is one FusedBatchNormV3 with T=half that the load cannot fold into the
float16 convolution, GlobalAveragePooling2D is a float16 Mean, LayerNormalization is a
FusedBatchNormV3 with is_training=true over a (1, rows, depth, 1) NCHW view, and a softmax
head without dtype="float32" is a float16 Softmax (as in its MultiHeadAttention).
"""

import numpy as np

from zoo.common import Case, ZooModel, calibrate_batchnorm, image_cases, rng_for, seed_everything


def _cnn(keras):
    inp = keras.Input((24, 24, 3), name="image")
    x = keras.layers.Conv2D(8, 3, padding="same", use_bias=False)(inp)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.ReLU()(x)
    x = keras.layers.DepthwiseConv2D(3, strides=2, padding="same")(x)
    x = keras.layers.Activation("swish")(x)
    x = keras.layers.Conv2D(16, 1)(x)
    x = keras.layers.MaxPooling2D(2)(x)
    x = keras.layers.AveragePooling2D(2)(x)
    x = keras.layers.Flatten()(x)
    x = keras.layers.Dense(32, activation="gelu")(x)
    x = keras.layers.LayerNormalization()(x)
    x = keras.layers.Dense(10)(x)
    out = keras.layers.Activation("softmax", dtype="float32", name="probs")(x)
    return keras.Model(inp, out)


def _mlp(keras):
    inp = keras.Input((12,), name="features")
    x = keras.layers.Dense(32, activation="relu")(inp)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Dense(16, activation="tanh")(x)
    out = keras.layers.Dense(3, dtype="float32", name="logits")(x)
    return keras.Model(inp, out)


def _tf_keras_cnn(export_dir):
    import tf_keras
    name = "mixed_f16_tfkeras"
    seed_everything(name)
    tf_keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        layers = tf_keras.layers
        inp = tf_keras.Input((16, 16, 3), name="image")
        x = layers.Conv2D(8, 3, padding="same", use_bias=False)(inp)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        y = layers.Conv2D(8, 3, padding="same")(x)
        y = layers.BatchNormalization()(y)
        x = layers.Add()([x, y])
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D()(x)
        x = layers.GlobalAveragePooling2D()(x)
        x = layers.Dense(32)(x)
        x = layers.LayerNormalization()(x)
        s = layers.Reshape((4, 8))(x)
        s = layers.MultiHeadAttention(2, 4)(s, s)
        s = layers.Flatten()(s)
        out = layers.Dense(10, activation="softmax", name="probs")(s)
        model = tf_keras.Model(inp, out)
        cases = image_cases("serving_default", "image", (16, 16), name=name)
        calibrate_batchnorm(model, cases[-1].inputs["image"], rng_for(name + "/bn"))
        model.save(export_dir, save_format="tf")
    finally:
        tf_keras.mixed_precision.set_global_policy("float32")
    return cases


def _build(name, policy, make, cases):
    def build(export_dir):
        import keras
        seed_everything(name)
        keras.mixed_precision.set_global_policy(policy)
        try:
            model = make(keras)
            result = cases()
            calibrate_batchnorm(model, next(iter(result[-1].inputs.values())),
                                rng_for(name + "/bn"))
            model.export(export_dir)
        finally:
            keras.mixed_precision.set_global_policy("float32")
        return result
    return build


def _mlp_cases():
    rng = rng_for("mixed_bf16_mlp")
    return [Case(f"b{b}", "serving_default",
                 {"features": rng.standard_normal((b, 12)).astype(np.float32)}) for b in (1, 8)]


def models():
    return [
        ZooModel("mixed_f16_cnn",
                 _build("mixed_f16_cnn", "mixed_float16", _cnn,
                        lambda: image_cases("serving_default", "image", (24, 24),
                                            name="mixed_f16_cnn")),
                 commit=True, exporter="keras3 export", tolerance=2e-3,
                 note="mixed_float16: float16 convs/BN/dense with Cast ops; bound 2e-3: float16 "
                      "rounding (ulp 9.8e-4 at 1) differs with accumulation order"),
        ZooModel("mixed_bf16_mlp",
                 _build("mixed_bf16_mlp", "mixed_bfloat16", _mlp, _mlp_cases),
                 commit=True, exporter="keras3 export", tolerance=3e-2,
                 note="mixed_bfloat16: bfloat16 dense/BN; bound 3e-2: bfloat16 has an 8-bit "
                      "mantissa (ulp 7.8e-3 at 1)"),
        ZooModel("mixed_f16_tfkeras", _tf_keras_cnn, commit=True, exporter="tf_keras save",
                 tolerance=2e-3,
                 note="tf_keras mixed_float16: float16 FusedBatchNormV3 (inference, and training "
                      "mode for LayerNormalization), Mean, Softmax; bound 2e-3 as mixed_f16_cnn"),
    ]
