# Goldens for the image preprocessing ops that Keras image layers and tf.image put inside a
# graph (issue 35): RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue, AdjustSaturation (written
# to tests/data/kernels/image_adjust/image_adjust.rec) and ResizeArea, ScaleAndTranslate,
# ImageProjectiveTransformV2/V3 (tests/data/kernels/image_adjust/image_transform.rec).
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/image_adjust.py
# Every expected value comes from tf.raw_ops.<Op> on the CPU of TensorFlow 2.21.
#
# The .rec layout of fake_quant.py (read by smrt::testing::RecGoldens). Per case <c>:
#   <c>.op            the op (string)
#   <c>.in0, .in1...  its inputs in order; float16 and bfloat16 tensors are stored as their
#                     uint16 bits, with the string <c>.T naming the real dtype. An input
#                     already stored for an earlier case is the string naming that record.
#   <c>.attr.<name>   its string and bool attrs
#   <c>.y             TensorFlow's output
# and per refused call, the string message.<key>: TensorFlow's message with its
# "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import struct
import numpy as np, tensorflow as tf

out = 'tests/data/kernels/image_adjust'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3535)
f32 = np.float32
KINDS = {np.dtype(f32): 'float32', np.dtype(np.float64): 'float64', np.dtype(np.int64): 'int64',
         np.dtype(np.int32): 'int32', np.dtype(np.uint8): 'uint8', np.dtype(np.uint16): 'uint16',
         np.dtype(bool): 'bool'}


class Rec:
    def __init__(self):
        self.records = []
        self.stored = {}

    def save_input(self, name, a):
        key = (a.dtype.str, a.shape, a.tobytes())
        if key in self.stored:
            self.save(name, self.stored[key])
        else:
            self.stored[key] = name
            self.save(name, a)

    def save(self, name, a):
        a = np.asarray(a)
        if a.dtype.kind in 'SU':
            kind, payload = 'string', [s.encode() for s in a.reshape(-1).tolist()]
        else:
            kind = KINDS[a.dtype]
            payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
        self.records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] +
                            payload)

    def write(self, path):
        with open(path, 'wb') as f:
            for rec in self.records:
                for field in rec:
                    f.write(struct.pack('<I', len(field)) + field)


def bits(t):
    """A tensor as numpy, float16 and bfloat16 as their uint16 bits."""
    if t.dtype in (tf.float16, tf.bfloat16):
        return tf.bitcast(t, tf.uint16).numpy()
    return t.numpy()


def case(rec, name, op, inputs, **attrs):
    y = getattr(tf.raw_ops, op)(**{k: v for k, v in inputs}, **attrs)
    rec.save(f'{name}.op', op)
    for i, (_, v) in enumerate(inputs):
        t = tf.convert_to_tensor(v)
        if t.dtype in (tf.float16, tf.bfloat16):
            rec.save(f'{name}.T', t.dtype.name)
        rec.save_input(f'{name}.in{i}', bits(t))
    for k, v in attrs.items():
        rec.save(f'{name}.attr.{k}', np.asarray(v))
    rec.save(f'{name}.y', bits(y))


def message(fn):
    try:
        fn()
    except (tf.errors.InvalidArgumentError, tf.errors.FailedPreconditionError) as e:
        m = str(e).split('\n')[0]
        m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
        return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)
    raise AssertionError('no error')


