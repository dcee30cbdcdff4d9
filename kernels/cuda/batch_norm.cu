#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "kernels/cuda/batch_norm.h"
#include "kernels/cuda/block_reduce.h"
#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

template <typename T>
__global__ void BatchNormInferenceKernel(BatchNormPlan plan, const T* __restrict__ x,
                                         const float* __restrict__ scale,
                                         const float* __restrict__ offset,
                                         const float* __restrict__ mean,
                                         const float* __restrict__ variance,
                                         T* __restrict__ y, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    const int64_t c = (i / plan.inner) % plan.channels;
    y[i] = Narrow<T>(
        BatchNormValue(Widen(x[i]), scale[c], offset[c], mean[c], variance[c], plan.epsilon));
  }
}

// Element j of channel c, j in [0, outer * inner).
template <typename T>
__device__ double ChannelElement(const BatchNormPlan& plan, const T* x, int64_t c, int64_t j) {
  const int64_t o = j / plan.inner, i = j % plan.inner;
  return Widen(x[(o * plan.channels + c) * plan.inner + i]);
}

template <typename T>
__global__ void BatchNormStatisticsKernel(BatchNormPlan plan, const T* __restrict__ x,
                                          BatchNormStatistics stats) {
  __shared__ double scratch[33];
  const int64_t count = plan.outer * plan.inner;
  const double n = static_cast<double>(count);
  for (int64_t c = blockIdx.x; c < plan.channels; c += gridDim.x) {
    double s = 0.0;
    for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      s += ChannelElement(plan, x, c, j);
    }
    const double mean = BlockReduce<SumOp<double>>(s, scratch) / n;
    double q = 0.0;
    for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      const double d = ChannelElement(plan, x, c, j) - mean;
      q += d * d;
    }
    q = BlockReduce<SumOp<double>>(q, scratch);
    if (threadIdx.x == 0) {
      const double bessel = n / static_cast<double>(count > 1 ? count - 1 : 1);
      const float m = static_cast<float>(mean);
      const float unbiased = static_cast<float>(q / n * bessel);
      stats.mean[c] = m;
      stats.variance[c] = static_cast<float>(q / n);
      const bool average = stats.factor != 1.0f;
      stats.running_mean[c] =
          RunningStatistic(average ? stats.estimated_mean[c] : 0.0f, m, stats.factor);
      stats.running_variance[c] = RunningStatistic(
          average ? stats.estimated_variance[c] : 0.0f, unbiased, stats.factor);
    }
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchBatchNormInference(const BatchNormPlan& plan, const T* x, const float* scale,
                                     const float* offset, const float* mean,
                                     const float* variance, T* y, int64_t n,
                                     cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int blocks =
      static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  BatchNormInferenceKernel<T><<<blocks, kThreads, 0, stream>>>(plan, x, scale, offset, mean,
                                                               variance, y, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchBatchNormStatistics(const BatchNormPlan& plan, const T* x,
                                      const BatchNormStatistics& stats, cudaStream_t stream) {
  if (plan.channels == 0 || plan.outer * plan.inner == 0) return cudaSuccess;
  const int blocks = static_cast<int>(std::min<int64_t>(plan.channels, kMaxBlocks));
  BatchNormStatisticsKernel<T><<<blocks, kThreads, 0, stream>>>(plan, x, stats);
  return cudaGetLastError();
}

#define SMRT_BATCH_NORM_INSTANTIATE(T)                                                      \
  template cudaError_t LaunchBatchNormInference<T>(const BatchNormPlan&, const T*,          \
                                                   const float*, const float*, const float*, \
                                                   const float*, T*, int64_t, cudaStream_t); \
  template cudaError_t LaunchBatchNormStatistics<T>(const BatchNormPlan&, const T*,         \
                                                    const BatchNormStatistics&, cudaStream_t);
SMRT_BATCH_NORM_INSTANTIATE(float)
SMRT_BATCH_NORM_INSTANTIATE(__half)
SMRT_BATCH_NORM_INSTANTIATE(__nv_bfloat16)
#undef SMRT_BATCH_NORM_INSTANTIATE

}  // namespace smrt::kernels::cuda
