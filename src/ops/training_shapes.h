// What the training ops' definitions (ops/defs/training_ops.cc) and their
// kernels check alike.
#ifndef SMRT_OPS_TRAINING_SHAPES_H_
#define SMRT_OPS_TRAINING_SHAPES_H_

#include "absl/status/statusor.h"
#include "core/attr_map.h"

namespace smrt::ops {

// BiasAddGrad's attr data_format (default NHWC): whether it is NCHW;
// InvalidArgument "unknown data_format X" for anything but NHWC or NCHW.
absl::StatusOr<bool> BiasAddGradIsNchw(const AttrMap& attrs);

}  // namespace smrt::ops

#endif  // SMRT_OPS_TRAINING_SHAPES_H_
