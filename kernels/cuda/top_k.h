// TopKV2 on device pointers, in TensorFlow's order (the greater first, NaN
// above every number, equal values by lower index). That order is strict,
// so the elements of a row have ranks 0..n-1, and those of rank < k, written
// at their rank, are the CPU kernel's values and indices, ties and NaNs
// included. Short rows count each element's rank (TopKRank); long ones are
// sorted (TopKSorts): a stable descending radix sort of TopKKey keys, which
// is the same order. The order, the rank and the keys are defined here for
// the host and the device alike, so tests check them without a GPU.
#ifndef SMRT_KERNELS_CUDA_TOP_K_H_
#define SMRT_KERNELS_CUDA_TOP_K_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
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

// TopKBefore's order as unsigned keys: a comes before b exactly when
// TopKKey(a) > TopKKey(b), or the keys are equal and a's index is lower, so
// a stable descending sort of the keys with their indices is the order.
// Floats: -0 has +0's key and every NaN the largest; integers: offset binary.
template <typename T>
using TopKKeyType = std::conditional_t<sizeof(Compute<T>) == 8, uint64_t, uint32_t>;

template <typename T>
__host__ __device__ inline TopKKeyType<T> TopKKey(T v) {
  using K = TopKKeyType<T>;
  constexpr K kSign = K{1} << (8 * sizeof(K) - 1);
  const Compute<T> x = Widen(v);
  if constexpr (std::is_floating_point_v<Compute<T>>) {
    if (x != x) return ~K{0};
    const Compute<T> y = x == 0 ? Compute<T>(0) : x;
    K bits;
    memcpy(&bits, &y, sizeof(bits));
    return (bits & kSign) != 0 ? ~bits : (bits | kSign);
  } else {
    return static_cast<K>(x) ^ kSign;
  }
}

enum class TopKType { kFloat, kDouble, kHalf, kBFloat16, kInt32, kInt64 };

// Whether LaunchTopK sorts these rows (long ones: counting ranks costs up
// to n^2 per row, a sorted row's worst case) rather than ranking each
// element; it then needs TopKScratchBytes of scratch. A row must fit the
// sort's int count.
inline bool TopKSorts(int64_t rows, int64_t n) {
  return rows > 0 && n > 1024 && n < (int64_t{1} << 31) - 1;
}

// Rows sorted at once: all of them, or as many as keep a sort's items and
// row offsets within int and its items within 2^28 (the scratch, 16 to 24
// bytes an item, within 4 to 6 GiB), in batches run in turn on one scratch.
inline int64_t TopKSortBatchRows(int64_t rows, int64_t n) {
  const int64_t fit = std::min(((int64_t{1} << 31) - 1) / (n + 1), (int64_t{1} << 28) / n);
  return std::max<int64_t>(1, std::min(rows, fit));
}

// The scratch bytes a sort of `rows` rows of `n` elements needs (keys and
// indices twice over as the sort's double buffers, the row offsets, and the
// radix sort's own), into *bytes.
cudaError_t TopKScratchBytes(TopKType type, int64_t rows, int64_t n, size_t* bytes);

// `rows` rows of `n` elements in `in`; the first k of each row, in order,
// into values (rows x k, the input's type) and indices (rows x k, of
// index_bytes 2, 4 or 8). Where TopKSorts, `scratch` holds scratch_bytes
// (at least TopKScratchBytes'). cudaErrorInvalidValue for another index
// size or too little scratch.
cudaError_t LaunchTopK(TopKType type, const void* in, int64_t rows, int64_t n, int64_t k,
                       void* values, void* indices, int index_bytes, void* scratch,
                       size_t scratch_bytes, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_TOP_K_H_
