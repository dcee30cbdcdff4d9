// Bincount's and DenseBincount's size input, checked alike by their shape
// inference (ops/defs/bincount_ops.cc) and their kernels.
#ifndef SMRT_OPS_BINCOUNT_SHAPES_H_
#define SMRT_OPS_BINCOUNT_SHAPES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// The value of `size`: an integer scalar >= 0, else InvalidArgument.
absl::StatusOr<int64_t> BincountSize(const Tensor& size);

}  // namespace smrt::ops

#endif  // SMRT_OPS_BINCOUNT_SHAPES_H_
