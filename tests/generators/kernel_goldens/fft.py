"""Goldens for the FFT ops, the complex ops and complex values in the element-wise and
data-movement ops (issue 35).

Run from the repo root with the TensorFlow venv:
    .venv-peers/bin/python -P tests/generators/kernel_goldens/fft.py
Writes tests/data/kernels/fft/*.npy (complex arrays as '<c8' / '<c16') and messages.txt (one
"case<TAB>message" per line: TensorFlow's error text, its "{{function_node ...}} " prefix and
" [Op:...]" suffix cut). Every expected output comes from tf.raw_ops.<Op>; the tests are
tests/kernels/{fft,complex}_ops_test.cc.
"""
import os
import re
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402



class _RawOps:
    """tf.raw_ops with NumPy arguments made constants of their own dtype first (a raw op would
    convert them to its attrs' default dtype: float64 to float32)."""

    def __getattr__(self, op):
        fn = getattr(tf.raw_ops, op)

        def call(**kwargs):
            def const(v):
                if isinstance(v, np.ndarray):
                    return tf.constant(v)
                if isinstance(v, list) and v and isinstance(v[0], np.ndarray):
                    return [tf.constant(e) for e in v]
                return v
            return fn(**{k: const(v) for k, v in kwargs.items()})
        return call


R = _RawOps()
OUT = os.path.join(_HERE, "..", "..", "data", "kernels", "fft")
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(35)


def save(name, a):
    a = a.numpy() if hasattr(a, "numpy") else np.asarray(a)
    np.save(os.path.join(OUT, f"{name}.npy"), a)


