// ClipByValue, with TensorFlow's shape rules for its bounds.
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
#include "kernels/cpu/reference/misc_util.h"
#include "kernels/registry.h"
#include "kernels/shared/array_util.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {
namespace {

// ---------------------------------------------------------------------------
// ClipByValue

absl::Status ComputeClip(KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  const Tensor& lo = ctx.input(1);
  const Tensor& hi = ctx.input(2);
  for (const Tensor* b : {&lo, &hi}) {
    if (b->rank() != 0 && b->shape() != t.shape()) {
      return ClipShapeError(t.shape(), lo.shape(), hi.shape());
    }
    if (b->dtype() != t.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ClipByValue: bounds must have the input's "
                       "type ",
                       DataTypeName(t.dtype()), ", got ", DataTypeName(b->dtype())));
    }
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, t.dtype(), t.shape());
  if (!out.ok()) return out.status();
  Tensor* result = *out;
  const int64_t lo_step = lo.rank() == 0 ? 0 : 1;
  const int64_t hi_step = hi.rank() == 0 ? 0 : 1;
  return misc::VisitRealType(t.dtype(), ctx.op(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = t.data<T>();
    const T* l = lo.data<T>();
    const T* h = hi.data<T>();
    T* o = result->data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      // std::max(std::min(x, hi), lo), as TensorFlow: a NaN input stays NaN and
      // a NaN bound is ignored.
      o[i] = std::max(std::min(x[i], h[i * hi_step]), l[i * lo_step]);
    }
    return absl::OkStatus();
  });
}

}  // namespace

void RegisterClipOps(KernelRegistry& r) {
  const std::vector<DataType>& real = misc::RealTypes();
  r.AddKernel({"ClipByValue", kCpu, "T", real, ComputeClip});
}

}  // namespace smrt::kernels
