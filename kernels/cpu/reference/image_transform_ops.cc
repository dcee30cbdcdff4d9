// ResizeArea, ScaleAndTranslate and ImageProjectiveTransformV2/V3 on NHWC
// images, as TensorFlow's CPU kernels compute them: the same float32 steps in
// the same order (area weights per cell; ScaleAndTranslate's spans of
// normalised kernel weights, applied to rows then columns; the projective
// generator's coordinate mapping and blends), so results agree with
// TensorFlow's to the last bit or close to it.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/resize_util.h"

namespace smrt::kernels {
namespace {

// A shape as TensorFlow's messages print it: "[2,4]".
std::string TfShape(const Shape& s) { return absl::StrCat("[", absl::StrJoin(s, ","), "]"); }

int64_t Bound(int64_t v, int64_t limit) { return std::min(limit - 1, std::max(int64_t{0}, v)); }

// ----- ResizeArea (resize_area_op.cc)

// The share of the input cells [v, v + 1) that the output cell [in0, in1)
// covers, in TensorFlow's float arithmetic.
float AreaScale(int64_t v, float in0, float in1, float scale) {
  const float lo = static_cast<float>(v);
  const float hi = static_cast<float>(v + 1);
  if (lo < in0) return hi > in1 ? scale : hi - in0;
  return hi > in1 ? in1 - lo : 1.0f;
}

struct AreaSpan {
  int64_t start = 0, end = 0;
  float start_scale = 0, end_minus_one_scale = 0;
};

template <typename T>
void ResizeAreaImpl(const T* in, const ResizeGeometry& g, float* out) {
  std::vector<AreaSpan> xs(static_cast<size_t>(g.out_w));
  for (int64_t x = 0; x < g.out_w; ++x) {
    const float in_x = static_cast<float>(x) * g.width_scale;
    const float in_x1 = static_cast<float>(x + 1) * g.width_scale;
    xs[x].start = static_cast<int64_t>(std::floor(in_x));
    xs[x].start_scale = AreaScale(xs[x].start, in_x, in_x1, g.width_scale);
    xs[x].end = static_cast<int64_t>(std::ceil(in_x1));
    xs[x].end_minus_one_scale = AreaScale(xs[x].end - 1, in_x, in_x1, g.width_scale);
  }
  const float scale = static_cast<float>(1.0 / static_cast<double>(g.height_scale * g.width_scale));
  const int64_t c_n = g.channels;
  std::vector<float> y_scales;
  std::vector<const T*> y_ptrs;
  for (int64_t b = 0; b < g.batch; ++b) {
    const T* image = in + b * g.in_h * g.in_w * c_n;
    for (int64_t y = 0; y < g.out_h; ++y) {
      const float in_y = static_cast<float>(y) * g.height_scale;
      const float in_y1 = static_cast<float>(y + 1) * g.height_scale;
      const int64_t y_start = static_cast<int64_t>(std::floor(in_y));
      const int64_t y_end = static_cast<int64_t>(std::ceil(in_y1));
      y_scales.clear();
      y_ptrs.clear();
      for (int64_t i = y_start; i < y_end; ++i) {
        y_scales.push_back(AreaScale(i, in_y, in_y1, g.height_scale));
        y_ptrs.push_back(image + Bound(i, g.in_h) * g.in_w * c_n);
      }
      for (int64_t x = 0; x < g.out_w; ++x) {
        const AreaSpan& s = xs[x];
        for (int64_t c = 0; c < c_n; ++c) {
          float sum = 0;
          for (size_t i = 0; i < y_ptrs.size(); ++i) {
            const T* row = y_ptrs[i];
            float sum_y = static_cast<float>(row[c_n * Bound(s.start, g.in_w) + c]) * s.start_scale;
            if (s.start + 1 != s.end) {
              for (int64_t xi = s.start + 1; xi < s.end - 1; ++xi) {
                sum_y += static_cast<float>(row[c_n * Bound(xi, g.in_w) + c]);
              }
              sum_y += static_cast<float>(row[c_n * Bound(s.end - 1, g.in_w) + c]) *
                       s.end_minus_one_scale;
            }
            sum += sum_y * y_scales[i];
          }
          *out++ = sum * scale;
        }
      }
    }
  }
}

absl::Status ComputeResizeArea(KernelContext& ctx) {
  absl::StatusOr<ResizeGeometry> g = MakeResizeGeometry(ctx);
  if (!g.ok()) return g.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(
      0, DataType::kFloat, {g->batch, g->out_h, g->out_w, g->channels});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  float* dst = (*out)->data<float>();
  return misc::VisitRealType(images.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ResizeAreaImpl<T>(images.data<T>(), *g, dst);
    return absl::OkStatus();
  });
}

// ----- ScaleAndTranslate (scale_and_translate_op.cc, sampling_kernels.h)

struct SamplingKernel {
  std::function<float(float)> fn;
  float radius = 0;
};

float Lanczos(float radius, float x) {
  constexpr float kPi = 3.14159265359f;
  x = std::abs(x);
  if (x > radius) return 0.0f;
  if (x <= 1e-3) return 1.0f;  // the limit of sin(x) / x at 0
  return radius * std::sin(kPi * x) * std::sin(kPi * x / radius) / (kPi * kPi * x * x);
}

// TensorFlow's SamplingKernelTypeFromString and Create*Kernel.
absl::StatusOr<SamplingKernel> MakeSamplingKernel(const std::string& type) {
  if (type == "lanczos1") return SamplingKernel{[](float x) { return Lanczos(1.0f, x); }, 1.0f};
  if (type == "lanczos3") return SamplingKernel{[](float x) { return Lanczos(3.0f, x); }, 3.0f};
  if (type == "lanczos5") return SamplingKernel{[](float x) { return Lanczos(5.0f, x); }, 5.0f};
  if (type == "gaussian") {
    constexpr float kRadius = 1.5f;
    constexpr float kSigma = kRadius / 3.0f;
    return SamplingKernel{[](float x) {
                            x = std::abs(x);
                            if (x >= kRadius) return 0.0f;
                            // Divided in double, as there.
                            return static_cast<float>(std::exp(-x * x / (2.0 * kSigma * kSigma)));
                          },
                          kRadius};
  }
  if (type == "box") {
    return SamplingKernel{[](float x) {
                            x = std::abs(x);
                            return x < 0.5f ? 1.0f : x == 0.5f ? 0.5f : 0.0f;
                          },
                          1.0f};
  }
  if (type == "triangle") {
    return SamplingKernel{[](float x) {
                            x = std::abs(x);
                            return x < 1.0f ? 1.0f - x : 0.0f;
                          },
                          1.0f};
  }
  if (type == "keyscubic") {
    return SamplingKernel{[](float x) {
                            x = std::abs(x);
                            if (x >= 2.0f) return 0.0f;
                            if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
                            return ((1.5f * x - 2.5f) * x) * x + 1.0f;
                          },
                          2.0f};
  }
  if (type == "mitchellcubic") {
    return SamplingKernel{[](float x) {
                            x = std::abs(x);
                            if (x >= 2.0f) return 0.0f;
                            if (x >= 1.0f) {
                              return (((-7.0f / 18.0f) * x + 2.0f) * x - 10.0f / 3.0f) * x +
                                     16.0f / 9.0f;
                            }
                            return (((7.0f / 6.0f) * x - 2.0f) * x) * x + 8.0f / 9.0f;
                          },
                          2.0f};
  }
  return absl::InvalidArgumentError(absl::StrCat("Unrecognized kernel type: ", type));
}

// For each output index, the first input index it reads and span_size
// weights (zero past the input's end, and all zero for an output that samples
// outside the input).
struct Spans {
  int64_t span_size = 0;
  std::vector<int64_t> starts;
  std::vector<float> weights;
};

absl::StatusOr<Spans> ComputeSpans(const SamplingKernel& kernel, int64_t output_size,
                                   int64_t input_size, float scale, float translate,
                                   bool antialias) {
  const float inv_scale = static_cast<float>(1.0 / static_cast<double>(scale));
  const float inv_translate = -inv_scale * translate;
  // Downsampling widens the kernel to low-pass filter; upsampling only
  // interpolates.
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  Spans spans;
  spans.span_size = std::min<int64_t>(
      2 * static_cast<int64_t>(std::ceil(kernel.radius * kernel_scale)) + 1, input_size);
  spans.starts.assign(static_cast<size_t>(output_size), 0);
  spans.weights.assign(static_cast<size_t>(spans.span_size * output_size), 0.0f);
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  std::vector<float> temp;
  for (int64_t x = 0; x < output_size; ++x) {
    const float col_f = static_cast<float>(x) + 0.5f;
    const float sample_f = col_f * inv_scale + inv_translate;
    if (sample_f < 0 || sample_f > static_cast<float>(input_size)) continue;
    int64_t span_start =
        static_cast<int64_t>(std::ceil(sample_f - kernel.radius * kernel_scale - 0.5f));
    int64_t span_end =
        static_cast<int64_t>(std::floor(sample_f + kernel.radius * kernel_scale - 0.5f));
    span_start = std::clamp<int64_t>(span_start, 0, input_size - 1);
    span_end = std::clamp<int64_t>(span_end, 0, input_size - 1) + 1;
    const int64_t this_span = span_end - span_start;
    if (this_span > spans.span_size) {
      return absl::InternalError(
          absl::StrCat("Span is too large: ", this_span, " vs ", spans.span_size, "."));
    }
    float total = 0.0f;
    temp.clear();
    for (int64_t source = span_start; source < span_end; ++source) {
      const float kernel_pos = static_cast<float>(source) + 0.5f - sample_f;
      const float weight = kernel.fn(std::abs(kernel_pos * one_over_kernel_scale));
      total += weight;
      temp.push_back(weight);
    }
    if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv_total = 1.0f / total;
      float* w = spans.weights.data() + spans.span_size * x;
      for (float weight : temp) *w++ = weight * inv_total;
    }
    spans.starts[x] = span_start;
  }
  return spans;
}

