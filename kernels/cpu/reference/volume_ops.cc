// Conv3D, Conv3DBackpropInputV2 (Keras Conv3DTranspose), MaxPool3D and
// AvgPool3D on NDHWC volumes (filters DHWIO).
//
// As in TensorFlow's CPU kernels: only NDHWC; SAME average pooling divides by
// the number of cells inside the input; max pooling starts from the type's
// lowest value. Conv3D also takes dilations (TensorFlow's Eigen kernel rejects
// them, its oneDNN kernel and GPU kernels accept them). Conv3D is im2col +
// GEMM in bounded blocks; its input gradient the transpose: GEMM, then each
// row's patch added back where it came from (col2im).
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/gemm.h"
#include "kernels/registry.h"
#include "kernels/shared/conv_util.h"
#include "ops/volume_shapes.h"

namespace smrt::kernels {
namespace {

constexpr int64_t kPatchBlockElements = int64_t{1} << 20;

using ops::ReadVolumeAttrs;
using ops::VolumeAttrs;

struct Geometry {
  int64_t batch = 0, in_c = 0, out_c = 0;
  std::array<int64_t, 3> in{}, k{}, out{}, stride{}, dil{}, pad{};
};

// Fills the spatial sizes of `g` from the input dims (NDHWC) and window dims.
absl::Status SpatialGeometry(const VolumeAttrs& a, const Shape& in, const std::array<int64_t, 3>& k,
                             Geometry& g) {
  g.batch = in[0];
  g.in_c = in[4];
  g.k = k;
  for (int i = 0; i < 3; ++i) {
    g.in[i] = in[1 + i];
    g.stride[i] = a.strides[1 + i];
    g.dil[i] = a.dilations[1 + i];
    absl::StatusOr<WindowedSize> w =
        WindowedOutputSize(g.in[i], k[i], g.dil[i], g.stride[i], a.padding);
    if (!w.ok()) return w.status();
    g.out[i] = w->size;
    g.pad[i] = w->pad_before;
  }
  return absl::OkStatus();
}

// For patch row m (batch * output pixel) of `g`, each window tap in filter
// order: fn(tap, in_offset), in_offset the element offset of the input cell
// the tap reads, or -1 where the tap falls in the padding. The one traversal
// of Conv3D's im2col and its gradient's col2im.
template <typename Fn>
void ForEachTap(const Geometry& g, int64_t m, Fn fn) {
  const int64_t pixels = g.out[0] * g.out[1] * g.out[2];
  const int64_t b = m / pixels;
  const int64_t p = m % pixels;
  const int64_t o[3] = {p / (g.out[1] * g.out[2]), (p / g.out[2]) % g.out[1], p % g.out[2]};
  int64_t tap = 0;
  for (int64_t i = 0; i < g.k[0]; ++i) {
    const int64_t z = o[0] * g.stride[0] - g.pad[0] + i * g.dil[0];
    for (int64_t j = 0; j < g.k[1]; ++j) {
      const int64_t y = o[1] * g.stride[1] - g.pad[1] + j * g.dil[1];
      for (int64_t l = 0; l < g.k[2]; ++l, ++tap) {
        const int64_t x = o[2] * g.stride[2] - g.pad[2] + l * g.dil[2];
        const bool inside = z >= 0 && z < g.in[0] && y >= 0 && y < g.in[1] && x >= 0 && x < g.in[2];
        fn(tap, inside ? (((b * g.in[0] + z) * g.in[1] + y) * g.in[2] + x) * g.in_c : -1);
      }
    }
  }
}

// Conv3D

template <typename T>
void Conv3DNdhwc(const T* in, const T* filter, const Geometry& g, T* out) {
  const int64_t pixels = g.out[0] * g.out[1] * g.out[2];
  const int64_t m_total = g.batch * pixels;
  if (m_total == 0 || g.out_c == 0) return;
  const int64_t ic = g.in_c;
  const int64_t k = g.k[0] * g.k[1] * g.k[2] * ic;
  const int64_t block =
      std::max<int64_t>(1, std::min(m_total, kPatchBlockElements / std::max<int64_t>(k, 1)));
  std::vector<T> patches(static_cast<size_t>(block * k));
  for (int64_t m0 = 0; m0 < m_total; m0 += block) {
    const int64_t rows = std::min(block, m_total - m0);
    for (int64_t r = 0; r < rows; ++r) {
      T* row = patches.data() + r * k;
      ForEachTap(g, m0 + r, [&](int64_t tap, int64_t at) {
        T* dst = row + tap * ic;
        if (at < 0) {
          std::fill(dst, dst + ic, T(0));
        } else {
          std::copy(in + at, in + at + ic, dst);
        }
      });
    }
    Gemm<T>(false, false, rows, g.out_c, k, patches.data(), k, filter, g.out_c, out + m0 * g.out_c,
            g.out_c);
  }
}

absl::Status ComputeConv3D(KernelContext& ctx) {
  absl::StatusOr<VolumeAttrs> a = ReadVolumeAttrs(ctx.attrs(), ctx.op(), /*pool=*/false);
  if (!a.ok()) return a.status();
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  if (input.rank() != 5 || filter.rank() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv3D input and filter must be 5-dimensional, got input ",
                     ShapeToString(input.shape()), " and filter ", ShapeToString(filter.shape())));
  }
  if (input.dtype() != filter.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("Conv3D: input is ", DataTypeName(input.dtype()),
                                                   " but filter is ",
                                                   DataTypeName(filter.dtype())));
  }
  if (filter.num_elements() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conv3D: filter must not have zero elements (i.e. all dimensions must be non-zero), got ",
        ShapeToString(filter.shape())));
  }
  if (input.dim(4) != filter.dim(3)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv3D: input depth ", input.dim(4), " must equal the filter's input depth ",
                     filter.dim(3), " (input ", ShapeToString(input.shape()), ", filter ",
                     ShapeToString(filter.shape()), ")"));
  }
  Geometry g;
  if (absl::Status s =
          SpatialGeometry(*a, input.shape(), {filter.dim(0), filter.dim(1), filter.dim(2)}, g);
      !s.ok()) {
    return s;
  }
  g.out_c = filter.dim(4);
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, input.dtype(), {g.batch, g.out[0], g.out[1], g.out[2], g.out_c});
  if (!out.ok()) return out.status();
  switch (input.dtype()) {
    case DataType::kFloat:
      Conv3DNdhwc<float>(input.data<float>(), filter.data<float>(), g, (*out)->data<float>());
      break;
    case DataType::kDouble:
      Conv3DNdhwc<double>(input.data<double>(), filter.data<double>(), g, (*out)->data<double>());
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("Conv3D does not support ", DataTypeName(input.dtype())));
  }
  return absl::OkStatus();
}

