// RaggedTensorToTensor's plan, which every device's kernel follows: the
// row partitions and the requested shape are read and checked on the host
// (as TensorFlow's CPU kernel checks them), giving the output shape, the
// output row each row of values lands in, and the default_value element each
// element of an output row holds. Only the copying is left to a kernel.
#ifndef SMRT_KERNELS_SHARED_RAGGED_UTIL_H_
#define SMRT_KERNELS_SHARED_RAGGED_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

struct RaggedToTensorPlan {
  Shape out_shape;
  // Elements in one row of values, and in one row of the output (the same
  // whenever there are values to place).
  int64_t element = 0;
  int64_t out_element = 1;
  int64_t rows = 0;  // output rows of out_element elements
  // Per row of values: the output row it lands in, or -1 where the requested
  // shape cuts it off.
  std::vector<int64_t> index;
  // Per element of an output row: the default_value element it holds before
  // the values are placed (broadcast); empty when default_value is empty.
  std::vector<int64_t> default_source;
};

// The plan for a RaggedTensorToTensor node: its attrs, the shape (input 0)
// and row partitions (inputs 3...) in host memory; of the values (1) and
// default_value (2) only dtypes and shapes are read, so they may be on a
// device. InvalidArgument with TensorFlow's message for bad partitions or
// shapes.
absl::StatusOr<RaggedToTensorPlan> PlanRaggedToTensor(const KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_RAGGED_UTIL_H_
