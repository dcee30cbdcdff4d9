// The shape inference of the int8 ops (ops/quantized_ops.h), shared by the
// files that define them: the float op's rules with the 8-bit input 0,
// residual and output that the int8 attrs declare.
#ifndef SMRT_OPS_DEFS_QUANTIZED_INFER_H_
#define SMRT_OPS_DEFS_QUANTIZED_INFER_H_

#include "absl/status/status.h"
#include "ops/op_spec.h"

namespace smrt::ops {

// `float_infer` is the float op's inference; `conv`: a residual sum may be
// 8-bit (residual_scale), as only the int8 convolution allows.
absl::Status InferQuantized(InferenceContext& ctx, const InferFn& float_infer, bool conv);

}  // namespace smrt::ops

#endif  // SMRT_OPS_DEFS_QUANTIZED_INFER_H_
