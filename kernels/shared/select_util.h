// Select's (v1) shape rules, checked once for the CPU and CUDA kernels so
// that both accept the same inputs and give the same messages.
#ifndef SMRT_KERNELS_SHARED_SELECT_UTIL_H_
#define SMRT_KERNELS_SHARED_SELECT_UTIL_H_

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

// Select takes 'then' and 'else' of one shape and a condition that is a
// scalar, has their shape, or is a vector along their dim 0 (one choice per
// batch row). Returns the condition's shape as it broadcasts against 'then'
// (a vector of n becomes [n, 1, ..., 1]); InvalidArgument as TensorFlow's
// otherwise.
absl::StatusOr<Shape> SelectConditionShape(const Shape& cond, const Shape& then_shape,
                                           const Shape& else_shape);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_SELECT_UTIL_H_
