# Goldens for EncodePng, EncodeJpeg and EncodeJpegVariableQuality (issue 35).
# Run from the repo root:
#   TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/image_encode.py
# Writes tests/data/kernels/image_encode/image_encode.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens): the images img.<name> (uint8 or uint16), and per case <case>:
# <case>.op, <case>.image (the image's name), <case>.attrs ("key=value" joined by ';'; quality
# of EncodeJpegVariableQuality is its second input), the bytes TensorFlow wrote <case>.out
# (a string tensor of the output's shape) and TensorFlow's decoding of them <case>.pixels
# (tf.io.decode_png / decode_jpeg, for a comparison when the bytes differ); or <case>.error,
# TensorFlow's message with its "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/image_encode'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3538)
records = []
KINDS = {np.dtype(np.uint8): 'uint8', np.dtype(np.uint16): 'uint16'}


def save(name, a):
    a = np.asarray(a)
    if a.dtype.kind in 'SUO':
        kind = 'string'
        payload = [s if isinstance(s, bytes) else s.encode() for s in a.reshape(-1).tolist()]
    else:
        kind = KINDS[a.dtype]
        payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
    records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] + payload)


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


def smooth(h, w, c, dtype=np.uint8):
    """A photo-like image: gradients and blobs plus a little noise (JPEG's usual input)."""
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for k in range(c):
        p = 0.5 + 0.3 * np.sin(x / (3 + k) + k) * np.cos(y / (4 + 2 * k)) + 0.05 * rng.standard_normal((h, w))
        planes.append(p)
    top = np.iinfo(dtype).max
    return np.clip(np.stack(planes, -1) * top, 0, top).astype(dtype)


images = {
    'rgb': smooth(19, 23, 3),
    'gray': smooth(16, 16, 1),
    'ga': smooth(7, 9, 2),
    'rgba': smooth(12, 10, 4),
    'noise': rng.integers(0, 256, (9, 17, 3)).astype(np.uint8),
    'rgb16': smooth(6, 7, 3, np.uint16),
    'gray16': smooth(5, 11, 1, np.uint16),
    'batch': np.stack([smooth(4, 6, 3) for _ in range(6)]).reshape(2, 3, 4, 6, 3),
    'empty': np.zeros((0, 5, 3), np.uint8),
    'wide': smooth(1, 40, 3),
    'ch5': np.zeros((3, 3, 5), np.uint8),
    'ch2': np.zeros((3, 3, 2), np.uint8),
    'flat': np.zeros((3, 3), np.uint8),
}
for name, img in images.items():
    save(f'img.{name}', img)

cases = []
for name in ('rgb', 'gray', 'ga', 'rgba', 'noise', 'rgb16', 'gray16', 'batch', 'wide'):
    for comp in (-1, 0, 1, 6, 9):
        cases.append((f'png_{name}_c{comp}'.replace('-', 'm'), 'EncodePng', name,
                      {'compression': comp}))
for name in ('empty', 'ch5', 'flat'):
    cases.append((f'png_{name}', 'EncodePng', name, {}))
cases.append(('png_comp10', 'EncodePng', 'rgb', {'compression': 10}))

jpeg_variants = [
    ('default', {}),
    ('q50', {'quality': 50}), ('q0', {'quality': 0}), ('q100', {'quality': 100}),
    ('q75_444', {'quality': 75, 'chroma_downsampling': False}),
    ('progressive', {'progressive': True}),
    ('optimize', {'optimize_size': True}),
    ('prog_opt_444', {'progressive': True, 'optimize_size': True, 'chroma_downsampling': False}),
    ('cm', {'density_unit': 'cm', 'x_density': 72, 'y_density': 150}),
    ('xmp', {'xmp_metadata': '<x:xmpmeta xmlns:x="adobe:ns:meta/">smrt</x:xmpmeta>'}),
    ('fmt_rgb', {'format': 'rgb'}),
]
for name in ('rgb', 'noise', 'wide'):
    for tag, attrs in jpeg_variants:
        cases.append((f'jpeg_{name}_{tag}', 'EncodeJpeg', name, attrs))
for tag, attrs in [('default', {}), ('q30', {'quality': 30}), ('fmt', {'format': 'grayscale'}),
                   ('progressive', {'progressive': True})]:
    cases.append((f'jpeg_gray_{tag}', 'EncodeJpeg', 'gray', attrs))
for name, attrs in [('empty', {}), ('ch2', {}), ('rgba', {}), ('flat', {}), ('batch', {}),
                    ('rgb', {'format': 'grayscale'}), ('gray', {'format': 'rgb'}),
                    ('rgb', {'quality': 101}), ('rgb', {'quality': -1})]:
    tag = '_'.join(f'{k}{v}' for k, v in attrs.items())
    cases.append((f'jpeg_bad_{name}_{tag}'.replace('-', 'm'), 'EncodeJpeg', name, attrs))
for name, q in [('rgb', 0), ('rgb', 37), ('rgb', 100), ('gray', 88), ('noise', 5),
                ('rgb', 101), ('rgb', -3), ('rgba', 101), ('ch2', 50), ('empty', 50)]:
    cases.append((f'jpegvq_{name}_{q}'.replace('-', 'm'), 'EncodeJpegVariableQuality', name,
                  {'quality': q}))

for case, op, name, attrs in cases:
    img = images[name]
    save(f'{case}.op', op)
    save(f'{case}.image', name)
    save(f'{case}.attrs', ';'.join(f'{k}={int(v) if isinstance(v, bool) else v}'
                                   for k, v in attrs.items()))
    try:
        if op == 'EncodeJpegVariableQuality':
            y = tf.raw_ops.EncodeJpegVariableQuality(images=img, quality=attrs['quality'])
        else:
            # In a tf.function of its own: TensorFlow 2.21's eager kernel cache keys EncodePng
            # by compression only, so a uint16 image after a uint8 one at the same level is
            # written with 8 bits per sample (checked).
            y = getattr(tf.raw_ops, op)(image=img, **attrs)  # TensorFlow's refusals, eagerly
            y = tf.function(lambda x: getattr(tf.raw_ops, op)(image=x, **attrs))(img)
    except (tf.errors.InvalidArgumentError, tf.errors.InternalError) as e:
        save(f'{case}.error', message(e))
        continue
    b = y.numpy()
    save(f'{case}.out', np.array(b, dtype=object))
    flat = np.array(b, dtype=object).reshape(-1)
    if op == 'EncodePng':
        dt = tf.uint16 if img.dtype == np.uint16 else tf.uint8
        px = [tf.io.decode_png(s, dtype=dt).numpy() for s in flat]
    else:
        px = [tf.io.decode_jpeg(s).numpy() for s in flat]
    save(f'{case}.pixels', np.stack(px).reshape(img.shape[:-3] + px[0].shape))

with open(f'{out}/image_encode.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(cases), 'cases,', len(records), 'tensors,', os.path.getsize(f'{out}/image_encode.rec'), 'bytes')
