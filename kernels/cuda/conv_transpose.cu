#include <algorithm>
#include <cstdint>

#include "kernels/cuda/conv_transpose.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

__global__ void ConvTransposeKernel(ConvTransposeGeometry g, const float* __restrict__ dy,
                                    const float* __restrict__ filter, float* __restrict__ dx,
                                    int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    dx[i] = ConvTransposeValue(g, dy, filter, i);
  }
}

}  // namespace

cudaError_t LaunchConvTranspose(const ConvTransposeGeometry& g, const float* dy,
                                const float* filter, float* dx, cudaStream_t stream) {
  const int64_t n = g.batch * g.in_h * g.in_w * g.in_c;
  if (n == 0) return cudaSuccess;
  const int blocks = static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  ConvTransposeKernel<<<blocks, kThreads, 0, stream>>>(g, dy, filter, dx, n);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
