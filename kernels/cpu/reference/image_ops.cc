// ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic on NHWC images.
//
// The sampling arithmetic copies TensorFlow's CPU kernels step by step, in
// float32 (scales, source coordinates, lerps, the 1024-entry cubic
// coefficient table), so results agree with TensorFlow for every combination
// of align_corners and half_pixel_centers, not just approximately.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/shared/resize_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// The source coordinate of output index i (TensorFlow's LegacyScaler and
// HalfPixelScaler).
float SourceCoord(int64_t i, float scale, bool half_pixel_centers) {
  return half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                            : static_cast<float>(i) * scale;
}

template <typename T>
float ToFloat(T v) {
  return static_cast<float>(v);
}

// ----- Bilinear

struct Lerp {
  int64_t lower = 0;
  int64_t upper = 0;
  float lerp = 0;
};

std::vector<Lerp> LerpWeights(int64_t out, int64_t in, float scale, bool half_pixel_centers) {
  std::vector<Lerp> w(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const float v = SourceCoord(i, scale, half_pixel_centers);
    const float f = std::floor(v);
    w[i].lower = std::min(std::max(static_cast<int64_t>(f), int64_t{0}), in - 1);
    w[i].upper = std::max(std::min(static_cast<int64_t>(std::ceil(v)), in - 1), int64_t{0});
    w[i].lerp = v - f;
  }
  return w;
}

template <typename T>
void ResizeBilinearImpl(const T* in, const ResizeGeometry& g, float* out) {
  const std::vector<Lerp> ys =
      LerpWeights(g.out_h, g.in_h, g.height_scale, g.flags.half_pixel_centers);
  const std::vector<Lerp> xs =
      LerpWeights(g.out_w, g.in_w, g.width_scale, g.flags.half_pixel_centers);
  const int64_t c_n = g.channels;
  const int64_t row = g.in_w * c_n;
  for (int64_t b = 0; b < g.batch; ++b) {
    const T* image = in + b * g.in_h * row;
    for (int64_t y = 0; y < g.out_h; ++y) {
      const T* top_row = image + ys[y].lower * row;
      const T* bottom_row = image + ys[y].upper * row;
      const float y_lerp = ys[y].lerp;
      for (int64_t x = 0; x < g.out_w; ++x) {
        const int64_t xl = xs[x].lower * c_n;
        const int64_t xu = xs[x].upper * c_n;
        const float x_lerp = xs[x].lerp;
        for (int64_t c = 0; c < c_n; ++c) {
          const float top_left = ToFloat(top_row[xl + c]);
          const float top_right = ToFloat(top_row[xu + c]);
          const float bottom_left = ToFloat(bottom_row[xl + c]);
          const float bottom_right = ToFloat(bottom_row[xu + c]);
          const float top = top_left + (top_right - top_left) * x_lerp;
          const float bottom = bottom_left + (bottom_right - bottom_left) * x_lerp;
          *out++ = top + (bottom - top) * y_lerp;
        }
      }
    }
  }
}

absl::Status ComputeResizeBilinear(KernelContext& ctx) {
  absl::StatusOr<ResizeGeometry> g = MakeResizeGeometry(ctx);
  if (!g.ok()) return g.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, DataType::kFloat, {g->batch, g->out_h, g->out_w, g->channels});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  float* dst = (*out)->data<float>();
  return misc::VisitRealType(images.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ResizeBilinearImpl<T>(images.data<T>(), *g, dst);
    return absl::OkStatus();
  });
}

// ----- Nearest neighbor

int64_t NearestIndex(int64_t i, float scale, int64_t in, const ResizeFlags& f) {
  // HalfPixelScalerForNN leaves out the -0.5: the floor below accounts for it.
  const float v =
      f.half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : static_cast<float>(i) * scale;
  const int64_t r =
      f.align_corners ? static_cast<int64_t>(std::round(v)) : static_cast<int64_t>(std::floor(v));
  return std::max(std::min(r, in - 1), int64_t{0});
}

absl::Status ComputeResizeNearest(KernelContext& ctx) {
  absl::StatusOr<ResizeGeometry> g = MakeResizeGeometry(ctx);
  if (!g.ok()) return g.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, images.dtype(), {g->batch, g->out_h, g->out_w, g->channels});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  std::vector<int64_t> ys(static_cast<size_t>(g->out_h)), xs(static_cast<size_t>(g->out_w));
  for (int64_t y = 0; y < g->out_h; ++y)
    ys[y] = NearestIndex(y, g->height_scale, g->in_h, g->flags);
  for (int64_t x = 0; x < g->out_w; ++x) xs[x] = NearestIndex(x, g->width_scale, g->in_w, g->flags);
  Tensor* result = *out;
  return VisitElementType(images.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = images.data<T>();
    T* dst = result->data<T>();
    const int64_t c_n = g->channels;
    for (int64_t b = 0; b < g->batch; ++b) {
      const T* image = src + b * g->in_h * g->in_w * c_n;
      for (int64_t y = 0; y < g->out_h; ++y) {
        const T* row = image + ys[y] * g->in_w * c_n;
        for (int64_t x = 0; x < g->out_w; ++x) dst = std::copy_n(row + xs[x] * c_n, c_n, dst);
      }
    }
    return absl::OkStatus();
  });
}

// ----- Bicubic

constexpr int64_t kTableSize = 1 << 10;

