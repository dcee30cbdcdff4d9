// OneHot's shape, planned once for the CPU and CUDA kernels so that both
// check the same things and give the same messages.
#ifndef SMRT_KERNELS_SHARED_ONE_HOT_UTIL_H_
#define SMRT_KERNELS_SHARED_ONE_HOT_UTIL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/kernel.h"
#include "ops/index_shapes.h"

namespace smrt::kernels {

using ops::OneHotAxisError;  // ops/index_shapes.h

// The output is the indices' shape with `depth` inserted at the axis: a
// (prefix, depth, suffix) view where prefix * suffix are the indices.
struct OneHotPlan {
  Shape out_shape;
  int64_t prefix = 1, depth = 0, suffix = 1;
};

// For a OneHot node (inputs: indices, depth on the host, on_value,
// off_value; attr axis). InvalidArgument as TensorFlow's for an axis out of
// range, a depth that is not a non-negative scalar, on/off values that are
// not scalars of one dtype.
absl::StatusOr<OneHotPlan> PlanOneHot(const KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_ONE_HOT_UTIL_H_
