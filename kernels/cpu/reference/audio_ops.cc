// DecodeWav, EncodeWav, AudioSpectrogram and Mfcc as TensorFlow computes them (wav_io.cc,
// spectrogram.cc, mfcc*.cc): the speech-commands serving path.
//
// The WAV reader takes untrusted bytes: every read is bounds-checked against the string,
// in 64-bit offsets, with TensorFlow's checks in its order and its messages. One
// difference: where TensorFlow's int offset would wrap past 2^31 (a chunk size near 2^32)
// and read from an earlier position, this reader says the data is too short, so no input
// can send it round in circles.
//
// The spectrogram is TensorFlow's: a periodic Hann window in double, each frame zero-padded
// to the next power of two and transformed in double (here by a radix-2 FFT with exact
// twiddles instead of Ooura's rdft: the same sums, rounded differently in the last double
// bits), squared magnitudes rounded to float. Mfcc follows TensorFlow's mel filterbank
// (HTK-style mel scale, DC excluded, triangles over square-rooted power) and its DCT-II in
// double, including its quirk that a filterbank whose upper limit lies beyond the spectrum
// gives all-zero coefficients.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/registry.h"
#include "ops/shape_text.h"

namespace smrt::kernels {
namespace {

using ops::TfShapeText;

// ---- WAV ----

// Reads fixed-size fields of a WAV string at an offset, TensorFlow's way.
class WavReader {
 public:
  explicit WavReader(const std::string& data) : data_(data) {}

  int64_t offset() const { return offset_; }
  void Skip(int64_t n) { offset_ += n; }
  bool AtEnd() const { return offset_ >= static_cast<int64_t>(data_.size()); }

  // Moves on by n bytes; the new offset must lie within the data.
  absl::Status Advance(int64_t n) {
    if (offset_ > static_cast<int64_t>(data_.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("Initial offset is outside data range: ", offset_));
    }
    if (n > static_cast<int64_t>(data_.size()) - offset_) {
      return absl::InvalidArgumentError("Data too short when trying to read string");
    }
    offset_ += n;
    return absl::OkStatus();
  }

  absl::Status String(int64_t n, std::string* out) {
    const int64_t at = offset_;
    if (absl::Status s = Advance(n); !s.ok()) return s;
    out->assign(data_, static_cast<size_t>(at), static_cast<size_t>(n));
    return absl::OkStatus();
  }

  absl::Status Expect(const char* text) {
    std::string found;
    if (absl::Status s = String(static_cast<int64_t>(std::strlen(text)), &found); !s.ok()) {
      return s;
    }
    if (found != text) {
      return absl::InvalidArgumentError(
          absl::StrCat("Header mismatch: Expected ", text, " but found ", found));
    }
    return absl::OkStatus();
  }

  // A little-endian unsigned field of `bytes` bytes.
  template <typename T>
  absl::Status Value(T* out) {
    const int64_t at = offset_;
    if (absl::Status s = Advance(sizeof(T)); !s.ok()) return s;
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
      v |= static_cast<uint64_t>(static_cast<unsigned char>(data_[at + i])) << (8 * i);
    }
    *out = static_cast<T>(v);
    return absl::OkStatus();
  }

