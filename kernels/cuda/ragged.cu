#include <algorithm>
#include <cstdint>

#include "kernels/cuda/element_bytes.h"
#include "kernels/cuda/grid.h"
#include "kernels/cuda/ragged.h"

namespace smrt::kernels::cuda {
namespace {

template <typename E>
__global__ void FillDefaultKernel(const E* __restrict__ def, const int64_t* __restrict__ source,
                                  E* __restrict__ out, int64_t n, int64_t width) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < n;
       o += step) {
    out[o] = def[RaggedDefaultAt(source, o, width)];
  }
}

// Queued after the fill on the same stream, so the values land over it.
template <typename E>
__global__ void PlaceValuesKernel(const E* __restrict__ values, const int64_t* __restrict__ index,
                                  E* __restrict__ out, int64_t n, int64_t width) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n;
       t += step) {
    const int64_t to = RaggedTargetOf(index, t, width);
    if (to >= 0) out[to] = values[t];
  }
}

}  // namespace

cudaError_t LaunchRaggedToTensor(const void* values, const void* default_value, void* out,
                                 int elem_size, const int64_t* index, int64_t value_rows,
                                 const int64_t* default_source, int64_t rows, int64_t width,
                                 cudaStream_t stream) {
  if (width == 0) return cudaSuccess;
  return BySize(elem_size, [&](auto element) {
    using E = decltype(element);
    const int64_t filled = rows * width;
    if (default_source != nullptr && filled > 0) {
      FillDefaultKernel<E><<<Blocks(filled), kThreads, 0, stream>>>(
          static_cast<const E*>(default_value), default_source, static_cast<E*>(out), filled,
          width);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    const int64_t placed = value_rows * width;
    if (placed > 0) {
      PlaceValuesKernel<E><<<Blocks(placed), kThreads, 0, stream>>>(
          static_cast<const E*>(values), index, static_cast<E*>(out), placed, width);
    }
    return cudaGetLastError();
  });
}

}  // namespace smrt::kernels::cuda
