// FusedBatchNorm's attrs and the checks of its inputs, shared by the CPU
// kernel (batch_norm_ops.cc) and the CUDA one, so that both refuse alike.
#ifndef SMRT_KERNELS_SHARED_BATCH_NORM_UTIL_H_
#define SMRT_KERNELS_SHARED_BATCH_NORM_UTIL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// FusedBatchNorm's parameter inputs 1-4, by name.
inline constexpr const char* kParamNames[] = {"scale", "offset", "mean", "variance"};

struct BatchNormAttrs {
  float epsilon = 1e-4f;
  float exponential_avg_factor = 1.0f;
  bool is_training = true;  // TensorFlow's default; Keras exports false
  bool channels_last = true;
};

// epsilon, exponential_avg_factor, is_training and data_format (NHWC, NCHW,
// NDHWC or NCDHW, else InvalidArgument).
absl::StatusOr<BatchNormAttrs> ReadBatchNormAttrs(const AttrMap& attrs);

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

// Mean and variance must match the channels unless training with factor 1,
// where they are unused (exports pass empty tensors).
bool NeedsRunningStats(const BatchNormAttrs& a);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_BATCH_NORM_UTIL_H_