 private:
  const std::string& data_;
  int64_t offset_ = 0;
};

struct Wav {
  std::vector<float> samples;  // frames * channels, interleaved
  uint32_t frames = 0;
  uint16_t channels = 0;
  uint32_t sample_rate = 0;
};

// TensorFlow's DecodeLin16WaveAsFloatVector.
absl::Status ParseWav(const std::string& bytes, Wav* wav) {
  WavReader r(bytes);
  if (absl::Status s = r.Expect("RIFF"); !s.ok()) return s;
  uint32_t riff_size = 0;
  if (absl::Status s = r.Value(&riff_size); !s.ok()) return s;
  if (absl::Status s = r.Expect("WAVE"); !s.ok()) return s;
  std::string id;
  if (absl::Status s = r.String(4, &id); !s.ok()) return s;
  // Chunks TensorFlow skips between "WAVE" and "fmt " (padding, broadcast WAV tags).
  while (id != "fmt ") {
    if (id != "JUNK" && id != "bext" && id != "iXML" && id != "qlty" && id != "mext" &&
        id != "levl" && id != "link" && id != "axml") {
      return absl::InvalidArgumentError(absl::StrCat("Unexpected field ", id));
    }
    uint32_t size = 0;
    if (absl::Status s = r.Value(&size); !s.ok()) return s;
    if (absl::Status s = r.Advance(size); !s.ok()) return s;
    if (absl::Status s = r.String(4, &id); !s.ok()) return s;
  }
  uint32_t format_size = 0;
  if (absl::Status s = r.Value(&format_size); !s.ok()) return s;
  if (format_size != 16 && format_size != 18) {
    return absl::InvalidArgumentError(
        absl::StrCat("Bad format chunk size for WAV: Expected 16 or 18, but got", format_size));
  }
  uint16_t format = 0;
  if (absl::Status s = r.Value(&format); !s.ok()) return s;
  if (format != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Bad audio format for WAV: Expected 1 (PCM), but got", format));
  }
  if (absl::Status s = r.Value(&wav->channels); !s.ok()) return s;
  if (wav->channels < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Bad number of channels for WAV: Expected at least 1, but got ", wav->channels));
  }
  if (absl::Status s = r.Value(&wav->sample_rate); !s.ok()) return s;
  uint32_t bytes_per_second = 0;
  if (absl::Status s = r.Value(&bytes_per_second); !s.ok()) return s;
  uint16_t bytes_per_frame = 0;
  if (absl::Status s = r.Value(&bytes_per_frame); !s.ok()) return s;
  uint16_t bits = 0;
  if (absl::Status s = r.Value(&bits); !s.ok()) return s;
  if (bits != 16) {
    return absl::InvalidArgumentError(
        absl::StrCat("Can only read 16-bit WAV files, but received ", bits));
  }
  const uint32_t want_frame = (uint32_t{bits} * wav->channels + 7) / 8;
  if (bytes_per_frame != want_frame) {
    return absl::InvalidArgumentError(absl::StrCat("Bad bytes per sample in WAV header: Expected ",
                                                   want_frame, " but got ", bytes_per_frame));
  }
  const uint32_t want_second = uint32_t{bytes_per_frame} * wav->sample_rate;  // wraps as TF's
  if (bytes_per_second != want_second) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Bad bytes per second in WAV header: Expected ", want_second, " but got ", bytes_per_second,
        " (sample_rate=", wav->sample_rate, ", bytes_per_sample=", bytes_per_frame, ")"));
  }
  if (format_size == 18) r.Skip(2);  // unchecked, as in TensorFlow: the loop below stops
  bool found_data = false;
  while (!r.AtEnd()) {
    if (absl::Status s = r.String(4, &id); !s.ok()) return s;
    uint32_t size = 0;
    if (absl::Status s = r.Value(&size); !s.ok()) return s;
    if (size > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
      return absl::InvalidArgumentError(
          absl::StrCat("WAV data chunk '", id, "' is too large: ", size,
                       " bytes, but the limit is ", std::numeric_limits<int32_t>::max()));
    }
    if (id != "data") {
      r.Skip(size);
      continue;
    }
    if (found_data) return absl::InvalidArgumentError("More than one data chunk found in WAV");
    found_data = true;
    wav->frames = size / bytes_per_frame;
    const int64_t count = int64_t{wav->frames} * wav->channels;
    // The samples must be there before any memory is taken for them.
    const int64_t start = r.offset();
    if (absl::Status s = r.Advance(2 * count); !s.ok()) return s;
    wav->samples.resize(static_cast<size_t>(count));
    const unsigned char* p = reinterpret_cast<const unsigned char*>(bytes.data()) + start;
    for (int64_t i = 0; i < count; ++i) {
      const int16_t v = static_cast<int16_t>(static_cast<uint16_t>(p[2 * i] | (p[2 * i + 1] << 8)));
      wav->samples[i] = v * (1.0f / 32768);
    }
  }
  if (!found_data) return absl::InvalidArgumentError("No data chunk found in WAV");
  return absl::OkStatus();
}