def rgb(shape, lo=0.0, hi=1.0):
    """Random colours plus the cases the hue formulas branch on: grays (all equal), black,
    two channels tied for the maximum, and a value below 0 or above 1."""
    x = rng.uniform(lo, hi, shape).astype(f32).reshape(-1, 3)
    special = np.array([[0.5, 0.5, 0.5], [0, 0, 0], [0.8, 0.8, 0.1], [0.2, 0.9, 0.9],
                        [0.7, 0.3, 0.7], [1, 0, 0], [0, 1, 0], [0, 0, 1], [-0.25, 0.5, 0.75],
                        [1.5, 0.25, 0.0]], f32)
    n = min(len(special), len(x) // 2)
    x[rng.permutation(len(x))[:n]] = special[:n]
    return x.reshape(shape)


# ----- colour ops
color = Rec()
for dt, shape in [(tf.float32, (2, 5, 7, 3)), (tf.float32, (6, 3)), (tf.float64, (3, 4, 3)),
                  (tf.float16, (2, 4, 5, 3)), (tf.bfloat16, (2, 4, 5, 3))]:
    tag = f'{dt.name}_{len(shape)}d'
    x = tf.cast(rgb(shape), dt)
    case(color, f'rgb_to_hsv_{tag}', 'RGBToHSV', [('images', x)])
    h = rng.uniform(0, 1, shape[:-1] + (1,))
    h.reshape(-1)[:4] = [0.0, 1.0, -0.2, 1.3]  # the formula takes any hue
    hsv = np.concatenate([h, rng.uniform(0, 1, shape[:-1] + (2,))], -1).astype(f32)
    hsv.reshape(-1, 3)[4] = [0.3, 0.0, 0.6]
    case(color, f'hsv_to_rgb_{tag}', 'HSVToRGB', [('images', tf.cast(hsv, dt))])

for i, (shape, factor) in enumerate([((1, 5, 7, 3), 0.5), ((2, 4, 6, 1), 1.7), ((3, 9, 3), -0.3),
                                     ((2, 2, 3, 4, 2), 2.0), ((1, 1, 1, 3), 0.25),
                                     ((1, 33, 17, 3), 0.6)]):
    x = rng.uniform(0, 255 if i == 1 else 1, shape).astype(f32)
    case(color, f'contrast_{i}', 'AdjustContrastv2',
         [('images', x), ('contrast_factor', f32(factor))])

for i, delta in enumerate([0.2, -0.7, 0.5, 0.0, 1.0]):
    case(color, f'hue_{i}', 'AdjustHue', [('images', rgb((2, 5, 7, 3) if i < 3 else (2, 3, 3))),
                                          ('delta', f32(delta))])
for i, scale in enumerate([0.4, 1.8, 0.0, 1.0]):
    case(color, f'saturation_{i}', 'AdjustSaturation',
         [('images', rgb((2, 5, 7, 3) if i < 2 else (2, 3, 3))), ('scale', f32(scale))])

color_messages = {
    'hsv_channels': lambda: tf.raw_ops.RGBToHSV(images=tf.zeros([2, 4])),
    'hsv_scalar': lambda: tf.raw_ops.HSVToRGB(images=tf.zeros([])),
    'contrast_rank': lambda: tf.raw_ops.AdjustContrastv2(images=tf.zeros([2, 4]),
                                                         contrast_factor=1.0),
    'contrast_factor': lambda: tf.raw_ops.AdjustContrastv2(images=tf.zeros([2, 4, 3]),
                                                           contrast_factor=[1.0]),
    'hue_channels': lambda: tf.raw_ops.AdjustHue(images=tf.zeros([2, 4, 4]), delta=0.1),
    'hue_delta': lambda: tf.raw_ops.AdjustHue(images=tf.zeros([2, 4, 3]), delta=[0.1]),
    'saturation_scale': lambda: tf.raw_ops.AdjustSaturation(images=tf.zeros([2, 4, 3]),
                                                            scale=[0.1]),
}
for key, fn in color_messages.items():
    color.save(f'message.{key}', message(fn))
color.write(f'{out}/image_adjust.rec')

# ----- resampling ops
tr = Rec()
x_f = rng.uniform(0, 1, (2, 7, 9, 3)).astype(f32)
x_1 = rng.uniform(-1, 1, (1, 6, 5, 1)).astype(f32)
x_u8 = rng.integers(0, 256, (1, 6, 5, 1)).astype(np.uint8)
sizes = {'down': [3, 4], 'up': [11, 13], 'mixed': [9, 2], 'one': [1, 1], 'same': [7, 9]}

for name, size in sizes.items():
    for ac in [False, True]:
        case(tr, f'area_{name}_{int(ac)}', 'ResizeArea',
             [('images', x_f), ('size', np.int32(size))], align_corners=ac)
case(tr, 'area_c1', 'ResizeArea', [('images', x_1), ('size', np.int32([4, 3]))])
case(tr, 'area_u8', 'ResizeArea', [('images', x_u8), ('size', np.int32([4, 7]))])
case(tr, 'area_f64', 'ResizeArea', [('images', x_1.astype(np.float64)),
                                    ('size', np.int32([5, 2]))], align_corners=True)

kernels = ['lanczos1', 'lanczos3', 'lanczos5', 'gaussian', 'box', 'triangle', 'keyscubic',
           'mitchellcubic']
for kernel in kernels:
    for antialias in [True, False]:
        for name in ['down', 'up', 'mixed']:
            size = sizes[name]
            # What tf.image.resize gives ScaleAndTranslate: scale out/in, no translation.
            scale = f32([size[0] / 7, size[1] / 9])
            case(tr, f'sat_{kernel}_{int(antialias)}_{name}', 'ScaleAndTranslate',
                 [('images', x_f), ('size', np.int32(size)), ('scale', scale),
                  ('translation', f32([0, 0]))], kernel_type=kernel, antialias=antialias)
for i, (images, size, scale, translation) in enumerate([
        (x_1, [4, 8], [0.7, 1.9], [0.5, -1.25]), (x_u8, [5, 3], [1.0, 0.5], [-2.0, 1.0]),
        (x_1.astype(np.float64), [9, 9], [1.5, 1.8], [0.0, 0.3]), (x_f, [2, 3], [0.2, 0.3],
                                                                   [0.0, 0.0])]):
    for kernel in ['lanczos3', 'keyscubic', 'triangle']:
        case(tr, f'sat_x{i}_{kernel}', 'ScaleAndTranslate',
             [('images', images), ('size', np.int32(size)), ('scale', f32(scale)),
              ('translation', f32(translation))], kernel_type=kernel, antialias=True)


def rotation(angle, h, w, zoom=1.0, dx=0.0, dy=0.0):
    """Keras RandomRotation/RandomZoom/RandomTranslation's transform: output to input."""
    c, s = np.cos(angle) / zoom, np.sin(angle) / zoom
    x_off = ((w - 1) - (c * (w - 1) - s * (h - 1))) / 2 + dx
    y_off = ((h - 1) - (s * (w - 1) + c * (h - 1))) / 2 + dy
    return [c, -s, x_off, s, c, y_off, 0, 0]


x_t = rng.uniform(0, 1, (2, 6, 7, 3)).astype(f32)
transforms = {
    'rot': f32([rotation(0.6, 6, 7), rotation(-2.2, 6, 7, 0.8, 1.5, -0.5)]),
    'one': f32([rotation(1.1, 6, 7, 1.3, -0.75, 2.0)]),
    'proj': f32([[0.9, 0.2, -0.5, -0.1, 1.1, 0.3, 0.02, -0.03],
                 [1.4, -0.3, 5.0, 0.6, 0.7, -9.0, -0.05, 0.04]]),
    'shift': f32([[1, 0, 2.5, 0, 1, -1.5, 0, 0]]),
    'far': f32([[2.0, 0.5, -14.0, -0.5, 2.0, 17.0, 0, 0]]),
}
for interp in ['NEAREST', 'BILINEAR']:
    for mode in ['REFLECT', 'WRAP', 'CONSTANT', 'NEAREST']:
        for tname, t in transforms.items():
            for shape_name, shape in [('same', [6, 7]), ('other', [5, 9])]:
                if tname in ('shift', 'far') and shape_name == 'other':
                    continue
                case(tr, f'ipt3_{interp}_{mode}_{tname}_{shape_name}',
                     'ImageProjectiveTransformV3',
                     [('images', x_t), ('transforms', t), ('output_shape', np.int32(shape)),
                      ('fill_value', f32(0.25))], interpolation=interp, fill_mode=mode)
        case(tr, f'ipt2_{interp}_{mode}', 'ImageProjectiveTransformV2',
             [('images', x_t), ('transforms', transforms['rot']),
              ('output_shape', np.int32([6, 7]))], interpolation=interp, fill_mode=mode)
    # Integers and 16-bit floats: the bilinear blend is truncated into the dtype.
    for dt in [tf.uint8, tf.int32, tf.float16, tf.bfloat16, tf.float64]:
        x = tf.cast(x_t * 200 - (0 if dt == tf.uint8 else 50), dt)
        case(tr, f'ipt3_{interp}_{dt.name}', 'ImageProjectiveTransformV3',
             [('images', x), ('transforms', transforms['proj']), ('output_shape', np.int32([7, 6])),
              ('fill_value', f32(7.6))], interpolation=interp, fill_mode='CONSTANT')
# A 1-pixel-wide image (reflect and wrap fold every coordinate onto it).
for mode in ['REFLECT', 'WRAP']:
    case(tr, f'ipt3_thin_{mode}', 'ImageProjectiveTransformV3',
         [('images', x_t[:, :, :1]), ('transforms', transforms['one']),
          ('output_shape', np.int32([6, 3])), ('fill_value', f32(0))],
         interpolation='BILINEAR', fill_mode=mode)

z = tf.zeros([1, 4, 4, 1])
tr_messages = {
    'area_size': lambda: tf.raw_ops.ResizeArea(images=z, size=[0, 3]),
    'sat_scale': lambda: tf.raw_ops.ScaleAndTranslate(images=z, size=[3, 3], scale=[0.0, 1.0],
                                                      translation=[0.0, 0.0]),
    'sat_kernel': lambda: tf.raw_ops.ScaleAndTranslate(images=z, size=[3, 3], scale=[1.0, 1.0],
                                                       translation=[0.0, 0.0],
                                                       kernel_type='cubic'),
    'ipt_transforms': lambda: tf.raw_ops.ImageProjectiveTransformV3(
        images=z, transforms=tf.zeros([2, 8]), output_shape=[3, 3], fill_value=0.0,
        interpolation='BILINEAR'),
    'ipt_shape': lambda: tf.raw_ops.ImageProjectiveTransformV3(
        images=z, transforms=tf.zeros([1, 8]), output_shape=[0, 3], fill_value=0.0,
        interpolation='NEAREST'),
    'ipt_rank': lambda: tf.raw_ops.ImageProjectiveTransformV3(
        images=tf.zeros([4, 4, 1]), transforms=tf.zeros([1, 8]), output_shape=[3, 3],
        fill_value=0.0, interpolation='NEAREST'),
}
for key, fn in tr_messages.items():
    tr.save(f'message.{key}', message(fn))
tr.write(f'{out}/image_transform.rec')
