#include <algorithm>
#include <cstdint>

#include "kernels/cuda/element_bytes.h"
#include "kernels/cuda/one_hot.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

template <typename Index, typename E>
__global__ void OneHotKernel(const Index* __restrict__ indices, const E* __restrict__ on_value,
                             const E* __restrict__ off_value, E* __restrict__ out, int64_t n,
                             int64_t depth, int64_t suffix) {
  const E on = *on_value, off = *off_value;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < n;
       o += step) {
    int64_t pos, j;
    OneHotSource(o, depth, suffix, &pos, &j);
    out[o] = static_cast<int64_t>(indices[pos]) == j ? on : off;
  }
}

template <typename Index>
cudaError_t Launch(const void* indices, const void* on, const void* off, void* out,
                   int elem_size, int64_t n, int64_t depth, int64_t suffix, cudaStream_t stream) {
  const int blocks = static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  const auto* idx = static_cast<const Index*>(indices);
  return BySize(elem_size, [&](auto element) {
    using E = decltype(element);
    OneHotKernel<Index, E><<<blocks, kThreads, 0, stream>>>(
        idx, static_cast<const E*>(on), static_cast<const E*>(off), static_cast<E*>(out), n,
        depth, suffix);
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t LaunchOneHot(OneHotIndex index_type, const void* indices, const void* on_value,
                         const void* off_value, void* out, int elem_size, int64_t prefix,
                         int64_t depth, int64_t suffix, cudaStream_t stream) {
  const int64_t n = prefix * depth * suffix;
  if (n == 0) return cudaSuccess;
  switch (index_type) {
    case OneHotIndex::kUInt8:
      return Launch<uint8_t>(indices, on_value, off_value, out, elem_size, n, depth, suffix,
                             stream);
    case OneHotIndex::kInt32:
      return Launch<int32_t>(indices, on_value, off_value, out, elem_size, n, depth, suffix,
                             stream);
    case OneHotIndex::kInt64:
      return Launch<int64_t>(indices, on_value, off_value, out, elem_size, n, depth, suffix,
                             stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