absl::Status ComputeDecodeWav(KernelContext& ctx) {
  const Tensor& contents = ctx.input(0);
  if (contents.dtype() != DataType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("DecodeWav takes a string, got ", DataTypeName(contents.dtype())));
  }
  absl::StatusOr<int64_t> want_channels = ctx.attrs().GetOr<int64_t>("desired_channels", -1);
  if (!want_channels.ok()) return want_channels.status();
  absl::StatusOr<int64_t> want_frames = ctx.attrs().GetOr<int64_t>("desired_samples", -1);
  if (!want_frames.ok()) return want_frames.status();
  if (*want_channels < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("desired_channels must be >= -1, got ", *want_channels));
  }
  if (*want_frames < -1) {
    return absl::InvalidArgumentError(
        absl::StrCat("desired_samples must be >= -1, got ", *want_frames));
  }
  if (contents.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("contents must be scalar, got shape ", TfShapeText(contents.shape())));
  }
  const std::string& bytes = contents.data<std::string>()[0];
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::InvalidArgumentError(
        absl::StrCat("WAV contents are too large for int: ", bytes.size()));
  }
  Wav wav;
  if (absl::Status s = ParseWav(bytes, &wav); !s.ok()) return s;
  const int64_t frames = *want_frames == -1 ? int64_t{wav.frames} : *want_frames;
  const int64_t channels = *want_channels == -1 ? int64_t{wav.channels} : *want_channels;
  absl::StatusOr<Tensor*> audio =
      ctx.allocate_output_for_overwrite(0, DataType::kFloat, {frames, channels});
  if (!audio.ok()) return audio.status();
  float* out = (*audio)->data<float>();
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t from = std::min<int64_t>(c, wav.channels - 1);
      out[f * channels + c] = f < wav.frames ? wav.samples[f * wav.channels + from] : 0.0f;
    }
  }
  absl::StatusOr<Tensor*> rate = ctx.allocate_output(1, DataType::kInt32, {});
  if (!rate.ok()) return rate.status();
  (*rate)->data<int32_t>()[0] = static_cast<int32_t>(wav.sample_rate);
  return absl::OkStatus();
}

// TensorFlow's FloatToInt16Sample: x * 2^15 rounded half away from zero, clamped; NaN is 0
// (what TensorFlow's float-to-int16 conversion gives on x86).
int16_t ToSample(float x) {
  if (std::isnan(x)) return 0;
  const float v = std::round(x * 32768.0f);
  return static_cast<int16_t>(std::min(std::max(v, -32768.0f), 32767.0f));
}

void PutLe(std::string& out, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

absl::Status ComputeEncodeWav(KernelContext& ctx) {
  const Tensor& audio = ctx.input(0);
  const Tensor& rate_t = ctx.input(1);
  if (audio.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("audio must be 2-dimensional", TfShapeText(audio.shape())));
  }
  if (rate_t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input sample_rate should be a scalar tensor, got ",
                     TfShapeText(rate_t.shape()), " instead."));
  }
  if (audio.dtype() != DataType::kFloat || rate_t.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError("EncodeWav takes float audio and an int32 sample_rate");
  }
  if (audio.num_elements() >= std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError("Cannot encode audio with >= max int32 elements");
  }
  // TensorFlow passes the int32 rate as a size_t: a negative one prints as 2^64 - |rate|.
  const uint64_t rate = static_cast<uint64_t>(static_cast<int64_t>(rate_t.data<int32_t>()[0]));
  const uint64_t frames = static_cast<uint64_t>(audio.dim(0));
  const uint64_t channels = static_cast<uint64_t>(audio.dim(1));
  if (rate == 0 || rate > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample_rate must be in (0, 2^32), got: ", rate));
  }
  if (channels == 0 || channels > std::numeric_limits<uint16_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_channels must be in (0, 2^16), got: ", channels));
  }
  constexpr uint64_t kHeader = 44;
  const uint64_t samples = frames * channels;
  const uint64_t file_size = kHeader + 2 * samples;
  if (file_size > std::numeric_limits<uint32_t>::max()) {
    return absl::InvalidArgumentError("Provided channels and frames cannot be encoded as a WAV.");
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DataType::kString, {});
  if (!out.ok()) return out.status();
  std::string& wav = (*out)->data<std::string>()[0];
  wav.assign(static_cast<size_t>(file_size), '\0');
  std::memcpy(&wav[0], "RIFF", 4);
  PutLe(wav, 4, file_size - 8, 4);
  std::memcpy(&wav[8], "WAVEfmt ", 8);
  PutLe(wav, 16, 16, 4);  // format chunk size
  PutLe(wav, 20, 1, 2);   // PCM
  PutLe(wav, 22, channels, 2);
  PutLe(wav, 24, rate, 4);
  PutLe(wav, 28, rate * 2 * channels, 4);  // bytes per second
  PutLe(wav, 32, 2 * channels, 2);         // bytes per frame
  PutLe(wav, 34, 16, 2);                   // bits per sample
  std::memcpy(&wav[36], "data", 4);
  PutLe(wav, 40, 2 * samples, 4);
  const float* x = audio.data<float>();
  for (uint64_t i = 0; i < samples; ++i) {
    PutLe(wav, kHeader + 2 * i, static_cast<uint16_t>(ToSample(x[i])), 2);
  }
  return absl::OkStatus();
}

// ---- Spectrogram ----

