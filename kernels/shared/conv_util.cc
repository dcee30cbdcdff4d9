#include "kernels/shared/conv_util.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"

namespace smrt::kernels {
namespace {

absl::Status Overflow(int64_t input, int64_t filter, int64_t dilation, int64_t stride) {
  return absl::InvalidArgumentError(absl::StrCat(
      "window arithmetic overflows int64 [input_size: ", input, ", filter_size: ", filter,
      ", dilation: ", dilation, ", stride: ", stride, "]"));
}

template <size_t kBytes>
void Permute4(const char* src, char* dst, int64_t d0, int64_t d1, int64_t d2, int64_t d3,
              bool nchw_to_nhwc) {
  // Source is (d0, d1, d2, d3) = (N, C, H, W) when nchw_to_nhwc, else (N, H, W, C).
  for (int64_t a = 0; a < d0; ++a) {
    for (int64_t b = 0; b < d1; ++b) {
      for (int64_t c = 0; c < d2; ++c) {
        for (int64_t d = 0; d < d3; ++d) {
          int64_t s = ((a * d1 + b) * d2 + c) * d3 + d;
          int64_t t = nchw_to_nhwc ? ((a * d2 + c) * d3 + d) * d1 + b   // (N, H, W, C)
                                   : ((a * d3 + d) * d1 + b) * d2 + c;  // (N, C, H, W)
          std::memcpy(dst + t * kBytes, src + s * kBytes, kBytes);
        }
      }
    }
  }
}

absl::StatusOr<Tensor> Permute(const Tensor& t, bool nchw_to_nhwc) {
  if (t.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a 4-D tensor to change layout, got ", ShapeToString(t.shape())));
  }
  if (!IsFixedSize(t.dtype())) {
    return absl::UnimplementedError(absl::StrCat("cannot change the layout of a ",
                                                 DataTypeName(t.dtype()), " tensor"));
  }
  const Shape& s = t.shape();
  Shape out_shape = nchw_to_nhwc ? Shape{s[0], s[2], s[3], s[1]} : Shape{s[0], s[3], s[1], s[2]};
  absl::StatusOr<Tensor> out = Tensor::Create(t.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const char* src = static_cast<const char*>(t.raw_data());
  char* dst = static_cast<char*>(out->raw_data());
  switch (DataTypeSize(t.dtype())) {
    case 1: Permute4<1>(src, dst, s[0], s[1], s[2], s[3], nchw_to_nhwc); break;
    case 2: Permute4<2>(src, dst, s[0], s[1], s[2], s[3], nchw_to_nhwc); break;
    case 4: Permute4<4>(src, dst, s[0], s[1], s[2], s[3], nchw_to_nhwc); break;
    case 8: Permute4<8>(src, dst, s[0], s[1], s[2], s[3], nchw_to_nhwc); break;
    case 16: Permute4<16>(src, dst, s[0], s[1], s[2], s[3], nchw_to_nhwc); break;
    default:
      return absl::UnimplementedError(absl::StrCat("cannot change the layout of a ",
                                                   DataTypeName(t.dtype()), " tensor"));
  }
  return out;
}

}  // namespace

absl::StatusOr<Padding> ParsePadding(const AttrMap& attrs, bool allow_explicit) {
  absl::StatusOr<std::string> p = attrs.Get<std::string>("padding");
  if (!p.ok()) return p.status();
  if (*p == "SAME") return Padding::kSame;
  if (*p == "VALID") return Padding::kValid;
  if (*p == "EXPLICIT" && allow_explicit) return Padding::kExplicit;
  return absl::InvalidArgumentError(absl::StrCat("padding must be ",
                                                 allow_explicit ? "SAME, VALID or EXPLICIT"
                                                                : "SAME or VALID",
                                                 ", got '", *p, "'"));
}

absl::StatusOr<Layout> ParseLayout(const AttrMap& attrs) {
  absl::StatusOr<std::string> f = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!f.ok()) return f.status();
  if (*f == "NHWC") return Layout::kNhwc;
  if (*f == "NCHW") return Layout::kNchw;
  return absl::UnimplementedError(
      absl::StrCat("data_format '", *f, "' is not supported (NHWC or NCHW)"));
}

absl::StatusOr<std::array<int64_t, 4>> FourIntsFromValues(const std::vector<int64_t>& v,
                                                          absl::string_view name, Layout layout) {
  if (v.size() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must specify 4 dimensions, got ", v.size(), " ([", absl::StrJoin(v, ", "), "])"));
  }
  LayoutAxes ax = AxesOf(layout);
  return std::array<int64_t, 4>{v[ax.n], v[ax.h], v[ax.w], v[ax.c]};
}

absl::StatusOr<std::array<int64_t, 4>> ReadFourInts(const AttrMap& attrs, absl::string_view name,
                                                    Layout layout) {
  absl::StatusOr<std::vector<int64_t>> v = attrs.Get<std::vector<int64_t>>(name);
  if (!v.ok()) return v.status();
  return FourIntsFromValues(*v, name, layout);
}

absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> ReadExplicitPaddings(const AttrMap& attrs,
                                                                          Padding padding,
                                                                          Layout layout) {
  absl::StatusOr<std::vector<int64_t>> v =
      attrs.GetOr<std::vector<int64_t>>("explicit_paddings", {});
  if (!v.ok()) return v.status();
  std::array<std::array<int64_t, 2>, 2> pads{};
  if (padding != Padding::kExplicit) {
    if (!v->empty()) {
      return absl::InvalidArgumentError(
          "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
    }
    return pads;
  }
  if (v->size() != 8) {
    return absl::InvalidArgumentError(absl::StrCat(
        "explicit_paddings attribute must contain 8 values, but got: ", v->size()));
  }
  for (int64_t p : *v) {
    if (p < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("All elements of explicit_paddings must be nonnegative, got [",
                       absl::StrJoin(*v, ", "), "]"));
    }
  }
  LayoutAxes ax = AxesOf(layout);
  const std::vector<int64_t>& p = *v;
  if (p[2 * ax.n] != 0 || p[2 * ax.n + 1] != 0 || p[2 * ax.c] != 0 || p[2 * ax.c + 1] != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Nonzero explicit padding in the batch or depth dimensions is not supported, got [",
        absl::StrJoin(p, ", "), "]"));
  }
  pads[0] = {p[2 * ax.h], p[2 * ax.h + 1]};
  pads[1] = {p[2 * ax.w], p[2 * ax.w + 1]};
  return pads;
}

