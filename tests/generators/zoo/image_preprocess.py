"""A Keras 3 image classifier that does its preprocessing inside the graph, as users export one
(issue 35): tf.image.resize with antialias=True (ScaleAndTranslate) and method="area"
(ResizeArea), adjust_contrast (AdjustContrastv2), adjust_hue and adjust_saturation, an
rgb_to_hsv / hsv_to_rgb round trip that scales the value channel, and the rotation that Keras
RandomRotation applies in training (ImageProjectiveTransformV3, called directly, since the layer
emits nothing at inference), feeding a tiny conv net."""

import numpy as np

from zoo.common import ZooModel, image_cases, seed_everything


def _rotation(angle, h, w):
    """RandomRotation's output-to-input transform for a rotation by `angle` radians."""
    c, s = np.cos(angle), np.sin(angle)
    x_off = ((w - 1) - (c * (w - 1) - s * (h - 1))) / 2
    y_off = ((h - 1) - (s * (w - 1) + c * (h - 1))) / 2
    return [c, -s, x_off, s, c, y_off, 0.0, 0.0]


def _build(export_dir):
    import keras
    import tensorflow as tf

    seed_everything("keras3_image_preprocess")

    class Preprocess(keras.layers.Layer):
        def call(self, x):
            small = tf.image.resize(x, [18, 22], antialias=True)           # ScaleAndTranslate
            cubic = tf.image.resize(x, [18, 22], method="lanczos3")         # ScaleAndTranslate
            area = tf.image.resize(x, [18, 22], method="area")              # ResizeArea
            y = tf.image.adjust_contrast(small, 1.4)
            y = tf.image.adjust_hue(y, 0.08)
            y = tf.image.adjust_saturation(y, 0.7)
            hsv = tf.image.rgb_to_hsv(tf.clip_by_value(y, 0.0, 1.0))
            y = tf.image.hsv_to_rgb(hsv * tf.constant([1.0, 1.0, 0.9]))
            t = tf.constant([_rotation(0.3, 18, 22)], tf.float32)
            y = tf.raw_ops.ImageProjectiveTransformV3(
                images=y, transforms=t, output_shape=[18, 22], fill_value=0.0,
                interpolation="BILINEAR", fill_mode="REFLECT")
            return tf.concat([y, cubic, area], axis=-1)

    inp = keras.Input((24, 30, 3), name="image")
    x = Preprocess()(inp)
    x = keras.layers.Conv2D(6, 3, activation="relu")(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    out = keras.layers.Dense(4, name="logits")(x)
    keras.Model(inp, out).export(export_dir)
    return image_cases("serve", "image", (24, 30), batches=(1, 3),
                       name="keras3_image_preprocess/inputs")


def models():
    return [
        ZooModel("keras3_image_preprocess", _build, commit=True, exporter="keras3 export",
                 note="ScaleAndTranslate, ResizeArea, AdjustContrastv2/Hue/Saturation, "
                      "RGBToHSV, HSVToRGB, ImageProjectiveTransformV3"),
    ]