// Two floats from a 1-D, 2-element float32 input (scale, translation).
absl::StatusOr<std::pair<float, float>> FloatPair(const Tensor& t) {
  if (t.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("t must be 1-dimensional", TfShape(t.shape())));
  }
  if (t.num_elements() != 2) {
    return absl::InvalidArgumentError(absl::StrCat("t must have two elements", TfShape(t.shape())));
  }
  if (t.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat("scale and translation must be float32, got ", DataTypeName(t.dtype())));
  }
  return std::make_pair(t.data<float>()[0], t.data<float>()[1]);
}

// Rows first, into a float (batch, out_h, in_w, channels) buffer, then
// columns, as TensorFlow's GatherRows and GatherColumns.
template <typename T>
void GatherSpans(const Spans& rows, const Spans& cols, const T* in, int64_t batch, int64_t in_h,
                 int64_t in_w, int64_t channels, int64_t out_h, int64_t out_w, float* out) {
  const int64_t in_row = in_w * channels;
  std::vector<float> mid(static_cast<size_t>(out_h * in_row));
  for (int64_t b = 0; b < batch; ++b) {
    const T* image = in + b * in_h * in_row;
    std::fill(mid.begin(), mid.end(), 0.0f);
    for (int64_t y = 0; y < out_h; ++y) {
      float* dst = mid.data() + y * in_row;
      const int64_t start = rows.starts[y];
      const int64_t real = std::min(start + rows.span_size, in_h) - start;
      const float* w = rows.weights.data() + y * rows.span_size;
      for (int64_t k = 0; k < real; ++k) {
        const T* src = image + (start + k) * in_row;
        for (int64_t i = 0; i < in_row; ++i) dst[i] += w[k] * static_cast<float>(src[i]);
      }
    }
    float* image_out = out + b * out_h * out_w * channels;
    for (int64_t y = 0; y < out_h; ++y) {
      const float* src_row = mid.data() + y * in_row;
      for (int64_t x = 0; x < out_w; ++x) {
        float* pix = image_out + (y * out_w + x) * channels;
        const int64_t start = cols.starts[x];
        const int64_t real = std::min(start + cols.span_size, in_w) - start;
        const float* w = cols.weights.data() + x * cols.span_size;
        std::fill(pix, pix + channels, 0.0f);
        for (int64_t k = 0; k < real; ++k) {
          const float* src = src_row + (start + k) * channels;
          for (int64_t c = 0; c < channels; ++c) pix[c] += w[k] * src[c];
        }
      }
    }
  }
}

