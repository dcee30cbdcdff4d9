# Goldens for DrawBoundingBoxes and DrawBoundingBoxesV2 (issue 35): tf.image.draw_bounding_boxes.
# Run from the repo root:
#   TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/draw_boxes.py
# Writes tests/data/kernels/draw_boxes/draw_boxes.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens): per case <name>: <name>.images, <name>.boxes, <name>.colors (V2
# only), <name>.out, or <name>.error with TensorFlow's message ("{{function_node ...}} "
# prefix and " [Op:...]" suffix cut). Half images are stored as float32 (exact) with
# <name>.half = "1".
#
# The boxes: inside, partly outside on every side, fully outside, inverted (not drawn),
# degenerate (a point, a line), on pixel edges where float rounding decides the row, NaN; more
# boxes than default colors (the table wraps), 1, 3 and 4 channels.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/draw_boxes'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3540)
f32 = np.float32
records = []


def save(name, a):
    if isinstance(a, str):
        records.append([name.encode(), b'string', b'', a.encode()])
        return
    a = np.asarray(a)
    if a.dtype == np.float16:
        a = a.astype(f32)
    records.append([name.encode(), b'float32', ' '.join(map(str, a.shape)).encode(),
                    a.astype('<f4').tobytes()])


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


boxes = np.array([[[0.1, 0.2, 0.6, 0.7], [-0.2, 0.5, 0.4, 1.3], [0.5, -0.5, 1.5, 0.3],
                   [1.2, 0.1, 1.5, 0.4], [0.8, 0.8, 0.2, 0.9], [0.3, 0.3, 0.3, 0.3],
                   [0.25, 0.0, 0.25, 1.0], [1 / 7, 2 / 9, 5 / 7, 8 / 9], [0, 0, 1, 1],
                   [-1, -1, 2, 2], [0.45, 0.45, 0.55, 0.55], [np.nan, 0.1, 0.5, 0.5]],
                  [[0.0, 0.0, 0.5, 0.5], [0.2, 0.6, 0.9, 0.95], [0.9, 0.9, 1.0, 1.0],
                   [-0.1, -0.1, -0.05, 0.5], [0.3, 0.1, 0.7, 0.4], [0.6, 0.2, 0.65, 0.8],
                   [0.1, 0.1, 0.9, 0.9], [0.0, 0.7, 1.0, 0.7], [0.33, 0.33, 0.66, 0.66],
                   [0.5, 0.5, 0.5, 0.5], [0.05, 0.5, 0.95, 0.55], [0.4, 0.0, 0.6, 1.0]]], f32)
cases = {}
for depth in (1, 3, 4):
    imgs = rng.uniform(0, 1, (2, 8, 10, depth)).astype(f32)
    cases[f'd{depth}'] = ('DrawBoundingBoxes', imgs, boxes, None)
    cases[f'v2_d{depth}'] = ('DrawBoundingBoxesV2', imgs, boxes,
                             rng.uniform(0, 1, (3, 4)).astype(f32))
cases['v2_empty_colors'] = ('DrawBoundingBoxesV2', rng.uniform(0, 1, (2, 8, 10, 3)).astype(f32),
                            boxes, np.zeros((0, 4), f32))
cases['v2_wide_colors'] = ('DrawBoundingBoxesV2', rng.uniform(0, 1, (2, 5, 6, 1)).astype(f32),
                           boxes, rng.uniform(0, 1, (5, 3)).astype(f32))
cases['half'] = ('DrawBoundingBoxes', rng.uniform(0, 1, (2, 6, 7, 3)).astype(np.float16), boxes,
                 None)
cases['one_row'] = ('DrawBoundingBoxes', rng.uniform(0, 1, (1, 1, 5, 3)).astype(f32),
                    boxes[:1, :4], None)
cases['no_boxes'] = ('DrawBoundingBoxes', rng.uniform(0, 1, (2, 3, 3, 3)).astype(f32),
                     np.zeros((2, 0, 4), f32), None)
# Refusals.
cases['bad_rank'] = ('DrawBoundingBoxes', np.zeros((8, 10, 3), f32), boxes, None)
cases['bad_boxes_rank'] = ('DrawBoundingBoxes', np.zeros((2, 8, 10, 3), f32), boxes[0], None)
cases['bad_batch'] = ('DrawBoundingBoxes', np.zeros((3, 8, 10, 3), f32), boxes, None)
cases['bad_depth'] = ('DrawBoundingBoxes', np.zeros((2, 8, 10, 2), f32), boxes, None)
cases['bad_box4'] = ('DrawBoundingBoxes', np.zeros((2, 8, 10, 3), f32), boxes[:, :, :3], None)
cases['bad_colors_rank'] = ('DrawBoundingBoxesV2', np.zeros((2, 8, 10, 3), f32), boxes,
                            np.zeros((4,), f32))
cases['bad_colors_depth'] = ('DrawBoundingBoxesV2', np.zeros((2, 8, 10, 4), f32), boxes,
                             np.zeros((2, 3), f32))

for name, (op, imgs, bx, colors) in cases.items():
    save(f'{name}.images', imgs)
    save(f'{name}.boxes', bx)
    if imgs.dtype == np.float16:
        save(f'{name}.half', '1')
    args = dict(images=imgs, boxes=bx)
    if colors is not None:
        save(f'{name}.colors', colors)
        args['colors'] = colors
    try:
        getattr(tf.raw_ops, op)(**args)  # TensorFlow's refusals, eagerly
        # In a tf.function of its own: TensorFlow 2.21's eager kernel cache can reuse a kernel
        # made for another dtype with the same attrs (seen with EncodePng and the CTC ops).
        save(f'{name}.out', tf.function(lambda a: getattr(tf.raw_ops, op)(**a))(args).numpy())
    except tf.errors.InvalidArgumentError as e:
        save(f'{name}.error', message(e))

with open(f'{out}/draw_boxes.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(cases), 'cases,', os.path.getsize(f'{out}/draw_boxes.rec'), 'bytes')
