// Window arithmetic and layout helpers shared by the convolution and pooling
// kernels and their shape functions. The arithmetic follows TensorFlow's
// GetWindowedOutputSizeVerbose exactly (including C++ truncating division),
// so shapes agree with TensorFlow's for every padding mode.
#ifndef SMRT_KERNELS_SHARED_CONV_UTIL_H_
#define SMRT_KERNELS_SHARED_CONV_UTIL_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "kernels/kernel.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

enum class Padding { kValid, kSame, kExplicit };

// Reads the `padding` attr. `allow_explicit` is false for ops whose op def
// lists only SAME and VALID.
absl::StatusOr<Padding> ParsePadding(const AttrMap& attrs, bool allow_explicit);

// 4-D activation layouts. Kernels compute in NHWC and transpose NCHW around it.
enum class Layout { kNhwc, kNchw };

// Reads the `data_format` attr ("NHWC" when missing).
absl::StatusOr<Layout> ParseLayout(const AttrMap& attrs);

// Axis of each logical dim in a 4-D shape of the given layout.
struct LayoutAxes {
  int n, h, w, c;
};
inline LayoutAxes AxesOf(Layout layout) {
  return layout == Layout::kNhwc ? LayoutAxes{0, 1, 2, 3} : LayoutAxes{0, 2, 3, 1};
}

// Reads a list(int) attr of 4 values given in `layout` order and returns them
// in NHWC order; errors name the attr.
absl::StatusOr<std::array<int64_t, 4>> ReadFourInts(const AttrMap& attrs, absl::string_view name,
                                                    Layout layout);
// The same for values that came from a tensor (MaxPoolV2's ksize/strides).
absl::StatusOr<std::array<int64_t, 4>> FourIntsFromValues(const std::vector<int64_t>& values,
                                                          absl::string_view name, Layout layout);

// `explicit_paddings` as {{top, bottom}, {left, right}}. When padding is not
// EXPLICIT the attr must be empty and zeros are returned. Batch and depth
// padding must be zero and every value non-negative.
absl::StatusOr<std::array<std::array<int64_t, 2>, 2>> ReadExplicitPaddings(const AttrMap& attrs,
                                                                          Padding padding,
                                                                          Layout layout);

struct WindowedSize {
  int64_t size = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// Output size and padding of one spatial dim. For kExplicit, pad_before and
// pad_after are the given paddings. InvalidArgument for a non-positive stride
// or dilation, a negative result, or arithmetic that would overflow.
absl::StatusOr<WindowedSize> WindowedOutputSize(int64_t input, int64_t filter, int64_t dilation,
                                                int64_t stride, Padding padding,
                                                int64_t explicit_before = 0,
                                                int64_t explicit_after = 0);

// The same for shape inference: -1 when input or filter is unknown (-1).
absl::StatusOr<int64_t> InferWindowedOutputSize(int64_t input, int64_t filter, int64_t dilation,
                                                int64_t stride, Padding padding,
                                                int64_t explicit_before = 0,
                                                int64_t explicit_after = 0);

// The window attrs of a Conv2D-style node (layout, padding, strides and
// dilations in NHWC order; dilations default to 1), parsed but not validated:
// each op checks them with its own rules, then reads explicit paddings.
struct ConvWindowAttrs {
  Layout layout = Layout::kNhwc;
  Padding padding = Padding::kValid;
  std::array<int64_t, 4> strides{};
  std::array<int64_t, 4> dilations{};
  std::array<std::array<int64_t, 2>, 2> pads{};  // {{top, bottom}, {left, right}}
};
absl::StatusOr<ConvWindowAttrs> ReadConvWindowAttrs(const AttrMap& attrs);

// Copies a 4-D tensor between NCHW and NHWC element order (any fixed-size
// dtype). NchwToNhwc maps (N, C, H, W) to (N, H, W, C); NhwcToNchw inverts it.
absl::StatusOr<Tensor> NchwToNhwc(const Tensor& t);
absl::StatusOr<Tensor> NhwcToNchw(const Tensor& t);

// Where an op that computes in NHWC writes its result (zero-filled): its
// output 0 (so the executor's plan places it), or, when the node is NCHW, a
// tensor of its own that NhwcToNchw then turns into the output.
absl::StatusOr<Tensor> NhwcOutput(KernelContext& ctx, bool nchw, DataType dtype, Shape shape);

// Rearranges a 4-D NHWC shape into `layout` order.
Shape ShapeInLayout(int64_t n, int64_t h, int64_t w, int64_t c, Layout layout);

// Conv2DBackpropInput (a transposed convolution) checked as TensorFlow
// checks it, for the CPU kernel and the CUDA one.
using BackpropAttrs = ConvWindowAttrs;
absl::StatusOr<BackpropAttrs> ReadBackpropAttrs(const AttrMap& attrs);

// The input shape (NHWC order) named by `input_sizes`: 4 values in layout
// order, or just (height, width) with batch and depth taken from `batch` and
// `depth` (-1 when unknown).
absl::StatusOr<std::array<int64_t, 4>> InputSizesNhwc(const std::vector<int64_t>& v, Layout layout,
                                                      int64_t batch, int64_t depth);

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
