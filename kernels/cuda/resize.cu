#include <algorithm>
#include <cstdint>

#include "kernels/cuda/grid.h"
#include "kernels/cuda/resize.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
__global__ void ResizeBilinearKernel(ResizePlan plan, const T* __restrict__ in,
                                     float* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = BilinearValue(plan, in, i);
  }
}

template <typename E>
__global__ void ResizeNearestKernel(ResizePlan plan, const E* __restrict__ in, E* __restrict__ out,
                                    int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = in[NearestSourceOffset(plan, i)];
  }
}

template <typename E>
cudaError_t Nearest(const ResizePlan& plan, const void* in, void* out, int64_t n,
                    cudaStream_t stream) {
  ResizeNearestKernel<E><<<Blocks(n), kThreads, 0, stream>>>(plan, static_cast<const E*>(in),
                                                             static_cast<E*>(out), n);
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t LaunchResizeBilinear(const ResizePlan& plan, const T* in, float* out, int64_t n,
                                 cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  ResizeBilinearKernel<T><<<Blocks(n), kThreads, 0, stream>>>(plan, in, out, n);
  return cudaGetLastError();
}

cudaError_t LaunchResizeNearest(const ResizePlan& plan, const void* in, void* out, int64_t n,
                                int elem_size, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (elem_size) {
    case 1: return Nearest<uint8_t>(plan, in, out, n, stream);
    case 2: return Nearest<uint16_t>(plan, in, out, n, stream);
    case 4: return Nearest<uint32_t>(plan, in, out, n, stream);
    case 8: return Nearest<uint64_t>(plan, in, out, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

template cudaError_t LaunchResizeBilinear<float>(const ResizePlan&, const float*, float*, int64_t,
                                                 cudaStream_t);
template cudaError_t LaunchResizeBilinear<uint8_t>(const ResizePlan&, const uint8_t*, float*,
                                                   int64_t, cudaStream_t);

}  // namespace smrt::kernels::cuda
