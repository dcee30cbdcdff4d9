// Split's and SplitV's axis and piece sizes, checked alike by their shape
// inference (ops/defs/concat_split_ops.cc) and every device's kernels
// (kernels/shared/split_util.h).
#ifndef SMRT_OPS_SPLIT_SHAPES_H_
#define SMRT_OPS_SPLIT_SHAPES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::ops {

// `axis` made non-negative for an input of `rank`; InvalidArgument naming
// `op` and the input's shape when it is out of [-rank, rank).
absl::StatusOr<int> CheckedAxis(absl::string_view op, int64_t axis, int rank,
                                const std::string& shape_text);

// Sizes of Split's equal pieces along a dim of size `dim` (-1 unknown).
absl::StatusOr<std::vector<int64_t>> EqualSplits(int64_t dim, int num_split, int axis,
                                                 const std::string& shape_text);

// SplitV's size_splits with its -1 (at most one) resolved against `dim` (-1
// unknown: the -1 stays).
absl::StatusOr<std::vector<int64_t>> ResolveSplitSizes(std::vector<int64_t> sizes, int64_t dim,
                                                       int num_split,
                                                       const std::string& shape_text);

}  // namespace smrt::ops

#endif  // SMRT_OPS_SPLIT_SHAPES_H_
