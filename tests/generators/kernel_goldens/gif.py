# Goldens for DecodeGif and GIFs through DecodeImage / DecodePng / DecodeJpeg (issue 35).
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/gif.py
# Writes tests/data/kernels/gif/gif.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens): gif.<name>, the bytes of a GIF written here (a small LZW encoder
# that sends a clear code every 253 pixels, so every code is 9 bits: valid GIF that any decoder
# reads); per case <name>.<op>[.<variant>]: TensorFlow's output, or the same name + ".error"
# with TensorFlow's message ("{{function_node ...}} " prefix and " [Op:...]" suffix cut).
# Variants: DecodeImage.flat (expand_animations=False), DecodeImage.u16 / .f32 (dtype),
# DecodeImage.c1 (channels=1), DecodeImage.c3.
#
# The GIFs: one frame; three full frames with a local palette on the second; frames smaller
# than the screen at offsets (TensorFlow's canvas is the largest frame, not the screen, and
# frames past it are clipped); transparency on the first frame (black) and later ones (the
# previous frame shows); an interlaced frame; and broken files (no palette, an index past the
# palette, truncated, no image, not GIF after the magic).
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import struct
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/gif'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3539)
records = []
KINDS = {np.dtype(np.uint8): 'uint8', np.dtype(np.uint16): 'uint16', np.dtype(np.float32): 'float32'}


def save(name, a):
    if isinstance(a, str):
        a = a.encode()
    if isinstance(a, bytes):
        records.append([name.encode(), b'string', b'', a])
        return
    a = np.asarray(a)
    records.append([name.encode(), KINDS[a.dtype].encode(), ' '.join(map(str, a.shape)).encode(),
                    a.astype(a.dtype.newbyteorder('<')).tobytes()])


def lzw(indices):
    """LZW data with minimum code size 8: a clear code, then literals with a clear code every
    253 of them (so the code size stays 9 bits), then end-of-information."""
    codes = [256]
    for k, v in enumerate(indices):
        if k and k % 253 == 0:
            codes.append(256)
        codes.append(int(v))
    codes.append(257)
    bits, nbits, data = 0, 0, bytearray()
    for c in codes:
        bits |= c << nbits
        nbits += 9
        while nbits >= 8:
            data.append(bits & 0xff)
            bits >>= 8
            nbits -= 8
    if nbits:
        data.append(bits & 0xff)
    blocks = bytearray([8])
    for i in range(0, len(data), 255):
        chunk = data[i:i + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b'\0')


def palette(n):
    return rng.integers(0, 256, (n, 3)).astype(np.uint8)


def table(p):
    """A color table padded to a power of two, and its size field."""
    size = max(2, 1 << (len(p) - 1).bit_length())
    padded = np.zeros((size, 3), np.uint8)
    padded[:len(p)] = p
    return padded.tobytes(), size.bit_length() - 2


def gif(width, height, frames, global_palette=None, trailer=True):
    """frames: dicts with pixels (2-D indices), left, top, optional palette (local),
    transparent (index), interlace."""
    flags = 0
    gct = b''
    if global_palette is not None:
        gct, size = table(global_palette)
        flags = 0x80 | 0x70 | size
    b = b'GIF89a' + struct.pack('<HHBBB', width, height, flags, 0, 0) + gct
    for f in frames:
        if 'transparent' in f:
            b += b'\x21\xf9\x04' + bytes([1]) + struct.pack('<H', 10) + bytes([f['transparent']]) + b'\0'
        px = np.asarray(f['pixels'])
        h, w = px.shape
        local, lflags = b'', 0
        if 'palette' in f:
            local, size = table(f['palette'])
            lflags = 0x80 | size
        rows = px
        if f.get('interlace'):
            lflags |= 0x40
            order = list(range(0, h, 8)) + list(range(4, h, 8)) + list(range(2, h, 4)) + list(range(1, h, 2))
            rows = px[order]
        b += b'\x2c' + struct.pack('<HHHHB', f.get('left', 0), f.get('top', 0), w, h, lflags) + local
        b += lzw(rows.reshape(-1))
    return b + (b'\x3b' if trailer else b'')


P16 = palette(16)
P4 = palette(4)
frames3 = [{'pixels': rng.integers(0, 16, (6, 9))},
           {'pixels': rng.integers(0, 4, (6, 9)), 'palette': P4},
           {'pixels': rng.integers(0, 16, (6, 9))}]
gifs = {
    'single': gif(7, 5, [{'pixels': rng.integers(0, 16, (5, 7))}], P16),
    'three': gif(9, 6, frames3, P16),
    'offsets': gif(10, 10, [{'pixels': rng.integers(0, 16, (4, 4)), 'left': 2, 'top': 2},
                            {'pixels': rng.integers(0, 16, (3, 6)), 'left': 0, 'top': 0},
                            {'pixels': rng.integers(0, 16, (2, 3)), 'left': 4, 'top': 3}], P16),
    'transparent': gif(8, 4, [{'pixels': rng.integers(0, 16, (4, 8)), 'transparent': 3},
                              {'pixels': rng.integers(0, 16, (4, 8)), 'transparent': 5},
                              {'pixels': rng.integers(0, 4, (2, 5)), 'left': 1, 'top': 1,
                               'transparent': 0}], P16),
    'interlaced': gif(5, 11, [{'pixels': rng.integers(0, 16, (11, 5)), 'interlace': True}], P16),
    'big': gif(40, 30, [{'pixels': rng.integers(0, 16, (30, 40))}], P16),
    'no_palette': gif(4, 4, [{'pixels': rng.integers(0, 4, (4, 4))}]),
    'index_past': gif(4, 4, [{'pixels': np.full((4, 4), 9)}], P4),
    'truncated': gif(9, 6, frames3, P16)[:-40],
    'no_trailer': gif(9, 6, frames3, P16, trailer=False),
    'no_image': gif(4, 4, [], P16),
    'garbage': b'GIF89a' + bytes(rng.integers(0, 256, 30).astype(np.uint8)),
}
png = tf.io.encode_png(np.zeros((2, 2, 3), np.uint8)).numpy()


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


variants = [
    ('DecodeGif', lambda b: tf.raw_ops.DecodeGif(contents=b)),
    ('DecodeImage', lambda b: tf.raw_ops.DecodeImage(contents=b, expand_animations=True)),
    ('DecodeImage.flat', lambda b: tf.raw_ops.DecodeImage(contents=b, expand_animations=False)),
    ('DecodeImage.u16', lambda b: tf.raw_ops.DecodeImage(contents=b, dtype=tf.uint16)),
    ('DecodeImage.f32', lambda b: tf.raw_ops.DecodeImage(contents=b, dtype=tf.float32)),
    ('DecodeImage.c1', lambda b: tf.raw_ops.DecodeImage(contents=b, channels=1)),
    ('DecodeImage.c3', lambda b: tf.raw_ops.DecodeImage(contents=b, channels=3)),
    ('DecodePng', lambda b: tf.raw_ops.DecodePng(contents=b)),
    ('DecodeJpeg', lambda b: tf.raw_ops.DecodeJpeg(contents=b)),
]
for name, b in list(gifs.items()) + [('png', png)]:
    save(f'gif.{name}', b)
    for op, fn in variants:
        key = f'{name}.{op}'
        try:
            save(key, fn(b).numpy())
        except (tf.errors.InvalidArgumentError, tf.errors.UnimplementedError) as e:
            save(f'{key}.error', message(e))

with open(f'{out}/gif.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/gif.rec'), 'bytes')