absl::Status ComputeScaleAndTranslate(KernelContext& ctx) {
  absl::StatusOr<std::string> kernel_type =
      ctx.attrs().GetOr<std::string>("kernel_type", "lanczos3");
  if (!kernel_type.ok()) return kernel_type.status();
  absl::StatusOr<bool> antialias = ctx.attrs().GetOr<bool>("antialias", true);
  if (!antialias.ok()) return antialias.status();
  absl::StatusOr<SamplingKernel> kernel = MakeSamplingKernel(*kernel_type);
  if (!kernel.ok()) return kernel.status();
  const Tensor& images = ctx.input(0);
  const Tensor& size_t_ = ctx.input(1);
  if (images.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional", TfShape(images.shape())));
  }
  if (size_t_.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("output_shape_t must be 1-dimensional", TfShape(size_t_.shape())));
  }
  if (size_t_.num_elements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("output_shape_t must have two elements", TfShape(size_t_.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> size = IntValues(size_t_, "size");
  if (!size.ok()) return size.status();
  const int64_t batch = images.dim(0), in_h = images.dim(1), in_w = images.dim(2),
                channels = images.dim(3);
  const int64_t out_h = (*size)[0], out_w = (*size)[1];
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (in_h > kMaxInt32 || in_w > kMaxInt32) {
    return absl::InvalidArgumentError("input sizes must be between 0 and max int32");
  }
  if (out_h <= 0 || out_w <= 0) {
    return absl::InvalidArgumentError("output dimensions must be positive");
  }
  if (channels <= 0) return absl::InvalidArgumentError("image must have at least one channel");
  if (in_h <= 0 || in_w <= 0) {
    return absl::InvalidArgumentError("input image must be of non-zero size");
  }
  absl::StatusOr<std::pair<float, float>> scale = FloatPair(ctx.input(2));
  if (!scale.ok()) return scale.status();
  if (!(scale->first > 0 && scale->second > 0)) {
    return absl::InvalidArgumentError("Scale must be greater than zero.");
  }
  absl::StatusOr<std::pair<float, float>> translation = FloatPair(ctx.input(3));
  if (!translation.ok()) return translation.status();
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output_for_overwrite(0, DataType::kFloat, {batch, out_h, out_w, channels});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  absl::StatusOr<Spans> cols =
      ComputeSpans(*kernel, out_w, in_w, scale->second, translation->second, *antialias);
  if (!cols.ok()) return cols.status();
  absl::StatusOr<Spans> rows =
      ComputeSpans(*kernel, out_h, in_h, scale->first, translation->first, *antialias);
  if (!rows.ok()) return rows.status();
  float* dst = (*out)->data<float>();
  return misc::VisitRealType(images.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherSpans<T>(*rows, *cols, images.data<T>(), batch, in_h, in_w, channels, out_h, out_w, dst);
    return absl::OkStatus();
  });
}

// ----- ImageProjectiveTransformV2/V3 (image_ops.h)

enum class FillMode { kReflect, kWrap, kConstant, kNearest };

// An input coordinate outside [0, len - 1] mapped back into the image (not
// for kConstant, whose reads outside give the fill value), following scipy's
// ndimage as TensorFlow does, in its float and integer steps.
float MapCoordinate(float in, int64_t len, FillMode mode) {
  const float last = static_cast<float>(len - 1);
  switch (mode) {
    case FillMode::kConstant:
      return in;
    case FillMode::kNearest:
      return std::min(std::max(in, 0.0f), last);
    case FillMode::kReflect:
      // [abcd] to [dcba|abcd|dcba].
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          if (in < static_cast<float>(sz2)) {
            in = static_cast<float>(sz2 * static_cast<int64_t>(-in / static_cast<float>(sz2))) + in;
          }
          in = in < static_cast<float>(-len) ? in + static_cast<float>(sz2) : -in - 1;
        }
      } else if (in > last) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          in -= static_cast<float>(sz2 * static_cast<int64_t>(in / static_cast<float>(sz2)));
          if (in >= static_cast<float>(len)) in = static_cast<float>(sz2) - in - 1;
        }
      }
      break;
    case FillMode::kWrap:
      // [abcd] to [abcd|abcd|abcd].
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in += static_cast<float>(len * (static_cast<int64_t>(-in / static_cast<float>(sz)) + 1));
        }
      } else if (in > last) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in -= static_cast<float>(len * static_cast<int64_t>(in / static_cast<float>(sz)));
        }
      }
      break;
  }
  // Rounding 3.5 for a length of 4 would read past the end.
  return std::min(std::max(in, 0.0f), last);
}

