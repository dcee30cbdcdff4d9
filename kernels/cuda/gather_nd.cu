#include <algorithm>
#include <cstdint>

#include "kernels/cuda/element_bytes.h"
#include "kernels/cuda/gather_nd.h"
#include "kernels/cuda/grid.h"

namespace smrt::kernels::cuda {
namespace {

// Gathers take more blocks before they grid-stride.
int GatherBlocks(int64_t n) { return Blocks(n, kMaxBlocks * 8); }

// One thread per output element.
template <typename T, typename I>
__global__ void GatherNdKernel(const T* __restrict__ params, const I* __restrict__ indices,
                               T* __restrict__ out, int64_t n, GatherNdIndex index,
                               unsigned long long* first_bad) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < n;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = o / index.slice, r = o % index.slice;
    int64_t offset;
    if (GatherNdOffset(index, indices + row * index.depth, &offset)) {
      out[o] = params[offset + r];
    } else {
      out[o] = T{};
      if (r == 0) atomicMin(first_bad, static_cast<unsigned long long>(row));
    }
  }
}

template <typename I>
cudaError_t LaunchBySize(const void* params, const void* indices, void* out, int64_t n,
                         const GatherNdIndex& index, int elem_size,
                         unsigned long long* first_bad, cudaStream_t stream) {
  return BySize(elem_size, [&](auto element) {
    using T = decltype(element);
    GatherNdKernel<T, I><<<GatherBlocks(n), kThreads, 0, stream>>>(
        static_cast<const T*>(params), static_cast<const I*>(indices), static_cast<T*>(out), n,
        index, first_bad);
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t LaunchGatherNd(const void* params, const void* indices, int index_bytes, void* out,
                           int64_t rows, const GatherNdIndex& index, int elem_size,
                           unsigned long long* first_bad, cudaStream_t stream) {
  const int64_t n = rows * index.slice;
  if (n == 0) return cudaSuccess;
  if (index_bytes == 4) {
    return LaunchBySize<int32_t>(params, indices, out, n, index, elem_size, first_bad, stream);
  }
  if (index_bytes == 8) {
    return LaunchBySize<int64_t>(params, indices, out, n, index, elem_size, first_bad, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
