// Softmax and LogSoftmax over the last axis: the output has the logits'
// dtype and shape; logits need at least one dimension.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferSoftmax(InferenceContext& ctx) {
  const ValueInfo& in = ctx.input(0);
  if (in.shape.known_rank && in.shape.rank() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), ": logits must have >= 1 dimension, got ", in.shape.ToString()));
  }
  return UnchangedShape(ctx);
}

}  // namespace

void RegisterSoftmaxOps(OpRegistry& r) {
  r.AddOp({"Softmax", {}, InferSoftmax, nullptr});
  r.AddOp({"LogSoftmax", {}, InferSoftmax, nullptr});
}

}  // namespace smrt::ops
