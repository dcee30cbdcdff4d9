#include <algorithm>

#include "kernels/cuda/block_reduce.h"
#include "kernels/cuda/layer_norm.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;  // rows beyond this are grid-strided

__global__ void LayerNormKernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                int64_t gamma_count, const float* __restrict__ beta,
                                int64_t beta_count, float* __restrict__ y, int64_t rows,
                                int64_t depth, double epsilon) {
  __shared__ double scratch[33];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* xr = x + row * depth;
    float* yr = y + row * depth;
    double s = 0.0;
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) s += xr[i];
    const double mean = BlockReduce<SumOp<double>>(s, scratch) / static_cast<double>(depth);
    double q = 0.0;
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
      const double d = xr[i] - mean;
      q += d * d;
    }
    const double var = BlockReduce<SumOp<double>>(q, scratch) / static_cast<double>(depth);
    const double inv = 1.0 / sqrt(var + epsilon);
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
      const float g = gamma[gamma_count == 1 ? 0 : i];
      const float b = beta[beta_count == 1 ? 0 : i];
      yr[i] = static_cast<float>((xr[i] - mean) * inv) * g + b;
    }
  }
}

}  // namespace

cudaError_t LaunchLayerNorm(const float* x, const float* gamma, int64_t gamma_count,
                            const float* beta, int64_t beta_count, float* y, int64_t rows,
                            int64_t depth, double epsilon, cudaStream_t stream) {
  if (rows == 0 || depth == 0) return cudaSuccess;
  const int blocks = static_cast<int>(std::min<int64_t>(rows, kMaxBlocks));
  LayerNormKernel<<<blocks, kThreads, 0, stream>>>(x, gamma, gamma_count, beta, beta_count, y,
                                                   rows, depth, epsilon);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
