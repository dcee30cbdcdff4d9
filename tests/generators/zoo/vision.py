"""Small Keras vision models: U-Net, convolutional autoencoder, MLP with BN and Dropout."""

import numpy as np

from zoo.common import Case, ZooModel, calibrate_batchnorm, image_cases, rng_for, seed_everything


def _unet(keras):
    inp = keras.Input((68, 68, 3), name="image")
    c1 = keras.layers.Conv2D(8, 3, activation="relu")(inp)              # 66
    c1 = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(c1)
    p1 = keras.layers.MaxPooling2D()(c1)                                # 33
    c2 = keras.layers.Conv2D(16, 3, activation="relu")(p1)              # 31
    c2 = keras.layers.BatchNormalization()(c2)
    p2 = keras.layers.MaxPooling2D()(c2)                                # 15
    b = keras.layers.Conv2D(32, 3, activation="relu", padding="same")(p2)
    u2 = keras.layers.Conv2DTranspose(16, 2, strides=2)(b)              # 30
    c2c = keras.layers.Cropping2D(((0, 1), (0, 1)))(c2)                 # 30
    m2 = keras.layers.Concatenate()([u2, c2c])
    d2 = keras.layers.Conv2D(16, 3, activation="relu", padding="same")(m2)
    u1 = keras.layers.UpSampling2D(interpolation="nearest")(d2)        # 60
    u1b = keras.layers.UpSampling2D(interpolation="bilinear")(d2)
    c1c = keras.layers.Cropping2D(3)(c1)                                # 60
    m1 = keras.layers.Concatenate()([u1, u1b, c1c])
    d1 = keras.layers.Conv2D(8, 3, activation="relu", padding="same")(m1)
    out = keras.layers.Conv2D(2, 1, activation="sigmoid", name="mask")(d1)
    return keras.Model(inp, out)


def _autoencoder(keras):
    inp = keras.Input((28, 28, 1), name="image")
    x = keras.layers.Conv2D(16, 3, strides=2, padding="same", activation="relu")(inp)
    x = keras.layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
    x = keras.layers.Flatten()(x)
    code = keras.layers.Dense(16, name="code")(x)
    x = keras.layers.Dense(7 * 7 * 8, activation="relu")(code)
    x = keras.layers.Reshape((7, 7, 8))(x)
    x = keras.layers.Conv2DTranspose(8, 3, strides=2, padding="same", activation="relu")(x)
    x = keras.layers.Conv2DTranspose(16, 3, strides=2, padding="same", activation="relu")(x)
    out = keras.layers.Conv2D(1, 3, padding="same", activation="sigmoid", name="recon")(x)
    return keras.Model(inp, {"recon": out, "code": code})


def _mlp(keras):
    inp = keras.Input((20,), name="features")
    x = keras.layers.Dense(64)(inp)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("relu")(x)
    x = keras.layers.Dropout(0.5)(x)
    x = keras.layers.Dense(32, activation="elu")(x)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Dropout(0.2)(x)
    out = keras.layers.Dense(5, activation="softmax")(x)
    return keras.Model(inp, out)


def _build(name, make, cases):
    def build(export_dir):
        import keras
        seed_everything(name)
        model = make(keras)
        result = cases()
        calibrate_batchnorm(model, next(iter(result[-1].inputs.values())), rng_for(name + "/bn"))
        model.export(export_dir)
        return result
    return build


def _mlp_cases():
    rng = rng_for("mlp")
    return [Case(f"b{b}", "serving_default",
                 {"features": rng.standard_normal((b, 20)).astype(np.float32)}) for b in (1, 8)]


def models():
    return [
        ZooModel("unet_small", _build("unet_small", _unet,
                                      lambda: image_cases("serving_default", "image", (68, 68),
                                                          name="unet")),
                 commit=True, exporter="keras3 export",
                 note="Conv2DTranspose, UpSampling2D (nearest, bilinear), Concatenate, Cropping2D"),
        ZooModel("conv_autoencoder", _build("conv_autoencoder", _autoencoder,
                                            lambda: image_cases("serving_default", "image",
                                                                (28, 28), channels=1, name="ae")),
                 commit=True, exporter="keras3 export", note="strided convs, transposed convs"),
        ZooModel("mlp_bn_dropout", _build("mlp_bn_dropout", _mlp, _mlp_cases), commit=True,
                 exporter="keras3 export", note="Dense + BatchNormalization + Dropout"),
    ]
