// The shape checks of the detection post-processing ops (NonMaxSuppression*,
// CombinedNonMaxSuppression, CropAndResize), shared by their shape inference
// (ops/defs/detection_ops.cc) and the kernels, with TensorFlow's kernel
// messages, so a model refused at load says what TensorFlow says at run time.
// Each check takes partial shapes: a dimension inference does not know yet
// (-1) passes, and the kernel checks again with every dimension known.
#ifndef SMRT_OPS_DETECTION_SHAPES_H_
#define SMRT_OPS_DETECTION_SHAPES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/partial_shape.h"
#include "ops/shape_text.h"

namespace smrt::ops {
namespace detection_internal {

inline std::string Text(const PartialShape& s) {
  return s.known_rank ? TfShapeText(s.dims) : "<unknown>";
}

// Both known and different.
inline bool Differ(int64_t a, int64_t b) { return a >= 0 && b >= 0 && a != b; }

// Known to hold no element.
inline bool KnownEmpty(const PartialShape& s) {
  if (!s.known_rank) return false;
  for (int64_t d : s.dims) {
    if (d == 0) return true;
  }
  return false;
}

}  // namespace detection_internal

// Input `name` must be a scalar ("max_output_size must be 0-D, got shape [1]").
inline absl::Status CheckDetectionScalar(absl::string_view name, const PartialShape& shape) {
  if (!shape.known_rank || shape.rank() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(name, " must be 0-D, got shape ", detection_internal::Text(shape),
                   " (Shape must be rank 0 but is rank ", shape.rank(), ")"));
}

// NonMaxSuppression V1..V5: boxes [num_boxes, 4] and scores [num_boxes].
inline absl::Status CheckNmsBoxesAndScores(const PartialShape& boxes, const PartialShape& scores) {
  if (boxes.known_rank && boxes.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must be 2-D", detection_internal::Text(boxes),
                     " (Shape must be rank 2 but is rank ", boxes.rank(), ")"));
  }
  if (boxes.known_rank && detection_internal::Differ(boxes.dims[1], 4)) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must have 4 columns (Dimension must be 4 but is ", boxes.dims[1], ")"));
  }
  if (scores.known_rank && scores.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("scores must be 1-D", detection_internal::Text(scores),
                     " (Shape must be rank 1 but is rank ", scores.rank(), ")"));
  }
  if (boxes.known_rank && scores.known_rank &&
      detection_internal::Differ(boxes.dims[0], scores.dims[0])) {
    return absl::InvalidArgumentError(
        absl::StrCat("scores has incompatible shape (Dimensions must be equal, but are ",
                     boxes.dims[0], " and ", scores.dims[0], ")"));
  }
  return absl::OkStatus();
}

// NonMaxSuppressionWithOverlaps: overlaps [num_boxes, num_boxes], scores [num_boxes].
inline absl::Status CheckNmsOverlapsAndScores(const PartialShape& overlaps,
                                              const PartialShape& scores) {
  if (overlaps.known_rank && overlaps.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("overlaps must be 2-D", detection_internal::Text(overlaps)));
  }
  if (overlaps.known_rank && detection_internal::Differ(overlaps.dims[0], overlaps.dims[1])) {
    return absl::InvalidArgumentError(
        absl::StrCat("overlaps must be square", detection_internal::Text(overlaps)));
  }
  if (scores.known_rank && scores.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("scores must be 1-D", detection_internal::Text(scores),
                     " (Shape must be rank 1 but is rank ", scores.rank(), ")"));
  }
  if (overlaps.known_rank && scores.known_rank &&
      detection_internal::Differ(overlaps.dims[0], scores.dims[0])) {
    return absl::InvalidArgumentError(
        absl::StrCat("scores has incompatible shape (Dimensions must be equal, but are ",
                     overlaps.dims[0], " and ", scores.dims[0], ")"));
  }
  return absl::OkStatus();
}

// CombinedNonMaxSuppression: boxes [batch, num_boxes, q, 4] with q 1 or
// num_classes, scores [batch, num_boxes, num_classes].
inline absl::Status CheckCombinedNmsShapes(const PartialShape& boxes, const PartialShape& scores) {
  if (boxes.known_rank && boxes.rank() != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "boxes must be 4-D", detection_internal::Text(boxes), " ([batch, num_boxes, q, 4])"));
  }
  if (scores.known_rank && scores.rank() != 3) {
    return absl::InvalidArgumentError(absl::StrCat("scores must be 3-D",
                                                   detection_internal::Text(scores),
                                                   " ([batch, num_boxes, num_classes])"));
  }
  if (!boxes.known_rank || !scores.known_rank) return absl::OkStatus();
  const int64_t q = boxes.dims[2], num_classes = scores.dims[2];
  if (q >= 0 && q != 1 && detection_internal::Differ(q, num_classes)) {
    return absl::InvalidArgumentError("third dimension of boxes must be either 1 or num classes");
  }
  if (detection_internal::Differ(boxes.dims[3], 4))
    return absl::InvalidArgumentError("boxes must have 4 columns");
  if (detection_internal::Differ(scores.dims[1], boxes.dims[1])) {
    return absl::InvalidArgumentError("scores has incompatible shape");
  }
  if (detection_internal::Differ(boxes.dims[0], scores.dims[0])) {
    return absl::InvalidArgumentError("boxes and scores must have same batch size");
  }
  return absl::OkStatus();
}

// CropAndResize: image [batch, height, width, depth] with positive height and
// width, boxes [num_boxes, 4], box_ind [num_boxes], crop_size [2].
inline absl::Status CheckCropAndResizeShapes(const PartialShape& image, const PartialShape& boxes,
                                             const PartialShape& box_ind,
                                             const PartialShape& crop_size) {
  if (image.known_rank && image.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input image must be 4-D", detection_internal::Text(image)));
  }
  if (image.known_rank && (image.dims[1] == 0 || image.dims[2] == 0)) {
    return absl::InvalidArgumentError("image dimensions must be positive");
  }
  if (boxes.known_rank && boxes.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must be 2-D, got: ", detection_internal::Text(boxes)));
  }
  if (box_ind.known_rank && box_ind.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("box_indices must be rank 1 but is shape ",
                                                   detection_internal::Text(box_ind)));
  }
  // TensorFlow accepts any boxes and box_ind that both hold no element.
  if (!(detection_internal::KnownEmpty(boxes) && detection_internal::KnownEmpty(box_ind))) {
    if (boxes.known_rank && detection_internal::Differ(boxes.dims[1], 4)) {
      return absl::InvalidArgumentError("boxes must have 4 columns");
    }
    if (boxes.known_rank && box_ind.known_rank &&
        detection_internal::Differ(box_ind.dims[0], boxes.dims[0])) {
      return absl::InvalidArgumentError("box_index has incompatible shape");
    }
  }
  if (crop_size.known_rank && crop_size.rank() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("crop_size must be 1-D", detection_internal::Text(crop_size)));
  }
  if (crop_size.known_rank && detection_internal::Differ(crop_size.dims[0], 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("crop_size must have two elements", detection_internal::Text(crop_size)));
  }
  return absl::OkStatus();
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_DETECTION_SHAPES_H_
