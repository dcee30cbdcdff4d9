// FusedBatchNorm in inference mode on device pointers (no absl headers: nvcc
// sees only CUDA, the standard library and exact_math.h). Most batch norms
// are folded into the convolution before them at load (fold_batch_norm); this
// serves the rest: after an Add, a Concat, a pool, or on a model's input.
#ifndef SMRT_KERNELS_CUDA_BATCH_NORM_H_
#define SMRT_KERNELS_CUDA_BATCH_NORM_H_

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/cuda/exact_math.h"

namespace smrt::kernels::cuda {

// x viewed as (outer, channels, inner): inner is 1 for NHWC/NDHWC, the
// spatial size for NCHW/NCDHW.
struct BatchNormPlan {
  int64_t channels = 0;
  int64_t inner = 1;
  float epsilon = 0;
};

// y = (x - mean) * (scale / sqrt(variance + epsilon)) + offset for channel c,
// rounded step by step as the CPU kernel (IEEE sqrt and division).
__host__ __device__ inline float BatchNormValue(float x, float scale, float offset, float mean,
                                                float variance, float epsilon) {
  const float mul = scale / sqrtf(AddRn(variance, epsilon));
  return AddRn(MulRn(SubRn(x, mean), mul), offset);
}

// y[i] for the n elements of x; scale, offset, mean and variance hold
// plan.channels values. Returns the launch error, if any.
cudaError_t LaunchBatchNormInference(const BatchNormPlan& plan, const float* x,
                                     const float* scale, const float* offset, const float* mean,
                                     const float* variance, float* y, int64_t n,
                                     cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_BATCH_NORM_H_
