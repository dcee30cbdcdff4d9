// Detection post-processing: NonMaxSuppression (V1..V5, WithOverlaps),
// CombinedNonMaxSuppression and CropAndResize (tf.image.non_max_suppression*,
// tf.image.combined_non_max_suppression, tf.image.crop_and_resize). The
// number of boxes NMS selects is known only when it runs: its outputs have an
// unknown length unless they are padded to a max_output_size known at load.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/detection_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

// The value of scalar input i when it is known at load.
std::optional<int64_t> KnownScalar(const InferenceContext& ctx, int i) {
  std::optional<std::vector<int64_t>> v = KnownInts(ctx, i);
  if (!v.has_value() || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

// Inputs first_scalar.. (named `scalars`) must be scalars.
absl::Status CheckScalars(const InferenceContext& ctx, int first_scalar,
                          const std::vector<const char*>& scalars) {
  for (size_t k = 0; k < scalars.size(); ++k) {
    const int i = first_scalar + static_cast<int>(k);
    if (absl::Status s = CheckDetectionScalar(scalars[k], ctx.input(i).shape); !s.ok()) {
      return AtNode(ctx, s);
    }
  }
  return absl::OkStatus();
}

ValueInfo Vector(DataType dtype, int64_t n) { return {dtype, PartialShape::Known({n})}; }

// NonMaxSuppression V1..V5 and WithOverlaps: selected_indices [?], or
// [max_output_size] when padded; V5's selected_scores alike; V4/V5's
// valid_outputs a scalar. `scalars` names inputs 2...
absl::Status InferNms(InferenceContext& ctx, const std::vector<const char*>& scalars,
                      bool overlaps) {
  const PartialShape& boxes = ctx.input(0).shape;
  const PartialShape& scores = ctx.input(1).shape;
  if (absl::Status s = overlaps ? CheckNmsOverlapsAndScores(boxes, scores)
                                : CheckNmsBoxesAndScores(boxes, scores);
      !s.ok()) {
    return AtNode(ctx, s);
  }
  if (absl::Status s = CheckScalars(ctx, 2, scalars); !s.ok()) return s;
  absl::StatusOr<bool> pad = ctx.attrs().GetOr<bool>("pad_to_max_output_size", false);
  if (!pad.ok()) return AtNode(ctx, pad.status());
  int64_t n = -1;
  if (*pad) {
    std::optional<int64_t> m = KnownScalar(ctx, 2);
    if (m.has_value() && *m >= 0) n = *m;  // a negative one fails in the kernel
  }
  ctx.set_output(0, Vector(DataType::kInt32, n));
  if (ctx.op() == "NonMaxSuppressionV4") {
    ctx.set_output(1, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  } else if (ctx.op() == "NonMaxSuppressionV5") {
    ctx.set_output(1, Vector(InputDType(ctx, 1, "T"), n));
    ctx.set_output(2, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  }
  return absl::OkStatus();
}

// TensorFlow's CombinedNMSShapeFn: [batch, size, 4], [batch, size] twice and
// [batch], where size is max_total_size, or with pad_per_class the smaller of
// it and max_output_size_per_class * num_classes.
absl::Status InferCombinedNms(InferenceContext& ctx) {
  const PartialShape& boxes = ctx.input(0).shape;
  const PartialShape& scores = ctx.input(1).shape;
  if (absl::Status s = CheckCombinedNmsShapes(boxes, scores); !s.ok()) return AtNode(ctx, s);
  if (absl::Status s = CheckScalars(
          ctx, 2, {"max_size_per_class", "max_total_size", "iou_threshold", "score_threshold"});
      !s.ok()) {
    return s;
  }
  absl::StatusOr<bool> pad_per_class = ctx.attrs().GetOr<bool>("pad_per_class", false);
  if (!pad_per_class.ok()) return AtNode(ctx, pad_per_class.status());
  const std::optional<int64_t> per_class = KnownScalar(ctx, 2);
  const std::optional<int64_t> total = KnownScalar(ctx, 3);
  int64_t size = -1;
  if (total.has_value() && *total > 0) {
    size = *total;
    if (*pad_per_class) {
      const int64_t classes = scores.known_rank ? scores.dims[2] : -1;
      size = per_class.has_value() && *per_class > 0 && classes >= 0
                 ? std::min(*total, *per_class * classes)
                 : -1;
    }
  }
  const int64_t batch = boxes.known_rank ? boxes.dims[0] : scores.known_rank ? scores.dims[0] : -1;
  ctx.set_output(0, ValueInfo{DataType::kFloat, PartialShape::Known({batch, size, 4})});
  ctx.set_output(1, ValueInfo{DataType::kFloat, PartialShape::Known({batch, size})});
  ctx.set_output(2, ValueInfo{DataType::kFloat, PartialShape::Known({batch, size})});
  ctx.set_output(3, Vector(DataType::kInt32, batch));
  return absl::OkStatus();
}

// crops: float [num_boxes, crop_size[0], crop_size[1], depth].
absl::Status InferCropAndResize(InferenceContext& ctx) {
  const PartialShape& image = ctx.input(0).shape;
  const PartialShape& boxes = ctx.input(1).shape;
  const PartialShape& box_ind = ctx.input(2).shape;
  if (absl::Status s = CheckCropAndResizeShapes(image, boxes, box_ind, ctx.input(3).shape);
      !s.ok()) {
    return AtNode(ctx, s);
  }
  absl::StatusOr<std::string> method = ctx.attrs().GetOr<std::string>("method", "bilinear");
  if (!method.ok()) return AtNode(ctx, method.status());
  if (*method != "bilinear" && *method != "nearest") {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("method must be 'bilinear' or 'nearest'", *method)));
  }
  Shape dims = {-1, -1, -1, -1};
  if (boxes.known_rank && boxes.rank() == 2) dims[0] = boxes.dims[0];
  if (dims[0] < 0 && box_ind.known_rank && box_ind.rank() == 1) dims[0] = box_ind.dims[0];
  if (image.known_rank) dims[3] = image.dims[3];
  if (std::optional<std::vector<int64_t>> size = KnownInts(ctx, 3);
      size.has_value() && size->size() == 2 && (*size)[0] > 0 && (*size)[1] > 0) {
    dims[1] = (*size)[0];
    dims[2] = (*size)[1];
  }
  ctx.set_output(0, ValueInfo{DataType::kFloat, PartialShape::Known(std::move(dims))});
  return absl::OkStatus();
}

NumOutputsFn Outputs(int n) {
  return [n](const AttrMap&, int) -> absl::StatusOr<int> { return n; };
}

}  // namespace

void RegisterDetectionOps(OpRegistry& r) {
  r.AddOp(ArrayOp("NonMaxSuppression", {{"iou_threshold", 0.5f}},
                  [](InferenceContext& ctx) { return InferNms(ctx, {"max_output_size"}, false); }));
  r.AddOp(ArrayOp("NonMaxSuppressionV2",
                  {{"T", DataType::kFloat}, {"T_threshold", DataType::kFloat}},
                  [](InferenceContext& ctx) {
                    return InferNms(ctx, {"max_output_size", "iou_threshold"}, false);
                  }));
  r.AddOp(ArrayOp(
      "NonMaxSuppressionV3", {{"T", DataType::kFloat}, {"T_threshold", DataType::kFloat}},
      [](InferenceContext& ctx) {
        return InferNms(ctx, {"max_output_size", "iou_threshold", "score_threshold"}, false);
      }));
  r.AddOp(ArrayOp(
      "NonMaxSuppressionV4",
      {{"T", DataType::kFloat},
       {"T_threshold", DataType::kFloat},
       {"pad_to_max_output_size", false}},
      [](InferenceContext& ctx) {
        return InferNms(ctx, {"max_output_size", "iou_threshold", "score_threshold"}, false);
      },
      Outputs(2)));
  r.AddOp(ArrayOp(
      "NonMaxSuppressionV5", {{"T", DataType::kFloat}, {"pad_to_max_output_size", false}},
      [](InferenceContext& ctx) {
        return InferNms(
            ctx, {"max_output_size", "iou_threshold", "score_threshold", "soft_nms_sigma"}, false);
      },
      Outputs(3)));
  r.AddOp(ArrayOp("NonMaxSuppressionWithOverlaps", {}, [](InferenceContext& ctx) {
    return InferNms(ctx, {"max_output_size", "overlap_threshold", "score_threshold"}, true);
  }));
  r.AddOp(ArrayOp("CombinedNonMaxSuppression", {{"pad_per_class", false}, {"clip_boxes", true}},
                  InferCombinedNms, Outputs(4)));
  r.AddOp(ArrayOp("CropAndResize",
                  {{"method", std::string("bilinear")}, {"extrapolation_value", 0.0f}},
                  InferCropAndResize));
}

}  // namespace smrt::ops
