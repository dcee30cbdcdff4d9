"""A small detection head as a user would export it (issue 35): a tf.Module with a strided conv
on the image, 1x1 convs for box deltas and class scores over 2 anchors per cell, anchor box
decoding, then three signatures:
  - "detect": tf.image.combined_non_max_suppression over the batch (CombinedNonMaxSuppression);
  - "detect_single": one image, tf.image.non_max_suppression_with_scores (NonMaxSuppressionV5,
    soft-NMS), tf.image.non_max_suppression (V3) + tf.gather of the kept boxes and classes, and
    tf.image.non_max_suppression_padded (TensorFlow 2 builds it from ordinary ops in a loop);
  - "roi_features": Mask R-CNN style RoI crops of the feature map, tf.image.crop_and_resize of
    given proposals (boxes partly outside the image too), both methods.

smrt's convolutions sum in another order than TensorFlow's, so its boxes and scores differ from
TensorFlow's in the last bits. Which boxes NMS keeps is a discrete decision: a score within a few
ulps of another or of the score threshold, or an IoU within a few ulps of the IoU threshold, could
go the other way. The inputs are therefore chosen (by seed) so that TensorFlow's own decisions do
not change when the image is perturbed by a relative 1e-4 (about 1000 times the difference the
summation order makes): every selected index and count is the same under 4 perturbations, so no
decision is near a tie. The RoI proposals are inputs (not computed), so the crop grid is the same
float arithmetic in both and only the feature values differ.
"""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything

H = W = 16
ANCHORS = 2
CLASSES = 3
FEATURES = 8


def _anchors():
    """[8 * 8 * 2, 4] anchors (ymin, xmin, ymax, xmax) in [0, 1]: two sizes per cell."""
    cells = H // 2
    out = []
    for i in range(cells):
        for j in range(cells):
            cy, cx = (i + 0.5) / cells, (j + 0.5) / cells
            for size in (0.2, 0.35):
                out.append([cy - size / 2, cx - size / 2, cy + size / 2, cx + size / 2])
    return np.asarray(out, np.float32)


