# Goldens for DecodeJpeg, DecodePng, DecodeImage, DecodeAndCropJpeg and ExtractJpegShape (issue 35).
# Run from the repo root: .venv-peers/bin/python -P tests/generators/kernel_goldens/image_decode.py
#
# Writes tests/data/kernels/image_decode/:
#   <image>.jpg / <image>.png / <image>.bin  the encoded bytes (16x12 or smaller), made by
#       TensorFlow's encoders (tf.io.encode_jpeg / encode_png: qualities, chroma subsampling,
#       progressive, grayscale, RGBA, 16-bit), by libjpeg through cmyk_jpeg.c (CMYK with the Adobe
#       marker) and by write_png below (palette, tRNS, Adam7 interlace, 1-bit gray), or cut and
#       damaged copies of those (truncated, bad CRC, huge dimensions);
#   cases.txt  one case a line: name, op, input file (":N" keeps its first N bytes), attrs
#       ("key=value" separated by spaces; crop=y,x,h,w is DecodeAndCropJpeg's crop_window);
#   <case>.npy  TensorFlow's output for a case that decodes;
#   messages.txt  "case<TAB>message" for a case that TensorFlow refuses (InvalidArgument), with its
#       "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import struct
import subprocess
import tempfile
import zlib

import numpy as np
import tensorflow as tf

out = 'tests/data/kernels/image_decode'
os.makedirs(out, exist_ok=True)
here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(35)
H, W = 12, 16


def image(h, w, c, maximum=255, dtype=np.uint8):
    """Smooth gradients plus noise: JPEG has real work to do and chroma varies."""
    y, x = np.mgrid[0:h, 0:w]
    planes = [x * 15 + y * 3, y * 20 + 10, (x + y) * 9 + 40, 255 - x * 12][:c]
    a = np.stack(planes, -1).astype(np.float64) + rng.integers(-12, 12, (h, w, c))
    return (np.clip(a, 0, 255) * (maximum / 255)).astype(dtype)


def put(name, data):
    with open(f'{out}/{name}', 'wb') as f:
        f.write(data)
    return data


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))


def write_png(samples, bit_depth, color_type, plte=None, trns=None, interlace=False):
    """A PNG of `samples` (h, w, channels ints): what TF's encoder cannot write (palette, tRNS,
    Adam7, bit depths below 8). Filter type 0 on every row."""
    h, w, _ = samples.shape

    def rows(img):
        raw = b''
        for row in img:
            flat = row.reshape(-1).astype(np.int64)
            if bit_depth == 16:
                data = flat.astype('>u2').tobytes()
            elif bit_depth == 8:
                data = flat.astype(np.uint8).tobytes()
            else:
                bits = np.unpackbits(flat.astype(np.uint8)[:, None], axis=1)[:, 8 - bit_depth:]
                data = np.packbits(bits.reshape(-1)).tobytes()
            raw += b'\0' + data
        return raw

    if interlace:
        raw = b''
        for x0, y0, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                               (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
            sub = samples[y0::dy, x0::dx]
            if sub.shape[0] and sub.shape[1]:
                raw += rows(sub)
    else:
        raw = rows(samples)
    png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, bit_depth,
                                                           color_type, 0, 0, int(interlace)))
    if plte is not None:
        png += chunk(b'PLTE', np.asarray(plte, np.uint8).tobytes())
    if trns is not None:
        png += chunk(b'tRNS', trns)
    return png + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b'')


