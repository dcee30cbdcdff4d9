# Goldens for the array, index and image-geometry ops of array_extra_ops_test.cc: TopK (as
# TopKV2, which TensorFlow 2.21 still runs: TopK V1 was removed from GraphDef version 7), Reverse,
# Roll, LinSpace, InTopK/InTopKV2, Diag, DiagPart, InvertPermutation, UnravelIndex,
# LowerBound/UpperBound, NthElement, Cross, ConjugateTranspose, Empty, GuaranteeConst, BiasAddV1,
# DataFormatDimMap, DataFormatVecPermute, LRN, ExtractImagePatches, ExtractVolumePatches,
# Dilation2D, MaxPoolWithArgmax, HistogramFixedWidth, FractionalMaxPool/AvgPool (deterministic, with
# seeds), InplaceAdd/Sub/Update, ParallelConcat,
# TensorScatterMax/Min/Sub, TensorStridedSliceUpdate and Fingerprint: each attr, dtypes, ties,
# and the errors TensorFlow's CPU kernels give.
# Run from the repo root: .venv-peers/bin/python -P tests/generators/kernel_goldens/array_extra.py
# Writes tests/data/kernels/array_extra/array_extra.rec (the .rec layout read by
# smrt::testing::RecGoldens): per case <c>, the string <c>.op, inputs <c>.in0, <c>.in1, ...,
# attrs <c>.attr.<name> (string, bool, int64 scalar for int, float32 scalar for float, int64
# vector for list(int), float32 vector for list(float)), type attrs <c>.type.<name> (int32: TensorFlow's DataType number), and
# TensorFlow's outputs <c>.out0, <c>.out1, ...; where TensorFlow refuses, the string <c>.error
# (its message without the "{{function_node ...}} " prefix and " [Op:...]" suffix) and <c>.code
# (int32, its absl status code). Tensors of
# dtypes RecGoldens does not read (float16, bfloat16, complex) are stored as uint8 bytes with a
# last dim of the element size, and <name>.dtype (int32) gives their dtype.
import os
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')
import re
import struct
import numpy as np, tensorflow as tf
out = 'tests/data/kernels/array_extra'; os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(3536)
records = []
KINDS = {np.dtype(np.float32): 'float32', np.dtype(np.float64): 'float64',
         np.dtype(np.int64): 'int64', np.dtype(np.int32): 'int32', np.dtype(bool): 'bool',
         np.dtype(np.uint8): 'uint8', np.dtype(np.int8): 'int8', np.dtype(np.int16): 'int16',
         np.dtype(np.uint16): 'uint16', np.dtype(np.uint32): 'uint32',
         np.dtype(np.uint64): 'uint64'}
BF16 = tf.bfloat16.as_numpy_dtype
RAW = {np.dtype(np.float16): tf.float16, np.dtype(BF16): tf.bfloat16,
       np.dtype(np.complex64): tf.complex64, np.dtype(np.complex128): tf.complex128}


def record(name, kind, shape, payload):
    records.append([name.encode(), kind.encode(), ' '.join(map(str, shape)).encode()] + payload)


def save(name, a):
    a = np.asarray(a)
    if a.dtype.kind in 'SU':
        record(name, 'string', a.shape, [s.encode() for s in a.reshape(-1).tolist()])
    elif a.dtype.kind == 'O':
        record(name, 'string', a.shape, [bytes(s) for s in a.reshape(-1).tolist()])
    elif a.dtype in RAW:
        b = np.ascontiguousarray(a).view(np.uint8).reshape(a.shape + (a.dtype.itemsize,))
        record(name, 'uint8', b.shape, [b.tobytes()])
        save(name + '.dtype', np.int32(RAW[a.dtype].as_datatype_enum))
    else:
        record(name, KINDS[a.dtype], a.shape, [a.astype(a.dtype.newbyteorder('<')).tobytes()])


def message(e):
    m = re.sub(r'^\{\{function_node [^}]*\}\} ', '', str(e))
    return re.sub(r' \[Op:\w+\]( name: .*)?$', '', m, flags=re.S)


count = 0


