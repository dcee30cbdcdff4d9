// Conv2D / DepthwiseConv2dNative as functions, for kernels built on them
// (the fused conv of fused_ops.cc).
#ifndef SMRT_KERNELS_CPU_REFERENCE_CONV_OPS_H_
#define SMRT_KERNELS_CPU_REFERENCE_CONV_OPS_H_

#include "absl/status/status.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// The computation over inputs 0 (input) and 1 (filter) and the conv attrs
// (strides, padding, explicit_paddings, data_format, dilations); other
// inputs and attrs are ignored. Shape inference: ops::InferConv2D.
absl::Status ComputeConvolution(KernelContext& ctx, bool depthwise);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_CONV_OPS_H_
