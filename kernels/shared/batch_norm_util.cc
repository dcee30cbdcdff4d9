#include "kernels/shared/batch_norm_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"

namespace smrt::kernels {

absl::StatusOr<BatchNormLayout> PlanBatchNorm(const KernelContext& ctx, bool x_16bit) {
  BatchNormLayout layout;
  absl::StatusOr<BatchNormAttrs> a = ReadBatchNormAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  layout.attrs = *a;
  const Tensor& x = ctx.input(0);
  for (int i = 0; i < 5; ++i) {
    const DataType t = ctx.input(i).dtype();
    if (t != DataType::kFloat && !(i == 0 && x_16bit && (t == DataType::kHalf ||
                                                          t == DataType::kBFloat16))) {
      return absl::UnimplementedError(absl::StrCat(
          ctx.op(), " supports float32 ", i == 0 && x_16bit ? "(or 16-bit x) " : "",
          "only, input ", i, " is ", DataTypeName(t)));
    }
  }
  if (x.rank() != 4 && x.rank() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.op(), ": input must be 4 or 5-dimensional, got ", ShapeToString(x.shape())));
  }
  const int channel_axis = a->channels_last ? x.rank() - 1 : 1;
  const int64_t channels = x.dim(channel_axis);
  const bool running = NeedsRunningStats(*a);
  for (int i = 1; i <= 4; ++i) {
    const Tensor& p = ctx.input(i);
    if (p.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.op(), ": ", kBatchNormParamNames[i - 1],
                                                     " must be 1-dimensional, got ",
                                                     ShapeToString(p.shape())));
    }
    if ((i <= 2 || running) && p.dim(0) != channels) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.op(), ": ", !a->is_training && i > 2 ? "When is_training=false, " : "",
                       kBatchNormParamNames[i - 1],
                       " must have the same number of elements as the channels of x, got ",
                       p.dim(0), " and ", channels));
    }
  }
  layout.channels = channels;
  for (int d = 0; d < channel_axis; ++d) layout.outer *= x.dim(d);
  for (int d = channel_axis + 1; d < x.rank(); ++d) layout.inner *= x.dim(d);
  return layout;
}

}  // namespace smrt::kernels
