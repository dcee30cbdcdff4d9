// ArgMax's and ArgMin's checks and geometry, shared by the CPU kernel
// (reduction_ops.cc) and the CUDA one, so that both refuse alike.
#ifndef SMRT_KERNELS_SHARED_ARG_REDUCE_UTIL_H_
#define SMRT_KERNELS_SHARED_ARG_REDUCE_UTIL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "kernels/kernel.h"
#include "ops/reduction_shapes.h"

namespace smrt::kernels {

// x viewed as (outer, n, inner) around the reduced axis.
struct ArgReducePlan {
  DataType out_type = DataType::kInt64;  // output_type: int16, uint16, int32 or int64
  int64_t outer = 1, n = 0, inner = 1;
  Shape out_shape;  // x's shape without the axis
};

// The op layer's checks (ops/reduction_shapes.h), under kernels::.
using ops::ArgAxis;
using ops::ArgOutputType;

// For an ArgMax/ArgMin node (inputs x and a scalar dimension, read on the
// host): InvalidArgument, with TensorFlow's message, for a bad output_type, a
// dimension that is not a scalar or out of range, or an empty axis.
absl::StatusOr<ArgReducePlan> PlanArgReduce(const KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_ARG_REDUCE_UTIL_H_
