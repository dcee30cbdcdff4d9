// GatherNd's plan and its bad-index message, shared by the CPU and CUDA
// kernels so that both check the same things and say the same.
#ifndef SMRT_KERNELS_SHARED_GATHER_ND_UTIL_H_
#define SMRT_KERNELS_SHARED_GATHER_ND_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kernels/kernel.h"
#include "ops/array_shapes.h"

namespace smrt::kernels {

// "[2,3]": TensorFlow's way of printing a shape inside some messages.
using ops::Brackets;

// indices [batch..., depth] pick `rows` slices of `slice` params elements
// each: the slice at params coordinates (c_0, ..., c_depth-1) starts at
// sum(c_k * strides[k]).
struct GatherNdPlan {
  Shape out_shape;  // batch + params.shape[depth:]
  Shape batch;      // indices.shape[:-1]
  int64_t rows = 0, depth = 0, slice = 0;
  std::vector<int64_t> strides;  // depth of them
  bool ignore_bad = false;       // bad_indices_policy IGNORE: a bad row stays zero
};

// For a GatherNd node (inputs: params, indices; attr bad_indices_policy).
// InvalidArgument as TensorFlow's for a bad policy, scalar params or
// indices, an index depth over the params' rank, or rows from empty params.
absl::StatusOr<GatherNdPlan> PlanGatherNd(const KernelContext& ctx);

// The error for row `row` of the indices, whose coordinates are `coord`
// (plan.depth of them), falling outside params_shape.
absl::Status GatherNdBadIndexError(const GatherNdPlan& plan, int64_t row, const int64_t* coord,
                                   const Shape& params_shape);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_GATHER_ND_UTIL_H_
