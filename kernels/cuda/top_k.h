// TopKV2 on device pointers. Each element's rank in its row is counted: how
// many elements come before it in TensorFlow's order (the greater first, NaN
// above every number, equal values by lower index). That order is strict,
// so the ranks of a row are a permutation and the elements of rank < k,
// written at their rank, are the CPU kernel's values and indices, ties and
// NaNs included. The order and the rank are defined here for the host and
// the device alike, so tests check them on a machine without a GPU.
#ifndef SMRT_KERNELS_CUDA_TOP_K_H_
#define SMRT_KERNELS_CUDA_TOP_K_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

// Whether element a (at index ia) comes before element b (at ib).
template <typename T>
__host__ __device__ inline bool TopKBefore(T a, int64_t ia, T b, int64_t ib) {
  const Compute<T> x = Widen(a), y = Widen(b);
  if constexpr (std::is_floating_point_v<Compute<T>>) {
    const bool nan_x = x != x, nan_y = y != y;
    if (nan_x != nan_y) return nan_x;
    if (nan_x) return ia < ib;
  }
  if (x != y) return x > y;
  return ia < ib;
}

// Element i's rank in `row` (n elements), counted up to `k`: k means "not
// among the first k".
template <typename T>
__host__ __device__ inline int64_t TopKRank(const T* row, int64_t n, int64_t i, int64_t k) {
  const T v = row[i];
  int64_t rank = 0;
  for (int64_t j = 0; j < n && rank < k; ++j) rank += TopKBefore(row[j], j, v, i) ? 1 : 0;
  return rank;
}

enum class TopKType { kFloat, kDouble, kHalf, kBFloat16, kInt32, kInt64 };

// `rows` rows of `n` elements in `in`; the first k of each row, in order,
// into values (rows x k, the input's type) and indices (rows x k, of
// index_bytes 2, 4 or 8). cudaErrorInvalidValue for another index size.
cudaError_t LaunchTopK(TopKType type, const void* in, int64_t rows, int64_t n, int64_t k,
                       void* values, void* indices, int index_bytes, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_TOP_K_H_
