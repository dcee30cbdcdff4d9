// The audio ops of tf.audio and the speech-commands front end: DecodeWav and EncodeWav
// (16-bit PCM WAV bytes to float samples [samples, channels] and back), AudioSpectrogram
// ([samples, channels] to [channels, frames, 1 + fft_length / 2]) and Mfcc (a spectrogram to
// [channels, frames, dct_coefficient_count]).
#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status CheckRank(const InferenceContext& ctx, int input, int rank, const char* name) {
  const PartialShape& s = ctx.input(input).shape;
  if (s.known_rank && s.rank() != rank) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "Shape must be rank ", rank, " but is rank ", s.rank(), " for ", name)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> IntAttr(const InferenceContext& ctx, const char* name, int64_t fallback) {
  absl::StatusOr<int64_t> v = ctx.attrs().GetOr<int64_t>(name, fallback);
  if (!v.ok()) return AtNode(ctx, v.status());
  return *v;
}

absl::Status InferDecodeWav(InferenceContext& ctx) {
  if (absl::Status s = CheckRank(ctx, 0, 0, "contents"); !s.ok()) return s;
  absl::StatusOr<int64_t> channels = IntAttr(ctx, "desired_channels", -1);
  if (!channels.ok()) return channels.status();
  absl::StatusOr<int64_t> samples = IntAttr(ctx, "desired_samples", -1);
  if (!samples.ok()) return samples.status();
  // Values below -1 are the kernel's to refuse, with TensorFlow's message.
  ctx.set_output(
      0, ValueInfo{DataType::kFloat, PartialShape::Known({std::max<int64_t>(*samples, -1),
                                                          std::max<int64_t>(*channels, -1)})});
  ctx.set_output(1, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::Status InferEncodeWav(InferenceContext& ctx) {
  if (absl::Status s = CheckRank(ctx, 0, 2, "audio"); !s.ok()) return s;
  if (absl::Status s = CheckRank(ctx, 1, 0, "sample_rate"); !s.ok()) return s;
  ctx.set_output(0, ValueInfo{DataType::kString, PartialShape::Known({})});
  return absl::OkStatus();
}

// TensorFlow's NextPowerOfTwo: the smallest power of two >= n (n itself when it is one).
int64_t NextPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

absl::Status InferSpectrogram(InferenceContext& ctx) {
  if (absl::Status s = CheckRank(ctx, 0, 2, "input"); !s.ok()) return s;
  absl::StatusOr<int64_t> window = IntAttr(ctx, "window_size", 0);
  if (!window.ok()) return window.status();
  absl::StatusOr<int64_t> stride = IntAttr(ctx, "stride", 0);
  if (!stride.ok()) return stride.status();
  const PartialShape& in = ctx.input(0).shape;
  int64_t frames = -1;
  int64_t channels = -1;
  if (in.known_rank) {
    channels = in.dims[1];
    if (in.dims[0] >= 0 && *stride > 0) {
      frames = in.dims[0] < *window ? 0 : 1 + (in.dims[0] - *window) / *stride;
    }
  }
  const int64_t width = *window > 1 ? 1 + NextPowerOfTwo(*window) / 2 : -1;
  ctx.set_output(0, ValueInfo{DataType::kFloat, PartialShape::Known({channels, frames, width})});
  return absl::OkStatus();
}

absl::Status InferMfcc(InferenceContext& ctx) {
  if (absl::Status s = CheckRank(ctx, 0, 3, "spectrogram"); !s.ok()) return s;
  if (absl::Status s = CheckRank(ctx, 1, 0, "sample_rate"); !s.ok()) return s;
  absl::StatusOr<int64_t> dct = IntAttr(ctx, "dct_coefficient_count", 13);
  if (!dct.ok()) return dct.status();
  const PartialShape& in = ctx.input(0).shape;
  const int64_t channels = in.known_rank ? in.dims[0] : -1;
  const int64_t frames = in.known_rank ? in.dims[1] : -1;
  ctx.set_output(0, ValueInfo{DataType::kFloat, PartialShape::Known({channels, frames, *dct})});
  return absl::OkStatus();
}

}  // namespace

void RegisterAudioOps(OpRegistry& r) {
  r.AddOp({"DecodeWav",
           {{"desired_channels", int64_t{-1}}, {"desired_samples", int64_t{-1}}},
           InferDecodeWav,
           [](const AttrMap&, int) -> absl::StatusOr<int> { return 2; }});
  r.AddOp({"EncodeWav", {}, InferEncodeWav});
  r.AddOp({"AudioSpectrogram", {{"magnitude_squared", false}}, InferSpectrogram});
  r.AddOp({"Mfcc",
           {{"upper_frequency_limit", 4000.0f},
            {"lower_frequency_limit", 20.0f},
            {"filterbank_channel_count", int64_t{40}},
            {"dct_coefficient_count", int64_t{13}}},
           InferMfcc});
}

}  // namespace smrt::ops