def case(op, inputs, attrs=None, types=None, run_as=None, outputs=None):
    """inputs: {arg: value} in the op's order; attrs go to TensorFlow and the golden; types
    (dtype attrs TensorFlow infers from the inputs) only to the golden. run_as: the op
    TensorFlow runs when it no longer runs `op` (TopK), with its own arguments."""
    global count
    name = f'c{count:03d}'
    count += 1
    save(f'{name}.op', op)
    flat = [x for v in inputs.values() for x in (v if isinstance(v, list) else [v])]
    for i, x in enumerate(flat):
        save(f'{name}.in{i}', x)
    for k, v in (attrs or {}).items():
        if isinstance(v, tf.DType):
            save(f'{name}.type.{k}', np.int32(v.as_datatype_enum))
        elif isinstance(v, bool):
            save(f'{name}.attr.{k}', np.bool_(v))
        elif isinstance(v, int):
            save(f'{name}.attr.{k}', np.int64(v))
        elif isinstance(v, float):
            save(f'{name}.attr.{k}', np.float32(v))
        elif isinstance(v, str):
            save(f'{name}.attr.{k}', v)
        elif any(isinstance(e, float) for e in v):
            save(f'{name}.attr.{k}', np.asarray(v, np.float32))
        else:
            save(f'{name}.attr.{k}', np.asarray(v, np.int64))
    for k, v in (types or {}).items():
        save(f'{name}.type.{k}', np.int32(v.as_datatype_enum))
    try:
        if run_as is not None:
            y = run_as()
        else:
            # As tensors: raw_ops would convert a NumPy array to a type attr's default.
            tensors = {k: [tf.constant(x) for x in v] if isinstance(v, list) else tf.constant(v)
                       for k, v in inputs.items()}
            y = getattr(tf.raw_ops, op)(**tensors, **(attrs or {}))
    except tf.errors.NotFoundError:
        raise  # a dtype TensorFlow's CPU kernels lack: not a case
    except (tf.errors.OpError, ValueError) as e:
        save(f'{name}.error', message(e))
        save(f'{name}.code', np.int32(getattr(e, 'error_code', 3)))
        return
    ys = y if isinstance(y, (list, tuple)) else [y]
    for i, t in enumerate(ys[:outputs] if outputs else ys):
        save(f'{name}.out{i}', t.numpy())


def values(shape, dt, lo=-9, hi=9):
    dt = np.dtype(dt)
    if dt == bool:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == 'u':
        return rng.integers(0, hi + 1, shape).astype(dt)
    if dt.kind == 'i':
        return rng.integers(lo, hi + 1, shape).astype(dt)
    if dt.kind == 'c':
        return (rng.uniform(lo, hi, shape) + 1j * rng.uniform(lo, hi, shape)).astype(dt)
    return rng.uniform(lo, hi, shape).astype(dt)


i32, i64, f32, f64, f16 = np.int32, np.int64, np.float32, np.float64, np.float16
REAL = [f32, f64, f16, BF16, np.int8, np.int16, i32, i64, np.uint8, np.uint16, np.uint32,
        np.uint64]
ALL = REAL + [bool, np.complex64, np.complex128]

# --- TopK (k an attr; TensorFlow runs it as TopKV2) ------------------------------------------
for dt in REAL:
    x = values((3, 7), dt, -3, 3)  # few distinct values: ties, broken by the lower index
    for k in (0, 1, 3, 7):
        case('TopK', {'input': x}, {'k': k, 'sorted': True},
             run_as=lambda x=x, k=k: tf.raw_ops.TopKV2(input=x, k=k, sorted=True))
x = values((2, 3, 50), f32, -4, 4).round()
for k in (5, 50):
    for s in (True, False):
        case('TopK', {'input': x}, {'k': k, 'sorted': s},
             run_as=lambda x=x, k=k, s=s: tf.raw_ops.TopKV2(input=x, k=k, sorted=s))
x = np.array([1, -np.inf, 3, -np.inf, np.inf, 3], f32)  # (NaN orders are TopKV2's own policy)
case('TopK', {'input': x}, {'k': 4}, run_as=lambda: tf.raw_ops.TopKV2(input=x, k=4))
for x, k in ((values((3,), f32), -1), (values((3,), f32), 4), (np.float32(1), 1)):
    case('TopK', {'input': x}, {'k': k},
         run_as=lambda x=x, k=k: tf.raw_ops.TopKV2(input=x, k=k))

# --- Reverse (bool dims) ----------------------------------------------------------------------
for dt in ALL:
    case('Reverse', {'tensor': values((2, 3, 4), dt), 'dims': np.array([True, False, True])})
x = np.array([['a', 'bc', 'def'], ['g', 'hi', '']])
case('Reverse', {'tensor': x, 'dims': np.array([False, True])})
case('Reverse', {'tensor': values((2, 3), f32), 'dims': np.array([True, True])})
case('Reverse', {'tensor': values((2, 3), f32), 'dims': np.array([False, False])})
case('Reverse', {'tensor': np.float32(2), 'dims': np.zeros((0,), bool)})
case('Reverse', {'tensor': values((2, 3), f32), 'dims': np.array([True, False, True])})
case('Reverse', {'tensor': values((2, 3), f32), 'dims': np.array([[True, False]])})

