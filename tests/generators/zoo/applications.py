"""keras.applications with random weights (weights=None, include_top=True).

The classifier outputs logits (classifier_activation=None): a softmax over 1000 classes
hides most errors, logits do not. Every application is exported with Keras 3 `model.export`;
a few also with tf_keras 2 `model.save`, the other exporter people use.
"""

import numpy as np

from zoo.common import ZooModel, calibrate_batchnorm, image_cases, rng_for, seed_everything

# name -> (keras.applications constructor, input size)
APPS = {
    "resnet50": ("ResNet50", 224),
    "resnet50v2": ("ResNet50V2", 224),
    "mobilenetv2": ("MobileNetV2", 224),
    "mobilenetv3small": ("MobileNetV3Small", 224),
    "mobilenetv3large": ("MobileNetV3Large", 224),
    "efficientnetb0": ("EfficientNetB0", 224),
    "efficientnetv2b0": ("EfficientNetV2B0", 224),
    "densenet121": ("DenseNet121", 224),
    "inceptionv3": ("InceptionV3", 299),
    "xception": ("Xception", 299),
    "vgg16": ("VGG16", 224),
    "nasnetmobile": ("NASNetMobile", 224),
    "convnexttiny": ("ConvNeXtTiny", 224),
}
TF_KERAS_TOO = ("resnet50", "mobilenetv2", "efficientnetb0")
# Where 1e-4 * max(1, |tf|) is below TensorFlow's own run-to-run spread: the bound is about 3x
# the largest difference between TensorFlow with its oneDNN rewrites on and off (the goldens
# have them off) on the b8 input, as measured with TF 2.21.
TOLERANCE = {
    "resnet50": (2e-4, "TF oneDNN on vs off differ by 6.0e-5 (50 layers of 0-255-scaled "
                       "residual sums)"),
    "inceptionv3": (2e-4, "TF oneDNN on vs off differ by 5.6e-5; smrt, with BatchNorm folded "
                          "into the conv weights and oneDNN convs, 1.35e-4"),
}


def _calibration_images(name, size, scale):
    return (rng_for(name + "/calibration").random((4, size, size, 3)) * scale).astype(np.float32)


def _keras3(name, ctor, size):
    def build(export_dir):
        import keras
        seed_everything(name)
        kwargs = dict(weights=None, include_top=True, input_shape=(size, size, 3))
        if ctor.startswith("MobileNetV3"):
            kwargs["include_preprocessing"] = True
        model = getattr(keras.applications, ctor)(classifier_activation=None, **kwargs)
        calibrate_batchnorm(model, _calibration_images(name, size, 255.0))
        model.export(export_dir)
        return image_cases("serving_default", "inputs", (size, size), name=name, scale=255.0)
    return build


def _tf_keras(name, ctor, size):
    def build(export_dir):
        import tf_keras
        seed_everything(name)
        model = getattr(tf_keras.applications, ctor)(
            weights=None, include_top=True, input_shape=(size, size, 3),
            classifier_activation=None)
        calibrate_batchnorm(model, _calibration_images(name, size, 255.0))
        model.save(export_dir, save_format="tf")
        return image_cases("serving_default", "input", (size, size), name=name, scale=255.0)
    return build


def models():
    out = []
    for name, (ctor, size) in APPS.items():
        tol, why = TOLERANCE.get(name, (None, ""))
        out.append(ZooModel(name, _keras3(name, ctor, size), exporter="keras3 export",
                            tolerance=tol,
                            note=why or f"keras.applications.{ctor} {size}x{size}"))
    for name in TF_KERAS_TOO:
        ctor, size = APPS[name]
        tol, why = TOLERANCE.get(name, (None, ""))
        out.append(ZooModel(f"{name}_tfkeras", _tf_keras(name, ctor, size),
                            exporter="tf_keras save", tolerance=tol,
                            note=why or f"tf_keras.applications.{ctor} {size}x{size}"))
    # Small enough to commit: MobileNetV2 alpha 0.35 at 96x96.
    def small_mnv2(export_dir):
        import keras
        seed_everything("mobilenetv2_035_96")
        model = keras.applications.MobileNetV2(weights=None, include_top=True, alpha=0.35,
                                               input_shape=(96, 96, 3), classes=10,
                                               classifier_activation=None)
        calibrate_batchnorm(model, _calibration_images("mnv2_035", 96, 1.0))
        model.export(export_dir)
        return image_cases("serving_default", "inputs", (96, 96), name="mnv2_035", scale=1.0)
    out.append(ZooModel("mobilenetv2_035_96", small_mnv2, commit=True, exporter="keras3 export",
                        note="MobileNetV2 alpha 0.35, 96x96, 10 classes"))
    return out
