#include <algorithm>
#include <cstdint>

#include "kernels/cuda/conv_transpose.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

template <typename T>
__global__ void ConvTransposeKernel(ConvTransposeGeometry g, const T* __restrict__ dy,
                                    const T* __restrict__ filter, T* __restrict__ dx,
                                    int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    dx[i] = Narrow<T>(ConvTransposeValue(g, dy, filter, i));
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchConvTranspose(const ConvTransposeGeometry& g, const T* dy, const T* filter,
                                T* dx, cudaStream_t stream) {
  const int64_t n = g.batch * g.in_h * g.in_w * g.in_c;
  if (n == 0) return cudaSuccess;
  const int blocks = static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  ConvTransposeKernel<T><<<blocks, kThreads, 0, stream>>>(g, dy, filter, dx, n);
  return cudaGetLastError();
}

template cudaError_t LaunchConvTranspose<float>(const ConvTransposeGeometry&, const float*,
                                                const float*, float*, cudaStream_t);
template cudaError_t LaunchConvTranspose<__half>(const ConvTransposeGeometry&, const __half*,
                                                 const __half*, __half*, cudaStream_t);
template cudaError_t LaunchConvTranspose<__nv_bfloat16>(const ConvTransposeGeometry&,
                                                        const __nv_bfloat16*,
                                                        const __nv_bfloat16*, __nv_bfloat16*,
                                                        cudaStream_t);

}  // namespace smrt::kernels::cuda
