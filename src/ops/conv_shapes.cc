#include "ops/conv_shapes.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/fused_ops.h"

namespace smrt::ops {
namespace {

absl::Status Overflow(int64_t input, int64_t filter, int64_t dilation, int64_t stride) {
  return absl::InvalidArgumentError(
      absl::StrCat("window arithmetic overflows int64 [input_size: ", input,
                   ", filter_size: ", filter, ", dilation: ", dilation, ", stride: ", stride, "]"));
}

}  // namespace

absl::StatusOr<Padding> ParsePadding(const AttrMap& attrs, bool allow_explicit) {
  absl::StatusOr<std::string> p = attrs.Get<std::string>("padding");
  if (!p.ok()) return p.status();
  if (*p == "SAME") return Padding::kSame;
  if (*p == "VALID") return Padding::kValid;
  if (*p == "EXPLICIT" && allow_explicit) return Padding::kExplicit;
  return absl::InvalidArgumentError(
      absl::StrCat("padding must be ", allow_explicit ? "SAME, VALID or EXPLICIT" : "SAME or VALID",
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
    return absl::InvalidArgumentError(absl::StrCat(name, " must specify 4 dimensions, got ",
                                                   v.size(), " ([", absl::StrJoin(v, ", "), "])"));
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
    return absl::InvalidArgumentError(
        absl::StrCat("explicit_paddings attribute must contain 8 values, but got: ", v->size()));
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
    return absl::InvalidArgumentError(absl::StrCat("window sizes must be non-negative, got input ",
                                                   input, " and filter ", filter));
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
    return absl::InvalidArgumentError(
        absl::StrCat("Computed output size would be negative: ", out.size, " [input_size: ", input,
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
  absl::StatusOr<WindowedSize> w =
      WindowedOutputSize(input, filter, dilation, stride, padding, explicit_before, explicit_after);
  if (!w.ok()) return w.status();
  return w->size;
}

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

absl::StatusOr<ConvWindowAttrs> ReadConv2DAttrs(const AttrMap& attrs) {
  absl::StatusOr<ConvWindowAttrs> parsed = ReadConvWindowAttrs(attrs);
  if (!parsed.ok()) return parsed.status();
  ConvWindowAttrs a = *parsed;
  if (a.strides[0] != 1 || a.strides[3] != 1) {
    return absl::UnimplementedError(
        absl::StrCat("Current implementation does not yet support strides in the batch and depth "
                     "dimensions, got strides (NHWC) [",
                     absl::StrJoin(a.strides, ", "), "]"));
  }
  if (a.dilations[0] != 1 || a.dilations[3] != 1) {
    return absl::UnimplementedError(
        absl::StrCat("Current implementation does not yet support dilations in the batch and depth "
                     "dimensions, got dilations (NHWC) [",
                     absl::StrJoin(a.dilations, ", "), "]"));
  }
  for (int i : {1, 2}) {
    if (a.strides[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strides must be positive, got [", absl::StrJoin(a.strides, ", "), "]"));
    }
    if (a.dilations[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("Dilated rates should be larger than 0, got [",
                                                     absl::StrJoin(a.dilations, ", "), "]"));
    }
  }
  absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> pads =
      ReadExplicitPaddings(attrs, a.padding, a.layout);
  if (!pads.ok()) return pads.status();
  a.pads = *pads;
  return a;
}

absl::Status InferConv2D(InferenceContext& ctx, bool depthwise) {
  absl::StatusOr<ConvWindowAttrs> a = ReadConv2DAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  const ValueInfo& in = ctx.input(0);
  const ValueInfo& filter = ctx.input(1);
  if (in.dtype != DataType::kInvalid && filter.dtype != DataType::kInvalid &&
      in.dtype != filter.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.op(), ": input is ", DataTypeName(in.dtype),
                                                   " but filter is ", DataTypeName(filter.dtype)));
  }
  if (in.shape.known_rank && in.shape.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " input must be 4-dimensional, got ", in.shape.ToString()));
  }
  if (filter.shape.known_rank && filter.shape.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " filter must be 4-dimensional, got ", filter.shape.ToString()));
  }
  int64_t n = -1, h = -1, w = -1, c = -1;
  if (in.shape.known_rank) {
    LayoutAxes ax = AxesOf(a->layout);
    n = in.shape.dims[ax.n];
    h = in.shape.dims[ax.h];
    w = in.shape.dims[ax.w];
    c = in.shape.dims[ax.c];
  }
  int64_t kh = -1, kw = -1, kc = -1, ko = -1;
  if (filter.shape.known_rank) {
    kh = filter.shape.dims[0];
    kw = filter.shape.dims[1];
    kc = filter.shape.dims[2];
    ko = filter.shape.dims[3];
  }
  int64_t out_c = -1;
  if (depthwise) {
    if (c >= 0 && kc >= 0 && c != kc) {
      return absl::InvalidArgumentError(
          absl::StrCat("input and filter must have the same depth: ", c, " vs ", kc, " (input ",
                       in.shape.ToString(), ", filter ", filter.shape.ToString(), ")"));
    }
    int64_t channels = c >= 0 ? c : kc;
    if (channels >= 0 && ko >= 0) out_c = channels * ko;
  } else {
    if (c >= 0 && kc > 0) {
      if (c % kc != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("input depth must be evenly divisible by filter depth: ", c, " vs ", kc));
      }
      int64_t groups = c / kc;
      if (groups > 0 && ko >= 0 && ko % groups != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output depth must be evenly divisible by number of groups: ", ko, " vs ", groups));
      }
    }
    out_c = ko;
  }
  absl::StatusOr<int64_t> oh = InferWindowedOutputSize(h, kh, a->dilations[1], a->strides[1],
                                                       a->padding, a->pads[0][0], a->pads[0][1]);
  if (!oh.ok()) return oh.status();
  absl::StatusOr<int64_t> ow = InferWindowedOutputSize(w, kw, a->dilations[2], a->strides[2],
                                                       a->padding, a->pads[1][0], a->pads[1][1]);
  if (!ow.ok()) return ow.status();
  ctx.set_output(
      0, ValueInfo{in.dtype, PartialShape::Known(ShapeInLayout(n, *oh, *ow, out_c, a->layout))});
  return absl::OkStatus();
}

absl::Status CheckFusedConvNhwc(const AttrMap& attrs) {
  absl::StatusOr<std::string> format = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return format.status();
  if (*format != "NHWC") {
    return absl::InvalidArgumentError(
        absl::StrCat(kFusedConv2D, " computes NHWC only, got data_format=", *format));
  }
  return absl::OkStatus();
}

}  // namespace smrt::ops