// Conv3DBackpropInputV2: dx of a Conv3D with input shape `input_sizes`.

template <typename T>
void Conv3DBackpropInputNdhwc(const T* dy, const T* filter, const Geometry& g, T* dx) {
  const int64_t pixels = g.out[0] * g.out[1] * g.out[2];
  const int64_t m_total = g.batch * pixels;
  const int64_t ic = g.in_c;
  const int64_t k = g.k[0] * g.k[1] * g.k[2] * ic;
  if (m_total == 0 || k == 0) return;
  const int64_t block =
      std::max<int64_t>(1, std::min(m_total, kPatchBlockElements / std::max<int64_t>(k, 1)));
  std::vector<T> patches(static_cast<size_t>(block * k));
  for (int64_t m0 = 0; m0 < m_total; m0 += block) {
    const int64_t rows = std::min(block, m_total - m0);
    // patches (rows x KD*KH*KW*IC) = dy rows (rows x OC) * filter^T, filter (K x OC).
    Gemm<T>(false, true, rows, k, g.out_c, dy + m0 * g.out_c, g.out_c, filter, g.out_c,
            patches.data(), k);
    for (int64_t r = 0; r < rows; ++r) {
      const T* row = patches.data() + r * k;
      ForEachTap(g, m0 + r, [&](int64_t tap, int64_t at) {
        if (at < 0) return;
        const T* src = row + tap * ic;
        for (int64_t c = 0; c < ic; ++c) dx[at + c] += src[c];
      });
    }
  }
}