# --- the images --------------------------------------------------------------------------------
rgb, gray = image(H, W, 3), image(H, W, 1)
odd = image(11, 13, 3)  # not a multiple of the MCU: ratio, upsampling and crop edges
jpg = {
    'rgb_q90': tf.io.encode_jpeg(rgb, quality=90).numpy(),
    'rgb_q50_444': tf.io.encode_jpeg(rgb, quality=50, chroma_downsampling=False).numpy(),
    'rgb_q75_progressive': tf.io.encode_jpeg(rgb, quality=75, progressive=True).numpy(),
    'gray_q80': tf.io.encode_jpeg(gray, quality=80, format='grayscale').numpy(),
    'odd_q85': tf.io.encode_jpeg(odd, quality=85).numpy(),
}
with tempfile.TemporaryDirectory() as tmp:
    subprocess.run(['cc', '-O1', '-o', f'{tmp}/cmyk_jpeg', f'{here}/cmyk_jpeg.c', '-ljpeg'],
                   check=True)
    jpg['cmyk_q90'] = subprocess.run([f'{tmp}/cmyk_jpeg', str(W), str(H), '90'], check=True,
                                     input=image(H, W, 4).tobytes(), capture_output=True).stdout
for name, data in jpg.items():
    put(f'{name}.jpg', data)

palette = rng.integers(0, 256, (16, 3))
index = (np.arange(H * W).reshape(H, W, 1) * 7 // 3) % 16
png = {
    'rgb8': tf.io.encode_png(rgb).numpy(),
    'rgba8': tf.io.encode_png(image(H, W, 4)).numpy(),
    'gray8': tf.io.encode_png(gray).numpy(),
    'graya8': tf.io.encode_png(image(H, W, 2)).numpy(),
    'rgb16': tf.io.encode_png(image(H, W, 3, 65535, np.uint16) + 37).numpy(),
    'gray16': tf.io.encode_png(image(H, W, 1, 65535, np.uint16) + 11).numpy(),
    'rgba16': tf.io.encode_png(image(H, W, 4, 65535, np.uint16) + 5).numpy(),
    'palette': write_png(index, 8, 3, plte=palette),
    'palette_trns': write_png(index, 4, 3, plte=palette, trns=bytes(range(0, 256, 37))),
    'interlaced': write_png(rgb, 8, 2, interlace=True),
    'interlaced16': write_png(image(H, W, 4, 65535, np.uint16), 16, 6, interlace=True),
    'gray1': write_png(gray >> 7, 1, 0),
    'gray_trns': write_png(gray, 8, 0, trns=struct.pack('>H', int(gray[0, 0, 0]))),
}
for name, data in png.items():
    put(f'{name}.png', data)

# Damaged inputs.
q90 = jpg['rgb_q90']
sof = q90.index(b'\xff\xc0')
put('jpeg_huge.bin', q90[:sof + 5] + struct.pack('>HH', 60000, 60000) + q90[sof + 9:])
put('jpeg_zero_width.bin', q90[:sof + 7] + b'\0\0' + q90[sof + 9:])
put('jpeg_bad_precision.bin', q90[:sof + 4] + b'\x0c' + q90[sof + 5:])
sos = q90.index(b'\xff\xda')
scan = bytearray(q90)
for i in range(sos + 40, len(scan) - 10, 23):
    scan[i] ^= 0x5a if scan[i] not in (0xff, 0x5a ^ 0xff) else 0
put('jpeg_corrupt_scan.bin', bytes(scan))
rgb8 = png['rgb8']


def with_ihdr(w, h):
    ihdr = struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)
    return rgb8[:8] + chunk(b'IHDR', ihdr) + rgb8[33:]


put('png_huge.bin', with_ihdr(100000, 100000))
put('png_width_over_limit.bin', with_ihdr(1 << 31, 4))
idat = rgb8.index(b'IDAT')
bad_crc = bytearray(rgb8)
bad_crc[idat + 10] ^= 0xff
put('png_bad_crc.bin', bytes(bad_crc))
put('garbage.bin', b'this is not an image, just some text bytes')
put('empty.bin', b'')
put('bmp.bin', b'BM' + bytes(60))
put('gif.bin', b'GIF89a' + bytes(20))

# --- the cases -------------------------------------------------------------------------------------
cases = []  # (name, op, file, attrs dict)


def case(name, op, file, **attrs):
    cases.append((name, op, file, attrs))