// In-place forward DFT of a power-of-two length: X[k] = sum x[j] e^{-2 pi i jk/n}.
void Fft(std::vector<std::complex<double>>& a) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const double pi = std::atan(1.0) * 4;
  std::vector<std::complex<double>> twiddle(n / 2);
  for (size_t k = 0; k < n / 2; ++k) {
    twiddle[k] = std::polar(1.0, -2 * pi * static_cast<double>(k) / static_cast<double>(n));
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t step = n / len;
    for (size_t i = 0; i < n; i += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> u = a[i + k];
        const std::complex<double> v = a[i + k + len / 2] * twiddle[k * step];
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
    }
  }
}

absl::Status ComputeSpectrogram(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  absl::StatusOr<int64_t> window = ctx.attrs().GetOr<int64_t>("window_size", 0);
  if (!window.ok()) return window.status();
  absl::StatusOr<int64_t> stride = ctx.attrs().GetOr<int64_t>("stride", 0);
  if (!stride.ok()) return stride.status();
  absl::StatusOr<bool> squared = ctx.attrs().GetOr<bool>("magnitude_squared", false);
  if (!squared.ok()) return squared.status();
  if (input.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 2-dimensional", TfShapeText(input.shape())));
  }
  if (input.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat("AudioSpectrogram takes float, got ", DataTypeName(input.dtype())));
  }
  if (*window < 2 || *stride < 1 || *window > (int64_t{1} << 30)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Spectrogram initialization failed for window size ", *window, " and stride ", *stride));
  }
  int64_t fft_length = 1;
  while (fft_length < *window) fft_length <<= 1;
  const int64_t width = 1 + fft_length / 2;
  const int64_t samples = input.dim(0);
  const int64_t channels = input.dim(1);
  const int64_t frames = samples < *window ? 0 : 1 + (samples - *window) / *stride;
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, DataType::kFloat, {channels, frames, width});
  if (!out.ok()) return out.status();
  const double pi = std::atan(1.0) * 4;
  std::vector<double> hann(static_cast<size_t>(*window));
  for (int64_t i = 0; i < *window; ++i) {
    hann[i] =
        0.5 - 0.5 * std::cos((2 * pi * static_cast<double>(i)) / static_cast<double>(*window));
  }
  const float* x = input.data<float>();
  float* y = (*out)->data<float>();
  std::vector<std::complex<double>> buf(static_cast<size_t>(fft_length));
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t f = 0; f < frames; ++f) {
      const int64_t start = f * *stride;
      for (int64_t j = 0; j < fft_length; ++j) {
        buf[j] = j < *window ? static_cast<double>(x[(start + j) * channels + c]) * hann[j] : 0.0;
      }
      Fft(buf);
      float* row = y + (c * frames + f) * width;
      for (int64_t k = 0; k < width; ++k) {
        const double re = buf[k].real();
        const double im = buf[k].imag();
        const float power = static_cast<float>(re * re + im * im);
        row[k] = *squared ? power : std::sqrt(power);
      }
    }
  }
  return absl::OkStatus();
}

// ---- MFCC ----

double FreqToMel(double freq) { return 1127.0 * std::log1p(freq / 700.0); }

// TensorFlow's MfccMelFilterbank and MfccDct, set up for one spectrogram width.
class Mfcc {
 public:
  // False where TensorFlow's Initialize fails.
  bool Init(int64_t bins, double rate, int64_t channels, double lower, double upper,
            int64_t coefficients) {
    channels_ = channels;
    if (channels < 1 || rate <= 0 || bins < 2 || lower < 0 || upper <= lower) return false;
    if (coefficients < 1 || coefficients > channels) return false;
    centers_.resize(channels + 1);
    const double mel_low = FreqToMel(lower);
    const double spacing = (FreqToMel(upper) - mel_low) / static_cast<double>(channels + 1);
    for (int64_t i = 0; i <= channels; ++i) {
      centers_[i] = mel_low + spacing * static_cast<double>(i + 1);
    }
    const double hz_per_bin = 0.5 * rate / static_cast<double>(bins - 1);
    start_ = static_cast<int64_t>(1.5 + lower / hz_per_bin);
    end_ = static_cast<int64_t>(upper / hz_per_bin);
    band_.assign(bins, -2);
    weights_.assign(bins, 0.0);
    int64_t channel = 0;
    for (int64_t i = 0; i < bins; ++i) {
      if (i < start_ || i > end_) continue;
      const double mel = FreqToMel(static_cast<double>(i) * hz_per_bin);
      while (channel < channels && centers_[channel] < mel) ++channel;
      band_[i] = channel - 1;
      weights_[i] = band_[i] >= 0 ? (centers_[band_[i] + 1] - mel) /
                                        (centers_[band_[i] + 1] - centers_[band_[i]])
                                  : (centers_[0] - mel) / (centers_[0] - mel_low);
    }
    const double pi = std::atan(1.0) * 4;
    const double norm = std::sqrt(2.0 / static_cast<double>(channels));
    const double arg = pi / static_cast<double>(channels);
    cosines_.assign(coefficients, std::vector<double>(channels));
    for (int64_t i = 0; i < coefficients; ++i) {
      for (int64_t j = 0; j < channels; ++j) {
        cosines_[i][j] =
            norm * std::cos(static_cast<double>(i) * arg * (static_cast<double>(j) + 0.5));
      }
    }
    return true;
  }

