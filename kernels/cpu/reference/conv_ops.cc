// Conv2D (with grouped convolution) and DepthwiseConv2dNative.
//
// Both compute in NHWC with HWIO filters; NCHW nodes are transposed in and out
// (TensorFlow's own CPU kernels reject NCHW, its oneDNN ones accept it).
// Conv2D is im2col + GEMM in bounded blocks; depthwise is a direct loop whose
// inner loop runs over contiguous channels.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/cpu/reference/conv_ops.h"
#include "kernels/shared/conv_util.h"
#include "kernels/cpu/gemm.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// Patch rows are built in blocks of about this many elements.
constexpr int64_t kPatchBlockElements = int64_t{1} << 20;

using ConvAttrs = ConvWindowAttrs;
using ops::ReadConv2DAttrs;

// One convolution's sizes, in NHWC / HWIO terms.
struct ConvGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  int64_t k_h = 0, k_w = 0, k_c = 0;  // k_c: filter input depth
  int64_t out_h = 0, out_w = 0, out_c = 0;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  int64_t groups = 1;        // Conv2D: in_c / k_c
  int64_t multiplier = 1;    // depthwise: filter dim 3
};

// Validates the inputs of a Conv2D / depthwise node and fills `g`. `nhwc` is
// the input already in NHWC order.
absl::Status MakeGeometry(const KernelContext& ctx, const ConvAttrs& a, const Tensor& nhwc,
                          bool depthwise, ConvGeometry& g) {
  const Tensor& filter = ctx.input(1);
  g.batch = nhwc.dim(0);
  g.in_h = nhwc.dim(1);
  g.in_w = nhwc.dim(2);
  g.in_c = nhwc.dim(3);
  g.k_h = filter.dim(0);
  g.k_w = filter.dim(1);
  g.k_c = filter.dim(2);
  if (depthwise) {
    if (g.in_c != g.k_c) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input and filter must have the same depth: ", g.in_c, " vs ", g.k_c, " (input ",
          ShapeToString(ctx.input(0).shape()), ", filter ", ShapeToString(filter.shape()), ")"));
    }
    g.multiplier = filter.dim(3);
    g.out_c = g.in_c * g.multiplier;
  } else {
    if (filter.num_elements() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("filter must not have zero elements (i.e. all dimensions must be "
                       "non-zero), got filter shape ",
                       ShapeToString(filter.shape())));
    }
    if (g.in_c % g.k_c != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input depth must be evenly divisible by filter depth: ", g.in_c, " vs ", g.k_c));
    }
    g.groups = g.in_c / g.k_c;
    if (g.groups == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "The number of groups must be > 0: input depth is ", g.in_c, ", filter depth ", g.k_c));
    }
    g.out_c = filter.dim(3);
    if (g.out_c % g.groups != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("output depth must be evenly divisible by number of groups: ", g.out_c,
                       " vs ", g.groups));
    }
  }
  g.stride_h = a.strides[1];
  g.stride_w = a.strides[2];
  g.dil_h = a.dilations[1];
  g.dil_w = a.dilations[2];
  absl::StatusOr<WindowedSize> rows = WindowedOutputSize(g.in_h, g.k_h, g.dil_h, g.stride_h,
                                                         a.padding, a.pads[0][0], a.pads[0][1]);
  if (!rows.ok()) return rows.status();
  absl::StatusOr<WindowedSize> cols = WindowedOutputSize(g.in_w, g.k_w, g.dil_w, g.stride_w,
                                                         a.padding, a.pads[1][0], a.pads[1][1]);
  if (!cols.ok()) return cols.status();
  g.out_h = rows->size;
  g.out_w = cols->size;
  g.pad_top = rows->pad_before;
  g.pad_left = cols->pad_before;
  return absl::OkStatus();
}

template <typename T>
void ConvNhwc(const T* in, const T* filter, const ConvGeometry& g, T* out) {
  const int64_t m_total = g.batch * g.out_h * g.out_w;
  if (m_total == 0 || g.out_c == 0) return;
  const int64_t kc = g.k_c;
  const int64_t oc_per_group = g.out_c / g.groups;
  const int64_t k = g.k_h * g.k_w * kc;
  const bool pointwise = g.k_h == 1 && g.k_w == 1 && g.stride_h == 1 && g.stride_w == 1 &&
                         g.pad_top == 0 && g.pad_left == 0 && g.out_h == g.in_h &&
                         g.out_w == g.in_w;
  if (pointwise) {
    // The input already is the (pixels x channels) patch matrix.
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      Gemm<T>(false, false, m_total, oc_per_group, kc, in + gi * kc, g.in_c,
              filter + gi * oc_per_group, g.out_c, out + gi * oc_per_group, g.out_c);
    }
    return;
  }
  const int64_t block = std::max<int64_t>(1, std::min(m_total, kPatchBlockElements / k));
  std::vector<T> patches(static_cast<size_t>(block * k));
  const int64_t pixels = g.out_h * g.out_w;
  for (int64_t m0 = 0; m0 < m_total; m0 += block) {
    const int64_t rows = std::min(block, m_total - m0);
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t m = m0 + r;
        const int64_t b = m / pixels;
        const int64_t oy = (m % pixels) / g.out_w;
        const int64_t ox = m % g.out_w;
        T* row = patches.data() + r * k;
        for (int64_t i = 0; i < g.k_h; ++i) {
          const int64_t iy = oy * g.stride_h - g.pad_top + i * g.dil_h;
          for (int64_t j = 0; j < g.k_w; ++j) {
            const int64_t ix = ox * g.stride_w - g.pad_left + j * g.dil_w;
            T* dst = row + (i * g.k_w + j) * kc;
            if (iy < 0 || iy >= g.in_h || ix < 0 || ix >= g.in_w) {
              std::fill(dst, dst + kc, T(0));
            } else {
              const T* src = in + ((b * g.in_h + iy) * g.in_w + ix) * g.in_c + gi * kc;
              std::copy(src, src + kc, dst);
            }
          }
        }
      }
      Gemm<T>(false, false, rows, oc_per_group, k, patches.data(), k,
              filter + gi * oc_per_group, g.out_c, out + m0 * g.out_c + gi * oc_per_group,
              g.out_c);
    }
  }
}

