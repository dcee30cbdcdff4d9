// The shape maths of Reshape, Squeeze and ExpandDims and the out_type of
// Shape, ShapeN and Size, which inference and the kernels check alike.
#ifndef SMRT_OPS_RESHAPE_SHAPES_H_
#define SMRT_OPS_RESHAPE_SHAPES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// The output shape of reshaping `input` to `sizes` (at most one -1). With an
// input that is not fully known (inference) a -1 stays unknown.
absl::StatusOr<Shape> ReshapeTarget(const PartialShape& input, const std::vector<int64_t>& sizes);

// InvalidArgument unless Reshape's shape input is a scalar or a vector.
absl::Status CheckShapeInputRank(const Tensor& shape);

// Which dims Squeeze removes from `dims` (-1 = unknown). nullopt when that
// cannot be known (no squeeze_dims and an unknown dim).
absl::StatusOr<std::optional<std::vector<bool>>> SqueezedDims(const Shape& dims,
                                                              const std::vector<int64_t>& axes);

// `dims` without those marked in `drop`.
Shape DropDims(const Shape& dims, const std::vector<bool>& drop);

// ExpandDims' axis for an input of `rank`, made non-negative.
absl::StatusOr<int> ExpandAxis(int64_t axis, int rank);

// The out_type attr of Shape, ShapeN and Size: int32 (the default) or int64.
absl::StatusOr<DataType> ShapeOutType(const AttrMap& attrs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_RESHAPE_SHAPES_H_
