#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>

#include "kernels/cuda/top_k.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;
constexpr size_t kAlign = 256;

int Blocks(int64_t n) {
  return static_cast<int>(
      std::max<int64_t>(1, std::min(kMaxBlocks, (n + kThreads - 1) / kThreads)));
}

size_t Aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

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

// The sort's inputs: each element's key and index in its row, and the rows'
// offsets (rows + 1 of them).
template <typename T>
__global__ void SortInputsKernel(const T* __restrict__ in, int64_t rows, int64_t n,
                                 TopKKeyType<T>* __restrict__ keys, int* __restrict__ index,
                                 int* __restrict__ offsets) {
  const int64_t items = rows * n, total = items > rows ? items : rows + 1;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (i < items) {
      keys[i] = TopKKey(in[i]);
      index[i] = static_cast<int>(i % n);
    }
    if (i <= rows) offsets[i] = static_cast<int>(i * n);
  }
}

// The first k of each sorted row: its indices, and the values they name.
template <typename T, typename I>
__global__ void TakeSortedKernel(const T* __restrict__ in, const int* __restrict__ sorted,
                                 int64_t rows, int64_t n, int64_t k, T* __restrict__ values,
                                 I* __restrict__ indices) {
  const int64_t total = rows * k;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = i / k;
    const int j = sorted[r * n + i % k];
    values[i] = in[r * n + j];
    indices[i] = static_cast<I>(j);
  }
}

// Where each part of the scratch starts.
template <typename T>
struct SortScratch {
  SortScratch(int64_t rows, int64_t n) {
    const size_t items = static_cast<size_t>(rows * n);
    keys_bytes = Aligned(items * sizeof(TopKKeyType<T>));
    index_bytes = Aligned(items * sizeof(int));
    offsets_bytes = Aligned(static_cast<size_t>(rows + 1) * sizeof(int));
    fixed = 2 * keys_bytes + 2 * index_bytes + offsets_bytes;
  }
  size_t keys_bytes, index_bytes, offsets_bytes, fixed;
};

// The stable descending sort of each row's (key, index) pairs, on double
// buffers (the sorted ones are keys.Current() and index.Current() after);
// with temp null, only its bytes. One row is sorted by the whole device
// (DeviceRadixSort); several by the segmented sort, a block per row.
template <typename K>
cudaError_t RadixSort(void* temp, size_t& temp_bytes, cub::DoubleBuffer<K>& keys,
                      cub::DoubleBuffer<int>& index, int64_t rows, int64_t n,
                      const int* offsets, cudaStream_t stream) {
  constexpr int kBits = static_cast<int>(8 * sizeof(K));
  if (rows == 1) {
    return cub::DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys, index,
                                                     static_cast<int>(n), 0, kBits, stream);
  }
  return cub::DeviceSegmentedRadixSort::SortPairsDescending(
      temp, temp_bytes, keys, index, static_cast<int>(rows * n), static_cast<int>(rows), offsets,
      offsets + 1, 0, kBits, stream);
}

// The radix sort's own bytes for one sort of `rows` rows.
template <typename T>
cudaError_t SortBytesFor(int64_t rows, int64_t n, size_t* bytes) {
  cub::DoubleBuffer<TopKKeyType<T>> keys(nullptr, nullptr);
  cub::DoubleBuffer<int> index(nullptr, nullptr);
  return RadixSort(nullptr, *bytes, keys, index, rows, n, nullptr, nullptr);
}

// The radix sort's own bytes for every batch of `rows` rows: the largest of
// a full batch's and the last, shorter one's.
template <typename T>
cudaError_t RadixSortBytes(int64_t rows, int64_t n, size_t* bytes) {
  const int64_t batch = TopKSortBatchRows(rows, n);
  size_t full = 0, last = 0;
  if (cudaError_t e = SortBytesFor<T>(batch, n, &full); e != cudaSuccess) return e;
  if (rows % batch != 0) {
    if (cudaError_t e = SortBytesFor<T>(rows % batch, n, &last); e != cudaSuccess) return e;
  }
  *bytes = std::max(full, last);
  return cudaSuccess;
}

template <typename T>
cudaError_t ScratchBytes(int64_t rows, int64_t n, size_t* bytes) {
  size_t sort = 0;
  if (cudaError_t e = RadixSortBytes<T>(rows, n, &sort); e != cudaSuccess) return e;
  *bytes = SortScratch<T>(TopKSortBatchRows(rows, n), n).fixed + sort;
  return cudaSuccess;
}

