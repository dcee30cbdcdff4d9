// MaxPool, MaxPoolV2 (window and strides as inputs) and AvgPool.
//
// Computed in NHWC; NCHW nodes are transposed in and out. As in TensorFlow's
// CPU kernels: max pooling starts from the type's lowest value and skips NaN
// (a NaN never compares greater), and SAME average pooling divides by the
// number of cells inside the input, not the window size. MaxPool also pools
// across depth when ksize's depth entry is above 1.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/shared/conv_util.h"
#include "kernels/shared/kernel_util.h"
#include "ops/pool_shapes.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

using ops::PoolAttrs;
using ops::PoolAttrsFromValues;
using ops::PoolKind;
using ops::PoolOutputDepth;
using ops::ReadPoolAttrs;

struct PoolGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0;
  int64_t out_h = 0, out_w = 0, out_depth = 0;
  int64_t k_h = 1, k_w = 1, k_d = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

// dst = max(dst, src) elementwise; a NaN in src is skipped, as TensorFlow's
// kernel does. Separate buffers, so the loop vectorises (maxps).
template <typename T>
void MaxInto(const T* __restrict src, int64_t n, T* __restrict dst) {
  for (int64_t c = 0; c < n; ++c) dst[c] = src[c] > dst[c] ? src[c] : dst[c];
}

// One output row (a batch element's row oy) of SpatialPool; `sums` is the
// caller's scratch of `depth` values for average pooling.
template <typename T>
void PoolRow(const T* in, const PoolGeometry& g, PoolKind kind, int64_t b, int64_t oy,
             double* sums, T* out) {
  const int64_t depth = g.depth;
  const int64_t y_start = oy * g.stride_h - g.pad_top;
  const int64_t y0 = std::max<int64_t>(y_start, 0);
  const int64_t y1 = std::min(y_start + g.k_h, g.in_h);
  for (int64_t ox = 0; ox < g.out_w; ++ox) {
    const int64_t x_start = ox * g.stride_w - g.pad_left;
    const int64_t x0 = std::max<int64_t>(x_start, 0);
    const int64_t x1 = std::min(x_start + g.k_w, g.in_w);
    T* dst = out + ((b * g.out_h + oy) * g.out_w + ox) * depth;
    if (kind == PoolKind::kMax) {
      std::fill(dst, dst + depth, std::numeric_limits<T>::lowest());
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = x0; x < x1; ++x) {
          MaxInto(in + ((b * g.in_h + y) * g.in_w + x) * depth, depth, dst);
        }
      }
    } else {
      std::fill(sums, sums + depth, 0.0);
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = x0; x < x1; ++x) {
          const T* src = in + ((b * g.in_h + y) * g.in_w + x) * depth;
          for (int64_t c = 0; c < depth; ++c) sums[c] += src[c];
        }
      }
      const int64_t count = std::max<int64_t>(y1 - y0, 0) * std::max<int64_t>(x1 - x0, 0);
      for (int64_t c = 0; c < depth; ++c) {
        dst[c] = count > 0 ? static_cast<T>(sums[c] / static_cast<double>(count))
                           : static_cast<T>(0);
      }
    }
  }
}

// Output rows split across the intra-op threads; each writes its own rows.
template <typename T>
void SpatialPool(const T* in, const PoolGeometry& g, PoolKind kind, T* out) {
  const int64_t row_elements =
      std::max<int64_t>(1, g.out_w * g.depth * std::max<int64_t>(1, g.k_h * g.k_w));
  ParallelFor(g.batch * g.out_h, std::max<int64_t>(1, kMinShardElements / row_elements), 1,
              [&](int64_t begin, int64_t end) {
                std::vector<double> sums(kind == PoolKind::kAvg ? static_cast<size_t>(g.depth)
                                                                : 0);
                for (int64_t row = begin; row < end; ++row) {
                  PoolRow(in, g, kind, row / g.out_h, row % g.out_h, sums.data(), out);
                }
              });
}

template <typename T>
void DepthMaxPool(const T* in, const PoolGeometry& g, T* out) {
  const int64_t cells = g.batch * g.in_h * g.in_w;
  for (int64_t p = 0; p < cells; ++p) {
    const T* src = in + p * g.depth;
    T* dst = out + p * g.out_depth;
    for (int64_t oc = 0; oc < g.out_depth; ++oc) {
      T best = std::numeric_limits<T>::lowest();
      for (int64_t k = 0; k < g.k_d; ++k) {
        if (src[oc * g.k_d + k] > best) best = src[oc * g.k_d + k];
      }
      dst[oc] = best;
    }
  }
}

template <typename T>
void RunPool(const Tensor& in, const PoolGeometry& g, PoolKind kind, Tensor& out) {
  if (g.k_d != 1) {
    DepthMaxPool<T>(in.data<T>(), g, out.data<T>());
  } else {
    SpatialPool<T>(in.data<T>(), g, kind, out.data<T>());
  }
}

