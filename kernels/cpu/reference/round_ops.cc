// _SmrtRoundTo: what the widen_16bit pass puts after each op of a
// mixed-precision graph that it runs in float32 on the CPU.
#include "kernels/cpu/reference/round_ops.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/cpu/target_clones.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"

namespace smrt::kernels {
namespace {

SMRT_TARGET_CLONES void RoundRangeToHalf(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = RoundToHalf(in[i]);
}

SMRT_TARGET_CLONES void RoundRangeToBFloat16(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = RoundToBFloat16(in[i]);
}

absl::Status ComputeRoundTo(KernelContext& ctx) {
  absl::StatusOr<DataType> to = ctx.attrs().Get<DataType>("dtype");
  if (!to.ok()) return to.status();
  if (*to != DataType::kHalf && *to != DataType::kBFloat16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype must be float16 or bfloat16, got ", DataTypeName(*to)));
  }
  const Tensor& x = ctx.input(0);
  if (x.dtype() != DataType::kFloat) {
    return absl::InvalidArgumentError(
        absl::StrCat("x must be float32, got ", DataTypeName(x.dtype())));
  }
  absl::StatusOr<Tensor*> y =
      ctx.forward_input_or_allocate_output({0}, 0, DataType::kFloat, x.shape());
  if (!y.ok()) return y.status();
  const float* in = x.data<float>();
  float* out = (*y)->data<float>();
  const bool half = *to == DataType::kHalf;
  ParallelFor(x.num_elements(), kMinShardElements, 16, [&](int64_t begin, int64_t end) {
    if (half) {
      RoundRangeToHalf(in + begin, out + begin, end - begin);
    } else {
      RoundRangeToBFloat16(in + begin, out + begin, end - begin);
    }
  });
  return absl::OkStatus();
}

}  // namespace

void RegisterRoundOps(KernelRegistry& r) {
  r.AddKernel({kRoundTo, kCpu, "T", {DataType::kFloat}, ComputeRoundTo});
}

}  // namespace smrt::kernels
