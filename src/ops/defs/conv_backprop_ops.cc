// Conv2DBackpropInput: the gradient of Conv2D with respect to its input (a
// transposed convolution), shaped by input_sizes.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/conv_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferConv2DBackpropInput(InferenceContext& ctx) {
  absl::StatusOr<BackpropAttrs> a = ReadBackpropAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  const PartialShape& filter = ctx.input(1).shape;
  const PartialShape& dy = ctx.input(2).shape;
  for (const PartialShape* s : {&filter, &dy}) {
    if (s->known_rank && s->rank() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("Conv2DBackpropInput: filter and out_backprop must be 4-dimensional, got ",
                       filter.ToString(), " and ", dy.ToString()));
    }
  }
  const LayoutAxes ax = AxesOf(a->layout);
  const int64_t batch = dy.known_rank ? dy.dims[ax.n] : -1;
  const int64_t depth = filter.known_rank ? filter.dims[2] : -1;
  std::array<int64_t, 4> s = {batch, -1, -1, depth};
  if (std::optional<std::vector<int64_t>> v = KnownInts(ctx, 0); v.has_value()) {
    absl::StatusOr<std::array<int64_t, 4>> known = InputSizesNhwc(*v, a->layout, batch, depth);
    if (!known.ok()) return known.status();
    s = *known;
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 1, "T"), PartialShape::Known(ShapeInLayout(
                                                           s[0], s[1], s[2], s[3], a->layout))});
  return absl::OkStatus();
}

}  // namespace

void RegisterConvBackpropOps(OpRegistry& r) {
  r.AddOp(ArrayOp("Conv2DBackpropInput",
                  {{"use_cudnn_on_gpu", true},
                   {"explicit_paddings", EmptyList{}},
                   {"data_format", std::string("NHWC")},
                   {"dilations", std::vector<int64_t>{1, 1, 1, 1}}},
                  InferConv2DBackpropInput));
}

}  // namespace smrt::ops