struct ProjectiveParams {
  bool bilinear = false;
  FillMode mode = FillMode::kConstant;
};

absl::StatusOr<ProjectiveParams> ReadProjectiveAttrs(const AttrMap& attrs) {
  ProjectiveParams p;
  absl::StatusOr<std::string> interpolation = attrs.GetOr<std::string>("interpolation", "");
  if (!interpolation.ok()) return interpolation.status();
  if (*interpolation == "BILINEAR") {
    p.bilinear = true;
  } else if (*interpolation != "NEAREST") {
    return absl::InvalidArgumentError(absl::StrCat("Invalid interpolation ", *interpolation,
                                                   ". Supported types: NEAREST, BILINEAR"));
  }
  absl::StatusOr<std::string> mode = attrs.GetOr<std::string>("fill_mode", "CONSTANT");
  if (!mode.ok()) return mode.status();
  if (*mode == "REFLECT") {
    p.mode = FillMode::kReflect;
  } else if (*mode == "WRAP") {
    p.mode = FillMode::kWrap;
  } else if (*mode == "CONSTANT") {
    p.mode = FillMode::kConstant;
  } else if (*mode == "NEAREST") {
    p.mode = FillMode::kNearest;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "Invalid mode ", *mode, ". Supported types: REFLECT, WRAP, CONSTANT, NEAREST"));
  }
  return p;
}

