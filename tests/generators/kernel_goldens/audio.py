# Goldens for the audio ops (issue 35): DecodeWav, EncodeWav, AudioSpectrogram and Mfcc, the
# serving path of the TensorFlow speech-commands models.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/audio.py
# Writes tests/data/kernels/audio/audio.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens):
# - wav.<case>: the bytes of a WAV file (TensorFlow's own encodings and hand-made ones: JUNK
#   and bext chunks before "fmt ", an 18-byte format chunk, LIST chunks after the data, and
#   malformed ones); decode.<case>.<desired_channels>.<desired_samples>: TensorFlow's
#   audio, decode_rate.<case>: its sample rate, or decode.<case>.error: its message;
# - encode.<case>.audio / .rate: EncodeWav's inputs, encode.<case>: the bytes TensorFlow
#   wrote, or encode.<case>.error;
# - spec.<case>.in (input), spec.<case>.<window>.<stride>.<0|1 magnitude_squared> (outputs);
# - mfcc.<case>.in, .rate and mfcc.<case>.<upper>.<lower>.<filterbank>.<dct> (outputs, or
#   .error).
# Messages have TensorFlow's "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import struct
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/audio'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3537)
f32 = np.float32
records = []
KINDS = {np.dtype(f32): 'float32', np.dtype(np.int32): 'int32'}


def save(name, a):
    if isinstance(a, bytes):
        records.append([name.encode(), b'string', b''] + [a])
        return
    a = np.asarray(a)
    if a.dtype.kind in 'SU':
        kind, payload = 'string', [s.encode() for s in a.reshape(-1).tolist()]
    else:
        kind = KINDS[a.dtype]
        payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
    records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] + payload)


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


def run(name, fn):
    try:
        return fn()
    except (tf.errors.InvalidArgumentError, tf.errors.FailedPreconditionError) as e:
        save(f'{name}.error', message(e))
        return None


# EncodeWav.
half = (np.arange(-6, 7) + 0.5) / 32768  # exact halves: roundf rounds them away from zero
enc = {
    'stereo': rng.uniform(-1.2, 1.2, (37, 2)).astype(f32),
    'mono': np.concatenate([half, [-1.0, 1.0, 32767 / 32768, -1.5, 0.0, -0.0]]).astype(f32)[:, None],
    'five': rng.standard_normal((3, 5)).astype(f32) * f32(0.3),
    'empty': np.zeros((0, 2), f32),
    'special': np.array([[np.nan, np.inf], [-np.inf, 1e30], [-1e30, 2.0]], f32),
}
for name, audio in enc.items():
    for rate in (16000, 44100):
        key = f'{name}_{rate}'
        save(f'encode.{key}.audio', audio)
        save(f'encode.{key}.rate', np.int32(rate))
        b = run(f'encode.{key}', lambda: tf.raw_ops.EncodeWav(audio=audio, sample_rate=rate))
        if b is not None:
            save(f'encode.{key}', b.numpy())
for key, audio, rate in [('rate0', enc['mono'], 0), ('rate_negative', enc['mono'], -5),
                         ('rank1', enc['mono'][:, 0], 16000)]:
    save(f'encode.{key}.audio', audio)
    save(f'encode.{key}.rate', np.int32(rate))
    run(f'encode.{key}', lambda: tf.raw_ops.EncodeWav(audio=audio, sample_rate=rate))


# WAV files.
def riff(chunks, size=None):
    body = b'WAVE' + b''.join(chunks)
    return b'RIFF' + struct.pack('<I', len(body) if size is None else size) + body


def chunk(tag, payload, size=None):
    return tag + struct.pack('<I', len(payload) if size is None else size) + payload


def fmt(channels=2, rate=16000, bits=16, code=1, bpf=None, bps=None, extra=None):
    bpf = channels * bits // 8 if bpf is None else bpf
    bps = bpf * rate if bps is None else bps
    p = struct.pack('<HHIIHH', code, channels, rate, bps, bpf, bits)
    if extra is not None:
        p += extra
    return chunk(b'fmt ', p)


