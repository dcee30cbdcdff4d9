# Goldens for the detection post-processing ops (issue 35): NonMaxSuppression (V1), V2, V3,
# V4, V5 (soft-NMS), NonMaxSuppressionWithOverlaps, CombinedNonMaxSuppression and CropAndResize.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/detection.py
# Writes tests/data/kernels/detection/detection.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens). Per case <name>: the string <name>.op, the inputs under their
# TensorFlow names and the outputs under theirs (see the case functions below); half inputs
# are stored as float32 (every value exact in half) with the string <name>.T = "half".
# Per refused call, the string message.<key>: TensorFlow's message, with its
# "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
#
# The boxes lie on a coarse grid (so many pairs overlap and many IoUs repeat), their corners
# come in either order, the scores repeat exactly (ties), and the IoU thresholds are the IoU
# of some pair computed in float32 as TensorFlow computes it, and the floats either side of
# it, so one rounding step decides whether a box is suppressed.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/detection'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3535)
f32 = np.float32
records = []

KINDS = {np.dtype(f32): 'float32', np.dtype(np.float64): 'float64', np.dtype(np.int64): 'int64',
         np.dtype(np.int32): 'int32', np.dtype(np.int16): 'int16', np.dtype(np.int8): 'int8',
         np.dtype(np.uint8): 'uint8', np.dtype(np.uint16): 'uint16', np.dtype(bool): 'bool'}


def save(name, a):
    a = np.asarray(a)
    if a.dtype.kind in 'SU':
        kind, payload = 'string', [s.encode() for s in a.reshape(-1).tolist()]
    else:
        if a.dtype == np.float16:
            a = a.astype(f32)
        kind = KINDS[a.dtype]
        payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
    records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] + payload)


shared = {}  # id of an input array -> the first case that stored it


def save_input(case, key, a):
    """Stores input `key` of `case`, or, when the same array was stored by an earlier case,
    <case>.<key>.from naming that case (the goldens would be several times larger otherwise)."""
    a = np.asarray(a)
    k = (key, a.dtype.str, a.shape, a.tobytes())
    if k in shared:
        save(f'{case}.{key}.from', shared[k])
    else:
        shared[k] = case
        save(f'{case}.{key}', a)


def iou(a, b):
    """TensorFlow's IOU (non_max_suppression_op.cc), step by step in float32."""
    a, b = a.astype(f32), b.astype(f32)
    ymin_i, xmin_i = min(a[0], a[2]), min(a[1], a[3])
    ymax_i, xmax_i = max(a[0], a[2]), max(a[1], a[3])
    ymin_j, xmin_j = min(b[0], b[2]), min(b[1], b[3])
    ymax_j, xmax_j = max(b[0], b[2]), max(b[1], b[3])
    area_i = f32((ymax_i - ymin_i) * (xmax_i - xmin_i))
    area_j = f32((ymax_j - ymin_j) * (xmax_j - xmin_j))
    if area_i <= 0 or area_j <= 0:
        return f32(0)
    inter = f32(max(f32(min(ymax_i, ymax_j) - max(ymin_i, ymin_j)), f32(0)) *
                max(f32(min(xmax_i, xmax_j) - max(xmin_i, xmin_j)), f32(0)))
    return f32(inter / f32(f32(area_i + area_j) - inter))