// TensorFlow's InitCoeffsTable: the cubic kernel with parameter a sampled at
// kTableSize + 1 points; entry 2i is W(i / kTableSize), 2i + 1 is W(i /
// kTableSize + 1). Computed in double, stored in float, as there.
std::vector<float> CubicCoeffs(double a) {
  std::vector<float> t(static_cast<size_t>((kTableSize + 1) * 2));
  for (int64_t i = 0; i <= kTableSize; ++i) {
    float x = static_cast<float>(static_cast<double>(i) * 1.0 / kTableSize);
    t[i * 2] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
    x = static_cast<float>(x + 1.0);
    t[i * 2 + 1] = static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
  return t;
}

const std::vector<float>& CoeffsTable(bool keys_cubic) {
  // Keys' a = -0.5 with half-pixel centers; the legacy a = -0.75 otherwise.
  static const std::vector<float>* keys = new std::vector<float>(CubicCoeffs(-0.5));
  static const std::vector<float>* legacy = new std::vector<float>(CubicCoeffs(-0.75));
  return keys_cubic ? *keys : *legacy;
}

struct CubicTaps {
  std::array<float, 4> weight{};
  std::array<int64_t, 4> index{};
};

int64_t Bound(int64_t v, int64_t limit) { return std::min(limit - 1, std::max(int64_t{0}, v)); }

CubicTaps GetTaps(float scale, int64_t out_loc, int64_t limit, bool half_pixel_centers) {
  const std::vector<float>& coeffs = CoeffsTable(half_pixel_centers);
  const float in_loc_f = SourceCoord(out_loc, scale, half_pixel_centers);
  const int64_t in_loc = static_cast<int64_t>(std::floor(in_loc_f));
  const float delta = in_loc_f - static_cast<float>(in_loc);
  const int64_t offset = std::lrint(delta * static_cast<float>(kTableSize));
  CubicTaps t;
  const std::array<float, 4> w = {coeffs[offset * 2 + 1], coeffs[offset * 2],
                                  coeffs[(kTableSize - offset) * 2],
                                  coeffs[(kTableSize - offset) * 2 + 1]};
  for (int j = 0; j < 4; ++j) t.index[j] = Bound(in_loc - 1 + j, limit);
  if (!half_pixel_centers) {
    t.weight = w;
    return t;
  }
  // Keys cubic: taps outside the image get weight 0 and the rest are
  // renormalised to sum to 1.
  for (int j = 0; j < 4; ++j) t.weight[j] = t.index[j] == in_loc - 1 + j ? w[j] : 0.0f;
  const float sum = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
  if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
    const float inv = 1.0f / sum;
    for (float& v : t.weight) v *= inv;
  }
  return t;
}

template <typename T>
float Interpolate1D(const std::array<float, 4>& w, T v0, T v1, T v2, T v3) {
  return ToFloat(v0) * w[0] + ToFloat(v1) * w[1] + ToFloat(v2) * w[2] + ToFloat(v3) * w[3];
}

template <typename T>
void ResizeBicubicImpl(const T* in, const ResizeGeometry& g, float* out) {
  const bool half = g.flags.half_pixel_centers;
  std::vector<CubicTaps> xs(static_cast<size_t>(g.out_w));
  for (int64_t x = 0; x < g.out_w; ++x) xs[x] = GetTaps(g.width_scale, x, g.in_w, half);
  const int64_t c_n = g.channels;
  const int64_t row = g.in_w * c_n;
  for (int64_t b = 0; b < g.batch; ++b) {
    const T* image = in + b * g.in_h * row;
    for (int64_t y = 0; y < g.out_h; ++y) {
      const CubicTaps yt = GetTaps(g.height_scale, y, g.in_h, half);
      const T* r0 = image + yt.index[0] * row;
      const T* r1 = image + yt.index[1] * row;
      const T* r2 = image + yt.index[2] * row;
      const T* r3 = image + yt.index[3] * row;
      for (int64_t x = 0; x < g.out_w; ++x) {
        const CubicTaps& xt = xs[x];
        for (int64_t c = 0; c < c_n; ++c) {
          std::array<float, 4> col{};
          for (int j = 0; j < 4; ++j) {
            const int64_t o = xt.index[j] * c_n + c;
            col[j] = Interpolate1D(yt.weight, r0[o], r1[o], r2[o], r3[o]);
          }
          *out++ = col[0] * xt.weight[0] + col[1] * xt.weight[1] + col[2] * xt.weight[2] +
                   col[3] * xt.weight[3];
        }
      }
    }
  }
}

absl::Status ComputeResizeBicubic(KernelContext& ctx) {
  absl::StatusOr<ResizeGeometry> g = MakeResizeGeometry(ctx);
  if (!g.ok()) return g.status();
  const Tensor& images = ctx.input(0);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, DataType::kFloat, {g->batch, g->out_h, g->out_w, g->channels});
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  float* dst = (*out)->data<float>();
  return misc::VisitRealType(images.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ResizeBicubicImpl<T>(images.data<T>(), *g, dst);
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterImageOps(KernelRegistry& r) {
  r.AddKernel({"ResizeBilinear", kCpu, "T", ResizeImageTypes(), ComputeResizeBilinear});
  r.AddKernel({"ResizeNearestNeighbor", kCpu, "T", ResizeImageTypes(), ComputeResizeNearest});
  r.AddKernel({"ResizeBicubic", kCpu, "T", ResizeImageTypes(), ComputeResizeBicubic});
}

}  // namespace smrt::kernels
