#include <algorithm>

#include "kernels/cuda/top_k.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

// One block per row (striding over rows); each thread ranks elements of it.
template <typename T, typename I>
__global__ void TopKKernel(const T* __restrict__ in, int64_t rows, int64_t n, int64_t k,
                           T* __restrict__ values, I* __restrict__ indices) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = in + r * n;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const int64_t rank = TopKRank(row, n, i, k);
      if (rank < k) {
        values[r * k + rank] = row[i];
        indices[r * k + rank] = static_cast<I>(i);
      }
    }
  }
}

template <typename T, typename I>
cudaError_t Launch(const void* in, int64_t rows, int64_t n, int64_t k, void* values,
                   void* indices, cudaStream_t stream) {
  const int blocks = static_cast<int>(std::min(rows, kMaxBlocks));
  TopKKernel<T, I><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(in), rows, n, k,
                                                    static_cast<T*>(values),
                                                    static_cast<I*>(indices));
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchFor(const void* in, int64_t rows, int64_t n, int64_t k, void* values,
                      void* indices, int index_bytes, cudaStream_t stream) {
  switch (index_bytes) {
    case 2: return Launch<T, int16_t>(in, rows, n, k, values, indices, stream);
    case 4: return Launch<T, int32_t>(in, rows, n, k, values, indices, stream);
    case 8: return Launch<T, int64_t>(in, rows, n, k, values, indices, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchTopK(TopKType type, const void* in, int64_t rows, int64_t n, int64_t k,
                       void* values, void* indices, int index_bytes, cudaStream_t stream) {
  if (rows == 0 || k == 0) return cudaSuccess;
  switch (type) {
    case TopKType::kFloat:
      return LaunchFor<float>(in, rows, n, k, values, indices, index_bytes, stream);
    case TopKType::kDouble:
      return LaunchFor<double>(in, rows, n, k, values, indices, index_bytes, stream);
    case TopKType::kHalf:
      return LaunchFor<__half>(in, rows, n, k, values, indices, index_bytes, stream);
    case TopKType::kBFloat16:
      return LaunchFor<__nv_bfloat16>(in, rows, n, k, values, indices, index_bytes, stream);
    case TopKType::kInt32:
      return LaunchFor<int32_t>(in, rows, n, k, values, indices, index_bytes, stream);
    case TopKType::kInt64:
      return LaunchFor<int64_t>(in, rows, n, k, values, indices, index_bytes, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
