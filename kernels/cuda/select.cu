#include <algorithm>

#include "kernels/cuda/element_bytes.h"
#include "kernels/cuda/select.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void SelectKernel(const bool* __restrict__ cond, const T* __restrict__ a,
                             const T* __restrict__ b, T* __restrict__ out, int64_t n,
                             SelectIndex index) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, co = 0, ao = 0, bo = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t c = rest % index.dims[d];
      rest /= index.dims[d];
      co += c * index.strides[0][d];
      ao += c * index.strides[1][d];
      bo += c * index.strides[2][d];
    }
    out[i] = cond[co] ? a[ao] : b[bo];
  }
}

template <typename T>
cudaError_t Launch(const bool* cond, const void* a, const void* b, void* out, int64_t n,
                   const SelectIndex& index, cudaStream_t stream) {
  const int blocks =
      static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535 * 8));
  SelectKernel<T><<<blocks, kThreads, 0, stream>>>(cond, static_cast<const T*>(a),
                                                   static_cast<const T*>(b), static_cast<T*>(out),
                                                   n, index);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchSelect(const bool* cond, const void* then_values, const void* else_values,
                         void* out, int64_t n, int elem_size, const SelectIndex& index,
                         cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (index.rank < 0 || index.rank > kMaxSelectRank) return cudaErrorInvalidValue;
  return BySize(elem_size, [&](auto element) {
    return Launch<decltype(element)>(cond, then_values, else_values, out, n, index, stream);
  });
}

}  // namespace smrt::kernels::cuda