for name in jpg:
    f = f'{name}.jpg'
    case(f'{name}', 'DecodeJpeg', f)
    case(f'{name}_c1', 'DecodeJpeg', f, channels=1)
    case(f'{name}_c3_accurate', 'DecodeJpeg', f, channels=3, dct_method='INTEGER_ACCURATE')
    case(f'{name}_nofancy', 'DecodeJpeg', f, fancy_upscaling=False)
    case(f'{name}_shape', 'ExtractJpegShape', f)
for name in ['rgb_q90', 'odd_q85', 'gray_q80', 'cmyk_q90']:
    for ratio in (2, 4, 8):
        case(f'{name}_r{ratio}', 'DecodeJpeg', f'{name}.jpg', ratio=ratio)
case('odd_q85_r2_nofancy_accurate', 'DecodeJpeg', 'odd_q85.jpg', ratio=2, fancy_upscaling=False,
     dct_method='INTEGER_ACCURATE')
case('odd_q85_fast', 'DecodeJpeg', 'odd_q85.jpg', dct_method='INTEGER_FAST')
case('rgb_q90_shape64', 'ExtractJpegShape', 'rgb_q90.jpg', output_type=tf.int64)
for name in ['rgb_q90', 'gray_q80', 'cmyk_q90']:
    for dtype in (tf.uint8, tf.uint16, tf.float32):
        case(f'{name}_image_{dtype.name}', 'DecodeImage', f'{name}.jpg', dtype=dtype)
    case(f'{name}_png_op16', 'DecodePng', f'{name}.jpg', dtype=tf.uint16)
case('rgb_q90_image_c1_3d', 'DecodeImage', 'rgb_q90.jpg', channels=1, expand_animations=False)
for name, window in [('a', (0, 0, 12, 16)), ('b', (3, 5, 6, 7)), ('c', (1, 9, 10, 4)),
                     ('d', (11, 15, 1, 1))]:
    case(f'rgb_q90_crop_{name}', 'DecodeAndCropJpeg', 'rgb_q90.jpg', crop=window)
    case(f'odd_q85_crop_{name}', 'DecodeAndCropJpeg', 'odd_q85.jpg',
         crop=(min(window[0], 10), min(window[1], 12), min(window[2], 11 - min(window[0], 10)),
               min(window[3], 13 - min(window[1], 12))))
case('cmyk_q90_crop', 'DecodeAndCropJpeg', 'cmyk_q90.jpg', crop=(2, 3, 7, 9))
case('gray_q80_crop_r2', 'DecodeAndCropJpeg', 'gray_q80.jpg', crop=(1, 1, 4, 5), ratio=2)
case('rgb_q90_crop_c1', 'DecodeAndCropJpeg', 'rgb_q90.jpg', crop=(2, 2, 5, 9), channels=1)

for name in png:
    f = f'{name}.png'
    for channels in (0, 1, 3, 4):
        for dtype in (tf.uint8, tf.uint16):
            case(f'{name}_c{channels}_{dtype.name}', 'DecodePng', f, channels=channels, dtype=dtype)
    case(f'{name}_image_float32', 'DecodeImage', f, dtype=tf.float32)
    case(f'{name}_jpeg_op', 'DecodeJpeg', f)

