#include "kernels/shared/arg_reduce_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {

absl::StatusOr<ArgReducePlan> PlanArgReduce(const KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& dim = ctx.input(1);
  ArgReducePlan plan;
  absl::StatusOr<DataType> out_type = ArgOutputType(ctx.attrs());
  if (!out_type.ok()) return out_type.status();
  plan.out_type = *out_type;
  if (dim.rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dimension must be a scalar, but received a tensor of shape ", ShapeToString(dim.shape())));
  }
  absl::StatusOr<std::vector<int64_t>> axis_values = ToInt64s(dim);
  if (!axis_values.ok()) return axis_values.status();
  absl::StatusOr<int> axis = ArgAxis((*axis_values)[0], x.rank());
  if (!axis.ok()) return axis.status();
  plan.n = x.dim(*axis);
  if (plan.n == 0) {
    return absl::InvalidArgumentError(absl::StrCat("Reduction axis ", *axis,
                                                   " is empty in shape ", ShapeToString(x.shape())));
  }
  for (int d = 0; d < x.rank(); ++d) {
    if (d < *axis) plan.outer *= x.dim(d);
    if (d > *axis) plan.inner *= x.dim(d);
    if (d != *axis) plan.out_shape.push_back(x.dim(d));
  }
  return plan;
}

}  // namespace smrt::kernels
