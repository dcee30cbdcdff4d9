# Goldens for UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode and UnicodeTranscode
# (issue 35): tf.strings.unicode_decode / _with_offsets / unicode_encode / unicode_transcode for
# UTF-8, UTF-16 and UTF-32.
# Run from the repo root: TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/unicode.py
# Writes tests/data/kernels/unicode/unicode.rec in the layout of text.py: per case <name>.op,
# <name>.attrs, <name>.in<i>, <name>.out<i> or <name>.error. Each op runs in a tf.function of
# its own: TensorFlow 2.21's eager kernel cache reuses a kernel made for int64 splits for int32
# ones (a CHECK failure that ends the process, seen with UnicodeEncode).
#
# The malformed UTF-8 covers ICU's "maximal subpart" replacement: truncated sequences (at the
# end and before an ASCII byte), overlong forms, surrogates, code points past U+10FFFF, lone
# continuation bytes, invalid lead bytes; the UTF-16 and UTF-32 inputs unpaired surrogates,
# odd lengths and out-of-range values.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/unicode'; os.makedirs(out, exist_ok=True)
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
    m = re.sub(r'^Graph execution error:\s*', '', m)
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m)


def attr_text(v):
    return str(int(v)) if isinstance(v, bool) else str(v)


def case(name, op, inputs, **attrs):
    fn = getattr(tf.raw_ops, op)
    save(f'{name}.op', op)
    save(f'{name}.attrs', ';'.join(f'{k}={attr_text(v)}' for k, v in attrs.items()))
    for i, v in enumerate(inputs.values()):
        save(f'{name}.in{i}', v)
    try:
        outs = tf.function(lambda a: fn(**a, **attrs))(inputs)
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        save(f'{name}.error', message(e))
        return
    if not isinstance(outs, (list, tuple)):
        outs = [outs]
    for i, o in enumerate(outs):
        save(f'{name}.out{i}', o.numpy())


good = ['', 'abc', 'na\u00efve caf\u00e9', '\u6f22\u5b57\u304b\u306a', '\U0001F600\U0001F680x',
        'tab\there\x01\x1f\x7f']
bad = [b'A\xe2\x82', b'\xe2\x82A', b'\xc0\x80B', b'\xed\xa0\x80', b'\xf4\x90\x80\x80',
       b'\xf0\x9f\x98', b'\xff', b'a\x01b', b'\x80\x80', b'\xe0\x80\x80', b'\xc3', b'\xf8\x88\x80\x80\x80',
       b'\xe1\x80', b'\xef\xbf\xbf\xef\xbf\xbe', b'\xf0\x90\x80\x80\xf3\xbf\xbf\xbf']
utf8 = np.array([s.encode() for s in good] + bad, dtype=object)
grid = np.array([s.encode() for s in good], dtype=object).reshape(2, 3)
for err in ('replace', 'ignore', 'strict'):
    for ctrl in (False, True):
        for op in ('UnicodeDecode', 'UnicodeDecodeWithOffsets'):
            tag = f'{op[7:].lower()}_{err}_{int(ctrl)}'
            case(f'utf8_{tag}', op, {'input': utf8}, input_encoding='UTF-8', errors=err,
                 replace_control_characters=ctrl)
            # Tsplits=int32 only without offsets: TensorFlow 2.21's UnicodeDecodeWithOffsets
            # writes int32 offsets into its int64 output and dies on a CHECK.
            case(f'good_{tag}', op, {'input': grid}, input_encoding='UTF-8', errors=err,
                 replace_control_characters=ctrl,
                 Tsplits=tf.int32 if op == 'UnicodeDecode' else tf.int64)
case('utf8_subst_q', 'UnicodeDecodeWithOffsets', {'input': utf8}, input_encoding='UTF-8',
     errors='replace', replacement_char=63)
case('utf8_subst_0', 'UnicodeDecode', {'input': utf8}, input_encoding='UTF-8',
     errors='replace', replacement_char=0, replace_control_characters=True)
case('utf8_subst_bad', 'UnicodeDecode', {'input': utf8}, input_encoding='UTF-8',
     errors='replace', replacement_char=0x110000)

u16 = np.array(['a\u00e9\U0001F600'.encode('utf-16-be'), b'\xd8\x00\x00A', b'\x00A\xdc\x00',
                b'\x00A\x00', b'\xd8\x3d', b''], dtype=object)
u16le = np.array(['a\u00e9\U0001F600'.encode('utf-16-le'), b'\x00\xd8A\x00', b'A\x00B'],
                 dtype=object)
u32 = np.array(['a\u00e9\U0001F600'.encode('utf-32-be'), b'\x00\x00\xd8\x00\x00\x00\x00A',
                b'\x00\x11\x00\x00', b'\x00\x00\x00A\x00\x00', b'\xff\xff\xff\xff'],
               dtype=object)
for enc, data in (('UTF-16-BE', u16), ('UTF-16-LE', u16le), ('UTF-32-BE', u32)):
    for err in ('replace', 'ignore'):
        tag = enc.lower().replace('-', '')
        case(f'{tag}_{err}', 'UnicodeDecodeWithOffsets', {'input': data}, input_encoding=enc,
             errors=err)
        for out_enc in ('UTF-8', 'UTF-16-BE', 'UTF-32-BE'):
            case(f'trans_{tag}_{err}_{out_enc.lower().replace("-", "")}', 'UnicodeTranscode',
                 {'input': data}, input_encoding=enc, output_encoding=out_enc, errors=err)
for out_enc in ('UTF-8', 'UTF-16-BE', 'UTF-32-BE'):
    for err, ctrl in (('replace', False), ('replace', True), ('ignore', True), ('strict', False),
                      ('strict', True)):
        case(f'trans_utf8_{out_enc.lower().replace("-", "")}_{err}_{int(ctrl)}', 'UnicodeTranscode',
             {'input': np.array([s.encode() for s in good], dtype=object)}, input_encoding='UTF-8',
             output_encoding=out_enc, errors=err, replace_control_characters=ctrl)
case('trans_utf8_bad', 'UnicodeTranscode', {'input': utf8}, input_encoding='UTF-8',
     output_encoding='UTF-16-BE', errors='replace', replacement_char=0x2639)

values = np.array([65, 0xE9, 0x6F22, 0x1F600, 0xD800, 0xDFFF, 0x110000, -1, 0x10FFFF, 0, 0x7F],
                  np.int32)
for enc in ('UTF-8', 'UTF-16-BE', 'UTF-32-BE'):
    for err in ('replace', 'ignore', 'strict'):
        for st in (np.int64, np.int32):
            case(f'encode_{enc.lower().replace("-", "")}_{err}_{np.dtype(st).name}', 'UnicodeEncode',
                 {'input_values': values, 'input_splits': np.array([0, 4, 4, 9, 11], st)},
                 output_encoding=enc, errors=err)
case('encode_valid_strict', 'UnicodeEncode',
     {'input_values': values[:4], 'input_splits': np.array([0, 1, 4], np.int64)},
     output_encoding='UTF-8', errors='strict')
case('encode_subst', 'UnicodeEncode',
     {'input_values': values, 'input_splits': np.array([0, 11], np.int64)},
     output_encoding='UTF-8', errors='replace', replacement_char=0x2639)

with open(f'{out}/unicode.rec', 'wb') as f:
    for rec in records:
        for field in rec:
            f.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/unicode.rec'), 'bytes')
