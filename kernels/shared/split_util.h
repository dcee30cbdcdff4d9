// Split's and SplitV's pieces, planned once for the CPU and CUDA kernels so
// that both check the same things and give the same messages.
#ifndef SMRT_KERNELS_SHARED_SPLIT_UTIL_H_
#define SMRT_KERNELS_SHARED_SPLIT_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/kernel.h"
#include "ops/split_shapes.h"

namespace smrt::kernels {

// The axis and piece-size checks of Split and SplitV (ops/split_shapes.h).
using ops::CheckedAxis;
using ops::EqualSplits;
using ops::ResolveSplitSizes;

struct SplitPieces {
  int axis = 0;                // non-negative
  std::vector<int64_t> sizes;  // one per output, summing to the input's dim `axis`
};

// For a Split (inputs: axis, value; num_split equal pieces) or SplitV node
// (inputs: value, size_splits with at most one -1, axis): the axis and the
// size of each output along it. InvalidArgument as TensorFlow's for an axis
// out of range, a dim num_split does not divide, or sizes that do not sum.
absl::StatusOr<SplitPieces> PlanSplit(const KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_SPLIT_UTIL_H_
