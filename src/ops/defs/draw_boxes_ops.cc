// DrawBoundingBoxes and DrawBoundingBoxesV2 (tf.image.draw_bounding_boxes): images
// [batch, height, width, depth] with box outlines drawn in, of the images' shape and dtype.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferDrawBoxes(InferenceContext& ctx) {
  const PartialShape& images = ctx.input(0).shape;
  if (images.known_rank && images.rank() != 4) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("Shape must be rank 4 but is rank ",
                                                               images.rank(), " for images")));
  }
  const DataType t = ctx.input(0).dtype;
  if (t != DataType::kInvalid && t != DataType::kFloat && t != DataType::kHalf) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("images must be float or half, got ", DataTypeName(t))));
  }
  return UnchangedShape(ctx);
}

}  // namespace

void RegisterDrawBoxesOps(OpRegistry& r) {
  r.AddOp({"DrawBoundingBoxes", {{"T", DataType::kFloat}}, InferDrawBoxes});
  r.AddOp({"DrawBoundingBoxesV2", {{"T", DataType::kFloat}}, InferDrawBoxes});
}

}  // namespace smrt::ops
