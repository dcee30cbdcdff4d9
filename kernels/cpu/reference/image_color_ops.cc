// RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue and AdjustSaturation as
// TensorFlow's CPU kernels compute them, operation for operation in the
// element type (so half and bfloat16 round after every step, as Eigen's do),
// with AdjustContrastv2's mean summed in TensorFlow's order (halving folds), so
// that results agree with TensorFlow's bit for bit, not just approximately.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// A shape as TensorFlow's messages print it: "[2,4]".
std::string TfShape(const Shape& s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

template <typename T>
struct Tag {
  using type = T;
};

// fn(Tag<T>{}) for the floating dtypes.
template <typename Fn>
absl::Status VisitFloat(DataType dtype, absl::string_view op, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat:
      return fn(Tag<float>{});
    case DataType::kDouble:
      return fn(Tag<double>{});
    case DataType::kHalf:
      return fn(Tag<Eigen::half>{});
    case DataType::kBFloat16:
      return fn(Tag<Eigen::bfloat16>{});
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat(op, " does not support tensors of type ", DataTypeName(dtype)));
}

// ----- RGBToHSV, HSVToRGB (colorspace_op.h)

// Both ops: rank >= 1 and 3 channels, as TensorFlow checks them.
absl::Status CheckColorspace(const Tensor& images) {
  if (images.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be at least 1D", TfShape(images.shape())));
  }
  if (images.dim(images.rank() - 1) != 3) {
    return absl::FailedPreconditionError(
        absl::StrCat("input must have 3 channels but input only has ",
                     images.dim(images.rank() - 1), " channels."));
  }
  return absl::OkStatus();
}

template <typename T>
void RgbToHsv(const T* in, int64_t pixels, T* out) {
  const T zero(0.0f), one(1.0f), six(6.0f);
  const T sixth = one / six, two_sixths = T(2.0f) / six, four_sixths = T(4.0f) / six;
  for (int64_t i = 0; i < pixels; ++i, in += 3, out += 3) {
    const T r = in[0], g = in[1], b = in[2];
    const T v = Eigen::numext::maxi(Eigen::numext::maxi(r, g), b);
    const T range = v - Eigen::numext::mini(Eigen::numext::mini(r, g), b);
    const T s = v > zero ? range / v : zero;
    const T norm = (one / range) * sixth;
    T h = r == v ? norm * (g - b)
                 : (g == v ? norm * (b - r) + two_sixths : norm * (r - g) + four_sixths);
    if (!(range > zero)) h = zero;
    if (h < zero) h = h + one;
    out[0] = h;
    out[1] = s;
    out[2] = v;
  }
}

template <typename T>
T Clamp01(T x) {
  return Eigen::numext::mini(Eigen::numext::maxi(x, T(0.0f)), T(1.0f));
}

template <typename T>
void HsvToRgb(const T* in, int64_t pixels, T* out) {
  const T one(1.0f), two(2.0f), three(3.0f), four(4.0f), six(6.0f);
  for (int64_t i = 0; i < pixels; ++i, in += 3, out += 3) {
    const T h = in[0], s = in[1], v = in[2];
    const T dh = h * six;
    const T dr = Clamp01(T(Eigen::numext::abs(T(dh - three)) - one));
    const T dg = Clamp01(T(-Eigen::numext::abs(T(dh - two)) + two));
    const T db = Clamp01(T(-Eigen::numext::abs(T(dh - four)) + two));
    const T one_s = -s + one;
    out[0] = (one_s + s * dr) * v;
    out[1] = (one_s + s * dg) * v;
    out[2] = (one_s + s * db) * v;
  }
}

template <bool kToHsv>
absl::Status ComputeColorspace(KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  if (absl::Status s = CheckColorspace(images); !s.ok()) return s;
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, images.dtype(), images.shape());
  if (!out.ok()) return out.status();
  const int64_t pixels = images.num_elements() / 3;
  Tensor* result = *out;
  return VisitFloat(images.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kToHsv) {
      RgbToHsv(images.data<T>(), pixels, result->data<T>());
    } else {
      HsvToRgb(images.data<T>(), pixels, result->data<T>());
    }
    return absl::OkStatus();
  });
}

// ----- AdjustContrastv2, AdjustHue, AdjustSaturation (float32, as TensorFlow's CPU kernels)

