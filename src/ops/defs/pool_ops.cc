// MaxPool, MaxPoolV2 (window and strides as inputs) and AvgPool.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/conv_shapes.h"
#include "ops/op_registry.h"
#include "ops/pool_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferPoolShape(InferenceContext& ctx, const PoolAttrs* p) {
  const ValueInfo& in = ctx.input(0);
  if (in.shape.known_rank && in.shape.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), " input must be 4-dimensional, got ", in.shape.ToString()));
  }
  Layout layout = p != nullptr ? p->layout : Layout::kNhwc;
  if (p == nullptr) {
    absl::StatusOr<Layout> l = ParseLayout(ctx.attrs());
    if (!l.ok()) return l.status();
    layout = *l;
  }
  int64_t n = -1, h = -1, w = -1, c = -1;
  if (in.shape.known_rank) {
    LayoutAxes ax = AxesOf(layout);
    n = in.shape.dims[ax.n];
    h = in.shape.dims[ax.h];
    w = in.shape.dims[ax.w];
    c = in.shape.dims[ax.c];
  }
  if (p == nullptr) {  // window unknown until run time
    ctx.set_output(0,
                   ValueInfo{in.dtype, PartialShape::Known(ShapeInLayout(n, -1, -1, -1, layout))});
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> oh = InferWindowedOutputSize(h, p->ksize[1], 1, p->strides[1], p->padding,
                                                       p->pads[0][0], p->pads[0][1]);
  if (!oh.ok()) return oh.status();
  absl::StatusOr<int64_t> ow = InferWindowedOutputSize(w, p->ksize[2], 1, p->strides[2], p->padding,
                                                       p->pads[1][0], p->pads[1][1]);
  if (!ow.ok()) return ow.status();
  absl::StatusOr<int64_t> oc = PoolOutputDepth(*p, c);
  if (!oc.ok()) return oc.status();
  ctx.set_output(0,
                 ValueInfo{in.dtype, PartialShape::Known(ShapeInLayout(n, *oh, *ow, *oc, layout))});
  return absl::OkStatus();
}

}  // namespace

void RegisterPoolOps(OpRegistry& r) {
  r.AddOp({"MaxPool",
           {{"T", DataType::kFloat},
            {"explicit_paddings", EmptyList{}},
            {"data_format", std::string("NHWC")}},
           [](InferenceContext& ctx) -> absl::Status {
             absl::StatusOr<PoolAttrs> p = ReadPoolAttrs(ctx.attrs(), PoolKind::kMax, true);
             if (!p.ok()) return p.status();
             return InferPoolShape(ctx, &*p);
           },
           nullptr});

  r.AddOp({"MaxPoolV2",
           {{"T", DataType::kFloat}, {"data_format", std::string("NHWC")}},
           [](InferenceContext& ctx) -> absl::Status {
             std::optional<std::vector<int64_t>> ksize = ConstInts(ctx, 1);
             std::optional<std::vector<int64_t>> strides = ConstInts(ctx, 2);
             if (!ksize || !strides) return InferPoolShape(ctx, nullptr);
             absl::StatusOr<PoolAttrs> p = PoolAttrsFromValues(ctx.attrs(), *ksize, *strides);
             if (!p.ok()) return p.status();
             return InferPoolShape(ctx, &*p);
           },
           nullptr});

  r.AddOp({"AvgPool",
           {{"data_format", std::string("NHWC")}},
           [](InferenceContext& ctx) -> absl::Status {
             absl::StatusOr<PoolAttrs> p = ReadPoolAttrs(ctx.attrs(), PoolKind::kAvg, false);
             if (!p.ok()) return p.status();
             return InferPoolShape(ctx, &*p);
           },
           nullptr});
}

}  // namespace smrt::ops
