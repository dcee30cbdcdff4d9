// A bool attr the passes set on an Einsum whose operand 1 is the same on
// every call (a layer's weights: Keras's EinsumDense), so that a backend may
// prepare those weights once (passes/fuse_matmul.cc; the oneDNN Einsum).
// The fused ops carry the same fact as their "weights_constant" attr.
#ifndef SMRT_OPS_WEIGHT_ATTRS_H_
#define SMRT_OPS_WEIGHT_ATTRS_H_

namespace smrt::ops {

inline constexpr char kWeightsConstantAttr[] = "_smrt_weights_constant";

}  // namespace smrt::ops

#endif  // SMRT_OPS_WEIGHT_ATTRS_H_