absl::StatusOr<WindowedSize> WindowedOutputSize(int64_t input, int64_t filter, int64_t dilation,
                                                int64_t stride, Padding padding,
                                                int64_t explicit_before, int64_t explicit_after) {
  if (stride <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("Stride must be > 0, but got ", stride));
  }
  if (dilation < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Dilation rate must be >= 1, but got ", dilation));
  }
  if (input < 0 || filter < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "window sizes must be non-negative, got input ", input, " and filter ", filter));
  }
  int64_t effective = 0;
  if (__builtin_mul_overflow(filter - 1, dilation, &effective) ||
      __builtin_add_overflow(effective, 1, &effective)) {
    return Overflow(input, filter, dilation, stride);
  }
  WindowedSize out;
  switch (padding) {
    case Padding::kValid: {
      int64_t n = 0;
      if (__builtin_sub_overflow(input, effective, &n) || __builtin_add_overflow(n, stride, &n)) {
        return Overflow(input, filter, dilation, stride);
      }
      out.size = n / stride;
      break;
    }
    case Padding::kExplicit: {
      int64_t n = 0;
      if (__builtin_add_overflow(input, explicit_before, &n) ||
          __builtin_add_overflow(n, explicit_after, &n) ||
          __builtin_sub_overflow(n, effective, &n) || __builtin_add_overflow(n, stride, &n)) {
        return Overflow(input, filter, dilation, stride);
      }
      out.size = n / stride;
      out.pad_before = explicit_before;
      out.pad_after = explicit_after;
      break;
    }
    case Padding::kSame: {
      out.size = input / stride + (input % stride != 0 ? 1 : 0);
      int64_t needed = 0;
      if (out.size > 0) {
        if (__builtin_mul_overflow(out.size - 1, stride, &needed) ||
            __builtin_add_overflow(needed, effective, &needed)) {
          return Overflow(input, filter, dilation, stride);
        }
      }
      // TensorFlow computes the padding from (output - 1), so an empty input
      // yields padding from a "-1" output; only the sign matters there.
      needed = out.size > 0 ? std::max<int64_t>(0, needed - input) : 0;
      out.pad_before = needed / 2;
      out.pad_after = needed - out.pad_before;
      break;
    }
  }
  if (out.size < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Computed output size would be negative: ", out.size, " [input_size: ", input,
        ", effective_filter_size: ", effective, ", stride: ", stride, "]"));
  }
  return out;
}

