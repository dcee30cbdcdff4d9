#include "kernels/shared/scan_util.h"

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
#include "ops/shape_text.h"

namespace smrt::kernels {

absl::StatusOr<ScanPlan> PlanScan(const KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& axis_t = ctx.input(1);
  if (axis_t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ScanOp: axis must be a scalar, not ", ops::TfShapeText(axis_t.shape())));
  }
  absl::StatusOr<int64_t> axis = IntScalar(axis_t, "axis");
  if (!axis.ok()) return axis.status();
  if (*axis < -x.rank() || *axis >= x.rank()) return ScanAxisError(*axis, x.rank());
  const int a = static_cast<int>(*axis < 0 ? *axis + x.rank() : *axis);
  ScanPlan plan;
  absl::StatusOr<bool> exclusive = ctx.attrs().GetOr<bool>("exclusive", false);
  if (!exclusive.ok()) return exclusive.status();
  absl::StatusOr<bool> reverse = ctx.attrs().GetOr<bool>("reverse", false);
  if (!reverse.ok()) return reverse.status();
  plan.exclusive = *exclusive;
  plan.reverse = *reverse;
  plan.outer = DimProduct(x.shape(), 0, a);
  plan.len = x.dim(a);
  plan.inner = DimProduct(x.shape(), a + 1, x.rank());
  return plan;
}

}  // namespace smrt::kernels
