// Ops on the last two dimensions of a tensor seen as a batch of matrices:
// MatrixBandPart (tf.linalg.band_part: causal attention masks).
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"
#include "ops/shape_text.h"

namespace smrt::ops {
namespace {

absl::Status InferBandPart(InferenceContext &ctx) {
  const ValueInfo &in = ctx.input(0);
  if (in.shape.known_rank && in.shape.rank() < 2) {
    return AtNode(
        ctx, absl::InvalidArgumentError(absl::StrCat(
                 "input must be at least 2-dim, received shape: ", TfShapeText(in.shape.dims))));
  }
  for (int i : {1, 2}) {
    if (ctx.input(i).shape.rank() > 0) {
      return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat(
                             i == 1 ? "num_lower" : "num_upper", " must be scalar, got shape ",
                             TfShapeText(ctx.input(i).shape.dims))));
    }
  }
  ctx.set_output(0, in);
  return absl::OkStatus();
}

}  // namespace

void RegisterMatrixOps(OpRegistry &r) {
  r.AddOp({"MatrixBandPart", {{"Tindex", DataType::kInt64}}, InferBandPart});
  r.AddOp({"BatchMatrixBandPart", {}, InferBandPart});  // deprecated name, int64 bounds
}

}  // namespace smrt::ops
