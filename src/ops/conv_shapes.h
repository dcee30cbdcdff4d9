// Window arithmetic, layouts and attrs of the convolutions (Conv2D,
// DepthwiseConv2dNative, Conv2DBackpropInput, the fused conv) and pooling
// ops: what their shape functions compute, and what every device's kernels
// check alike (kernels/shared/conv_util.h). The arithmetic follows
// TensorFlow's GetWindowedOutputSizeVerbose exactly (including C++
// truncating division), so shapes agree with TensorFlow's for every padding
// mode.
#ifndef SMRT_OPS_CONV_SHAPES_H_
#define SMRT_OPS_CONV_SHAPES_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "ops/op_spec.h"
#include "smrt/tensor.h"

namespace smrt::ops {

enum class Padding { kValid, kSame, kExplicit };

// Reads the `padding` attr. `allow_explicit` is false for ops whose op def
// lists only SAME and VALID.
absl::StatusOr<Padding> ParsePadding(const AttrMap& attrs, bool allow_explicit);

// 4-D activation layouts.
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

// The window attrs of a Conv2D or DepthwiseConv2dNative node, checked as
// TensorFlow checks them (strides and dilations of 1 in the batch and depth
// dims, positive otherwise), with explicit paddings read.
absl::StatusOr<ConvWindowAttrs> ReadConv2DAttrs(const AttrMap& attrs);

// Shape inference of Conv2D (grouped when the input depth is a multiple of
// the filter's) or DepthwiseConv2dNative over inputs 0 (input) and 1
// (filter) and the conv attrs; other inputs and attrs are ignored.
absl::Status InferConv2D(InferenceContext& ctx, bool depthwise);

// InvalidArgument unless the fused conv's data_format is NHWC (the default).
absl::Status CheckFusedConvNhwc(const AttrMap& attrs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_CONV_SHAPES_H_