# --- Roll -------------------------------------------------------------------------------------
x = values((3, 4, 5), i32)
for shift, axis in ((2, 0), (-1, 1), (7, 2), ([1, -2], [0, 2]), ([3, 4], [1, 1]),
                    ([1, 2, 3], [-1, -2, -3]), (0, 1)):
    for ti in (i32, i64):
        case('Roll', {'input': x, 'shift': np.asarray(shift, ti), 'axis': np.asarray(axis, i64)})
for dt in ALL:
    case('Roll', {'input': values((4, 3), dt), 'shift': i32(1), 'axis': i32(0)})
case('Roll', {'input': np.array(['a', 'b', 'c']), 'shift': i32(1), 'axis': i32(0)})
case('Roll', {'input': np.zeros((0, 3), f32), 'shift': i32(1), 'axis': i32(1)})
case('Roll', {'input': x, 'shift': np.array([1, 2], i32), 'axis': i32(0)})
case('Roll', {'input': x, 'shift': i32(1), 'axis': i32(3)})
case('Roll', {'input': x, 'shift': i32(1), 'axis': i32(-4)})
case('Roll', {'input': x, 'shift': np.zeros((1, 1), i32), 'axis': np.zeros((1, 1), i32)})
case('Roll', {'input': np.float32(1), 'shift': i32(1), 'axis': i32(0)})

# --- LinSpace ---------------------------------------------------------------------------------
for dt in (f32, f64):
    for start, stop, num in ((0.1, 7.3, 11), (5, -3, 4), (2, 2, 3), (1.5, 9, 1), (-1, 1, 2),
                             (0, 1, 300)):
        for ti in (i32, i64):
            case('LinSpace', {'start': dt(start), 'stop': dt(stop), 'num': ti(num)})
case('LinSpace', {'start': f32(0), 'stop': f32(1), 'num': i32(0)})
case('LinSpace', {'start': np.zeros(2, f32), 'stop': f32(1), 'num': i32(3)})
case('LinSpace', {'start': f32(0), 'stop': np.zeros(2, f32), 'num': i32(3)})
case('LinSpace', {'start': f32(0), 'stop': f32(1), 'num': np.ones(2, i32)})

# --- InTopK / InTopKV2 ------------------------------------------------------------------------
p = values((5, 6), f32, -2, 2).round()
p[3, 2] = np.nan
p[4, 5] = np.inf
for ti in (i32, i64):
    t = np.array([0, 5, 3, 1, 2], ti)
    for k in (0, 1, 2, 4, 6):
        case('InTopK', {'predictions': p, 'targets': t}, {'k': k}, types={'T': tf.as_dtype(ti)})
        case('InTopKV2', {'predictions': p, 'targets': t, 'k': ti(k)},
             types={'T': tf.as_dtype(ti)})
case('InTopKV2', {'predictions': p, 'targets': np.array([0, 6, -1, 1, 2], i32), 'k': i32(2)},
     types={'T': tf.int32})
case('InTopKV2', {'predictions': p, 'targets': np.array([0, 1], i32), 'k': i32(2)},
     types={'T': tf.int32})
case('InTopKV2', {'predictions': p[0], 'targets': np.array([0], i32), 'k': i32(2)},
     types={'T': tf.int32})
case('InTopKV2', {'predictions': p, 'targets': np.array([0, 1, 2, 3, 4], i32),
                  'k': np.array([1], i32)}, types={'T': tf.int32})

# --- Diag / DiagPart --------------------------------------------------------------------------
for dt in (f32, f64, f16, i32, i64, np.complex64, np.complex128):
    case('Diag', {'diagonal': values((3,), dt)})
    case('Diag', {'diagonal': values((2, 3), dt)})
    case('DiagPart', {'input': values((3, 3), dt)})
    case('DiagPart', {'input': values((2, 3, 2, 3), dt)})
case('Diag', {'diagonal': np.float32(1)})
case('DiagPart', {'input': values((3,), f32)})
case('DiagPart', {'input': values((2, 3), f32)})
case('DiagPart', {'input': np.zeros((0, 0), f32)})

# --- InvertPermutation ------------------------------------------------------------------------
for ti in (i32, i64):
    case('InvertPermutation', {'x': np.array([3, 0, 4, 1, 2], ti)})
    case('InvertPermutation', {'x': np.zeros((0,), ti)})
case('InvertPermutation', {'x': np.array([0, 1, 1], i32)})
case('InvertPermutation', {'x': np.array([0, 3, 1], i32)})
case('InvertPermutation', {'x': np.array([0, -1, 1], i32)})
case('InvertPermutation', {'x': np.array([[0, 1]], i32)})