absl::StatusOr<int64_t> InferWindowedOutputSize(int64_t input, int64_t filter, int64_t dilation,
                                                int64_t stride, Padding padding,
                                                int64_t explicit_before, int64_t explicit_after) {
  if (input < 0 || filter < 0) {
    // Still validate what the attrs alone decide.
    if (stride <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("Stride must be > 0, but got ", stride));
    }
    if (dilation < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Dilation rate must be >= 1, but got ", dilation));
    }
    if (padding == Padding::kSame && input >= 0) return input / stride + (input % stride != 0);
    return -1;
  }
  absl::StatusOr<WindowedSize> w = WindowedOutputSize(input, filter, dilation, stride, padding,
                                                      explicit_before, explicit_after);
  if (!w.ok()) return w.status();
  return w->size;
}

absl::StatusOr<Tensor> NchwToNhwc(const Tensor& t) { return Permute(t, true); }
absl::StatusOr<Tensor> NhwcToNchw(const Tensor& t) { return Permute(t, false); }

Shape ShapeInLayout(int64_t n, int64_t h, int64_t w, int64_t c, Layout layout) {
  return layout == Layout::kNhwc ? Shape{n, h, w, c} : Shape{n, c, h, w};
}

absl::StatusOr<ConvWindowAttrs> ReadConvWindowAttrs(const AttrMap& attrs) {
  ConvWindowAttrs a;
  absl::StatusOr<Layout> layout = ParseLayout(attrs);
  if (!layout.ok()) return layout.status();
  a.layout = *layout;
  absl::StatusOr<Padding> padding = ParsePadding(attrs, /*allow_explicit=*/true);
  if (!padding.ok()) return padding.status();
  a.padding = *padding;
  absl::StatusOr<std::array<int64_t, 4>> strides = ReadFourInts(attrs, "strides", a.layout);
  if (!strides.ok()) return strides.status();
  a.strides = *strides;
  a.dilations = {1, 1, 1, 1};
  if (attrs.Has("dilations")) {
    absl::StatusOr<std::array<int64_t, 4>> d = ReadFourInts(attrs, "dilations", a.layout);
    if (!d.ok()) return d.status();
    a.dilations = *d;
  }
  return a;
}

absl::StatusOr<Tensor> NhwcOutput(KernelContext& ctx, bool nchw, DataType dtype, Shape shape) {
  if (nchw) return Tensor::Create(dtype, std::move(shape));
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, dtype, std::move(shape));
  if (!out.ok()) return out.status();
  return **out;
}

absl::StatusOr<BackpropAttrs> ReadBackpropAttrs(const AttrMap& attrs) {
  absl::StatusOr<ConvWindowAttrs> parsed = ReadConvWindowAttrs(attrs);
  if (!parsed.ok()) return parsed.status();
  BackpropAttrs a = *parsed;
  if (a.strides[0] != 1 || a.strides[3] != 1 || a.dilations[0] != 1 || a.dilations[3] != 1) {
    return absl::UnimplementedError(absl::StrCat(
        "Conv2DBackpropInput: strides and dilations in the batch and depth dimensions must be "
        "1, got strides (NHWC) [",
        absl::StrJoin(a.strides, ", "), "], dilations [", absl::StrJoin(a.dilations, ", "), "]"));
  }
  for (int i : {1, 2}) {
    if (a.strides[i] <= 0 || a.dilations[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Conv2DBackpropInput: strides and dilations must be positive, got strides [",
          absl::StrJoin(a.strides, ", "), "], dilations [", absl::StrJoin(a.dilations, ", "), "]"));
    }
  }
  absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> pads =
      ReadExplicitPaddings(attrs, a.padding, a.layout);
  if (!pads.ok()) return pads.status();
  a.pads = *pads;
  return a;
}

absl::StatusOr<std::array<int64_t, 4>> InputSizesNhwc(const std::vector<int64_t>& v, Layout layout,
                                                      int64_t batch, int64_t depth) {
  std::array<int64_t, 4> s{};
  if (v.size() == 4) {
    LayoutAxes ax = AxesOf(layout);
    s = {v[ax.n], v[ax.h], v[ax.w], v[ax.c]};
  } else if (v.size() == 2) {
    s = {batch, v[0], v[1], depth};
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conv2DBackpropInput: input_sizes must have 4 elements (or 2 spatial ones), got [",
        absl::StrJoin(v, ", "), "]"));
  }
  for (int64_t d : {s[1], s[2]}) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Conv2DBackpropInput: input_sizes must be non-negative, got [",
                       absl::StrJoin(v, ", "), "]"));
    }
  }
  if (v.size() == 4 && (s[0] < 0 || s[3] < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv2DBackpropInput: input_sizes must be non-negative, got [",
                     absl::StrJoin(v, ", "), "]"));
  }
  return s;
}

