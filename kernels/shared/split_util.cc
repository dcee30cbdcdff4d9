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