template <typename T>
void DepthwiseNhwc(const T* in, const T* filter, const ConvGeometry& g, T* out) {
  const int64_t c = g.in_c;
  const int64_t mult = g.multiplier;
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t oy = 0; oy < g.out_h; ++oy) {
      for (int64_t ox = 0; ox < g.out_w; ++ox) {
        T* dst = out + ((b * g.out_h + oy) * g.out_w + ox) * g.out_c;
        for (int64_t i = 0; i < g.k_h; ++i) {
          const int64_t iy = oy * g.stride_h - g.pad_top + i * g.dil_h;
          if (iy < 0 || iy >= g.in_h) continue;
          for (int64_t j = 0; j < g.k_w; ++j) {
            const int64_t ix = ox * g.stride_w - g.pad_left + j * g.dil_w;
            if (ix < 0 || ix >= g.in_w) continue;
            const T* src = in + ((b * g.in_h + iy) * g.in_w + ix) * c;
            const T* f = filter + (i * g.k_w + j) * c * mult;
            for (int64_t ci = 0; ci < c; ++ci) {
              const T v = src[ci];
              for (int64_t mi = 0; mi < mult; ++mi) dst[ci * mult + mi] += v * f[ci * mult + mi];
            }
          }
        }
      }
    }
  }
}

template <typename T>
void RunConv(const Tensor& in, const Tensor& filter, const ConvGeometry& g, bool depthwise,
             Tensor& out) {
  if (depthwise) {
    DepthwiseNhwc<T>(in.data<T>(), filter.data<T>(), g, out.data<T>());
  } else {
    ConvNhwc<T>(in.data<T>(), filter.data<T>(), g, out.data<T>());
  }
}

absl::Status ComputeConv(KernelContext& ctx, bool depthwise) {
  absl::StatusOr<ConvAttrs> a = ReadConv2DAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  if (input.dtype() != filter.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.op(), ": input is ",
                                                   DataTypeName(input.dtype()), " but filter is ",
                                                   DataTypeName(filter.dtype())));
  }
  if (input.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), " input must be 4-dimensional, got ", ShapeToString(input.shape())));
  }
  if (filter.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), " filter must be 4-dimensional, got ", ShapeToString(filter.shape())));
  }
  Tensor nhwc = input;
  if (a->layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NchwToNhwc(input);
    if (!t.ok()) return t.status();
    nhwc = *std::move(t);
  }
  ConvGeometry g;
  if (absl::Status s = MakeGeometry(ctx, *a, nhwc, depthwise, g); !s.ok()) return s;
  absl::StatusOr<Tensor> out = NhwcOutput(ctx, a->layout == Layout::kNchw, input.dtype(),
                                          {g.batch, g.out_h, g.out_w, g.out_c});
  if (!out.ok()) return out.status();
  switch (input.dtype()) {
    case DataType::kFloat: RunConv<float>(nhwc, filter, g, depthwise, *out); break;
    case DataType::kDouble: RunConv<double>(nhwc, filter, g, depthwise, *out); break;
    case DataType::kInt32: RunConv<int32_t>(nhwc, filter, g, depthwise, *out); break;
    default:
      return absl::UnimplementedError(absl::StrCat(ctx.op(), " does not support ",
                                                   DataTypeName(input.dtype())));
  }
  if (a->layout == Layout::kNchw) {
    absl::StatusOr<Tensor> t = NhwcToNchw(*out);
    if (!t.ok()) return t.status();
    out = *std::move(t);
  }
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status ComputeConvolution(KernelContext& ctx, bool depthwise) {
  return ComputeConv(ctx, depthwise);
}

void RegisterConvOps(KernelRegistry& r) {
  r.AddKernel({"Conv2D",
               kCpu,
               "T",
               {DataType::kFloat, DataType::kDouble, DataType::kInt32},
               [](KernelContext& ctx) { return ComputeConv(ctx, /*depthwise=*/false); }});
  r.AddKernel({"DepthwiseConv2dNative", kCpu, "T", {DataType::kFloat, DataType::kDouble},
               [](KernelContext& ctx) { return ComputeConv(ctx, /*depthwise=*/true); }});
}

}  // namespace smrt::kernels