// The checks the three ops share: rank >= 3, a scalar float second input
// (named `scalar` in messages), and 3 channels for hue and saturation.
absl::StatusOr<float> CheckAdjust(const KernelContext& ctx, absl::string_view scalar,
                                  bool three_channels) {
  const Tensor& images = ctx.input(0);
  const Tensor& factor = ctx.input(1);
  if (images.rank() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be at least 3-D, got shape", TfShape(images.shape())));
  }
  if (factor.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(scalar, " must be scalar: ", TfShape(factor.shape())));
  }
  const int64_t channels = images.dim(images.rank() - 1);
  if (three_channels && channels != 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must have 3 channels but instead has ", channels, " channels."));
  }
  if (images.dtype() != DataType::kFloat || factor.dtype() != DataType::kFloat) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.op(), " takes float32 images and a float32 ", scalar, " on the CPU, got ",
                     DataTypeName(images.dtype()), " and ", DataTypeName(factor.dtype())));
  }
  return factor.data<float>()[0];
}

// TensorFlow's AdjustContrastOpv2<CPUDevice, float>: per image and channel,
// the mean (summed by folding the image in halves, as there), then
// mean + factor * (x - mean).
absl::Status ComputeAdjustContrast(KernelContext& ctx) {
  absl::StatusOr<float> factor = CheckAdjust(ctx, "contrast_factor", false);
  if (!factor.ok()) return factor.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, images.dtype(), images.shape());
  if (!out.ok()) return out.status();
  const int r = images.rank();
  const int64_t image_size = images.dim(r - 3) * images.dim(r - 2);
  const int64_t channels = images.dim(r - 1);
  const int64_t plane = image_size * channels;
  if (images.num_elements() == 0) return absl::OkStatus();
  const int64_t batch = images.num_elements() / plane;
  const float mean_scaling = 1.0f / static_cast<float>(image_size);
  const float* in = images.data<float>();
  float* dst = (*out)->data<float>();
  for (int64_t b = 0; b < batch; ++b, in += plane, dst += plane) {
    // dst is the summation scratch, as TensorFlow uses its output.
    int64_t remaining = image_size;
    bool first = true;
    do {
      const int64_t right = remaining / 2;
      const int64_t left = remaining - right;
      if (first) {
        for (int64_t j = 0; j < right * channels; ++j) dst[j] = in[left * channels + j] + in[j];
        if (left > right) {
          std::copy_n(in + right * channels, channels, dst + right * channels);
        }
        first = false;
      } else {
        for (int64_t j = 0; j < right * channels; ++j) dst[j] += dst[left * channels + j];
      }
      remaining = left;
    } while (remaining > 1);
    std::vector<float> mean(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) mean[c] = dst[c] * mean_scaling;
    for (int64_t p = 0; p < image_size; ++p) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t i = p * channels + c;
        dst[i] = mean[c] + *factor * (in[i] - mean[c]);
      }
    }
  }
  return absl::OkStatus();
}

// TensorFlow's rgb_to_hv_range (adjust_hue_op.cc): hue in [0, 6) and the
// value range.
void RgbToHvRange(float r, float g, float b, float* h, float* v_min, float* v_max) {
  float v_mid;
  int h_category;
  if (r < g) {
    if (b < r) {
      *v_max = g, v_mid = r, *v_min = b, h_category = 1;
    } else if (b > g) {
      *v_max = b, v_mid = g, *v_min = r, h_category = 3;
    } else {
      *v_max = g, v_mid = b, *v_min = r, h_category = 2;
    }
  } else {
    if (b < g) {
      *v_max = r, v_mid = g, *v_min = b, h_category = 0;
    } else if (b > r) {
      *v_max = b, v_mid = r, *v_min = g, h_category = 4;
    } else {
      *v_max = r, v_mid = b, *v_min = g, h_category = 5;
    }
  }
  if (*v_max == *v_min) {
    *h = 0;
    return;
  }
  const float ratio = (v_mid - *v_min) / (*v_max - *v_min);
  const bool increase = (h_category & 1) == 0;
  *h = static_cast<float>(h_category) + (increase ? ratio : (1 - ratio));
}

void HvRangeToRgb(float h, float v_min, float v_max, float* rgb) {
  const int h_category = static_cast<int>(h);
  float ratio = h - static_cast<float>(h_category);
  if ((h_category & 1) != 0) ratio = 1 - ratio;
  const float v_mid = v_min + ratio * (v_max - v_min);
  switch (h_category) {
    case 0:
      rgb[0] = v_max, rgb[1] = v_mid, rgb[2] = v_min;
      break;
    case 1:
      rgb[0] = v_mid, rgb[1] = v_max, rgb[2] = v_min;
      break;
    case 2:
      rgb[0] = v_min, rgb[1] = v_max, rgb[2] = v_mid;
      break;
    case 3:
      rgb[0] = v_min, rgb[1] = v_mid, rgb[2] = v_max;
      break;
    case 4:
      rgb[0] = v_mid, rgb[1] = v_min, rgb[2] = v_max;
      break;
    default:
      rgb[0] = v_max, rgb[1] = v_min, rgb[2] = v_mid;
      break;
  }
}

