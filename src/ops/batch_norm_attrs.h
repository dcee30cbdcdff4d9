// FusedBatchNorm's attrs, read and checked alike by its shape inference
// (ops/defs/batch_norm_ops.cc) and every device's kernel
// (kernels/shared/batch_norm_util.h).
#ifndef SMRT_OPS_BATCH_NORM_ATTRS_H_
#define SMRT_OPS_BATCH_NORM_ATTRS_H_

#include "absl/status/statusor.h"
#include "core/attr_map.h"

namespace smrt::ops {

// FusedBatchNorm's parameter inputs 1-4, by name.
inline constexpr const char* kBatchNormParamNames[] = {"scale", "offset", "mean", "variance"};

struct BatchNormAttrs {
  float epsilon = 1e-4f;
  float exponential_avg_factor = 1.0f;
  bool is_training = true;  // TensorFlow's default; Keras exports false
  bool channels_last = true;
};

// epsilon, exponential_avg_factor, is_training and data_format (NHWC, NCHW,
// NDHWC or NCDHW, else InvalidArgument).
absl::StatusOr<BatchNormAttrs> ReadBatchNormAttrs(const AttrMap& attrs);

// Mean and variance must match the channels unless training with factor 1,
// where they are unused (exports pass empty tensors).
bool NeedsRunningStats(const BatchNormAttrs& a);

}  // namespace smrt::ops

#endif  // SMRT_OPS_BATCH_NORM_ATTRS_H_
