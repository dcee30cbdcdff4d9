// ClipByValue: the input's shape; the bounds are scalars or of that shape.
#include "absl/status/status.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferClip(InferenceContext& ctx) {
  const PartialShape& t = ctx.input(0).shape;
  if (t.IsFullyKnown()) {
    for (int i : {1, 2}) {
      const PartialShape& b = ctx.input(i).shape;
      if (b.IsFullyKnown() && b.rank() != 0 && b.dims != t.dims) {
        return ClipShapeError(t.dims, ctx.input(1).shape.dims, ctx.input(2).shape.dims);
      }
    }
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), t});
  return absl::OkStatus();
}

}  // namespace

void RegisterClipOps(OpRegistry& r) { r.AddOp(ArrayOp("ClipByValue", {}, InferClip)); }

}  // namespace smrt::ops