# --- UnravelIndex -----------------------------------------------------------------------------
for ti in (i32, i64):
    case('UnravelIndex', {'indices': ti(17), 'dims': np.array([3, 4, 5], ti)})
    case('UnravelIndex', {'indices': np.array([0, 5, 59, 22], ti), 'dims': np.array([3, 4, 5], ti)})
    case('UnravelIndex', {'indices': np.array([[1, 2], [3, 4]], ti), 'dims': np.array([7], ti)})
case('UnravelIndex', {'indices': np.array([0, 60], i32), 'dims': np.array([3, 4, 5], i32)})
case('UnravelIndex', {'indices': np.array([-1], i32), 'dims': np.array([3, 4, 5], i32)})
case('UnravelIndex', {'indices': np.array([1], i32), 'dims': np.array([3, 0, 5], i32)})
case('UnravelIndex', {'indices': np.array([1], i32), 'dims': np.array([[3, 4]], i32)})

# --- LowerBound / UpperBound ------------------------------------------------------------------
for dt in REAL:
    s = np.sort(values((2, 9), dt, -4, 4), axis=1)
    v = values((2, 6), dt, -5, 5)
    for op in ('LowerBound', 'UpperBound'):
        case(op, {'sorted_inputs': s, 'values': v}, {'out_type': tf.int32})
for op in ('LowerBound', 'UpperBound'):
    s = np.sort(values((3, 10), f32, -3, 3).round(), axis=1)
    case(op, {'sorted_inputs': s, 'values': values((3, 7), f32, -4, 4).round()},
         {'out_type': tf.int64})
    case(op, {'sorted_inputs': np.zeros((2, 0), f32), 'values': values((2, 3), f32)},
         {'out_type': tf.int32})
    case(op, {'sorted_inputs': s, 'values': values((2, 7), f32)}, {'out_type': tf.int32})
    case(op, {'sorted_inputs': s[0], 'values': values((3, 7), f32)}, {'out_type': tf.int32})

# --- NthElement -------------------------------------------------------------------------------
for dt in REAL:
    x = values((2, 3, 8), dt, -3, 3)
    for n in (0, 3, 7):
        for rev in (False, True):
            case('NthElement', {'input': x, 'n': i32(n)}, {'reverse': rev})
case('NthElement', {'input': values((5,), f32), 'n': i32(-1)})
case('NthElement', {'input': values((5,), f32), 'n': i32(5)})
case('NthElement', {'input': np.float32(3), 'n': i32(0)})
case('NthElement', {'input': values((5,), f32), 'n': np.array([1], i32)})

# --- Cross ------------------------------------------------------------------------------------
for dt in REAL:
    case('Cross', {'a': values((4, 3), dt, -3, 3), 'b': values((4, 3), dt, -3, 3)})
case('Cross', {'a': values((2, 2, 3), f32), 'b': values((2, 2, 3), f32)})
case('Cross', {'a': values((4, 2), f32), 'b': values((4, 2), f32)})
case('Cross', {'a': values((4, 3), f32), 'b': values((2, 3), f32)})

# --- ConjugateTranspose -----------------------------------------------------------------------
for dt in ALL:
    for perm in ([1, 0, 2], [2, 0, 1]):
        case('ConjugateTranspose', {'x': values((2, 3, 4), dt), 'perm': np.array(perm, i32)})
case('ConjugateTranspose', {'x': np.array([['a', 'b', 'c']]), 'perm': np.array([1, 0], i64)})
# (Its bad perms are Transpose's, refused by the same checks as Transpose's.)

# --- Empty (init=True: zeros; init=False: unspecified values, only the shape is compared) -----
for dt in (tf.float32, tf.int64, tf.bool, tf.float16, tf.complex64, tf.uint8):
    case('Empty', {'shape': np.array([2, 3], i32)}, {'dtype': dt, 'init': True})
case('Empty', {'shape': np.array([], i32)}, {'dtype': tf.float32, 'init': True})
case('Empty', {'shape': np.array([4, 0], i64)}, {'dtype': tf.int32, 'init': False})
case('Empty', {'shape': np.array([2, -1], i32)}, {'dtype': tf.float32, 'init': True})
case('Empty', {'shape': np.array([[2]], i32)}, {'dtype': tf.float32, 'init': True})

# --- GuaranteeConst, BiasAddV1 ----------------------------------------------------------------
for dt in (f32, i64, bool):
    case('GuaranteeConst', {'input': values((2, 3), dt)})
case('GuaranteeConst', {'input': np.array(['x', 'yz'])})
for dt in REAL + [np.complex64, np.complex128]:
    case('BiasAddV1', {'value': values((2, 3, 4), dt, -3, 3), 'bias': values((4,), dt, -3, 3)})