template <typename T>
void ProjectiveTransform(const Tensor& images, const float* transforms, int64_t num_transforms,
                         const ProjectiveParams& p, T fill, int64_t out_h, int64_t out_w, T* out) {
  const int64_t batch = images.dim(0), in_h = images.dim(1), in_w = images.dim(2),
                channels = images.dim(3);
  const T* in = images.data<T>();
  for (int64_t b = 0; b < batch; ++b) {
    const T* image = in + b * in_h * in_w * channels;
    const float* t = transforms + (num_transforms == 1 ? 0 : 8 * b);
    auto read = [&](int64_t y, int64_t x, int64_t c) {
      return (0 <= y && y < in_h && 0 <= x && x < in_w) ? image[(y * in_w + x) * channels + c]
                                                        : fill;
    };
    for (int64_t oy = 0; oy < out_h; ++oy) {
      for (int64_t ox = 0; ox < out_w; ++ox) {
        const float fx = static_cast<float>(ox), fy = static_cast<float>(oy);
        const float projection = t[6] * fx + t[7] * fy + 1.f;
        if (projection == 0) {
          out = std::fill_n(out, channels, fill);  // an infinite coordinate: outside
          continue;
        }
        const float input_x = (t[0] * fx + t[1] * fy + t[2]) / projection;
        const float input_y = (t[3] * fx + t[4] * fy + t[5]) / projection;
        const float x = MapCoordinate(input_x, in_w, p.mode);
        const float y = MapCoordinate(input_y, in_h, p.mode);
        if (!p.bilinear) {
          const int64_t iy = static_cast<int64_t>(std::round(y));
          const int64_t ix = static_cast<int64_t>(std::round(x));
          for (int64_t c = 0; c < channels; ++c) *out++ = read(iy, ix, c);
          continue;
        }
        const float y_floor = std::floor(y), x_floor = std::floor(x);
        const float y_ceil = y_floor + 1, x_ceil = x_floor + 1;
        const int64_t yf = static_cast<int64_t>(y_floor), xf = static_cast<int64_t>(x_floor);
        const int64_t yc = static_cast<int64_t>(y_ceil), xc = static_cast<int64_t>(x_ceil);
        for (int64_t c = 0; c < channels; ++c) {
          const float top = (x_ceil - x) * static_cast<float>(read(yf, xf, c)) +
                            (x - x_floor) * static_cast<float>(read(yf, xc, c));
          const float bottom = (x_ceil - x) * static_cast<float>(read(yc, xf, c)) +
                               (x - x_floor) * static_cast<float>(read(yc, xc, c));
          *out++ = static_cast<T>((y_ceil - y) * top + (y - y_floor) * bottom);
        }
      }
    }
  }
}