template <typename T, typename I>
cudaError_t Sorted(const T* in, int64_t rows, int64_t n, int64_t k, T* values, I* indices,
                   void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  using K = TopKKeyType<T>;
  const int64_t batch = TopKSortBatchRows(rows, n);
  const SortScratch<T> s(batch, n);
  size_t sort_bytes = 0;
  if (cudaError_t e = RadixSortBytes<T>(rows, n, &sort_bytes); e != cudaSuccess) return e;
  if (scratch == nullptr || scratch_bytes < s.fixed + sort_bytes) return cudaErrorInvalidValue;
  char* p = static_cast<char*>(scratch);
  K* keys_in = reinterpret_cast<K*>(p);
  K* keys_out = reinterpret_cast<K*>(p + s.keys_bytes);
  p += 2 * s.keys_bytes;
  int* index_in = reinterpret_cast<int*>(p);
  int* index_out = reinterpret_cast<int*>(p + s.index_bytes);
  p += 2 * s.index_bytes;
  int* offsets = reinterpret_cast<int*>(p);
  p += s.offsets_bytes;
  // Batches in turn on the stream, each reusing the scratch.
  for (int64_t r0 = 0; r0 < rows; r0 += batch) {
    const int64_t br = std::min(batch, rows - r0);
    SortInputsKernel<T><<<Blocks(std::max(br * n, br + 1)), kThreads, 0, stream>>>(
        in + r0 * n, br, n, keys_in, index_in, offsets);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    cub::DoubleBuffer<K> keys(keys_in, keys_out);
    cub::DoubleBuffer<int> index(index_in, index_out);
    size_t bytes = sort_bytes;
    if (cudaError_t e = RadixSort(p, bytes, keys, index, br, n, offsets, stream);
        e != cudaSuccess) {
      return e;
    }
    TakeSortedKernel<T, I><<<Blocks(br * k), kThreads, 0, stream>>>(
        in + r0 * n, index.Current(), br, n, k, values + r0 * k, indices + r0 * k);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

template <typename T, typename I>
cudaError_t Launch(const void* in, int64_t rows, int64_t n, int64_t k, void* values,
                   void* indices, void* scratch, size_t scratch_bytes, cudaStream_t stream) {
  if (TopKSorts(rows, n)) {
    return Sorted(static_cast<const T*>(in), rows, n, k, static_cast<T*>(values),
                  static_cast<I*>(indices), scratch, scratch_bytes, stream);
  }
  const int blocks = static_cast<int>(std::min(rows, kMaxBlocks));
  TopKKernel<T, I><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(in), rows, n, k,
                                                    static_cast<T*>(values),
                                                    static_cast<I*>(indices));
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchFor(const void* in, int64_t rows, int64_t n, int64_t k, void* values,
                      void* indices, int index_bytes, void* scratch, size_t scratch_bytes,
                      cudaStream_t stream) {
  switch (index_bytes) {
    case 2:
      return Launch<T, int16_t>(in, rows, n, k, values, indices, scratch, scratch_bytes, stream);
    case 4:
      return Launch<T, int32_t>(in, rows, n, k, values, indices, scratch, scratch_bytes, stream);
    case 8:
      return Launch<T, int64_t>(in, rows, n, k, values, indices, scratch, scratch_bytes, stream);
  }
  return cudaErrorInvalidValue;
}

// f called with a value of the element type of `type`.
template <typename F>
cudaError_t ByType(TopKType type, F&& f) {
  switch (type) {
    case TopKType::kFloat: return f(float{});
    case TopKType::kDouble: return f(double{});
    case TopKType::kHalf: return f(__half{});
    case TopKType::kBFloat16: return f(__nv_bfloat16{});
    case TopKType::kInt32: return f(int32_t{});
    case TopKType::kInt64: return f(int64_t{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t TopKScratchBytes(TopKType type, int64_t rows, int64_t n, size_t* bytes) {
  *bytes = 0;
  if (!TopKSorts(rows, n)) return cudaSuccess;
  return ByType(type, [&](auto element) {
    return ScratchBytes<decltype(element)>(rows, n, bytes);
  });
}

cudaError_t LaunchTopK(TopKType type, const void* in, int64_t rows, int64_t n, int64_t k,
                       void* values, void* indices, int index_bytes, void* scratch,
                       size_t scratch_bytes, cudaStream_t stream) {
  if (rows == 0 || k == 0) return cudaSuccess;
  return ByType(type, [&](auto element) {
    return LaunchFor<decltype(element)>(in, rows, n, k, values, indices, index_bytes, scratch,
                                        scratch_bytes, stream);
  });
}

}  // namespace smrt::kernels::cuda