# Truncated JPEG: refused, or recovered (the missing lines repeat the last line read).
n = len(q90)
for cut in (n // 2, n - 40, n - 2):
    case(f'trunc{cut}', 'DecodeJpeg', f'rgb_q90.jpg:{cut}')
    case(f'trunc{cut}_recover', 'DecodeJpeg', f'rgb_q90.jpg:{cut}', try_recover_truncated=True)
    case(f'trunc{cut}_recover_half', 'DecodeJpeg', f'rgb_q90.jpg:{cut}', try_recover_truncated=True,
         acceptable_fraction=0.5)
case('trunc_header', 'DecodeJpeg', 'rgb_q90.jpg:100', try_recover_truncated=True)
case('trunc_progressive', 'DecodeJpeg', f'rgb_q75_progressive.jpg:{len(jpg["rgb_q75_progressive"]) // 2}',
     try_recover_truncated=True)
case('trunc_png', 'DecodePng', f'rgb8.png:{len(rgb8) - 30}')
case('trunc_png_header', 'DecodePng', 'rgb8.png:20')
case('trunc_png_magic', 'DecodeImage', 'rgb8.png:8')
case('trunc_jpeg_magic', 'DecodeImage', 'rgb_q90.jpg:3')
for f in ['jpeg_huge', 'jpeg_zero_width', 'jpeg_bad_precision', 'jpeg_corrupt_scan', 'png_huge',
          'png_width_over_limit', 'png_bad_crc', 'garbage']:
    case(f, 'DecodeImage', f'{f}.bin')
case('jpeg_huge_shape', 'ExtractJpegShape', 'jpeg_huge.bin')
case('garbage_shape', 'ExtractJpegShape', 'garbage.bin')
case('garbage_jpeg_op', 'DecodeJpeg', 'garbage.bin')
for op in ['DecodeJpeg', 'DecodePng', 'DecodeImage', 'DecodeAndCropJpeg']:
    case(f'empty_{op}', op, 'empty.bin', **({'crop': (0, 0, 1, 1)} if op == 'DecodeAndCropJpeg' else {}))
case('bmp_jpeg_op', 'DecodeJpeg', 'bmp.bin')
case('bmp_c1', 'DecodeImage', 'bmp.bin', channels=1)
case('jpeg_c4', 'DecodeJpeg', 'rgb_q90.jpg', channels=4)
case('jpeg_c4_image', 'DecodeImage', 'rgb_q90.jpg', channels=4)
case('channels2', 'DecodePng', 'rgb8.png', channels=2)
case('ratio3', 'DecodeJpeg', 'rgb_q90.jpg', ratio=3)
case('dct_bad', 'DecodeJpeg', 'rgb_q90.jpg', dct_method='INTEGER_SLOW')
case('crop_outside', 'DecodeAndCropJpeg', 'rgb_q90.jpg', crop=(4, 4, 9, 4))
case('crop_empty', 'DecodeAndCropJpeg', 'rgb_q90.jpg', crop=(4, 4, 0, 4))
case('crop_negative', 'DecodeAndCropJpeg', 'rgb_q90.jpg', crop=(-1, 0, 4, 4))
case('crop_size3', 'DecodeAndCropJpeg', 'rgb_q90.jpg', crop=(0, 0, 4))
case('crop_png', 'DecodeAndCropJpeg', 'rgb8.png', crop=(0, 0, 4, 4))


def run(op, data, attrs):
    a = dict(attrs)
    if op == 'DecodeAndCropJpeg':
        a['crop_window'] = tf.constant(a.pop('crop'), tf.int32)
    return getattr(tf.raw_ops, op)(contents=tf.constant(data), **a).numpy()


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


def text(v):
    if isinstance(v, tf.dtypes.DType):
        return v.name
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, tuple):
        return ','.join(map(str, v))
    return str(v)


lines, messages = [], []
for name, op, file, attrs in cases:
    path, _, cut = file.partition(':')
    with open(f'{out}/{path}', 'rb') as f:
        data = f.read()
    if cut:
        data = data[:int(cut)]
    try:
        np.save(f'{out}/{name}.npy', run(op, data, attrs))
    except tf.errors.InvalidArgumentError as e:
        messages.append(f'{name}\t{message(e)}')
    lines.append('\t'.join([name, op, file, ' '.join(f'{k}={text(v)}' for k, v in attrs.items())]))
with open(f'{out}/cases.txt', 'w') as f:
    f.write('\n'.join(lines) + '\n')
with open(f'{out}/messages.txt', 'w') as f:
    f.write('\n'.join(messages) + '\n')
print(len(cases), 'cases,', len(messages), 'refused')
