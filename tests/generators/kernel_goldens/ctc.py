# Goldens for CTCGreedyDecoder and CTCBeamSearchDecoder (issue 35): Keras's ctc_decode
# (greedy=True or False) in OCR and speech models.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/ctc.py
# Writes tests/data/kernels/ctc/ctc.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens). Per case <name>: the strings <name>.op and <name>.attrs
# ("key=value" pairs joined by ';'), the inputs <name>.inputs and <name>.sequence_length, and
# the outputs <name>.out<i> in TensorFlow's output order (for the beam search: top_paths
# decoded_indices, then as many decoded_values, decoded_shape, then log_probability).
# Per refused call, the string message.<key>: TensorFlow's message, with its
# "{{function_node ...}} " prefix and " [Op:...]" suffix cut.
#
# The greedy inputs are small integers, so rows have ties (the first maximum wins) and
# the same class repeats over time (merge_repeated matters); the beam search inputs are
# random logits, some scaled up so a few paths dominate and others down so many compete.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/ctc'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3536)
f32 = np.float32
records = []
KINDS = {np.dtype(f32): 'float32', np.dtype(np.float64): 'float64', np.dtype(np.int64): 'int64',
         np.dtype(np.int32): 'int32'}


def save(name, a):
    a = np.asarray(a)
    if a.dtype.kind in 'SU':
        kind, payload = 'string', [s.encode() for s in a.reshape(-1).tolist()]
    else:
        kind = KINDS[a.dtype]
        payload = [a.astype(a.dtype.newbyteorder('<')).tobytes()]
    records.append([name.encode(), kind.encode(), ' '.join(map(str, a.shape)).encode()] + payload)


def case(name, op, x, seq, **attrs):
    fn = getattr(tf.raw_ops, op)
    # A tf.function per case: TensorFlow 2.21's eager kernel cache can hand a double input
    # the float kernel made for an earlier call with the same attrs (checked: float32 log
    # probabilities for double inputs).
    outs = tf.function(lambda v: fn(inputs=v, sequence_length=np.asarray(seq, np.int32),
                                    **attrs))(x)
    flat = []
    for o in outs:
        flat.extend(o if isinstance(o, (list, tuple)) else [o])
    save(f'{name}.op', op)
    save(f'{name}.attrs', ';'.join(f'{k}={int(v) if isinstance(v, bool) else v}'
                                   for k, v in attrs.items()))
    save(f'{name}.inputs', x)
    save(f'{name}.sequence_length', np.asarray(seq, np.int32))
    for i, o in enumerate(flat):
        save(f'{name}.out{i}', o.numpy())


# Greedy: ties and repeats.
xg = rng.integers(0, 4, (9, 5, 6)).astype(f32)
seq_g = [9, 4, 0, 7, 1]
for merge in (False, True):
    for blank in (-1, 0, 2, -6):
        case(f'greedy_m{int(merge)}_b{blank}'.replace('-', 'm'), 'CTCGreedyDecoder', xg, seq_g,
             merge_repeated=merge, blank_index=blank)
xr = rng.standard_normal((12, 3, 7))
case('greedy_double', 'CTCGreedyDecoder', xr, [12, 5, 11], merge_repeated=True)
case('greedy_float_random', 'CTCGreedyDecoder', (3 * xr).astype(f32), [12, 12, 2],
     merge_repeated=False)

# Beam search: random logits at three temperatures.
for scale in (0.5, 2.0, 6.0):
    xb = (scale * rng.standard_normal((10, 4, 5))).astype(f32)
    seq_b = [10, 6, 1, 9]
    tag = str(scale).replace('.', 'p')
    for bw, tp in ((1, 1), (3, 2), (10, 3), (4, 4)):
        for merge in (True, False):
            case(f'beam_s{tag}_w{bw}_p{tp}_m{int(merge)}', 'CTCBeamSearchDecoder', xb, seq_b,
                 beam_width=bw, top_paths=tp, merge_repeated=merge)
xbd = 1.5 * rng.standard_normal((8, 2, 4))
case('beam_double', 'CTCBeamSearchDecoder', xbd, [8, 5], beam_width=5, top_paths=3,
     merge_repeated=True)
xbl = (2.0 * rng.standard_normal((16, 2, 12))).astype(f32)
case('beam_wide', 'CTCBeamSearchDecoder', xbl, [16, 13], beam_width=25, top_paths=5,
     merge_repeated=False)
case('beam_len0', 'CTCBeamSearchDecoder', xbl, [0, 3], beam_width=3, top_paths=1,
     merge_repeated=True)


def message(f):
    try:
        f()
    except (tf.errors.InvalidArgumentError, tf.errors.FailedPreconditionError) as e:
        m = str(e).split('\n')[0]
        m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
        return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)
    raise AssertionError('no error')


G, B = tf.raw_ops.CTCGreedyDecoder, tf.raw_ops.CTCBeamSearchDecoder
z = np.zeros((3, 2, 4), f32)
messages = {
    'greedy_seq_len': lambda: G(inputs=z, sequence_length=[3, 4]),
    'greedy_batch': lambda: G(inputs=z, sequence_length=[3, 3, 3]),
    'greedy_blank': lambda: G(inputs=z, sequence_length=[3, 3], blank_index=4),
    'greedy_blank_neg': lambda: G(inputs=z, sequence_length=[3, 3], blank_index=-5),
    'greedy_empty': lambda: G(inputs=np.zeros((3, 0, 4), f32), sequence_length=np.zeros([0], np.int32)),
    'beam_seq_len': lambda: B(inputs=z, sequence_length=[3, 4], beam_width=2, top_paths=1),
    'beam_leaves': lambda: B(inputs=z, sequence_length=[0, 3], beam_width=2, top_paths=2),
    'beam_paths': lambda: B(inputs=z, sequence_length=[3, 3], beam_width=2, top_paths=3),
}
for key, fn in messages.items():
    save(f'message.{key}', message(fn))

with open(f'{out}/ctc.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/ctc.rec'), 'bytes')
