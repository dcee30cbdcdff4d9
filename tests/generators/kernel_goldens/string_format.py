# Goldens for StringFormat (issue 35): tf.strings.format, which tf.print builds its message
# with. Run from the repo root:
#   TF_ENABLE_ONEDNN_OPTS=0 python -P tests/generators/kernel_goldens/string_format.py
# Writes tests/data/kernels/text/string_format.rec in the layout of text.py: per case
# <name>.template, <name>.placeholder, <name>.summarize (strings), <name>.in<i> (the inputs),
# and <name>.out0 or <name>.error. Each case runs in a tf.function of its own.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
import re
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/text'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3543)
records = []
KINDS = {np.dtype(np.int64): 'int64', np.dtype(np.int32): 'int32', np.dtype(np.float32): 'float32',
         np.dtype(np.float64): 'float64', np.dtype(np.bool_): 'bool', np.dtype(np.uint8): 'uint8'}


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


def case(name, inputs, template='%s', placeholder='%s', summarize=3):
    save(f'{name}.template', template)
    save(f'{name}.placeholder', placeholder)
    save(f'{name}.summarize', str(summarize))
    for i, v in enumerate(inputs):
        save(f'{name}.in{i}', v)
    try:
        tf.raw_ops.StringFormat(inputs=inputs, template=template, placeholder=placeholder,
                                summarize=summarize)
        y = tf.function(lambda a: tf.raw_ops.StringFormat(
            inputs=a, template=template, placeholder=placeholder, summarize=summarize))(inputs)
    except (tf.errors.InvalidArgumentError, ValueError) as e:
        save(f'{name}.error', message(e))
        return
    save(f'{name}.out0', y.numpy())


f = np.array([0.1, -2.5, 1e-7, 3e20, np.nan, -np.inf, 1 / 3, 7.0], np.float32)
case('scalars', [np.int32(-7), np.float32(0.1), np.float64(0.1), np.bool_(True), np.bytes_(b'hi\n"')],
     template='i=%s f=%s d=%s b=%s s=%s')
case('vector', [f])
case('vector_all', [f], summarize=-1)
case('vector_1', [f], summarize=1)
case('matrix', [np.arange(35, dtype=np.int64).reshape(5, 7)], template='m: %s!')
case('cube', [np.arange(2 * 3 * 8, dtype=np.int32).reshape(2, 3, 8)], summarize=2)
case('cube_all', [rng.integers(0, 9, (2, 2, 3)).astype(np.uint8)], summarize=-1)
case('strings', [np.array([b'a', b'b c', b'\xff', b'', b'x', b'y', b'z'], dtype=object)])
case('bools', [np.array([[True, False], [False, True]])])
case('empty', [np.zeros((0, 3), np.float32), np.zeros((2, 0), np.int32)], template='%s|%s')
case('doubles', [np.array([1e300, 2.5e-300, 0.1 + 0.2], np.float64)])
case('braces', [np.int64(1), np.int64(2)], template='{} and {}', placeholder='{}')
case('none', [], template='no placeholders')
case('mismatch', [np.int64(1)], template='%s %s')

with open(f'{out}/string_format.rec', 'wb') as fh:
    for rec in records:
        for field in rec:
            fh.write(len(field).to_bytes(4, 'little') + field)
print(len(records), 'tensors,', os.path.getsize(f'{out}/string_format.rec'), 'bytes')
