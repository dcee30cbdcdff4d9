#include <algorithm>

#include "kernels/cuda/element_bytes.h"
#include "kernels/cuda/gather.h"
#include "kernels/cuda/grid.h"

namespace smrt::kernels::cuda {
namespace {

// Gathers take more blocks before they grid-stride.
int GatherBlocks(int64_t n) { return Blocks(n, kMaxBlocks * 8); }

template <typename I>
__global__ void CheckIndicesKernel(const I* __restrict__ indices, int64_t n, int64_t limit,
                                   unsigned long long* first_bad) {
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n;
       j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t v = static_cast<int64_t>(indices[j]);
    if (v < 0 || v >= limit) atomicMin(first_bad, static_cast<unsigned long long>(j));
  }
}

template <typename T, typename I>
__global__ void GatherKernel(const T* __restrict__ params, const I* __restrict__ indices,
                             T* __restrict__ out, int64_t limit, int64_t inner,
                             int64_t num_indices, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i % inner;
    const int64_t row = i / inner;
    const int64_t j = row % num_indices;
    const int64_t o = row / num_indices;
    const int64_t v = static_cast<int64_t>(indices[j]);
    if (v < 0 || v >= limit) {
      out[i] = T{};
    } else {
      out[i] = params[(o * limit + v) * inner + r];
    }
  }
}

template <typename T, typename I>
cudaError_t Launch(const void* params, const void* indices, void* out, int64_t outer,
                   int64_t limit, int64_t inner, int64_t num_indices, cudaStream_t stream) {
  const int64_t n = outer * num_indices * inner;
  GatherKernel<T, I><<<GatherBlocks(n), kThreads, 0, stream>>>(
      static_cast<const T*>(params), static_cast<const I*>(indices), static_cast<T*>(out), limit,
      inner, num_indices, n);
  return cudaGetLastError();
}

template <typename I>
cudaError_t LaunchBySize(const void* params, const void* indices, void* out, int64_t outer,
                         int64_t limit, int64_t inner, int64_t num_indices, int elem_size,
                         cudaStream_t stream) {
  return BySize(elem_size, [&](auto element) {
    return Launch<decltype(element), I>(params, indices, out, outer, limit, inner, num_indices,
                                        stream);
  });
}

}  // namespace

cudaError_t LaunchCheckIndices(const void* indices, int index_bytes, int64_t num_indices,
                               int64_t limit, unsigned long long* first_bad, cudaStream_t stream) {
  if (num_indices == 0) return cudaSuccess;
  if (index_bytes == 4) {
    CheckIndicesKernel<int32_t><<<GatherBlocks(num_indices), kThreads, 0, stream>>>(
        static_cast<const int32_t*>(indices), num_indices, limit, first_bad);
  } else if (index_bytes == 8) {
    CheckIndicesKernel<int64_t><<<GatherBlocks(num_indices), kThreads, 0, stream>>>(
        static_cast<const int64_t*>(indices), num_indices, limit, first_bad);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchGather(const void* params, const void* indices, int index_bytes, void* out,
                         int64_t outer, int64_t limit, int64_t inner, int64_t num_indices,
                         int elem_size, cudaStream_t stream) {
  if (outer == 0 || inner == 0 || num_indices == 0) return cudaSuccess;
  if (index_bytes == 4) {
    return LaunchBySize<int32_t>(params, indices, out, outer, limit, inner, num_indices,
                                 elem_size, stream);
  }
  if (index_bytes == 8) {
    return LaunchBySize<int64_t>(params, indices, out, outer, limit, inner, num_indices,
                                 elem_size, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
