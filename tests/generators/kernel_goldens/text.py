# Goldens for StringToHashBucketStrong, StringToHashBucket and StringNGrams (issue 35).
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/text.py
# Writes tests/data/kernels/text/text.rec (the .rec layout of strings.py, read by
# smrt::testing::RecGoldens). Per case <name>: <name>.op, <name>.attrs ("key=value" joined by
# ';', lists as comma-separated values), the inputs <name>.in0, <name>.in1 and the outputs
# <name>.out0, <name>.out1, or <name>.error with TensorFlow's message ("{{function_node ...}} "
# prefix and " [Op:...]" suffix cut). Every op runs in a tf.function of its own (TensorFlow
# 2.21's eager kernel cache can reuse a kernel made for other dtypes, seen with EncodePng).
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/text'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3541)
records = []
KINDS = {np.dtype(np.int64): 'int64', np.dtype(np.int32): 'int32'}


def save(name, a):
    if isinstance(a, str):
        a = a.encode()
    if isinstance(a, bytes):
        records.append([name.encode(), b'string', b'', a])
        return
    a = np.asarray(a)
    if a.dtype.kind in 'SO':
        records.append([name.encode(), b'string', ' '.join(map(str, a.shape)).encode()] +
                       [bytes(s) for s in a.reshape(-1).tolist()])
        return
    records.append([name.encode(), KINDS[a.dtype].encode(), ' '.join(map(str, a.shape)).encode(),
                    a.astype(a.dtype.newbyteorder('<')).tobytes()])


def message(e):
    m = str(e).split('\n')[0]
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


def attr_text(v):
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, (list, tuple)):
        return ','.join(str(x) for x in v)
    return str(v)


def case(name, op, inputs, **attrs):
    fn = getattr(tf.raw_ops, op)
    save(f'{name}.op', op)
    save(f'{name}.attrs', ';'.join(f'{k}={attr_text(v)}' for k, v in attrs.items()))
    keys = list(inputs)
    for i, k in enumerate(keys):
        save(f'{name}.in{i}', inputs[k])
    try:
        fn(**inputs, **attrs)  # TensorFlow's refusals, eagerly
        outs = tf.function(lambda a: fn(**a, **attrs))(inputs)
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        save(f'{name}.error', message(e))
        return
    if not isinstance(outs, (list, tuple)):
        outs = [outs]
    for i, o in enumerate(outs):
        save(f'{name}.out{i}', o.numpy())


words = np.array([b'', b'a', b'ab', b'hello world', b'0123456789abcdef', b'0123456789abcdefX',
                  'na\u00efve caf\u00e9 \u6f22\u5b57'.encode(), bytes(range(256)), b'\0\0\0',
                  b'x' * 1000], dtype=object)
grid = words[[1, 3, 4, 6, 0, 2]].reshape(2, 3)
for buckets in (1, 7, 1000, 1 << 40):
    case(f'hash_{buckets}', 'StringToHashBucket', {'string_tensor': words}, num_buckets=buckets)
    for k in ([0, 0], [123, 456], [-1, -9223372036854775808]):
        tag = '_'.join(str(abs(x)) for x in k)
        case(f'strong_{buckets}_{tag}', 'StringToHashBucketStrong', {'input': words},
             num_buckets=buckets, key=k)
case('hash_grid', 'StringToHashBucket', {'string_tensor': grid}, num_buckets=97)
case('strong_grid', 'StringToHashBucketStrong', {'input': grid}, num_buckets=97, key=[5, 6])
case('strong_key3', 'StringToHashBucketStrong', {'input': words}, num_buckets=9, key=[1, 2, 3])

tokens = np.array([b'the', b'quick', b'brown', b'fox', b'jumps', b'a', b'b', b'c', b'd', b'e',
                   b'x'], dtype=object)
splits = np.array([0, 5, 5, 6, 10, 11], np.int64)
ngram_cases = [
    ('w1', dict(ngram_widths=[1])),
    ('w2', dict(ngram_widths=[2])),
    ('w123', dict(ngram_widths=[1, 2, 3])),
    ('w3_pad', dict(ngram_widths=[3], left_pad='<s>', right_pad='</s>', pad_width=-1)),
    ('w23_pad1', dict(ngram_widths=[2, 3], left_pad='L', right_pad='R', pad_width=1)),
    ('w4_pad2', dict(ngram_widths=[4], left_pad='L', right_pad='R', pad_width=2)),
    ('w5_short', dict(ngram_widths=[5], preserve_short_sequences=True)),
    ('w5_short_pad', dict(ngram_widths=[5], left_pad='L', right_pad='R', pad_width=1,
                          preserve_short_sequences=True)),
    ('w2_sep', dict(ngram_widths=[2], separator='')),
    ('w6_pad9', dict(ngram_widths=[6], left_pad='<', right_pad='>', pad_width=9)),
    ('none_short', dict(ngram_widths=[], preserve_short_sequences=True, pad_width=1,
                        left_pad='L', right_pad='R')),
]
defaults = dict(separator=' ', left_pad='', right_pad='', pad_width=0,
                preserve_short_sequences=False)
for tag, attrs in ngram_cases:
    a = dict(defaults)
    a.update(attrs)
    for st in (np.int64, np.int32):
        case(f'ngrams_{tag}_{np.dtype(st).name}', 'StringNGrams',
             {'data': tokens, 'data_splits': splits.astype(st)}, **a)
a = dict(defaults, ngram_widths=[2])
case('ngrams_empty', 'StringNGrams', {'data': np.array([], dtype=object).astype('S'),
                                      'data_splits': np.array([0, 0, 0], np.int64)}, **a)
case('ngrams_nosplits', 'StringNGrams', {'data': tokens, 'data_splits': np.zeros([0], np.int64)},
     **a)
case('ngrams_bad_first', 'StringNGrams', {'data': tokens, 'data_splits': np.array([1, 11])}, **a)
case('ngrams_bad_order', 'StringNGrams', {'data': tokens, 'data_splits': np.array([0, 6, 3, 11])},
     **a)
case('ngrams_bad_last', 'StringNGrams', {'data': tokens, 'data_splits': np.array([0, 6, 10])},
     **a)
case('ngrams_bad_width', 'StringNGrams', {'data': tokens, 'data_splits': splits},
     **dict(defaults, ngram_widths=[2, 0]))
case('ngrams_short_nopad', 'StringNGrams', {'data': tokens, 'data_splits': splits},
     **dict(defaults, ngram_widths=[], preserve_short_sequences=True, pad_width=-1))

with open(f'{out}/text.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/text.rec'), 'bytes')
