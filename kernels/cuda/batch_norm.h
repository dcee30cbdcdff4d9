// FusedBatchNorm on device pointers (no absl headers: nvcc sees only CUDA,
// the standard library, exact_math.h and half_math.h). Most inference batch
// norms are folded into the convolution before them at load
// (fold_batch_norm); this serves the rest: after an Add, a Concat, a pool,
// on a model's input, after a float16 convolution (tf_keras mixed_float16),
// and training mode, which is how tf_keras exports LayerNormalization.
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
  int64_t outer = 1;
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
// plan.channels floats. T is float, __half or __nv_bfloat16: a 16-bit x is
// widened to float and y rounded once, as the CPU's 16-bit kernel does.
// Returns the launch error, if any.
template <typename T>
cudaError_t LaunchBatchNormInference(const BatchNormPlan& plan, const T* x, const float* scale,
                                     const float* offset, const float* mean,
                                     const float* variance, T* y, int64_t n,
                                     cudaStream_t stream);

// Training mode's batch_mean or batch_variance output for one channel: the
// batch's value when exponential_avg_factor is 1, else the moving average
// (1 - factor) * estimate + factor * batch, rounded as the CPU kernel does.
__host__ __device__ inline float RunningStatistic(float estimate, float batch, float factor) {
  if (factor == 1.0f) return batch;
  return AddRn(MulRn(SubRn(1.0f, factor), estimate), MulRn(factor, batch));
}

// Training mode's statistics (FusedBatchNorm outputs 1 to 4), each
// plan.channels floats. estimated_* are inputs 3 and 4, read only when
// factor is not 1.
struct BatchNormStatistics {
  const float* estimated_mean = nullptr;
  const float* estimated_variance = nullptr;
  float factor = 1.0f;                 // exponential_avg_factor
  float* running_mean = nullptr;       // batch_mean
  float* running_variance = nullptr;   // batch_variance: from the unbiased variance
  float* mean = nullptr;               // reserve_space_1: what y is normalized with
  float* variance = nullptr;           // reserve_space_2: the biased variance
};

// The statistics of each channel over its plan.outer * plan.inner elements
// of x (at least one): the mean, then the sum of squared deviations from it,
// each summed in double as the CPU kernel does (in another order), one
// thread block per channel. y then comes from LaunchBatchNormInference with
// stats.mean and stats.variance. Returns the launch error, if any.
template <typename T>
cudaError_t LaunchBatchNormStatistics(const BatchNormPlan& plan, const T* x,
                                      const BatchNormStatistics& stats, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_BATCH_NORM_H_