def real(shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def cplx(shape, dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


# --- FFT ops -------------------------------------------------------------------------------
# Real forward: fft_length equal to, and shorter than (the input is cut), the inner dims.
x = real((3, 512))
save("rfft_x512", x)
save("rfft_x512_512", R.RFFT(input=x, fft_length=[512]))
xd = real((2, 10), np.float64)
save("rfft_xd", xd)
for n in (10, 7, 8, 1):
    save(f"rfft_xd_{n}", R.RFFT(input=xd, fft_length=[n], Tcomplex=tf.complex128))
x12 = real((2, 12))  # non-power-of-two length (Bluestein in Eigen)
save("rfft_x12", x12)
save("rfft_x12_12", R.RFFT(input=x12, fft_length=[12]))
save("rfft_x12_9", R.RFFT(input=x12, fft_length=[9]))

# Real inverse: the inner dim is cut to n/2+1, the imaginary parts of the DC (and, n even, the
# Nyquist) terms are ignored; odd and even n.
s = cplx((3, 257))
save("irfft_s257", s)
save("irfft_s257_512", R.IRFFT(input=s, fft_length=[512]))
sd = cplx((2, 6), np.complex128)
save("irfft_sd", sd)
for n in (10, 11, 9, 6, 2, 1):
    save(f"irfft_sd_{n}", R.IRFFT(input=sd, fft_length=[n], Treal=tf.float64))

# Complex to complex.
c = cplx((2, 16))
save("fft_c16", c)
save("fft_c16_fwd", R.FFT(input=c))
save("fft_c16_inv", R.IFFT(input=c))
cd = cplx((3, 5), np.complex128)
save("fft_cd5", cd)
save("fft_cd5_fwd", R.FFT(input=cd))
save("fft_cd5_inv", R.IFFT(input=cd))

# 2-D and 3-D.
x2 = real((2, 6, 8))
save("rfft2d_x", x2)
save("rfft2d_x_4_6", R.RFFT2D(input=x2, fft_length=[4, 6]))
save("rfft2d_x_6_8", R.RFFT2D(input=x2, fft_length=[6, 8]))
s2 = cplx((2, 5, 6))
save("irfft2d_s", s2)
save("irfft2d_s_4_8", R.IRFFT2D(input=s2, fft_length=[4, 8]))
save("irfft2d_s_5_9", R.IRFFT2D(input=s2, fft_length=[5, 9]))
c2 = cplx((2, 4, 6))
save("fft2d_c", c2)
save("fft2d_c_fwd", R.FFT2D(input=c2))
save("fft2d_c_inv", R.IFFT2D(input=c2))
x3 = real((2, 3, 4, 5), np.float64)
save("rfft3d_x", x3)
save("rfft3d_x_3_4_4", R.RFFT3D(input=x3, fft_length=[3, 4, 4], Tcomplex=tf.complex128))
s3 = cplx((3, 4, 3))
save("irfft3d_s", s3)
save("irfft3d_s_3_4_4", R.IRFFT3D(input=s3, fft_length=[3, 4, 4]))
c3 = cplx((2, 3, 4))
save("fft3d_c", c3)
save("fft3d_c_fwd", R.FFT3D(input=c3))
save("fft3d_c_inv", R.IFFT3D(input=c3))

# A spectrogram as tf.signal computes it: |stft| of float32 frames of 512 (hann window).
wave = real((2, 4096)) * 0.3
save("stft_wave", wave)
save("stft_mag", tf.abs(tf.signal.stft(wave, frame_length=512, frame_step=256, fft_length=512)))

# --- Complex ops ---------------------------------------------------------------------------
re_ = real((2, 3))
im_ = real((3,))
save("complex_re", re_)
save("complex_im", im_)
save("complex_c64", R.Complex(real=re_, imag=im_, Tout=tf.complex64))
save("complex_c128",
     R.Complex(real=re_.astype(np.float64), imag=im_.astype(np.float64), Tout=tf.complex128))
z = cplx((2, 5))
z[0, 0] = 0
z[0, 1] = -3 + 0j
z[0, 2] = -0.0 - 2j
z[1, 0] = complex(np.inf, 1)
zd = cplx((4,), np.complex128)
save("z64", z)
save("z128", zd)
for name, v in (("z64", z), ("z128", zd)):
    rt = tf.float32 if v.dtype == np.complex64 else tf.float64
    save(f"{name}_real", R.Real(input=v, Tout=rt))
    save(f"{name}_imag", R.Imag(input=v, Tout=rt))
    save(f"{name}_abs", R.ComplexAbs(x=v, Tout=rt))
    save(f"{name}_angle", R.Angle(input=v, Tout=rt))
    save(f"{name}_conj", R.Conj(input=v))

# --- Complex values in element-wise ops ----------------------------------------------------
a = cplx((2, 3))
b = cplx((3,))
b[1] = 0.5 - 0.25j
save("ew_a", a)
save("ew_b", b)
for op in ("Mul", "AddV2", "Add", "Sub", "RealDiv", "Div"):
    save(f"ew_{op}", getattr(R, op)(x=a, y=b))
for op in ("Mul", "AddV2", "Sub", "RealDiv"):
    save(f"ew_{op}_128", getattr(R, op)(x=a.astype(np.complex128), y=b.astype(np.complex128)))
for op in ("Neg", "Exp", "Square"):
    save(f"ew_{op}", getattr(R, op)(x=a))
    save(f"ew_{op}_128", getattr(R, op)(x=a.astype(np.complex128)))

# Cast: float -> complex sets the real part, complex -> float takes it.
f = np.array([1.5, -2.25, 3e38, np.nan, -0.0], np.float32)
save("cast_f", f)
save("cast_f_c64", R.Cast(x=f, DstT=tf.complex64))
save("cast_f_c128", R.Cast(x=f, DstT=tf.complex128))
save("cast_i_c64", R.Cast(x=np.array([3, -7, 2**31 - 1], np.int32), DstT=tf.complex64))
zc = np.array([1.5 + 2j, -2.75 - 1j, 7e38 + 0j, 1e-3 - 9j], np.complex128)
save("cast_z", zc)
save("cast_z_f32", R.Cast(x=zc, DstT=tf.float32))
save("cast_z_f64", R.Cast(x=zc, DstT=tf.float64))
save("cast_z_c64", R.Cast(x=zc, DstT=tf.complex64))
save("cast_z_i32", R.Cast(x=zc[:2], DstT=tf.int32))
save("cast_z64_c128", R.Cast(x=zc[[0, 1, 3]].astype(np.complex64), DstT=tf.complex128))

# Data movement.
m = cplx((2, 3, 4))
save("mv_x", m)
save("mv_reshape", R.Reshape(tensor=m, shape=[4, 6]))
save("mv_transpose", R.Transpose(x=m, perm=[2, 0, 1]))
save("mv_concat", R.ConcatV2(values=[m, m[:, :1]], axis=1))
save("mv_pack", R.Pack(values=[m, m], axis=1))
save("mv_slice", R.Slice(input=m, begin=[0, 1, 1], size=[2, 2, 3]))
save("mv_strided", R.StridedSlice(input=m, begin=[0, 2, 3], end=[2, 0, 0], strides=[1, -1, -2]))
save("mv_expand", R.ExpandDims(input=m, axis=-1))
save("mv_squeeze", R.Squeeze(input=m[:, :1], axis=[1]))
save("mv_gather", R.GatherV2(params=m, indices=[2, 0, 2], axis=2))
save("mv_pad", R.Pad(input=m, paddings=[[0, 1], [1, 0], [0, 2]]))
save("mv_tile", R.Tile(input=m, multiples=[1, 2, 1]))
save("mv_reverse", R.ReverseV2(tensor=m, axis=[2]))


def message(fn):
    try:
        fn()
    except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError) as e:
        text = str(e).split("\n")[0]
        text = re.sub(r"^\{\{function_node [^}]*\}\} ", "", text)
        return re.sub(r" \[Op:\w+\]( name: .*)?$", "", text)
    raise AssertionError("no error")


messages = {
    "rfft_short": lambda: R.RFFT(input=np.zeros((2, 5), np.float32), fft_length=[8]),
    "irfft_short": lambda: R.IRFFT(input=np.zeros((2, 4), np.complex64), fft_length=[8]),
    "rfft2d_short": lambda: R.RFFT2D(input=np.zeros((3, 8), np.float32), fft_length=[4, 4]),
    "rfft_length_shape": lambda: R.RFFT(input=np.zeros((2, 8), np.float32), fft_length=[4, 4]),
    "rfft_negative": lambda: R.RFFT(input=np.zeros((2, 8), np.float32), fft_length=[-2]),
    "fft2d_rank": lambda: R.FFT2D(input=np.zeros((4,), np.complex64)),
}
with open(os.path.join(OUT, "messages.txt"), "w") as out:
    for name, fn in messages.items():
        out.write(f"{name}\t{message(fn)}\n")
