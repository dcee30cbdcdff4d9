#include "kernels/shared/broadcast.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace smrt::kernels {

using ops::AlignedDim;

absl::StatusOr<BroadcastPlan> MakeBroadcastPlan(absl::Span<const Shape> shapes) {
  absl::StatusOr<Shape> out = BroadcastShapes(shapes);
  if (!out.ok()) return out.status();
  BroadcastPlan plan;
  plan.out_shape = *out;
  absl::StatusOr<int64_t> size = NumElements(plan.out_shape);
  if (!size.ok()) return size.status();
  plan.out_size = *size;
  const size_t rank = plan.out_shape.size();
  const size_t n = shapes.size();

  // Merged dims with, per input, whether it is broadcast along them.
  std::vector<std::vector<bool>> broadcast(n);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dim = plan.out_shape[d];
    if (dim == 1) continue;
    std::vector<bool> flags(n);
    for (size_t k = 0; k < n; ++k) flags[k] = AlignedDim(shapes[k], rank, d) != dim;
    bool same = !plan.dims.empty();
    for (size_t k = 0; same && k < n; ++k) same = broadcast[k].back() == flags[k];
    if (same) {
      plan.dims.back() *= dim;
    } else {
      plan.dims.push_back(dim);
      for (size_t k = 0; k < n; ++k) broadcast[k].push_back(flags[k]);
    }
  }
  plan.strides.assign(n, std::vector<int64_t>(plan.dims.size(), 0));
  for (size_t k = 0; k < n; ++k) {
    int64_t running = 1;
    for (size_t d = plan.dims.size(); d-- > 0;) {
      if (broadcast[k][d]) continue;
      plan.strides[k][d] = running;
      running *= plan.dims[d];
    }
  }
  return plan;
}

}  // namespace smrt::kernels