case('BiasAddV1', {'value': values((2, 3), f32), 'bias': values((2,), f32)})
case('BiasAddV1', {'value': values((3,), f32), 'bias': values((3,), f32)})
case('BiasAddV1', {'value': values((2, 3), f32), 'bias': values((1, 3), f32)})

# --- DataFormatDimMap / DataFormatVecPermute --------------------------------------------------
for src, dst in (('NHWC', 'NCHW'), ('NCHW', 'NHWC'), ('NHWC', 'NWCH'), ('NDHWC', 'NCDHW'),
                 ('NCDHW', 'NDHWC'), ('NHWC', 'NHWC')):
    r = len(src)
    for ti in (i32, i64):
        case('DataFormatDimMap', {'x': np.arange(-r, r).astype(ti).reshape(2, r)},
             {'src_format': src, 'dst_format': dst})
        case('DataFormatVecPermute', {'x': np.arange(10, 10 + r).astype(ti)},
             {'src_format': src, 'dst_format': dst})
        case('DataFormatVecPermute', {'x': np.arange(2 * r).astype(ti).reshape(r, 2)},
             {'src_format': src, 'dst_format': dst})
        case('DataFormatVecPermute', {'x': np.arange(10, 8 + r).astype(ti)},
             {'src_format': src, 'dst_format': dst})
        case('DataFormatVecPermute', {'x': np.arange(2 * r - 4).astype(ti).reshape(r - 2, 2)},
             {'src_format': src, 'dst_format': dst})
case('DataFormatDimMap', {'x': i32(1)}, {'src_format': 'NHWC', 'dst_format': 'NCDHW'})
case('DataFormatDimMap', {'x': i32(1)}, {'src_format': 'NHC', 'dst_format': 'NCH'})
case('DataFormatDimMap', {'x': i32(1)}, {'src_format': 'NHWC', 'dst_format': 'NCHX'})
case('DataFormatVecPermute', {'x': np.arange(3, dtype=i32)},
     {'src_format': 'NHWC', 'dst_format': 'NCHW'})
case('DataFormatVecPermute', {'x': np.arange(12, dtype=i32).reshape(4, 3)},
     {'src_format': 'NHWC', 'dst_format': 'NCHW'})
case('DataFormatVecPermute', {'x': np.arange(4, dtype=i32)},
     {'src_format': 'NHWC', 'dst_format': 'NCDHW'})

# --- LRN (float32 and float16) ----------------------------------------------------------------
for dt in (f32, f16):
    x = values((2, 3, 2, 9), dt, -2, 2)
    for radius, bias, alpha, beta in ((5, 1.0, 1.0, 0.5), (2, 2.0, 0.3, 0.75), (1, 0.5, 0.1, 1.0),
                                      (0, 1.0, 1e-4, 0.5), (12, 1.5, 0.01, 0.2)):
        case('LRN', {'input': x}, {'depth_radius': radius, 'bias': bias, 'alpha': alpha,
                                   'beta': beta})
case('LRN', {'input': values((3, 9), f32)}, {})
case('LRN', {'input': values((1, 1, 1, 3), f32)}, {'depth_radius': -1})

# --- ExtractImagePatches / ExtractVolumePatches -----------------------------------------------
x = values((1, 6, 7, 2), f32)
for ks, st, ra in (([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1]), ([1, 3, 2, 1], [1, 2, 3, 1],
                                                                 [1, 1, 1, 1]),
                   ([1, 2, 3, 1], [1, 1, 2, 1], [1, 2, 2, 1]), ([1, 1, 1, 1], [1, 3, 3, 1],
                                                                [1, 1, 1, 1]),
                   ([1, 3, 3, 1], [1, 4, 4, 1], [1, 2, 1, 1])):
    for pad in ('VALID', 'SAME'):
        case('ExtractImagePatches', {'images': x},
             {'ksizes': ks, 'strides': st, 'rates': ra, 'padding': pad})
for dt in REAL + [np.complex64, np.complex128]:
    case('ExtractImagePatches', {'images': values((1, 4, 5, 2), dt)},
         {'ksizes': [1, 2, 2, 1], 'strides': [1, 2, 1, 1], 'rates': [1, 1, 2, 1],
          'padding': 'SAME'})
case('ExtractImagePatches', {'images': x},
     {'ksizes': [1, 7, 2, 1], 'strides': [1, 1, 1, 1], 'rates': [1, 1, 1, 1],
      'padding': 'VALID'})
case('ExtractImagePatches', {'images': values((6, 7, 3), f32)},
     {'ksizes': [1, 2, 2, 1], 'strides': [1, 1, 1, 1], 'rates': [1, 1, 1, 1],
      'padding': 'VALID'})
