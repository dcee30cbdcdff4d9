#include <algorithm>
#include <cstdint>

#include "kernels/cuda/grid.h"
#include "kernels/cuda/random.h"

namespace smrt::kernels::cuda {
namespace {

__global__ void UniformKernel(Philox gen, float* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = UniformFloatAt(gen, i);
  }
}

template <typename T>
__global__ void UniformIntKernel(Philox gen, T lo, std::make_unsigned_t<T> range,
                                 T* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = UniformIntAt<T>(gen, i, lo, range);
  }
}

// One thread per sample.
template <typename Out>
__global__ void MultinomialKernel(Philox gen, const float* __restrict__ logits, int64_t classes,
                                  int64_t num_samples, Out* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t s = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s < n;
       s += step) {
    out[s] = static_cast<Out>(
        MultinomialSampleAt(gen, logits + (s / num_samples) * classes, classes, s));
  }
}

}  // namespace

cudaError_t LaunchRandomUniform(const Philox& gen, float* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  UniformKernel<<<Blocks(n), kThreads, 0, stream>>>(gen, out, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchRandomUniformInt(const Philox& gen, T lo, T hi, T* out, int64_t n,
                                   cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  using U = std::make_unsigned_t<T>;
  const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  UniformIntKernel<T><<<Blocks(n), kThreads, 0, stream>>>(gen, lo, range, out, n);
  return cudaGetLastError();
}

template <typename Out>
cudaError_t LaunchMultinomial(const Philox& gen, const float* logits, int64_t rows,
                              int64_t classes, int64_t num_samples, Out* out,
                              cudaStream_t stream) {
  const int64_t n = rows * num_samples;
  if (n == 0) return cudaSuccess;
  MultinomialKernel<Out><<<Blocks(n), kThreads, 0, stream>>>(gen, logits, classes, num_samples,
                                                             out, n);
  return cudaGetLastError();
}

template cudaError_t LaunchRandomUniformInt<int32_t>(const Philox&, int32_t, int32_t, int32_t*,
                                                     int64_t, cudaStream_t);
template cudaError_t LaunchRandomUniformInt<int64_t>(const Philox&, int64_t, int64_t, int64_t*,
                                                     int64_t, cudaStream_t);
template cudaError_t LaunchMultinomial<int32_t>(const Philox&, const float*, int64_t, int64_t,
                                                int64_t, int32_t*, cudaStream_t);
template cudaError_t LaunchMultinomial<int64_t>(const Philox&, const float*, int64_t, int64_t,
                                                int64_t, int64_t*, cudaStream_t);

}  // namespace smrt::kernels::cuda