absl::Status ComputePool(KernelContext& ctx, const PoolAttrs& p, PoolKind kind) {
  const Tensor& input = ctx.input(0);
  if (input.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), " input must be 4-dimensional, got ", ShapeToString(input.shape())));
  }
  Tensor nhwc = input;
  if (p.layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NchwToNhwc(input);
    if (!t.ok()) return t.status();
    nhwc = *std::move(t);
  }
  PoolGeometry g;
  g.batch = nhwc.dim(0);
  g.in_h = nhwc.dim(1);
  g.in_w = nhwc.dim(2);
  g.depth = nhwc.dim(3);
  g.k_h = p.ksize[1];
  g.k_w = p.ksize[2];
  g.k_d = p.ksize[3];
  g.stride_h = p.strides[1];
  g.stride_w = p.strides[2];
  absl::StatusOr<WindowedSize> rows =
      WindowedOutputSize(g.in_h, g.k_h, 1, g.stride_h, p.padding, p.pads[0][0], p.pads[0][1]);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<WindowedSize> cols =
      WindowedOutputSize(g.in_w, g.k_w, 1, g.stride_w, p.padding, p.pads[1][0], p.pads[1][1]);
  if (!cols.ok()) return cols.status();
  absl::StatusOr<int64_t> out_depth = PoolOutputDepth(p, g.depth);
  if (!out_depth.ok()) return out_depth.status();
  g.out_h = rows->size;
  g.out_w = cols->size;
  g.out_depth = *out_depth;
  g.pad_top = rows->pad_before;
  g.pad_left = cols->pad_before;
  absl::StatusOr<Tensor> out = NhwcOutput(ctx, p.layout == Layout::kNchw, input.dtype(),
                                          {g.batch, g.out_h, g.out_w, g.out_depth});
  if (!out.ok()) return out.status();
  switch (input.dtype()) {
    case DataType::kFloat: RunPool<float>(nhwc, g, kind, *out); break;
    case DataType::kDouble: RunPool<double>(nhwc, g, kind, *out); break;
    case DataType::kInt32: RunPool<int32_t>(nhwc, g, kind, *out); break;
    case DataType::kInt64: RunPool<int64_t>(nhwc, g, kind, *out); break;
    case DataType::kUInt8: RunPool<uint8_t>(nhwc, g, kind, *out); break;
    case DataType::kInt16: RunPool<int16_t>(nhwc, g, kind, *out); break;
    case DataType::kInt8: RunPool<int8_t>(nhwc, g, kind, *out); break;
    case DataType::kUInt16: RunPool<uint16_t>(nhwc, g, kind, *out); break;
    default:
      return absl::UnimplementedError(absl::StrCat(ctx.op(), " does not support ",
                                                   DataTypeName(input.dtype())));
  }
  if (p.layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NhwcToNchw(*out);
    if (!t.ok()) return t.status();
    out = *std::move(t);
  }
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

const std::vector<DataType>& MaxPoolTypes() {
  static const std::vector<DataType> types = {
      DataType::kFloat, DataType::kDouble, DataType::kInt32, DataType::kInt64,
      DataType::kUInt8, DataType::kInt16,  DataType::kInt8,  DataType::kUInt16};
  return types;
}

}  // namespace

void RegisterPoolOps(KernelRegistry& r) {
  r.AddKernel({"MaxPool", kCpu, "T", MaxPoolTypes(), [](KernelContext& ctx) -> absl::Status {
                 absl::StatusOr<PoolAttrs> p = ReadPoolAttrs(ctx.attrs(), PoolKind::kMax, true);
                 if (!p.ok()) return p.status();
                 return ComputePool(ctx, *p, PoolKind::kMax);
               }});

  r.AddKernel({"MaxPoolV2", kCpu, "T", MaxPoolTypes(), [](KernelContext& ctx) -> absl::Status {
                 absl::StatusOr<std::vector<int64_t>> ksize = ToInt64s(ctx.input(1));
                 if (!ksize.ok()) return ksize.status();
                 absl::StatusOr<std::vector<int64_t>> strides = ToInt64s(ctx.input(2));
                 if (!strides.ok()) return strides.status();
                 absl::StatusOr<PoolAttrs> p = PoolAttrsFromValues(ctx.attrs(), *ksize, *strides);
                 if (!p.ok()) return p.status();
                 return ComputePool(ctx, *p, PoolKind::kMax);
               }});

  r.AddKernel({"AvgPool", kCpu, "T", {DataType::kFloat, DataType::kDouble},
               [](KernelContext& ctx) -> absl::Status {
                 absl::StatusOr<PoolAttrs> p = ReadPoolAttrs(ctx.attrs(), PoolKind::kAvg, false);
                 if (!p.ok()) return p.status();
                 return ComputePool(ctx, *p, PoolKind::kAvg);
               }});
}

}  // namespace smrt::kernels