absl::Status ComputeConv3DBackpropInput(KernelContext& ctx) {
  absl::StatusOr<VolumeAttrs> a = ReadVolumeAttrs(ctx.attrs(), ctx.op(), /*pool=*/false);
  if (!a.ok()) return a.status();
  const Tensor& sizes = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  const Tensor& dy = ctx.input(2);
  std::vector<int64_t> in;
  if (sizes.rank() == 1 && sizes.num_elements() == 5 && sizes.dtype() == DataType::kInt32) {
    for (int i = 0; i < 5; ++i) in.push_back(sizes.data<int32_t>()[i]);
  } else if (sizes.rank() == 1 && sizes.num_elements() == 5 && sizes.dtype() == DataType::kInt64) {
    for (int i = 0; i < 5; ++i) in.push_back(sizes.data<int64_t>()[i]);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conv3DBackpropInputV2: input_sizes must be 5 int32 or int64 values (NDHWC), got ",
        sizes.DebugString()));
  }
  for (int64_t d : in) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Conv3DBackpropInputV2: input_sizes must not be negative, got [",
                       absl::StrJoin(in, ", "), "]"));
    }
  }
  if (filter.rank() != 5 || dy.rank() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conv3DBackpropInputV2: filter and out_backprop must be 5-dimensional, got filter ",
        ShapeToString(filter.shape()), " and out_backprop ", ShapeToString(dy.shape())));
  }
  if (filter.dtype() != dy.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv3DBackpropInputV2: filter is ", DataTypeName(filter.dtype()),
                     " but out_backprop is ", DataTypeName(dy.dtype())));
  }
  if (in[4] != filter.dim(3)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conv3DBackpropInputV2: input depth ", in[4], " (input_sizes) must equal the filter's ",
        "input depth ", filter.dim(3), " (filter ", ShapeToString(filter.shape()), ")"));
  }
  Geometry g;
  if (absl::Status s = SpatialGeometry(*a, Shape(in.begin(), in.end()),
                                       {filter.dim(0), filter.dim(1), filter.dim(2)}, g);
      !s.ok()) {
    return s;
  }
  g.out_c = filter.dim(4);
  const Shape want = {g.batch, g.out[0], g.out[1], g.out[2], g.out_c};
  if (dy.shape() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv3DBackpropInputV2: out_backprop must be ", ShapeToString(want),
                     ", the Conv3D output of input_sizes [", absl::StrJoin(in, ", "),
                     "] and filter ", ShapeToString(filter.shape()),
                     " with these strides and padding, got ", ShapeToString(dy.shape())));
  }
  absl::StatusOr<Tensor*> dx = ctx.allocate_output(0, dy.dtype(), Shape(in.begin(), in.end()));
  if (!dx.ok()) return dx.status();  // zero-filled: the patches are added
  switch (dy.dtype()) {
    case DataType::kFloat:
      Conv3DBackpropInputNdhwc<float>(dy.data<float>(), filter.data<float>(), g,
                                      (*dx)->data<float>());
      break;
    case DataType::kDouble:
      Conv3DBackpropInputNdhwc<double>(dy.data<double>(), filter.data<double>(), g,
                                       (*dx)->data<double>());
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat("Conv3DBackpropInputV2 does not support ", DataTypeName(dy.dtype())));
  }
  return absl::OkStatus();
}

// MaxPool3D / AvgPool3D

enum class PoolKind { kMax, kAvg };

