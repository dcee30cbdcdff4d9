// The attrs and size check of ResizeBilinear, ResizeNearestNeighbor and
// ResizeBicubic, shared by their shape inference (ops/defs/image_ops.cc)
// and every device's kernels (kernels/shared/resize_util.h).
#ifndef SMRT_OPS_RESIZE_SHAPES_H_
#define SMRT_OPS_RESIZE_SHAPES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attr_map.h"

namespace smrt::ops {

struct ResizeFlags {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

// The align_corners and half_pixel_centers attrs; InvalidArgument when both
// are true, as TensorFlow.
absl::StatusOr<ResizeFlags> ReadResizeFlags(const AttrMap& attrs);

// InvalidArgument for an output size that is not positive.
absl::Status ResizeSizeError(const std::vector<int64_t>& size);

}  // namespace smrt::ops

#endif  // SMRT_OPS_RESIZE_SHAPES_H_
