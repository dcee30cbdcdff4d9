#include <algorithm>
#include <cstdint>

#include "kernels/cuda/batch_norm.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

__global__ void BatchNormInferenceKernel(BatchNormPlan plan, const float* __restrict__ x,
                                         const float* __restrict__ scale,
                                         const float* __restrict__ offset,
                                         const float* __restrict__ mean,
                                         const float* __restrict__ variance,
                                         float* __restrict__ y, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    const int64_t c = (i / plan.inner) % plan.channels;
    y[i] = BatchNormValue(x[i], scale[c], offset[c], mean[c], variance[c], plan.epsilon);
  }
}

}  // namespace

cudaError_t LaunchBatchNormInference(const BatchNormPlan& plan, const float* x,
                                     const float* scale, const float* offset, const float* mean,
                                     const float* variance, float* y, int64_t n,
                                     cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int blocks =
      static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  BatchNormInferenceKernel<<<blocks, kThreads, 0, stream>>>(plan, x, scale, offset, mean,
                                                            variance, y, n);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
