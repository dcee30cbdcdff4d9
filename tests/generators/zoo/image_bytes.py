"""An image classifier as TF Serving users export it (issue 35): the signature takes a batch of
encoded images (JPEG or PNG bytes, shape [None] tf.string) and decodes each with
tf.io.decode_image inside tf.map_fn, resizes, normalizes and runs a tiny conv. A second
signature decodes JPEGs only with tf.io.decode_jpeg (INTEGER_ACCURATE) and returns
tf.io.extract_jpeg_shape's sizes too."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything

SIZE = 8


def _images(name, count, jpeg_only=False):
    """Encoded images of different sizes and kinds (JPEG qualities, PNG RGB and RGBA)."""
    import tensorflow as tf
    rng = rng_for(name)
    out = []
    for i in range(count):
        h, w = int(rng.integers(9, 24)), int(rng.integers(9, 24))
        y, x = np.mgrid[0:h, 0:w]
        img = np.stack([x * 11, y * 9, (x + y) * 6], -1) + rng.integers(0, 60, (h, w, 3))
        img = np.clip(img, 0, 255).astype(np.uint8)
        kind = 0 if jpeg_only else i % 3
        if kind == 0:
            out.append(tf.io.encode_jpeg(img, quality=int(rng.integers(60, 95))).numpy())
        elif kind == 1:
            out.append(tf.io.encode_png(img).numpy())
        else:
            alpha = rng.integers(0, 256, (h, w, 1)).astype(np.uint8)
            out.append(tf.io.encode_png(np.concatenate([img, alpha], -1)).numpy())
    return np.array(out, dtype=object)


def _image_bytes_classifier(export_dir):
    import tensorflow as tf

    seed_everything("image_bytes_classifier")
    rng = rng_for("image_bytes_classifier/weights")

    class Classifier(tf.Module):
        def __init__(self):
            super().__init__()
            self.kernel = tf.Variable(rng.standard_normal((3, 3, 3, 4)).astype(np.float32) * 0.3)
            self.bias = tf.Variable(rng.standard_normal(4).astype(np.float32) * 0.1)
            self.mean = tf.constant([0.485, 0.456, 0.406])
            self.std = tf.constant([0.229, 0.224, 0.225])

        def _head(self, images):
            x = (images - self.mean) / self.std
            x = tf.nn.relu(tf.nn.conv2d(x, self.kernel, 1, "SAME") + self.bias)
            return tf.reduce_mean(x, axis=[1, 2])

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="images")])
        def serve(self, images):
            def decode(data):
                img = tf.io.decode_image(data, channels=3, expand_animations=False)
                img = tf.image.convert_image_dtype(img, tf.float32)
                return tf.image.resize(img, [SIZE, SIZE])

            x = tf.map_fn(decode, images, fn_output_signature=tf.TensorSpec([SIZE, SIZE, 3]))
            logits = self._head(x)
            return {"logits": logits, "probabilities": tf.nn.softmax(logits)}

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="jpegs")])
        def jpeg(self, jpegs):
            def decode(data):
                img = tf.io.decode_jpeg(data, channels=3, dct_method="INTEGER_ACCURATE")
                img = tf.image.resize(tf.cast(img, tf.float32) / 255.0, [SIZE, SIZE])
                return img, tf.io.extract_jpeg_shape(data)

            x, shapes = tf.map_fn(decode, jpegs, fn_output_signature=(
                tf.TensorSpec([SIZE, SIZE, 3]), tf.TensorSpec([3], tf.int32)))
            return {"logits": self._head(x), "shapes": shapes}

    m = Classifier()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.serve, "jpeg": m.jpeg})
    cases = []
    for b in (1, 4):
        cases.append(Case(f"b{b}", "serving_default",
                          {"images": _images(f"image_bytes/serving/{b}", b)}))
        cases.append(Case(f"jpeg_b{b}", "jpeg", {"jpegs": _images(f"image_bytes/jpeg/{b}", b, True)}))
    return cases


def models():
    return [
        ZooModel("image_bytes_classifier", _image_bytes_classifier, commit=True,
                 exporter="tf.saved_model.save",
                 note="DecodeImage / DecodeJpeg / ExtractJpegShape in map_fn on [None] tf.string"),
    ]
