#include "kernels/shared/split_util.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"

namespace smrt::kernels {

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

absl::StatusOr<SplitPieces> PlanSplit(const KernelContext& ctx) {
  SplitPieces pieces;
  if (ctx.op() == "Split") {
    const Tensor& input = ctx.input(1);
    absl::StatusOr<int64_t> axis_value = IntScalar(ctx.input(0), "Split axis");
    if (!axis_value.ok()) return axis_value.status();
    absl::StatusOr<int> axis =
        CheckedAxis("Split", *axis_value, input.rank(), ShapeToString(input.shape()));
    if (!axis.ok()) return axis.status();
    absl::StatusOr<std::vector<int64_t>> sizes =
        EqualSplits(input.dim(*axis), ctx.num_outputs(), *axis, ShapeToString(input.shape()));
    if (!sizes.ok()) return sizes.status();
    pieces.axis = *axis;
    pieces.sizes = *std::move(sizes);
    return pieces;
  }
  const Tensor& input = ctx.input(0);
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("SplitV: size_splits must be 1-D, got shape ",
                                                   ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<std::vector<int64_t>> size_splits = IntValues(ctx.input(1), "size_splits");
  if (!size_splits.ok()) return size_splits.status();
  absl::StatusOr<int64_t> axis_value = IntScalar(ctx.input(2), "SplitV axis");
  if (!axis_value.ok()) return axis_value.status();
  absl::StatusOr<int> axis =
      CheckedAxis("SplitV", *axis_value, input.rank(), ShapeToString(input.shape()));
  if (!axis.ok()) return axis.status();
  absl::StatusOr<std::vector<int64_t>> sizes = ResolveSplitSizes(
      *std::move(size_splits), input.dim(*axis), ctx.num_outputs(), ShapeToString(input.shape()));
  if (!sizes.ok()) return sizes.status();
  pieces.axis = *axis;
  pieces.sizes = *std::move(sizes);
  return pieces;
}

}  // namespace smrt::kernels