def grid_boxes(n, step=0.125, span=1.0, offset=0.0):
    """n boxes with corners on a grid of `step`, some flipped (y1 > y2 or x1 > x2), a few
    degenerate (zero area), thirds of a step added to some so IoUs are not all simple."""
    cells = int(round(span / step))
    lo = rng.integers(0, cells - 1, (n, 2))
    size = rng.integers(1, max(2, cells // 2), (n, 2))
    hi = np.minimum(lo + size, cells)
    b = np.concatenate([lo, hi], axis=1).astype(f32) * f32(step) + f32(offset)
    b[rng.random(n) < 0.3] += f32(step / 3)
    flip_y = rng.random(n) < 0.3
    b[flip_y] = b[flip_y][:, [2, 1, 0, 3]]
    flip_x = rng.random(n) < 0.3
    b[flip_x] = b[flip_x][:, [0, 3, 2, 1]]
    flat = rng.random(n) < 0.05
    b[flat, 2] = b[flat, 0]
    return b.astype(f32)


def tie_scores(n, levels=6):
    """Scores from a few levels, so many are exactly equal."""
    return rng.choice(np.linspace(0.05, 0.95, levels).astype(f32), n).astype(f32)


def pair_ious(boxes):
    v = sorted({float(iou(boxes[i], boxes[j])) for i in range(len(boxes))
                for j in range(i + 1, len(boxes))} - {0.0})
    return [f32(x) for x in v]


def near_thresholds(boxes, k=3):
    """k IoUs of pairs of `boxes` and the floats either side of each."""
    v = pair_ious(boxes)
    picks = [v[i] for i in rng.choice(len(v), min(k, len(v)), replace=False)]
    outs = []
    for p in picks:
        outs += [p, np.nextafter(p, f32(1)), np.nextafter(p, f32(0))]
    return [f32(min(max(t, f32(0)), f32(1))) for t in outs]


# ----- NMS V1..V5 and WithOverlaps

def nms_case(name, op, boxes, scores, max_out, iou_t, score_t=None, sigma=None, pad=None,
             dtype='float'):
    half = dtype == 'half'
    tdt = tf.float16 if half else tf.float32
    b = tf.constant(boxes, tdt)
    s = tf.constant(scores, tdt)
    m = tf.constant(max_out, tf.int32)
    if half:  # keep the stored inputs exactly what TF saw
        boxes, scores = b.numpy().astype(f32), s.numpy().astype(f32)
    if op == 'NonMaxSuppression':
        r = [tf.raw_ops.NonMaxSuppression(boxes=b, scores=s, max_output_size=m,
                                          iou_threshold=float(iou_t))]
    elif op == 'NonMaxSuppressionV2':
        r = [tf.raw_ops.NonMaxSuppressionV2(boxes=b, scores=s, max_output_size=m,
                                            iou_threshold=tf.constant(iou_t, tdt))]
    elif op == 'NonMaxSuppressionV3':
        r = [tf.raw_ops.NonMaxSuppressionV3(boxes=b, scores=s, max_output_size=m,
                                            iou_threshold=tf.constant(iou_t, tdt),
                                            score_threshold=tf.constant(score_t, tdt))]
    elif op == 'NonMaxSuppressionV4':
        r = tf.raw_ops.NonMaxSuppressionV4(boxes=b, scores=s, max_output_size=m,
                                           iou_threshold=tf.constant(iou_t, tdt),
                                           score_threshold=tf.constant(score_t, tdt),
                                           pad_to_max_output_size=pad)
    elif op == 'NonMaxSuppressionV5':
        r = tf.raw_ops.NonMaxSuppressionV5(boxes=b, scores=s, max_output_size=m,
                                           iou_threshold=tf.constant(iou_t, tdt),
                                           score_threshold=tf.constant(score_t, tdt),
                                           soft_nms_sigma=tf.constant(sigma, tdt),
                                           pad_to_max_output_size=pad)
    else:  # NonMaxSuppressionWithOverlaps: boxes holds the overlaps
        r = [tf.raw_ops.NonMaxSuppressionWithOverlaps(
            overlaps=tf.constant(boxes, tf.float32), scores=s, max_output_size=m,
            overlap_threshold=f32(iou_t), score_threshold=f32(score_t))]
    save(f'{name}.op', op)
    save(f'{name}.T', 'half' if half else 'float')
    save_input(name, 'boxes', boxes)
    save_input(name, 'scores', scores)
    save(f'{name}.max_output_size', np.int32(max_out))
    save(f'{name}.iou_threshold', f32(iou_t))
    if score_t is not None:
        save(f'{name}.score_threshold', f32(score_t))
    if sigma is not None:
        save(f'{name}.soft_nms_sigma', f32(sigma))
    if pad is not None:
        save(f'{name}.pad_to_max_output_size', np.bool_(pad))
    save(f'{name}.selected_indices', r[0].numpy().astype(np.int32))
    if op == 'NonMaxSuppressionV4':
        save(f'{name}.valid_outputs', r[1].numpy().astype(np.int32))
    if op == 'NonMaxSuppressionV5':
        save(f'{name}.selected_scores', r[1].numpy().astype(f32))
        save(f'{name}.valid_outputs', r[2].numpy().astype(np.int32))


n_case = 0


def nm():
    global n_case
    n_case += 1
    return f'nms{n_case:03d}'


for trial in range(4):
    n = int(rng.integers(8, 40))
    boxes = grid_boxes(n)
    scores = tie_scores(n, levels=int(rng.integers(2, 8)))
    for t in near_thresholds(boxes, 2) + [f32(0), f32(1), f32(0.5)]:
        nms_case(nm(), 'NonMaxSuppressionV3', boxes, scores, n, t, f32(-np.inf))
        nms_case(nm(), 'NonMaxSuppressionV2', boxes, scores, n // 2, t)
    # score_threshold at one of the levels (strictly greater survives), max_output_size
    # below and above the count of candidates.
    lv = f32(np.sort(np.unique(scores))[len(np.unique(scores)) // 2])
    for m in (0, 1, 3, n, n + 5):
        t = near_thresholds(boxes, 1)[int(rng.integers(0, 3))]
        nms_case(nm(), 'NonMaxSuppressionV3', boxes, scores, m, t, lv)
        for pad in (False, True):
            nms_case(nm(), 'NonMaxSuppressionV4', boxes, scores, m, t, lv, pad=pad)
    nms_case(nm(), 'NonMaxSuppression', boxes, scores, n, near_thresholds(boxes, 1)[0])
    # Soft-NMS: sigma 0 is hard NMS with scores; sigma > 0 decays scores (Gaussian).
    for sigma in (0.0, 0.1, 0.5, 2.0):
        for t, st in ((f32(0.5), f32(0.0)), (near_thresholds(boxes, 1)[1], f32(0.3)),
                      (f32(1.0), f32(0.05))):
            for pad in (False, True):
                nms_case(nm(), 'NonMaxSuppressionV5', boxes, scores, int(rng.integers(1, n + 4)),
                         t, st, sigma=f32(sigma), pad=pad)

# Continuous scores and boxes (no grid): the ordinary case; and boxes in pixels.
for trial in range(3):
    n = 50
    c = rng.uniform(0, 100, (n, 2)).astype(f32)
    hw = rng.uniform(5, 30, (n, 2)).astype(f32)
    boxes = np.concatenate([c - hw / 2, c + hw / 2], axis=1).astype(f32)
    scores = rng.random(n).astype(f32)
    for t in near_thresholds(boxes, 2):
        nms_case(nm(), 'NonMaxSuppressionV3', boxes, scores, 20, t, f32(0.2))
        nms_case(nm(), 'NonMaxSuppressionV5', boxes, scores, 20, t, f32(0.2), sigma=f32(0.3),
                 pad=True)

# Half: boxes and scores in half (ties after rounding), thresholds in half.
for trial in range(3):
    n = 24
    boxes = grid_boxes(n, step=0.25, span=4.0)
    scores = rng.random(n).astype(np.float16).astype(f32)
    scores[::3] = scores[1::3][:len(scores[::3])] if n % 3 else scores[1::3]
    for t in (0.3, 0.5, 0.7):
        nms_case(nm(), 'NonMaxSuppressionV3', boxes, scores, n, t, 0.1, dtype='half')
        nms_case(nm(), 'NonMaxSuppressionV4', boxes, scores, 5, t, 0.1, pad=True, dtype='half')
        nms_case(nm(), 'NonMaxSuppressionV2', boxes, scores, n, t, dtype='half')
        for sigma in (0.0, 0.5):
            nms_case(nm(), 'NonMaxSuppressionV5', boxes, scores, 10, t, 0.1, sigma=sigma,
                     pad=False, dtype='half')

# WithOverlaps: an arbitrary (not symmetric) overlap matrix with ties.
for trial in range(3):
    n = 16
    ov = rng.choice(np.linspace(0, 1, 9).astype(f32), (n, n)).astype(f32)
    scores = tie_scores(n, 4)
    for t, st in ((0.5, -1.0), (0.625, 0.3), (0.0, 0.0), (1.0, 0.5)):
        nms_case(nm(), 'NonMaxSuppressionWithOverlaps', ov, scores, 10, t, st)

# Empty input.
nms_case(nm(), 'NonMaxSuppressionV4', np.zeros((0, 4), f32), np.zeros((0,), f32), 3, 0.5, 0.0,
         pad=True)
nms_case(nm(), 'NonMaxSuppressionV5', np.zeros((0, 4), f32), np.zeros((0,), f32), 3, 0.5, 0.0,
         sigma=0.5, pad=False)


# ----- CombinedNonMaxSuppression

def combined_case(name, boxes, scores, per_class, total, iou_t, score_t, pad_per_class,
                  clip_boxes):
    r = tf.raw_ops.CombinedNonMaxSuppression(
        boxes=boxes, scores=scores, max_output_size_per_class=np.int32(per_class),
        max_total_size=np.int32(total), iou_threshold=f32(iou_t), score_threshold=f32(score_t),
        pad_per_class=pad_per_class, clip_boxes=clip_boxes)
    save(f'{name}.op', 'CombinedNonMaxSuppression')
    save_input(name, 'boxes', boxes)
    save_input(name, 'scores', scores)
    save(f'{name}.max_output_size_per_class', np.int32(per_class))
    save(f'{name}.max_total_size', np.int32(total))
    save(f'{name}.iou_threshold', f32(iou_t))
    save(f'{name}.score_threshold', f32(score_t))
    save(f'{name}.pad_per_class', np.bool_(pad_per_class))
    save(f'{name}.clip_boxes', np.bool_(clip_boxes))
    for k, v in zip(('nmsed_boxes', 'nmsed_scores', 'nmsed_classes', 'valid_detections'), r):
        save(f'{name}.{k}', v.numpy())


c_case = 0
for trial in range(6):
    batch = int(rng.integers(1, 4))
    n = int(rng.integers(6, 20))
    classes = int(rng.integers(1, 5))
    q = 1 if trial % 2 == 0 else classes
    # Boxes partly outside [0, 1] so clipping shows.
    boxes = np.stack([np.stack([grid_boxes(n, step=0.125, span=1.5, offset=-0.25)
                                for _ in range(q)], axis=1) for _ in range(batch)]).astype(f32)
    scores = np.stack([tie_scores(n * classes, int(rng.integers(3, 8))).reshape(n, classes)
                       for _ in range(batch)]).astype(f32)
    t = near_thresholds(boxes[0, :, 0], 1)[int(rng.integers(0, 3))]
    for per_class, total in ((3, 5), (n, 2 * n), (2, 40), (1, 1)):
        for pad_per_class in (False, True):
            for clip in (True, False):
                c_case += 1
                st = [0.0, 0.3, -1.0][c_case % 3]
                combined_case(f'comb{c_case:03d}', boxes, scores, per_class, total, t, st,
                              pad_per_class, clip)


# ----- CropAndResize

def crop_case(name, image, boxes, box_ind, crop_size, method, extrapolation, dtype):
    tfd = {'half': tf.float16}.get(dtype, tf.as_dtype(dtype))
    img = tf.constant(image, tfd)
    r = tf.raw_ops.CropAndResize(image=img, boxes=boxes, box_ind=np.asarray(box_ind, np.int32),
                                 crop_size=np.asarray(crop_size, np.int32), method=method,
                                 extrapolation_value=float(extrapolation))
    save(f'{name}.op', 'CropAndResize')
    save(f'{name}.T', dtype)
    save_input(name, 'image', img.numpy())
    save_input(name, 'boxes', boxes)
    save_input(name, 'box_ind', np.asarray(box_ind, np.int32))
    save(f'{name}.crop_size', np.asarray(crop_size, np.int32))
    save(f'{name}.method', method)
    save(f'{name}.extrapolation_value', f32(extrapolation))
    save(f'{name}.crops', r.numpy())


def crop_boxes(n):
    """Boxes partly outside the image, flipped ones (y1 > y2, x1 > x2), thin ones, and edges
    that land exactly on 0 and 1 (the in/out-of-range test there)."""
    b = rng.uniform(-0.3, 1.3, (n, 4)).astype(f32)
    b[0] = [0, 0, 1, 1]
    b[1] = [1, 1, 0, 0]
    b[2] = [0.25, 0.75, 0.75, 0.25]
    b[3] = [-0.5, -0.5, 1.5, 1.5]
    b[4] = [0.5, 0.5, 0.5, 0.5]
    b[5] = [0.1, 0.2, 0.1, 0.9]
    return b


k_case = 0
for dtype in ('float32', 'uint8', 'int8', 'int16', 'uint16', 'int32', 'int64', 'half',
              'float64'):
    batch, h, w, ch = 2, int(rng.integers(2, 9)), int(rng.integers(2, 9)), int(rng.integers(1, 4))
    if dtype in ('float32', 'float64', 'half'):
        image = rng.standard_normal((batch, h, w, ch)) * 10
    else:
        info = np.iinfo(dtype)
        image = rng.integers(max(info.min, -1000), min(info.max, 1000), (batch, h, w, ch))
    image = image.astype(np.float16 if dtype == 'half' else dtype)
    n = 10
    boxes = crop_boxes(n)
    box_ind = rng.integers(0, batch, n)
    sizes = ((3, 4), (1, 1), (1, 5), (6, 1), (h + 2, w - 1))
    for crop_size in sizes if dtype == 'float32' else sizes[1:4]:
        for method in ('bilinear', 'nearest'):
            k_case += 1
            crop_case(f'crop{k_case:03d}', image, boxes, box_ind, crop_size, method,
                      [0.0, -1.5, 7.0][k_case % 3], dtype)

# Empty boxes.
k_case += 1
crop_case(f'crop{k_case:03d}', rng.random((1, 3, 3, 2)).astype(f32), np.zeros((0, 4), f32),
          np.zeros((0,), np.int32), (2, 2), 'bilinear', 0.0, 'float32')


# ----- Refused calls

def message(f):
    try:
        f()
    except (tf.errors.InvalidArgumentError, tf.errors.OutOfRangeError) as e:
        m = str(e).split('\n')[0]
        m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
        return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)
    raise AssertionError('no error')


B = np.zeros((3, 4), f32)
S = np.zeros((3,), f32)
V3 = tf.raw_ops.NonMaxSuppressionV3
V4 = tf.raw_ops.NonMaxSuppressionV4
V5 = tf.raw_ops.NonMaxSuppressionV5
C = tf.raw_ops.CombinedNonMaxSuppression
CR = tf.raw_ops.CropAndResize
messages = {
    'v3_boxes_rank': lambda: V3(boxes=np.zeros((3, 4, 1), f32), scores=S, max_output_size=2,
                                iou_threshold=0.5, score_threshold=0.0),
    'v3_boxes_cols': lambda: V3(boxes=np.zeros((3, 5), f32), scores=S, max_output_size=2,
                                iou_threshold=0.5, score_threshold=0.0),
    'v3_scores_rank': lambda: V3(boxes=B, scores=np.zeros((3, 1), f32), max_output_size=2,
                                 iou_threshold=0.5, score_threshold=0.0),
    'v3_scores_size': lambda: V3(boxes=B, scores=np.zeros((4,), f32), max_output_size=2,
                                 iou_threshold=0.5, score_threshold=0.0),
    'v3_iou_range': lambda: V3(boxes=B, scores=S, max_output_size=2, iou_threshold=1.5,
                               score_threshold=0.0),
    'v3_iou_negative': lambda: V3(boxes=B, scores=S, max_output_size=2, iou_threshold=-0.1,
                                  score_threshold=0.0),
    'v3_max_rank': lambda: V3(boxes=B, scores=S, max_output_size=[2], iou_threshold=0.5,
                              score_threshold=0.0),
    'v3_max_negative': lambda: V3(boxes=B, scores=S, max_output_size=-1, iou_threshold=0.5,
                                  score_threshold=0.0),
    'v3_iou_rank': lambda: V3(boxes=B, scores=S, max_output_size=2, iou_threshold=[0.5],
                              score_threshold=0.0),
    'v4_score_rank': lambda: V4(boxes=B, scores=S, max_output_size=2, iou_threshold=0.5,
                                score_threshold=[0.0]),
    'v5_sigma_negative': lambda: V5(boxes=B, scores=S, max_output_size=2, iou_threshold=0.5,
                                    score_threshold=0.0, soft_nms_sigma=-1.0),
    'v5_sigma_rank': lambda: V5(boxes=B, scores=S, max_output_size=2, iou_threshold=0.5,
                                score_threshold=0.0, soft_nms_sigma=[1.0]),
    'overlaps_square': lambda: tf.raw_ops.NonMaxSuppressionWithOverlaps(
        overlaps=np.zeros((3, 4), f32), scores=S, max_output_size=2, overlap_threshold=0.5,
        score_threshold=0.0),
    'comb_boxes_rank': lambda: C(boxes=np.zeros((1, 3, 4), f32), scores=np.zeros((1, 3, 2), f32),
                                 max_output_size_per_class=2, max_total_size=4,
                                 iou_threshold=0.5, score_threshold=0.0),
    # scores of rank 2 aborts TensorFlow 2.21's process (a CHECK in TensorShape::dim_size).
    'comb_q': lambda: C(boxes=np.zeros((1, 3, 2, 4), f32), scores=np.zeros((1, 3, 3), f32),
                        max_output_size_per_class=2, max_total_size=4, iou_threshold=0.5,
                        score_threshold=0.0),
    'comb_cols': lambda: C(boxes=np.zeros((1, 3, 1, 5), f32), scores=np.zeros((1, 3, 3), f32),
                           max_output_size_per_class=2, max_total_size=4, iou_threshold=0.5,
                           score_threshold=0.0),
    'comb_anchors': lambda: C(boxes=np.zeros((1, 3, 1, 4), f32), scores=np.zeros((1, 4, 3), f32),
                              max_output_size_per_class=2, max_total_size=4, iou_threshold=0.5,
                              score_threshold=0.0),
    'comb_batch': lambda: C(boxes=np.zeros((2, 3, 1, 4), f32), scores=np.zeros((1, 3, 3), f32),
                            max_output_size_per_class=2, max_total_size=4, iou_threshold=0.5,
                            score_threshold=0.0),
    'comb_per_class': lambda: C(boxes=np.zeros((1, 3, 1, 4), f32),
                                scores=np.zeros((1, 3, 3), f32), max_output_size_per_class=0,
                                max_total_size=4, iou_threshold=0.5, score_threshold=0.0),
    'comb_total': lambda: C(boxes=np.zeros((1, 3, 1, 4), f32), scores=np.zeros((1, 3, 3), f32),
                            max_output_size_per_class=2, max_total_size=0, iou_threshold=0.5,
                            score_threshold=0.0),
    'comb_iou': lambda: C(boxes=np.zeros((1, 3, 1, 4), f32), scores=np.zeros((1, 3, 3), f32),
                          max_output_size_per_class=2, max_total_size=4, iou_threshold=1.5,
                          score_threshold=0.0),
    'crop_image_rank': lambda: CR(image=np.zeros((2, 2, 1), f32), boxes=np.zeros((1, 4), f32),
                                  box_ind=[0], crop_size=[2, 2]),
    'crop_image_empty': lambda: CR(image=np.zeros((1, 0, 2, 1), f32),
                                   boxes=np.zeros((1, 4), f32), box_ind=[0], crop_size=[2, 2]),
    'crop_boxes_rank': lambda: CR(image=np.zeros((1, 2, 2, 1), f32), boxes=np.zeros((4,), f32),
                                  box_ind=[0], crop_size=[2, 2]),
    'crop_boxes_cols': lambda: CR(image=np.zeros((1, 2, 2, 1), f32), boxes=np.zeros((1, 3), f32),
                                  box_ind=[0], crop_size=[2, 2]),
    'crop_ind_rank': lambda: CR(image=np.zeros((1, 2, 2, 1), f32), boxes=np.zeros((1, 4), f32),
                                box_ind=[[0]], crop_size=[2, 2]),
    'crop_ind_size': lambda: CR(image=np.zeros((1, 2, 2, 1), f32), boxes=np.zeros((1, 4), f32),
                                box_ind=[0, 0], crop_size=[2, 2]),
    'crop_size_rank': lambda: CR(image=np.zeros((1, 2, 2, 1), f32), boxes=np.zeros((1, 4), f32),
                                 box_ind=[0], crop_size=[[2, 2]]),
    'crop_size_len': lambda: CR(image=np.zeros((1, 2, 2, 1), f32), boxes=np.zeros((1, 4), f32),
                                box_ind=[0], crop_size=[2, 2, 2]),
    'crop_size_positive': lambda: CR(image=np.zeros((1, 2, 2, 1), f32),
                                     boxes=np.zeros((1, 4), f32), box_ind=[0], crop_size=[0, 2]),
    'crop_ind_range': lambda: CR(image=np.zeros((1, 2, 2, 1), f32), boxes=np.zeros((1, 4), f32),
                                 box_ind=[1], crop_size=[2, 2]),
    'crop_not_finite': lambda: CR(image=np.zeros((1, 2, 2, 1), f32),
                                  boxes=np.array([[0, 0, np.nan, 1]], f32), box_ind=[0],
                                  crop_size=[2, 2]),
}
for key, fn in messages.items():
    save(f'message.{key}', message(fn))

with open(f'{out}/detection.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/detection.rec'), 'bytes')