// Accumulates in float for half types.
template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
void Pool3D(const T* in, const Geometry& g, PoolKind kind, T* out) {
  const int64_t c = g.in_c;
  std::vector<Acc<T>> acc(static_cast<size_t>(c));
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t oz = 0; oz < g.out[0]; ++oz) {
      const int64_t z0 = oz * g.stride[0] - g.pad[0];
      const int64_t z_lo = std::max<int64_t>(z0, 0), z_hi = std::min(z0 + g.k[0], g.in[0]);
      for (int64_t oy = 0; oy < g.out[1]; ++oy) {
        const int64_t y0 = oy * g.stride[1] - g.pad[1];
        const int64_t y_lo = std::max<int64_t>(y0, 0), y_hi = std::min(y0 + g.k[1], g.in[1]);
        for (int64_t ox = 0; ox < g.out[2]; ++ox) {
          const int64_t x0 = ox * g.stride[2] - g.pad[2];
          const int64_t x_lo = std::max<int64_t>(x0, 0), x_hi = std::min(x0 + g.k[2], g.in[2]);
          std::fill(acc.begin(), acc.end(),
                    kind == PoolKind::kMax ? std::numeric_limits<Acc<T>>::lowest() : Acc<T>(0));
          int64_t count = 0;
          for (int64_t z = z_lo; z < z_hi; ++z) {
            for (int64_t y = y_lo; y < y_hi; ++y) {
              for (int64_t x = x_lo; x < x_hi; ++x, ++count) {
                const T* src = in + (((b * g.in[0] + z) * g.in[1] + y) * g.in[2] + x) * c;
                for (int64_t ci = 0; ci < c; ++ci) {
                  const Acc<T> v = static_cast<Acc<T>>(src[ci]);
                  if (kind == PoolKind::kMax) {
                    if (v > acc[ci]) acc[ci] = v;
                  } else {
                    acc[ci] += v;
                  }
                }
              }
            }
          }
          T* dst = out + (((b * g.out[0] + oz) * g.out[1] + oy) * g.out[2] + ox) * c;
          for (int64_t ci = 0; ci < c; ++ci) {
            dst[ci] = static_cast<T>(kind == PoolKind::kAvg && count > 0
                                         ? acc[ci] / static_cast<Acc<T>>(count)
                                         : acc[ci]);
          }
        }
      }
    }
  }
}

absl::Status ComputePool3D(KernelContext& ctx, PoolKind kind) {
  absl::StatusOr<VolumeAttrs> a = ReadVolumeAttrs(ctx.attrs(), ctx.op(), /*pool=*/true);
  if (!a.ok()) return a.status();
  const Tensor& input = ctx.input(0);
  if (input.rank() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " input must be 5-dimensional, got ", ShapeToString(input.shape())));
  }
  Geometry g;
  if (absl::Status s =
          SpatialGeometry(*a, input.shape(), {a->window[1], a->window[2], a->window[3]}, g);
      !s.ok()) {
    return s;
  }
  g.out_c = g.in_c;
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, input.dtype(), {g.batch, g.out[0], g.out[1], g.out[2], g.out_c});
  if (!out.ok()) return out.status();
  switch (input.dtype()) {
    case DataType::kFloat:
      Pool3D<float>(input.data<float>(), g, kind, (*out)->data<float>());
      break;
    case DataType::kDouble:
      Pool3D<double>(input.data<double>(), g, kind, (*out)->data<double>());
      break;
    case DataType::kHalf:
      Pool3D<Eigen::half>(input.data<Eigen::half>(), g, kind, (*out)->data<Eigen::half>());
      break;
    case DataType::kBFloat16:
      Pool3D<Eigen::bfloat16>(input.data<Eigen::bfloat16>(), g, kind,
                              (*out)->data<Eigen::bfloat16>());
      break;
    default:
      return absl::UnimplementedError(
          absl::StrCat(ctx.op(), " does not support ", DataTypeName(input.dtype())));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterVolumeOps(KernelRegistry& r) {
  r.AddKernel({"Conv3D", kCpu, "T", {DataType::kFloat, DataType::kDouble}, ComputeConv3D});
  r.AddKernel({"Conv3DBackpropInputV2",
               kCpu,
               "T",
               {DataType::kFloat, DataType::kDouble},
               ComputeConv3DBackpropInput});
  const std::vector<DataType> pool_types = {DataType::kFloat, DataType::kDouble, DataType::kHalf,
                                            DataType::kBFloat16};
  r.AddKernel({"MaxPool3D", kCpu, "T", pool_types,
               [](KernelContext& ctx) { return ComputePool3D(ctx, PoolKind::kMax); }});
  r.AddKernel({"AvgPool3D", kCpu, "T", pool_types,
               [](KernelContext& ctx) { return ComputePool3D(ctx, PoolKind::kAvg); }});
}

}  // namespace smrt::kernels
