"""The speech-commands serving path as a user would export it (issue 35): WAV bytes ->
tf.audio.decode_wav (DecodeWav, desired channels and samples) -> AudioSpectrogram -> Mfcc -> a
tiny dense head, as TensorFlow's speech_commands example freezes it; and a signature that
re-encodes float audio with tf.audio.encode_wav (EncodeWav) and decodes it again."""

import io
import wave

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything

SAMPLES, RATE, WINDOW, STRIDE, COEFFS = 8000, 16000, 480, 160, 13
FRAMES = 1 + (SAMPLES - WINDOW) // STRIDE


def _wav_bytes(samples, rate):
    """16-bit PCM WAV bytes of int16 samples [frames, channels], as Python's wave module writes."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return buf.getvalue()


def _speech_mfcc(export_dir):
    import tensorflow as tf

    seed_everything("speech_commands_mfcc")
    rng = rng_for("speech_commands_mfcc/weights")

    class SpeechFrontEnd(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(rng.standard_normal((FRAMES * COEFFS, 4)).astype(np.float32) * 0.01,
                                 name="w")
            self.b = tf.Variable(rng.standard_normal((4,)).astype(np.float32) * 0.1, name="b")

        @tf.function(input_signature=[tf.TensorSpec([], tf.string, name="wav_data")])
        def classify(self, wav_data):
            audio, rate = tf.audio.decode_wav(wav_data, desired_channels=1,
                                              desired_samples=SAMPLES)
            spectrogram = tf.raw_ops.AudioSpectrogram(input=audio, window_size=WINDOW,
                                                      stride=STRIDE, magnitude_squared=True)
            mfcc = tf.raw_ops.Mfcc(spectrogram=spectrogram, sample_rate=rate,
                                   dct_coefficient_count=COEFFS)
            logits = tf.reshape(mfcc, [1, FRAMES * COEFFS]) @ self.w + self.b
            return {"mfcc": mfcc, "probabilities": tf.nn.softmax(logits), "sample_rate": rate}

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="audio")])
        def reencode(self, audio):
            wav = tf.audio.encode_wav(audio, RATE)
            decoded, _ = tf.audio.decode_wav(wav)
            return {"wav": wav, "decoded": decoded}

    m = SpeechFrontEnd()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.classify,
                                                   "reencode": m.reencode})
    rng = rng_for("speech_commands_mfcc/inputs")
    t = np.arange(SAMPLES) / RATE
    word = (0.6 * np.sin(2 * np.pi * 300 * t * (1 + t)) * np.exp(-((t - 0.25) / 0.1) ** 2)
            + 0.02 * rng.standard_normal(SAMPLES))
    mono = np.round(word * 32767)[:, None]
    stereo = np.round(rng.uniform(-0.3, 0.3, (5000, 2)) * 32767)
    return [Case("word", "serving_default", {"wav_data": np.bytes_(_wav_bytes(mono, RATE))}),
            Case("stereo_short", "serving_default",
                 {"wav_data": np.bytes_(_wav_bytes(stereo, 8000))}),
            Case("reencode", "reencode",
                 {"audio": rng.uniform(-1.1, 1.1, (300, 2)).astype(np.float32)})]


def models():
    return [
        ZooModel("speech_commands_mfcc", _speech_mfcc, commit=True,
                 exporter="tf.saved_model.save",
                 note="DecodeWav, AudioSpectrogram, Mfcc, EncodeWav: the speech-commands path"),
    ]
