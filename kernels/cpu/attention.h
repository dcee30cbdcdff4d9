// _SmrtAttention's computation (ops/fused_ops.h), shared by the reference
// kernel and the oneDNN one, which differ only in their row softmax.
#ifndef SMRT_KERNELS_CPU_ATTENTION_H_
#define SMRT_KERNELS_CPU_ATTENTION_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// Turns `n` rows of `depth` scores (contiguous) into their softmax in place,
// on the calling thread, with TensorFlow's results for rows holding
// infinities or NaNs.
using SoftmaxRowsFn = absl::FunctionRef<void(float* rows, int64_t n, int64_t depth)>;

// Checks the node's inputs and attrs, allocates its output and computes it;
// `softmax` is called once per (batch, head) with the [query, key] block.
absl::Status ComputeAttention(KernelContext& ctx, SoftmaxRowsFn softmax);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_ATTENTION_H_
