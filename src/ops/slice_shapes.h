// TensorFlow's StridedSlice semantics (ValidateStridedSliceOp in
// tensorflow/core/util/strided_slice_op.cc) and Slice's, shared by the CPU
// and CUDA kernels (kernels/shared/strided_slice_util.h gives them to
// kernels under kernels::) and their shape inference.
//
// The op's begin/end/strides form a *sparse* spec, one entry per Python index
// item (x[1:-1:2, ..., None, 3]); the masks say which items are an ellipsis,
// a new axis, a single index (shrink), or have begin/end omitted. Planning
// expands it into a *dense* spec with one (begin, end, stride) per input dim,
// clamps begin/end like Python slicing, and derives the output shape.
#ifndef SMRT_OPS_SLICE_SHAPES_H_
#define SMRT_OPS_SLICE_SHAPES_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"

namespace smrt::ops {

struct StridedSliceMasks {
  uint32_t begin = 0;
  uint32_t end = 0;
  uint32_t ellipsis = 0;
  uint32_t new_axis = 0;
  uint32_t shrink_axis = 0;
};

// The five *_mask attrs (missing ones are 0); InvalidArgument for a value
// outside int32.
absl::StatusOr<StridedSliceMasks> StridedSliceMasksFromAttrs(const AttrMap& attrs);

struct StridedSlicePlan {
  // One entry per input dim. When begin and end were known, begin/end are
  // canonical (begin is the first index taken; the slice is begin, begin +
  // stride, ... stopping before end).
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  Shape processing_shape;  // elements taken per input dim; -1 unknown
  Shape final_shape;       // the output: shrunk dims dropped, new axes added
};

// Plans x[spec] for an input of known rank whose dims may be unknown (-1).
// begin/end may be unknown (nullopt) during inference; strides must be known.
// begin, end and strides must have the same length, below 32.
absl::StatusOr<StridedSlicePlan> PlanStridedSlice(const Shape& input_dims,
                                                  const std::optional<std::vector<int64_t>>& begin,
                                                  const std::optional<std::vector<int64_t>>& end,
                                                  const std::vector<int64_t>& strides,
                                                  const StridedSliceMasks& masks);

// Output dims of Slice (begin + size, size -1 meaning "to the end"); input
// dims, begin and size may be unknown (-1 dims, nullopt vectors) during
// inference. InvalidArgument naming the dim for a box outside the input.
absl::StatusOr<Shape> SliceSizes(const Shape& dims,
                                 const std::optional<std::vector<int64_t>>& begin,
                                 const std::optional<std::vector<int64_t>>& size);

}  // namespace smrt::ops

#endif  // SMRT_OPS_SLICE_SHAPES_H_