v = values((1, 4, 5, 6, 1), f32)
for ks, st in (([1, 2, 2, 2, 1], [1, 1, 1, 1, 1]), ([1, 3, 2, 4, 1], [1, 2, 3, 2, 1]),
               ([1, 1, 3, 3, 1], [1, 3, 2, 4, 1])):
    for pad in ('VALID', 'SAME'):
        case('ExtractVolumePatches', {'input': v}, {'ksizes': ks, 'strides': st, 'padding': pad})
for dt in REAL:
    case('ExtractVolumePatches', {'input': values((1, 3, 3, 3, 1), dt)},
         {'ksizes': [1, 2, 2, 2, 1], 'strides': [1, 1, 2, 1, 1], 'padding': 'SAME'})

# --- Dilation2D -------------------------------------------------------------------------------
x = values((2, 6, 7, 3), f32)
f = values((2, 3, 3), f32)
for st, ra in (([1, 1, 1, 1], [1, 1, 1, 1]), ([1, 2, 3, 1], [1, 1, 1, 1]),
               ([1, 1, 2, 1], [1, 2, 2, 1]), ([1, 3, 1, 1], [1, 2, 1, 1])):
    for pad in ('VALID', 'SAME'):
        case('Dilation2D', {'input': x, 'filter': f}, {'strides': st, 'rates': ra,
                                                        'padding': pad})
for dt in REAL:
    case('Dilation2D', {'input': values((1, 4, 5, 2), dt, -3, 3),
                        'filter': values((2, 2, 2), dt, -3, 3)},
         {'strides': [1, 1, 1, 1], 'rates': [1, 1, 1, 1], 'padding': 'SAME'})
case('Dilation2D', {'input': x, 'filter': values((2, 3, 2), f32)},
     {'strides': [1, 1, 1, 1], 'rates': [1, 1, 1, 1], 'padding': 'VALID'})
case('Dilation2D', {'input': x, 'filter': values((7, 3, 3), f32)},
     {'strides': [1, 1, 1, 1], 'rates': [1, 1, 1, 1], 'padding': 'VALID'})

# --- MaxPoolWithArgmax ------------------------------------------------------------------------
x = values((2, 5, 6, 2), f32, -3, 3).round()  # ties: the first in row-major order
for ks, st in (([1, 2, 2, 1], [1, 2, 2, 1]), ([1, 3, 3, 1], [1, 1, 1, 1]),
               ([1, 3, 2, 1], [1, 2, 3, 1])):
    for pad in ('VALID', 'SAME'):
        for batch in (False, True):
            for ta in (tf.int64, tf.int32):
                case('MaxPoolWithArgmax', {'input': x},
                     {'ksize': ks, 'strides': st, 'padding': pad, 'Targmax': ta,
                      'include_batch_in_index': batch})
for dt in REAL:
    case('MaxPoolWithArgmax', {'input': values((1, 4, 4, 2), dt, -3, 3)},
         {'ksize': [1, 2, 2, 1], 'strides': [1, 2, 2, 1], 'padding': 'SAME'})
case('MaxPoolWithArgmax', {'input': x},
     {'ksize': [1, 2, 2, 2], 'strides': [1, 2, 2, 1], 'padding': 'VALID'})
case('MaxPoolWithArgmax', {'input': values((5, 6, 3), f32)},
     {'ksize': [1, 2, 2, 1], 'strides': [1, 2, 2, 1], 'padding': 'VALID'})

# --- HistogramFixedWidth ----------------------------------------------------------------------
for dt in (f32, f64, i32, i64):  # the dtypes of TensorFlow's op definition
    xv = values((40,), dt, -12, 12)
    rv = np.array([0, 10] if np.dtype(dt).kind == 'u' else [-8, 8], dt)
    for nbins in (1, 5, 7):
        for odt in (tf.int32, tf.int64):
            case('HistogramFixedWidth', {'values': xv, 'value_range': rv, 'nbins': i32(nbins)},
                 {'dtype': odt})
case('HistogramFixedWidth', {'values': values((3, 4), f32), 'value_range': np.array([-1.5, 2.5],
                                                                                     f32),
                             'nbins': i32(4)}, {'dtype': tf.int32})
case('HistogramFixedWidth', {'values': values((5,), f32), 'value_range': np.array([0, 1], f32),
                             'nbins': i32(0)}, {'dtype': tf.int32})
case('HistogramFixedWidth', {'values': values((5,), f32), 'value_range': np.array([1, 1], f32),
                             'nbins': i32(3)}, {'dtype': tf.int32})
