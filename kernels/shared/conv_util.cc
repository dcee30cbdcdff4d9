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

absl::StatusOr<Tensor> NchwToNhwc(const Tensor& t) { return Permute(t, true); }
absl::StatusOr<Tensor> NhwcToNchw(const Tensor& t) { return Permute(t, false); }

absl::StatusOr<Tensor> NhwcOutput(KernelContext& ctx, bool nchw, DataType dtype, Shape shape) {
  if (nchw) return Tensor::Create(dtype, std::move(shape));
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, dtype, std::move(shape));
  if (!out.ok()) return out.status();
  return **out;
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
