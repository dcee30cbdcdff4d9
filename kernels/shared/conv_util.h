// Layout helpers of the convolution and pooling kernels (NCHW <-> NHWC) and
// Conv2DBackpropInput's plan, over the window arithmetic and attrs their
// shape functions use (ops/conv_shapes.h).
#ifndef SMRT_KERNELS_SHARED_CONV_UTIL_H_
#define SMRT_KERNELS_SHARED_CONV_UTIL_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "kernels/kernel.h"
#include "ops/conv_shapes.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

// The window arithmetic, layouts and attrs of ops/conv_shapes.h.
using ops::AxesOf;
using ops::BackpropAttrs;
using ops::ConvWindowAttrs;
using ops::FourIntsFromValues;
using ops::InferWindowedOutputSize;
using ops::InputSizesNhwc;
using ops::Layout;
using ops::LayoutAxes;
using ops::Padding;
using ops::ParseLayout;
using ops::ParsePadding;
using ops::ReadBackpropAttrs;
using ops::ReadConvWindowAttrs;
using ops::ReadExplicitPaddings;
using ops::ReadFourInts;
using ops::ShapeInLayout;
using ops::WindowedOutputSize;
using ops::WindowedSize;

// Copies a 4-D tensor between NCHW and NHWC element order (any fixed-size
// dtype). NchwToNhwc maps (N, C, H, W) to (N, H, W, C); NhwcToNchw inverts it.
absl::StatusOr<Tensor> NchwToNhwc(const Tensor& t);
absl::StatusOr<Tensor> NhwcToNchw(const Tensor& t);

// Where an op that computes in NHWC writes its result (zero-filled): its
// output 0 (so the executor's plan places it), or, when the node is NCHW, a
// tensor of its own that NhwcToNchw then turns into the output.
absl::StatusOr<Tensor> NhwcOutput(KernelContext& ctx, bool nchw, DataType dtype, Shape shape);

// dx (batch, in_h, in_w, in_c) from dy (batch, out_h, out_w, out_c) and the
// HWIO filter (k_h, k_w, in_c, out_c); dy row oy reads dx rows
// oy * stride - pad_top + i * dilation, as the forward convolution.
struct BackpropInputPlan {
  BackpropAttrs attrs;
  int64_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  int64_t k_h = 0, k_w = 0;
  int64_t out_h = 0, out_w = 0, out_c = 0;
  int64_t pad_top = 0, pad_left = 0;
};

// For a Conv2DBackpropInput node (input_sizes on the host, filter,
// out_backprop): every check of the CPU kernel, with its messages.
absl::StatusOr<BackpropInputPlan> PlanBackpropInput(const KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_CONV_UTIL_H_