def _detection_module(export_dir):
    import tensorflow as tf

    seed_everything("detection_head")
    rng = rng_for("detection_head/weights")

    class DetectionHead(tf.Module):
        def __init__(self):
            super().__init__()
            f32 = np.float32
            self.conv = tf.Variable(rng.normal(0, 0.4, (3, 3, 3, FEATURES)).astype(f32))
            self.conv_b = tf.Variable(rng.normal(0, 0.1, (FEATURES,)).astype(f32))
            self.box = tf.Variable(rng.normal(0, 0.3, (1, 1, FEATURES, ANCHORS * 4)).astype(f32))
            self.cls = tf.Variable(rng.normal(0, 0.5, (1, 1, FEATURES, ANCHORS * CLASSES))
                                   .astype(f32))
            self.cls_b = tf.Variable(np.full((ANCHORS * CLASSES,), -2.0, f32))
            self.anchors = tf.constant(_anchors())

        def features(self, images):
            x = tf.nn.conv2d(images, self.conv, strides=2, padding="SAME") + self.conv_b
            return tf.nn.relu(x)

        def head(self, images):
            """Decoded boxes [b, n, 4] and class scores [b, n, classes]."""
            f = self.features(images)
            b = tf.shape(images)[0]
            deltas = tf.reshape(tf.nn.conv2d(f, self.box, 1, "VALID"), [b, -1, 4])
            logits = tf.reshape(tf.nn.conv2d(f, self.cls, 1, "VALID") + self.cls_b,
                                [b, -1, CLASSES])
            a = self.anchors
            a_hw = a[:, 2:] - a[:, :2]
            a_c = a[:, :2] + 0.5 * a_hw
            d = deltas * [0.1, 0.1, 0.2, 0.2]
            centres = d[..., :2] * a_hw + a_c
            half = 0.5 * tf.exp(d[..., 2:]) * a_hw
            boxes = tf.concat([centres - half, centres + half], axis=-1)
            return boxes, tf.sigmoid(logits)

        @tf.function(input_signature=[tf.TensorSpec([None, H, W, 3], tf.float32, name="images")])
        def detect(self, images):
            boxes, scores = self.head(images)
            nmsed = tf.image.combined_non_max_suppression(
                boxes[:, :, tf.newaxis, :], scores, max_output_size_per_class=6,
                max_total_size=10, iou_threshold=0.5, score_threshold=0.55, clip_boxes=True)
            return {"boxes": nmsed.nmsed_boxes, "scores": nmsed.nmsed_scores,
                    "classes": nmsed.nmsed_classes, "num_detections": nmsed.valid_detections}

        @tf.function(input_signature=[tf.TensorSpec([1, H, W, 3], tf.float32, name="image")])
        def detect_single(self, image):
            boxes, scores = self.head(image)
            boxes, scores = boxes[0], scores[0]
            best = tf.reduce_max(scores, axis=-1)
            cls = tf.argmax(scores, axis=-1, output_type=tf.int32)
            soft_idx, soft_scores = tf.image.non_max_suppression_with_scores(
                boxes, best, max_output_size=8, iou_threshold=0.6, score_threshold=0.25,
                soft_nms_sigma=0.5)
            hard_idx = tf.image.non_max_suppression(boxes, best, max_output_size=8,
                                                    iou_threshold=0.4, score_threshold=0.56)
            padded_idx, num_valid = tf.image.non_max_suppression_padded(
                boxes, best, max_output_size=8, iou_threshold=0.5, score_threshold=0.52,
                pad_to_max_output_size=True)
            return {"soft_indices": soft_idx, "soft_scores": soft_scores,
                    "soft_boxes": tf.gather(boxes, soft_idx),
                    "hard_indices": hard_idx, "hard_boxes": tf.gather(boxes, hard_idx),
                    "hard_classes": tf.gather(cls, hard_idx),
                    "padded_indices": padded_idx, "padded_valid": num_valid}

        @tf.function(input_signature=[tf.TensorSpec([None, H, W, 3], tf.float32, name="images"),
                                      tf.TensorSpec([None, 4], tf.float32, name="rois"),
                                      tf.TensorSpec([None], tf.int32, name="roi_batch")])
        def roi_features(self, images, rois, roi_batch):
            f = self.features(images)
            return {"bilinear": tf.image.crop_and_resize(f, rois, roi_batch, [4, 4]),
                    "nearest": tf.image.crop_and_resize(f, rois, roi_batch, [3, 2],
                                                        method="nearest",
                                                        extrapolation_value=-1.0),
                    "centre": tf.image.crop_and_resize(f, rois, roi_batch, [1, 1])}

    m = DetectionHead()
    tf.saved_model.save(m, export_dir, signatures={
        "serving_default": m.detect, "detect_single": m.detect_single,
        "roi_features": m.roi_features})

    def stable(fn, x):
        """TensorFlow's integer outputs of fn(x) do not change when x moves by 1e-4 (relative)."""
        want = [v.numpy() for v in fn(tf.constant(x)).values() if v.dtype.is_integer]
        prng = np.random.default_rng(1)
        for _ in range(4):
            y = (x * (1 + 1e-4 * prng.standard_normal(x.shape))).astype(np.float32)
            got = [v.numpy() for v in fn(tf.constant(y)).values() if v.dtype.is_integer]
            if any(a.shape != b.shape or (a != b).any() for a, b in zip(want, got)):
                return False
        return True

    irng = rng_for("detection_head/inputs")

    def images(b, fn):
        for _ in range(200):
            x = irng.random((b, H, W, 3)).astype(np.float32)
            if stable(fn, x):
                return x
        raise RuntimeError("no input without a near-tie in 200 tries")

    cases = [Case(f"b{b}", "serving_default", {"images": images(b, m.detect)}) for b in (1, 3)]
    cases += [Case(f"single{k}", "detect_single", {"image": images(1, m.detect_single)})
              for k in range(2)]
    rois = np.array([[0.1, 0.1, 0.6, 0.5], [0.5, 0.2, 0.9, 0.95], [-0.2, -0.1, 0.4, 0.3],
                     [0.8, 0.7, 1.3, 1.2], [0.7, 0.6, 0.2, 0.1], [0.0, 0.0, 1.0, 1.0],
                     [0.33, 0.25, 0.33, 0.75]], np.float32)
    cases.append(Case("rois", "roi_features", {
        "images": irng.random((2, H, W, 3)).astype(np.float32), "rois": rois,
        "roi_batch": np.array([0, 1, 0, 1, 1, 0, 1], np.int32)}))
    return cases


def models():
    return [
        ZooModel("detection_head", _detection_module, commit=True, exporter="tf.saved_model.save",
                 note="CombinedNonMaxSuppression, NonMaxSuppressionV5 (soft-NMS), "
                      "NonMaxSuppressionV3 + GatherV2, non_max_suppression_padded (a While loop), "
                      "CropAndResize (bilinear, nearest, 1x1)"),
    ]