samples = rng.integers(-32768, 32768, (23, 2)).astype('<i2')
data = chunk(b'data', samples.tobytes())
mono = chunk(b'data', samples[:, 0].copy().tobytes())
wavs = {
    'tf_stereo': tf.raw_ops.EncodeWav(audio=enc['stereo'], sample_rate=16000).numpy(),
    'tf_five': tf.raw_ops.EncodeWav(audio=enc['five'], sample_rate=8000).numpy(),
    'plain': riff([fmt(), data]),
    'mono': riff([fmt(channels=1, rate=22050), mono]),
    'junk_bext': riff([chunk(b'JUNK', b'\0' * 6), chunk(b'bext', b'abc\0'), fmt(), data]),
    'fmt18': riff([fmt(extra=b'\0\0'), data]),
    'list_after': riff([fmt(), chunk(b'LIST', b'INFOjunk'), data, chunk(b'LIST', b'xy')]),
    'odd_size_field': riff([fmt(), data], size=7),
    'empty_data': riff([fmt(), chunk(b'data', b'')]),
    'odd_data': riff([fmt(), chunk(b'data', samples.tobytes()[:9])]),
    # Malformed.
    'empty': b'',
    'short': b'RIF',
    'not_riff': b'RIFX' + riff([fmt(), data])[4:],
    'not_wave': riff([fmt(), data])[:8] + b'WAVX' + riff([fmt(), data])[12:],
    'unknown_field': riff([chunk(b'LIST', b'abcd'), fmt(), data]),
    'junk_too_long': riff([chunk(b'JUNK', b'\0' * 6, size=1000), fmt(), data]),
    'fmt_size': riff([chunk(b'fmt ', struct.pack('<HHIIHH', 1, 2, 16000, 64000, 4, 16) + b'\0' * 4),
                      data]),
    'not_pcm': riff([fmt(code=3), data]),
    'no_channels': riff([fmt(channels=0, bpf=0, bps=0), data]),
    'bits8': riff([fmt(bits=8), data]),
    'bits24': riff([fmt(bits=24), data]),
    'bytes_per_frame': riff([fmt(bpf=2), data]),
    'bytes_per_second': riff([fmt(bps=12345), data]),
    'no_data': riff([fmt(), chunk(b'LIST', b'ab')]),
    'two_data': riff([fmt(), data, data]),
    'data_short': riff([fmt(), chunk(b'data', samples.tobytes()[:40], size=92)]),
    'data_huge': riff([fmt(), chunk(b'data', b'\0' * 8, size=0x80000000)]),
    'chunk_truncated': riff([fmt(), data])[:-len(data) + 6],
    'fmt_truncated': riff([fmt(), data])[:30],
}
for name, b in wavs.items():
    save(f'wav.{name}', bytes(b))
    for ch, n in [(-1, -1), (1, -1), (3, 10), (2, 30), (1, 0)]:
        key = f'decode.{name}.{ch}.{n}'.replace('-1', 'm1')
        r = run(key, lambda: tf.raw_ops.DecodeWav(contents=b, desired_channels=ch,
                                                  desired_samples=n))
        if r is None:
            break
        save(key, r.audio.numpy())
        save(f'decode_rate.{name}', r.sample_rate.numpy())

for ch, n in [(-2, -1), (1, -3)]:
    run(f'decode_attr.{ch}.{n}'.replace('-', 'm'),
        lambda: tf.raw_ops.DecodeWav(contents=wavs['plain'], desired_channels=ch,
                                     desired_samples=n))

# AudioSpectrogram.
t = np.arange(1700) / 16000.0
speechy = (0.5 * np.sin(2 * np.pi * 440 * t) * np.sin(2 * np.pi * 3 * t)
           + 0.05 * rng.standard_normal(t.shape)).astype(f32)
spec_in = {'two': np.stack([speechy, rng.uniform(-1, 1, t.shape).astype(f32)], axis=1),
           'short': rng.uniform(-1, 1, (40, 1)).astype(f32)}
spec_cases = {'two': [(480, 160), (256, 128), (255, 100), (1000, 1000)],
              'short': [(3, 1), (40, 7), (41, 1), (16, 5)]}
for name, x in spec_in.items():
    save(f'spec.{name}.in', x)
    for w, s in spec_cases[name]:
        for sq in (0, 1):
            y = tf.raw_ops.AudioSpectrogram(input=x, window_size=w, stride=s,
                                            magnitude_squared=bool(sq)).numpy()
            save(f'spec.{name}.{w}.{s}.{sq}', y)
run('spec.window1', lambda: tf.raw_ops.AudioSpectrogram(input=spec_in['short'], window_size=1,
                                                        stride=1))
run('spec.stride0', lambda: tf.raw_ops.AudioSpectrogram(input=spec_in['short'], window_size=4,
                                                        stride=0))
run('spec.rank', lambda: tf.raw_ops.AudioSpectrogram(input=spec_in['short'][:, 0], window_size=4,
                                                     stride=1))

# Mfcc on spectrograms TensorFlow made.
mfcc_in = {
    'speech': (tf.raw_ops.AudioSpectrogram(input=spec_in['two'], window_size=480, stride=160,
                                           magnitude_squared=True).numpy(), 16000),
    'coarse': (tf.raw_ops.AudioSpectrogram(input=spec_in['two'], window_size=256, stride=200,
                                           magnitude_squared=True).numpy(), 8000),
    'random': (rng.uniform(0, 3, (1, 4, 129)).astype(f32) ** 4, 44100),
}
mfcc_cases = [(4000.0, 20.0, 40, 13), (7600.0, 60.0, 20, 10), (3999.0, 0.0, 40, 40),
              (20000.0, 20.0, 40, 13), (4000.0, 20.0, 5, 1), (4000.0, 20.0, 13, 14),
              (4000.0, 4000.0, 40, 13), (300.0, 20.0, 80, 13), (4000.0, 20.0, 1000, 13),
              (4000.0, 20.0, 0, 1), (4000.0, -1.0, 40, 13)]
for name, (x, rate) in mfcc_in.items():
    save(f'mfcc.{name}.in', x)
    save(f'mfcc.{name}.rate', np.int32(rate))
    for up, lo, fb, dct in mfcc_cases:
        key = f'mfcc.{name}.{up:g}.{lo:g}.{fb}.{dct}'
        y = run(key, lambda: tf.raw_ops.Mfcc(spectrogram=x, sample_rate=rate,
                                             upper_frequency_limit=up, lower_frequency_limit=lo,
                                             filterbank_channel_count=fb,
                                             dct_coefficient_count=dct))
        if y is not None:
            save(key, y.numpy())
run('mfcc.rate0', lambda: tf.raw_ops.Mfcc(spectrogram=mfcc_in['random'][0], sample_rate=0))
run('mfcc.rank', lambda: tf.raw_ops.Mfcc(spectrogram=mfcc_in['random'][0][0], sample_rate=16000))

with open(f'{out}/audio.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/audio.rec'), 'bytes')
