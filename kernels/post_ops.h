// The post-ops of smrt's fused ops (ops/fused_ops.h) computed on the CPU in
// float32, as the unfused TensorFlow ops compute them: the reference
// kernels' epilogue and the oneDNN backend's fallback.
#ifndef SMRT_KERNELS_POST_OPS_H_
#define SMRT_KERNELS_POST_OPS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "ops/fused_ops.h"
#include "smrt/tensor.h"

namespace smrt::kernels {

using ops::Activation;
using ops::FusedOps;
using ops::PostOp;

// x -> activation(x), as the unfused TensorFlow ops compute it.
float ApplyActivation(Activation a, float alpha, float x);
void ApplyActivation(Activation a, float alpha, float* data, int64_t n);

// Applies the post-ops to `out` (float32) in place, reading args from
// `inputs`. Shapes are checked: BiasAdd's arg must be [channels], Add's the
// output's shape.
absl::Status ApplyPostOps(const FusedOps& ops, const std::vector<const Tensor*>& inputs,
                          Tensor& out);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_POST_OPS_H_