case('HistogramFixedWidth', {'values': values((5,), f32), 'value_range': np.array([0, 1, 2],
                                                                                  f32),
                             'nbins': i32(3)}, {'dtype': tf.int32})

# --- FractionalMaxPool / FractionalAvgPool (deterministic=True with seeds: TensorFlow's regions) --
for op in ('FractionalMaxPool', 'FractionalAvgPool'):
    for shape, ratio in (((2, 10, 9, 1), [1, 1.44, 1.73, 1]), ((1, 7, 12, 2), [1, 1.5, 2.0, 1]),
                         ((1, 23, 11, 1), [1, 2.3, 1.2, 1]), ((1, 8, 8, 1), [1, 2.0, 4.0, 1])):
        x = values(shape, f32)
        for pseudo in (False, True):
            for overlap in (False, True):
                for seed, seed2 in ((7, 9), (0, 5)) if overlap else ((123, 0),):
                    case(op, {'value': x}, {'pooling_ratio': ratio, 'pseudo_random': pseudo,
                                            'overlapping': overlap, 'deterministic': True,
                                            'seed': seed, 'seed2': seed2})
    for dt in (f64, i32, i64):
        case(op, {'value': values((1, 9, 7, 2), dt)},
             {'pooling_ratio': [1, 1.6, 1.3, 1], 'pseudo_random': True, 'overlapping': True,
              'deterministic': True, 'seed': 11, 'seed2': 3})
    x = values((1, 7, 9, 1), f32)
    for ratio in ([1, 0.5, 1.5, 1], [1, 10, 1.5, 1], [2, 1.5, 1.5, 1]):
        case(op, {'value': x}, {'pooling_ratio': ratio, 'deterministic': True, 'seed': 1,
                                'seed2': 1})
    case(op, {'value': x}, {'pooling_ratio': [1, 1.5, 1.5, 1], 'seed': 1, 'seed2': 1})
    case(op, {'value': x[0]}, {'pooling_ratio': [1, 1.5, 1.5, 1], 'deterministic': True,
                               'seed': 1, 'seed2': 1})

# --- InplaceAdd / InplaceSub / InplaceUpdate --------------------------------------------------
for op in ('InplaceUpdate', 'InplaceAdd', 'InplaceSub'):
    for dt in (f32, f64, i32, i64, f16):
        case(op, {'x': values((5, 3), dt), 'i': np.array([3, 0], i32), 'v': values((2, 3), dt)})
    case(op, {'x': values((4, 2, 2), f32), 'i': np.array([1, 1, 2], i32),
              'v': values((3, 2, 2), f32)})
    case(op, {'x': values((4,), f32), 'i': np.array([2], i32), 'v': values((1,), f32)})
    # TensorFlow takes i modulo x.shape[0].
    case(op, {'x': values((4, 3), f32), 'i': np.array([4, -1, 9], i32), 'v': values((3, 3), f32)})
    case(op, {'x': values((4, 3), f32), 'i': np.array([1], i32), 'v': values((2, 3), f32)})
    case(op, {'x': values((4, 3), f32), 'i': np.array([1], i32), 'v': values((1, 2), f32)})
    case(op, {'x': values((4, 3), f32), 'i': np.array([[1]], i32), 'v': values((1, 3), f32)})
for dt in (bool, np.uint8, np.int8, BF16, np.complex64):
    case('InplaceUpdate', {'x': values((3, 2), dt), 'i': np.array([2], i32),
                           'v': values((1, 2), dt)})

# --- ParallelConcat ---------------------------------------------------------------------------
for dt in (f32, i64, bool):
    vs = [values((1, 3), dt) for _ in range(4)]
    case('ParallelConcat', {'values': vs}, {'shape': [4, 3]})
case('ParallelConcat', {'values': [values((1, 2, 2), f32)]}, {'shape': [1, 2, 2]})
case('ParallelConcat', {'values': [values((2, 3), f32), values((2, 3), f32)]}, {'shape': [4, 3]})

# --- TensorScatterMax / Min / Sub -------------------------------------------------------------
for op in ('TensorScatterMax', 'TensorScatterMin', 'TensorScatterSub'):
    for dt in REAL:
        for ti in (i32, i64):
            case(op, {'tensor': values((4, 3), dt, -5, 5),
                      'indices': np.array([[2], [0], [2]], ti),
                      'updates': values((3, 3), dt, -5, 5)})
    case(op, {'tensor': values((3, 4), f32), 'indices': np.array([[0, 1], [2, 3], [0, 1]], i32),
              'updates': values((3,), f32)})
    case(op, {'tensor': values((3, 4), f32), 'indices': np.array([[0, 4]], i32),
              'updates': values((1,), f32)})