absl::Status ComputeAdjustHue(KernelContext& ctx) {
  absl::StatusOr<float> delta = CheckAdjust(ctx, "delta", true);
  if (!delta.ok()) return delta.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, images.dtype(), images.shape());
  if (!out.ok()) return out.status();
  const float* p = images.data<float>();
  float* q = (*out)->data<float>();
  constexpr float kRange = 6;
  const float shift = *delta * kRange;
  for (int64_t i = 0; i < images.num_elements() / 3; ++i, p += 3, q += 3) {
    float h, v_min, v_max;
    RgbToHvRange(p[0], p[1], p[2], &h, &v_min, &v_max);
    h += shift;
    while (h < 0) h += kRange;
    while (h >= kRange) h -= kRange;
    HvRangeToRgb(h, v_min, v_max, q);
  }
  return absl::OkStatus();
}

// TensorFlow's rgb_to_hsv and hsv_to_rgb of adjust_saturation_op.cc (not
// RGBToHSV's formulas: the hue offsets are added in double there).
void RgbToHsvF(float r, float g, float b, float* h, float* s, float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  if (r == vv) {
    hh = norm * (g - b);
  } else if (g == vv) {
    hh = static_cast<float>(static_cast<double>(norm * (b - r)) + 2.0 / 6.0);
  } else {
    hh = static_cast<float>(static_cast<double>(norm * (r - g)) + 4.0 / 6.0);
  }
  if (range <= 0.0) hh = 0;
  if (hh < 0.0) hh = hh + 1;
  *v = vv;
  *h = hh;
}

void HsvToRgbF(float h, float s, float v, float* rgb) {
  const float c = s * v;
  const float m = v - c;
  const float dh = h * 6;
  const int h_category = static_cast<int>(dh);
  float fmodu = dh;
  while (fmodu <= 0) fmodu += 2.0f;
  while (fmodu >= 2.0f) fmodu -= 2.0f;
  const float x = c * (1 - std::abs(fmodu - 1));
  float rr = 0, gg = 0, bb = 0;
  switch (h_category) {
    case 0:
      rr = c, gg = x;
      break;
    case 1:
      rr = x, gg = c;
      break;
    case 2:
      gg = c, bb = x;
      break;
    case 3:
      gg = x, bb = c;
      break;
    case 4:
      rr = x, bb = c;
      break;
    case 5:
      rr = c, bb = x;
      break;
    default:
      break;
  }
  rgb[0] = rr + m;
  rgb[1] = gg + m;
  rgb[2] = bb + m;
}

absl::Status ComputeAdjustSaturation(KernelContext& ctx) {
  absl::StatusOr<float> scale = CheckAdjust(ctx, "scale", true);
  if (!scale.ok()) return scale.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, images.dtype(), images.shape());
  if (!out.ok()) return out.status();
  const float* p = images.data<float>();
  float* q = (*out)->data<float>();
  for (int64_t i = 0; i < images.num_elements() / 3; ++i, p += 3, q += 3) {
    float h, s, v;
    RgbToHsvF(p[0], p[1], p[2], &h, &s, &v);
    s = std::min(1.0f, std::max(0.0f, s * *scale));
    HsvToRgbF(h, s, v, q);
  }
  return absl::OkStatus();
}

std::vector<DataType> FloatTypes() {
  return {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16};
}

}  // namespace

void RegisterImageColorOps(KernelRegistry& r) {
  r.AddKernel({"RGBToHSV", kCpu, "T", FloatTypes(), ComputeColorspace<true>});
  r.AddKernel({"HSVToRGB", kCpu, "T", FloatTypes(), ComputeColorspace<false>});
  r.AddKernel({"AdjustContrastv2", kCpu, "T", {DataType::kFloat}, ComputeAdjustContrast});
  r.AddKernel({"AdjustHue", kCpu, "T", {DataType::kFloat}, ComputeAdjustHue});
  r.AddKernel({"AdjustSaturation", kCpu, "T", {DataType::kFloat}, ComputeAdjustSaturation});
}

}  // namespace smrt::kernels
