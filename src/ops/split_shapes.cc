#include "ops/split_shapes.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace smrt::ops {

absl::StatusOr<int> CheckedAxis(absl::string_view op, int64_t axis, int rank,
                                const std::string& shape_text) {
  if (axis < -rank || axis >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": axis ", axis, " is out of range [", -rank,
                                                   ", ", rank, ") for an input of shape ",
                                                   shape_text));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// Sizes of Split's equal pieces along a dim of size `dim` (-1 unknown).
absl::StatusOr<std::vector<int64_t>> EqualSplits(int64_t dim, int num_split, int axis,
                                                 const std::string& shape_text) {
  if (dim < 0) return std::vector<int64_t>(num_split, -1);
  if (dim % num_split != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Split: number of ways to split should evenly divide the split dimension, but got "
        "axis ",
        axis, " (size ", dim, " of shape ", shape_text, ") and num_split ", num_split));
  }
  return std::vector<int64_t>(num_split, dim / num_split);
}

// SplitV's size_splits with its -1 (at most one) resolved against `dim` (-1
// unknown: the -1 stays).
absl::StatusOr<std::vector<int64_t>> ResolveSplitSizes(std::vector<int64_t> sizes, int64_t dim,
                                                       int num_split,
                                                       const std::string& shape_text) {
  if (static_cast<int64_t>(sizes.size()) != num_split) {
    return absl::InvalidArgumentError(absl::StrCat("SplitV: size_splits has ", sizes.size(),
                                                   " elements but num_split is ", num_split));
  }
  int neg_one = -1;
  int64_t determined = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (neg_one != -1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SplitV: there can only be one -1 in size_splits [", absl::StrJoin(sizes, ", "), "]"));
      }
      neg_one = static_cast<int>(i);
    } else if (sizes[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("SplitV: split size at index ", i, " must be >= 0, got ", sizes[i]));
    } else if (__builtin_add_overflow(determined, sizes[i], &determined)) {
      return absl::InvalidArgumentError("SplitV: size_splits sum overflows int64");
    }
  }
  if (dim < 0) return sizes;
  if ((neg_one == -1 && determined != dim) || (neg_one != -1 && determined > dim)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "SplitV: size_splits [", absl::StrJoin(sizes, ", "),
        "] must sum to the size of the split dimension (", dim, " in shape ", shape_text, ")",
        neg_one == -1 ? "" : ", or to at most that size when one is -1"));
  }
  if (neg_one != -1) sizes[neg_one] = dim - determined;
  return sizes;
}

}  // namespace smrt::ops