for dt in (np.complex64, np.complex128):
    case('TensorScatterSub', {'tensor': values((3, 2), dt), 'indices': np.array([[1], [1]], i32),
                              'updates': values((2, 2), dt)})

# --- TensorStridedSliceUpdate -----------------------------------------------------------------
x = values((5, 6, 4), f32)
SPECS = [  # begin, end, strides, masks
    ([1, 0, 0], [4, 6, 4], [1, 2, 1], {}),
    ([4, 5, 3], [0, 0, 0], [-1, -2, -3], {}),
    ([1, 0, 0], [0, 0, 0], [1, 1, 1], {'begin_mask': 6, 'end_mask': 7}),
    ([2, 0, 0], [3, 0, 0], [1, 1, 1], {'shrink_axis_mask': 1, 'end_mask': 6}),
    ([0, 1], [0, 5], [1, 2], {'ellipsis_mask': 1}),
    ([0, 1, 0], [3, 4, 2], [2, 1, 1], {'new_axis_mask': 2}),
    ([-3, -1, 0], [-1, -7, 4], [1, -1, 2], {}),
    ([0, 0, 1], [0, 0, 2], [1, 1, 1], {'begin_mask': 3, 'end_mask': 3, 'shrink_axis_mask': 4}),
]
for b, e, s, m in SPECS:
    sl = tf.raw_ops.StridedSlice(input=x, begin=np.array(b, i32), end=np.array(e, i32),
                                 strides=np.array(s, i32), **m)
    for ti in (i32, i64):
        case('TensorStridedSliceUpdate', {'input': x, 'begin': np.array(b, ti),
                                          'end': np.array(e, ti), 'strides': np.array(s, ti),
                                          'value': values(sl.shape, f32)}, m)
for dt in ALL:
    case('TensorStridedSliceUpdate', {'input': values((4, 3), dt), 'begin': np.array([1], i32),
                                      'end': np.array([3], i32), 'strides': np.array([1], i32),
                                      'value': values((2, 3), dt)})
case('TensorStridedSliceUpdate', {'input': np.array(['a', 'b', 'c']), 'begin': np.array([1], i32),
                                  'end': np.array([3], i32), 'strides': np.array([1], i32),
                                  'value': np.array(['x', 'y'])})
case('TensorStridedSliceUpdate', {'input': x, 'begin': np.array([1], i32),
                                  'end': np.array([3], i32), 'strides': np.array([1], i32),
                                  'value': values((1, 6, 4), f32)})
case('TensorStridedSliceUpdate', {'input': x, 'begin': np.array([1], i32),
                                  'end': np.array([3], i32), 'strides': np.array([0], i32),
                                  'value': values((2, 6, 4), f32)})
case('TensorStridedSliceUpdate', {'input': x, 'begin': np.array([1], i32),
                                  'end': np.array([3], i32), 'strides': np.array([1], i32),
                                  'value': np.float32(7)})
case('TensorStridedSliceUpdate', {'input': x, 'begin': np.array([1], i32),
                                  'end': np.array([3], i32), 'strides': np.array([1], i32),
                                  'value': values((3, 4), f32)})

# --- Fingerprint ------------------------------------------------------------------------------
for dt in (f32, i64, np.uint8, bool, f16, i32, np.complex64):
    case('Fingerprint', {'data': values((3, 4), dt), 'method': 'farmhash64'})
case('Fingerprint', {'data': values((2, 3, 2), i32), 'method': 'farmhash64'})
case('Fingerprint', {'data': values((4,), f64), 'method': 'farmhash64'})
case('Fingerprint', {'data': np.zeros((0, 3), f32), 'method': 'farmhash64'})
case('Fingerprint', {'data': np.zeros((2, 0), f32), 'method': 'farmhash64'})
case('Fingerprint', {'data': np.array(['', 'a', 'hello world', 'x' * 100]),
                     'method': 'farmhash64'})
case('Fingerprint', {'data': np.array([['a', 'bc'], ['d', ''], ['', '']]),
                     'method': 'farmhash64'})
case('Fingerprint', {'data': np.array([[['a'], ['bc']], [['d'], ['e']]]),
                     'method': 'farmhash64'})
case('Fingerprint', {'data': values((3,), f32), 'method': 'md5'})
case('Fingerprint', {'data': np.float32(3), 'method': 'farmhash64'})
case('Fingerprint', {'data': values((3,), f32), 'method': np.array(['farmhash64'])})

with open(f'{out}/array_extra.rec', 'wb') as fh:
    for rec in records:
        for field in rec:
            fh.write(struct.pack('<I', len(field)) + field)
print(count, 'cases,', os.path.getsize(f'{out}/array_extra.rec'), 'bytes')
