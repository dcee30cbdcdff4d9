// Bucketize (Keras Discretization, feature columns): the index of the bucket
// each value falls in, int32, of the input's shape.
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferBucketize(InferenceContext &ctx) {
  absl::StatusOr<std::vector<float>> boundaries =
      ctx.attrs().GetOr<std::vector<float>>("boundaries", {});
  if (!boundaries.ok()) return AtNode(ctx, boundaries.status());
  for (size_t i = 1; i < boundaries->size(); ++i) {
    if ((*boundaries)[i] < (*boundaries)[i - 1]) {
      return AtNode(ctx, absl::InvalidArgumentError("Expected sorted boundaries"));
    }
  }
  const DataType t = ctx.input(0).dtype;
  if (t != DataType::kInvalid && t != DataType::kInt32 && t != DataType::kInt64 &&
      t != DataType::kFloat && t != DataType::kDouble) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                           "input must be int32, int64, float or double, got ", DataTypeName(t))));
  }
  ctx.set_output(0, ValueInfo{DataType::kInt32, ctx.input(0).shape});
  return absl::OkStatus();
}

}  // namespace

void RegisterBucketizeOps(OpRegistry &r) { r.AddOp({"Bucketize", {}, InferBucketize}); }

}  // namespace smrt::ops
