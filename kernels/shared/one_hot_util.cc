#include "kernels/shared/one_hot_util.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {

absl::StatusOr<OneHotPlan> PlanOneHot(const KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const Tensor& on = ctx.input(2);
  const Tensor& off = ctx.input(3);
  absl::StatusOr<int64_t> axis = ctx.attrs().GetOr<int64_t>("axis", -1);
  if (!axis.ok()) return axis.status();
  const int rank = indices.rank();
  if (*axis < -1 || *axis > rank) return OneHotAxisError(*axis, rank);
  if (ctx.input(1).rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("depth must be a scalar, but got: ", ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<int64_t> depth = IntScalar(ctx.input(1), "depth");
  if (!depth.ok()) return depth.status();
  if (*depth < 0) {
    return absl::InvalidArgumentError(absl::StrCat("depth must be non-negative, got: ", *depth));
  }
  if (on.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("on_value must be a scalar, but got: ", ShapeToString(on.shape())));
  }
  if (off.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("off_value must be a scalar, but got: ", ShapeToString(off.shape())));
  }
  if (on.dtype() != off.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "on_value is ", DataTypeName(on.dtype()), " but off_value is ", DataTypeName(off.dtype())));
  }
  const int a = *axis == -1 ? rank : static_cast<int>(*axis);
  OneHotPlan plan;
  plan.out_shape = indices.shape();
  plan.out_shape.insert(plan.out_shape.begin() + a, *depth);
  plan.prefix = DimProduct(indices.shape(), 0, a);
  plan.suffix = DimProduct(indices.shape(), a, rank);
  plan.depth = *depth;
  return plan;
}

}  // namespace smrt::kernels
