"""An audio front end as a user would export it (issue 35): waveform -> tf.signal.stft (RFFT on
Hann-windowed frames) -> |.| -> mel filterbank -> log -> a small dense layer, with signatures
that return the complex STFT itself and a waveform rebuilt by tf.signal.inverse_stft (IRFFT and
overlap-add)."""

import numpy as np

from zoo.common import Case, ZooModel, rng_for, seed_everything

FRAME_LENGTH, FRAME_STEP, FFT_LENGTH = 256, 128, 256


def _audio_mel_module(export_dir):
    import tensorflow as tf

    seed_everything("audio_mel_stft")
    rng = rng_for("audio_mel_stft/weights")

    class MelClassifier(tf.Module):
        def __init__(self):
            super().__init__()
            self.mel = tf.signal.linear_to_mel_weight_matrix(
                num_mel_bins=32, num_spectrogram_bins=FFT_LENGTH // 2 + 1, sample_rate=8000,
                lower_edge_hertz=40.0, upper_edge_hertz=3800.0)
            self.w = tf.Variable(rng.standard_normal((32, 4)).astype(np.float32) * 0.1, name="w")
            self.b = tf.Variable(rng.standard_normal((4,)).astype(np.float32) * 0.1, name="b")

        def _stft(self, waveform):
            return tf.signal.stft(waveform, frame_length=FRAME_LENGTH, frame_step=FRAME_STEP,
                                  fft_length=FFT_LENGTH, window_fn=tf.signal.hann_window)

        @tf.function(input_signature=[tf.TensorSpec([None, 4000], tf.float32, name="waveform")])
        def classify(self, waveform):
            magnitude = tf.abs(self._stft(waveform))
            log_mel = tf.math.log(tf.matmul(magnitude, self.mel) + 1e-6)
            logits = tf.reduce_mean(log_mel, axis=1) @ self.w + self.b
            return {"log_mel": log_mel, "logits": logits}

        @tf.function(input_signature=[tf.TensorSpec([None, 4000], tf.float32, name="waveform")])
        def spectrum(self, waveform):
            return {"stft": self._stft(waveform)}

        @tf.function(input_signature=[tf.TensorSpec([None, 4000], tf.float32, name="waveform")])
        def reconstruct(self, waveform):
            stft = self._stft(waveform)
            rebuilt = tf.signal.inverse_stft(
                stft, frame_length=FRAME_LENGTH, frame_step=FRAME_STEP, fft_length=FFT_LENGTH,
                window_fn=tf.signal.inverse_stft_window_fn(FRAME_STEP))
            return {"waveform": rebuilt, "irfft": tf.signal.irfft(stft[:, :2], [FFT_LENGTH])}

    m = MelClassifier()
    tf.saved_model.save(m, export_dir, signatures={"serving_default": m.classify,
                                                   "spectrum": m.spectrum,
                                                   "reconstruct": m.reconstruct})
    rng = rng_for("audio_mel_stft/inputs")
    t = np.arange(4000) / 8000.0

    def wave(b):
        tones = [np.sin(2 * np.pi * (200 + 300 * i) * t) for i in range(b)]
        return (np.stack(tones) + 0.1 * rng.standard_normal((b, 4000))).astype(np.float32)

    return [Case("b2", "serving_default", {"waveform": wave(2)}),
            Case("spectrum_b1", "spectrum", {"waveform": wave(1)}),
            Case("reconstruct_b1", "reconstruct", {"waveform": wave(1)})]


def models():
    return [
        ZooModel("audio_mel_stft", _audio_mel_module, commit=True, exporter="tf.saved_model.save",
                 note="tf.signal.stft/inverse_stft: RFFT, IRFFT, ComplexAbs, complex outputs"),
    ]