  void Compute(const float* frame, int64_t bins, float* out) {
    std::vector<double> mel;
    // TensorFlow's filterbank leaves its output empty when the spectrogram ends before
    // the upper limit; the DCT of nothing is zeros.
    if (bins > end_) {
      mel.assign(channels_, 0.0);
      for (int64_t i = start_; i <= end_; ++i) {
        const double value = std::sqrt(static_cast<double>(frame[i]));
        const double weighted = value * weights_[i];
        const int64_t channel = band_[i];
        if (channel >= 0) mel[channel] += weighted;
        if (channel + 1 < channels_) mel[channel + 1] += value - weighted;
      }
      for (double& v : mel) v = std::log(std::max(v, 1e-12));
    }
    for (size_t i = 0; i < cosines_.size(); ++i) {
      double sum = 0.0;
      for (size_t j = 0; j < mel.size(); ++j) sum += cosines_[i][j] * mel[j];
      out[i] = static_cast<float>(sum);
    }
  }

 private:
  int64_t channels_ = 0;
  int64_t start_ = 0;
  int64_t end_ = 0;
  std::vector<double> centers_;
  std::vector<int64_t> band_;
  std::vector<double> weights_;
  std::vector<std::vector<double>> cosines_;
};

absl::Status ComputeMfcc(KernelContext& ctx) {
  const Tensor& spec = ctx.input(0);
  const Tensor& rate_t = ctx.input(1);
  absl::StatusOr<float> upper = ctx.attrs().GetOr<float>("upper_frequency_limit", 4000.0f);
  if (!upper.ok()) return upper.status();
  absl::StatusOr<float> lower = ctx.attrs().GetOr<float>("lower_frequency_limit", 20.0f);
  if (!lower.ok()) return lower.status();
  absl::StatusOr<int64_t> channels = ctx.attrs().GetOr<int64_t>("filterbank_channel_count", 40);
  if (!channels.ok()) return channels.status();
  absl::StatusOr<int64_t> coefficients = ctx.attrs().GetOr<int64_t>("dct_coefficient_count", 13);
  if (!coefficients.ok()) return coefficients.status();
  if (spec.rank() != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("spectrogram must be 3-dimensional", TfShapeText(spec.shape())));
  }
  if (rate_t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input sample_rate should be a scalar tensor, got ",
                     TfShapeText(rate_t.shape()), " instead."));
  }
  if (spec.dtype() != DataType::kFloat || rate_t.dtype() != DataType::kInt32) {
    return absl::InvalidArgumentError("Mfcc takes a float spectrogram and an int32 sample_rate");
  }
  const int32_t rate = rate_t.data<int32_t>()[0];
  const int64_t bins = spec.dim(2);
  const int64_t frames = spec.dim(1);
  const int64_t audio_channels = spec.dim(0);
  Mfcc mfcc;
  if (*channels > (int64_t{1} << 24) ||
      !mfcc.Init(bins, rate, *channels, *lower, *upper, *coefficients)) {
    return absl::InvalidArgumentError(absl::StrCat("Mfcc initialization failed for channel count ",
                                                   bins, ", sample rate ", rate,
                                                   " and filterbank_channel_count ", *channels));
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(
      0, DataType::kFloat, {audio_channels, frames, *coefficients});
  if (!out.ok()) return out.status();
  for (int64_t i = 0; i < audio_channels * frames; ++i) {
    mfcc.Compute(spec.data<float>() + i * bins, bins, (*out)->data<float>() + i * *coefficients);
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterAudioOps(KernelRegistry& r) {
  r.AddKernel({"DecodeWav", kCpu, "", {}, ComputeDecodeWav});
  r.AddKernel({"EncodeWav", kCpu, "", {}, ComputeEncodeWav});
  r.AddKernel({"AudioSpectrogram", kCpu, "", {}, ComputeSpectrogram});
  r.AddKernel({"Mfcc", kCpu, "", {}, ComputeMfcc});
}

}  // namespace smrt::kernels
