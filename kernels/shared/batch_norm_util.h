// FusedBatchNorm's attrs and the checks of its inputs, shared by the CPU
// kernel (batch_norm_ops.cc) and the CUDA one, so that both refuse alike.
#ifndef SMRT_KERNELS_SHARED_BATCH_NORM_UTIL_H_
#define SMRT_KERNELS_SHARED_BATCH_NORM_UTIL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "kernels/kernel.h"
#include "ops/batch_norm_attrs.h"

namespace smrt::kernels {

// FusedBatchNorm's attrs (ops/batch_norm_attrs.h).
using ops::BatchNormAttrs;
using ops::kBatchNormParamNames;
using ops::NeedsRunningStats;
using ops::ReadBatchNormAttrs;

// x viewed as (outer, channels, inner).
struct BatchNormLayout {
  BatchNormAttrs attrs;
  int64_t channels = 0, outer = 1, inner = 1;
};

// For a FusedBatchNorm{,V2,V3} node: float32 inputs (else Unimplemented; x
// may be float16 or bfloat16 where `x_16bit`, for a kernel that reads them),
// x of rank 4 or 5, and 1-D scale/offset (and mean/variance where used) with
// one value per channel (else InvalidArgument, TensorFlow's message).
absl::StatusOr<BatchNormLayout> PlanBatchNorm(const KernelContext& ctx, bool x_16bit = false);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_BATCH_NORM_UTIL_H_
