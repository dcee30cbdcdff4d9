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

// A backend's two products for query, key and value of a type the float
// GEMMs do not take (bfloat16), a batch element b at a time over all heads,
// called from one thread (they may use all of them).
struct AttentionGemms {
  // scores [heads, query, key] (floats, dense) = q[b] k[b]ᵀ per head.
  absl::FunctionRef<void(int64_t b, float* scores)> scores;
  // out[b] = probs [heads, query, key] (floats, dense) v[b] per head.
  absl::FunctionRef<void(int64_t b, const float* probs)> context;
};

// Checks the node's inputs and attrs, allocates its output and computes it;
// `softmax` is called once per (batch, head) with the [query, key] block.
// float32 query, key and value; another type (the output's too) only with
// `gemms`, which then compute both products of every block.
absl::Status ComputeAttention(KernelContext& ctx, SoftmaxRowsFn softmax,
                              const AttentionGemms* gemms = nullptr);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_ATTENTION_H_