absl::StatusOr<BackpropInputPlan> PlanBackpropInput(const KernelContext& ctx) {
  BackpropInputPlan plan;
  absl::StatusOr<BackpropAttrs> a = ReadBackpropAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  plan.attrs = *a;
  const Tensor& filter = ctx.input(1);
  const Tensor& dy_in = ctx.input(2);
  if (ctx.input(0).rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv2DBackpropInput: input_sizes must be a vector, got shape ",
                     ShapeToString(ctx.input(0).shape())));
  }
  if (filter.rank() != 4 || dy_in.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv2DBackpropInput: filter and out_backprop must be 4-dimensional, got ",
                     ShapeToString(filter.shape()), " and ", ShapeToString(dy_in.shape())));
  }
  if (filter.dtype() != dy_in.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv2DBackpropInput: filter is ", DataTypeName(filter.dtype()),
                     " but out_backprop is ", DataTypeName(dy_in.dtype())));
  }
  // out_backprop's dims in NHWC order.
  const LayoutAxes ax = AxesOf(a->layout);
  const std::array<int64_t, 4> dy = {dy_in.dim(ax.n), dy_in.dim(ax.h), dy_in.dim(ax.w),
                                     dy_in.dim(ax.c)};
  absl::StatusOr<std::vector<int64_t>> sizes = IntValues(ctx.input(0), "input_sizes");
  if (!sizes.ok()) return sizes.status();
  absl::StatusOr<std::array<int64_t, 4>> in =
      InputSizesNhwc(*sizes, a->layout, dy[0], filter.dim(2));
  if (!in.ok()) return in.status();
  const int64_t batch = (*in)[0], in_h = (*in)[1], in_w = (*in)[2], in_c = (*in)[3];
  const int64_t k_h = filter.dim(0), k_w = filter.dim(1), out_c = filter.dim(3);
  if (in_c != filter.dim(2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Conv2DBackpropInput: input depth ", in_c, " must equal filter depth ",
                     filter.dim(2), " (input_sizes [", absl::StrJoin(*sizes, ", "), "], filter ",
                     ShapeToString(filter.shape()), ")"));
  }
  if (dy[3] != out_c) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conv2DBackpropInput: out_backprop depth ", dy[3],
        " does not match the filter's output depth ", out_c, " (filter ",
        ShapeToString(filter.shape()), ", out_backprop ", ShapeToString(dy_in.shape()), ")"));
  }
  if (dy[0] != batch) {
    return absl::InvalidArgumentError(absl::StrCat("Conv2DBackpropInput: input batch ", batch,
                                                   " does not match out_backprop batch ",
                                                   dy[0]));
  }
  const std::array<int64_t, 2> in_sp = {in_h, in_w};
  const std::array<int64_t, 2> k_sp = {k_h, k_w};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<WindowedSize> w =
        WindowedOutputSize(in_sp[i], k_sp[i], a->dilations[i + 1], a->strides[i + 1], a->padding,
                           a->pads[i][0], a->pads[i][1]);
    if (!w.ok()) return w.status();
    if (w->size != dy[i + 1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Conv2DBackpropInput: Size of out_backprop doesn't match computed: actual = ",
          dy[i + 1], ", computed = ", w->size, " spatial_dim: ", i + 1, " input: ", in_sp[i],
          " filter: ", k_sp[i], " output: ", dy[i + 1], " stride: ", a->strides[i + 1],
          " dilation: ", a->dilations[i + 1]));
    }
    (i == 0 ? plan.pad_top : plan.pad_left) = w->pad_before;
  }
  plan.batch = batch;
  plan.in_h = in_h;
  plan.in_w = in_w;
  plan.in_c = in_c;
  plan.k_h = k_h;
  plan.k_w = k_w;
  plan.out_h = dy[1];
  plan.out_w = dy[2];
  plan.out_c = out_c;
  return plan;
}

}  // namespace smrt::kernels