absl::Status ComputeProjectiveTransform(KernelContext& ctx) {
  absl::StatusOr<ProjectiveParams> p = ReadProjectiveAttrs(ctx.attrs());
  if (!p.ok()) return p.status();
  const Tensor& images = ctx.input(0);
  const Tensor& transforms = ctx.input(1);
  if (images.rank() != 4) return absl::InvalidArgumentError("Input images must have rank 4");
  if (transforms.rank() != 2 || (transforms.dim(0) != images.dim(0) && transforms.dim(0) != 1) ||
      transforms.dim(1) != 8) {
    return absl::InvalidArgumentError("Input transform should be num_images x 8 or 1 x 8");
  }
  if (transforms.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat("transforms must be float32, got ", DataTypeName(transforms.dtype())));
  }
  const Tensor& shape = ctx.input(2);
  if (shape.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("output shape must be 1-dimensional", TfShape(shape.shape())));
  }
  if (shape.num_elements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("output shape must have two elements", TfShape(shape.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> size = IntValues(shape, "output_shape");
  if (!size.ok()) return size.status();
  const int64_t out_h = (*size)[0], out_w = (*size)[1];
  if (out_h <= 0 || out_w <= 0) {
    return absl::InvalidArgumentError("output dimensions must be positive");
  }
  float fill_value = 0;
  if (ctx.num_inputs() >= 4) {  // V3
    const Tensor& f = ctx.input(3);
    if (f.rank() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("fill_value must be a scalar", TfShape(f.shape())));
    }
    if (f.dtype() != DataType::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat("fill_value must be float32, got ", DataTypeName(f.dtype())));
    }
    fill_value = f.data<float>()[0];
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output_for_overwrite(
      0, images.dtype(), {images.dim(0), out_h, out_w, images.dim(3)});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  Tensor* result = *out;
  return misc::VisitRealType(images.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ProjectiveTransform<T>(images, transforms.data<float>(), transforms.dim(0), *p,
                           static_cast<T>(fill_value), out_h, out_w, result->data<T>());
    return absl::OkStatus();
  });
}

std::vector<DataType> ProjectiveTypes() {
  return {DataType::kUInt8, DataType::kInt32,    DataType::kInt64, DataType::kHalf,
          DataType::kFloat, DataType::kBFloat16, DataType::kDouble};
}

}  // namespace

void RegisterImageTransformOps(KernelRegistry& r) {
  r.AddKernel({"ResizeArea", kCpu, "T", misc::RealTypes(), ComputeResizeArea});
  r.AddKernel({"ScaleAndTranslate", kCpu, "T", misc::RealTypes(), ComputeScaleAndTranslate});
  r.AddKernel(
      {"ImageProjectiveTransformV2", kCpu, "dtype", ProjectiveTypes(), ComputeProjectiveTransform});
  r.AddKernel(
      {"ImageProjectiveTransformV3", kCpu, "dtype", ProjectiveTypes(), ComputeProjectiveTransform});
}

}  // namespace smrt::kernels
