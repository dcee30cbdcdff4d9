#include "kernels/shared/gather_nd_util.h"

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

// "[2,3]": TensorFlow's way of printing a shape inside some messages.
absl::StatusOr<GatherNdPlan> PlanGatherNd(const KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  absl::StatusOr<std::string> policy = ctx.attrs().GetOr<std::string>("bad_indices_policy", "");
  if (!policy.ok()) return policy.status();
  GatherNdPlan plan;
  if (*policy == "IGNORE") {
    plan.ignore_bad = true;
  } else if (!policy->empty() && *policy != "DEFAULT") {
    return absl::InvalidArgumentError(
        absl::StrCat("bad_indices_policy must be '', 'DEFAULT' or 'IGNORE', got '", *policy, "'"));
  }
  if (params.rank() < 1) return absl::InvalidArgumentError("params must be at least a vector");
  if (indices.rank() < 1) return absl::InvalidArgumentError("indices must be at least a vector");
  plan.depth = indices.dim(indices.rank() - 1);
  if (plan.depth > params.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("index innermost dimension length must be <= params rank; saw: ",
                     plan.depth, " vs. ", params.rank()));
  }
  plan.batch.assign(indices.shape().begin(), indices.shape().end() - 1);
  plan.out_shape = plan.batch;
  plan.out_shape.insert(plan.out_shape.end(), params.shape().begin() + plan.depth,
                        params.shape().end());
  plan.rows = DimProduct(plan.batch, 0, static_cast<int>(plan.batch.size()));
  if (plan.rows > 0 && params.num_elements() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requested more than 0 entries, but params is empty.  Params shape: ",
                     ShapeToString(params.shape())));
  }
  plan.slice = DimProduct(params.shape(), static_cast<int>(plan.depth), params.rank());
  // strides[k]: params elements between consecutive values of coordinate k.
  plan.strides.assign(static_cast<size_t>(plan.depth), plan.slice);
  for (int64_t k = plan.depth - 2; k >= 0; --k) {
    plan.strides[k] = plan.strides[k + 1] * params.dim(static_cast<int>(k + 1));
  }
  return plan;
}

absl::Status GatherNdBadIndexError(const GatherNdPlan& plan, int64_t row, const int64_t* coord,
                                   const Shape& params_shape) {
  std::vector<int64_t> where(plan.batch.size());
  for (int64_t d = static_cast<int64_t>(plan.batch.size()) - 1, rest = row; d >= 0; --d) {
    where[d] = rest % plan.batch[d];
    rest /= plan.batch[d];
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "indices", Brackets(where), " = [", absl::StrJoin(coord, coord + plan.depth, ", "),
      "] does not index into param shape ", Brackets(params_shape)));
}

}  // namespace smrt::kernels
