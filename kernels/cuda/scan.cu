#include <algorithm>
#include <cstdint>

#include "kernels/cuda/scan.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;

// One thread per column; neighbouring threads take neighbouring inner
// positions, so each step's reads are coalesced when inner > 1.
template <typename T>
__global__ void ScanKernel(const T* __restrict__ in, T* __restrict__ out, int64_t outer,
                           int64_t len, int64_t inner, bool prod, bool exclusive, bool reverse) {
  const int64_t columns = outer * inner;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < columns;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = c / inner, i = c % inner;
    const int64_t base = o * len * inner + i;
    ScanColumn(in + base, out + base, len, inner, prod, exclusive, reverse);
  }
}

template <typename T>
cudaError_t Launch(const void* in, void* out, int64_t outer, int64_t len, int64_t inner,
                   bool prod, bool exclusive, bool reverse, cudaStream_t stream) {
  const int64_t columns = outer * inner;
  const int blocks =
      static_cast<int>(std::min<int64_t>((columns + kThreads - 1) / kThreads, 65535 * 8));
  ScanKernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(in), static_cast<T*>(out),
                                                 outer, len, inner, prod, exclusive, reverse);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchScan(ScanType type, const void* in, void* out, int64_t outer, int64_t len,
                       int64_t inner, bool prod, bool exclusive, bool reverse,
                       cudaStream_t stream) {
  if (outer == 0 || len == 0 || inner == 0) return cudaSuccess;
  switch (type) {
    case ScanType::kFloat:
      return Launch<float>(in, out, outer, len, inner, prod, exclusive, reverse, stream);
    case ScanType::kDouble:
      return Launch<double>(in, out, outer, len, inner, prod, exclusive, reverse, stream);
    case ScanType::kHalf:
      return Launch<__half>(in, out, outer, len, inner, prod, exclusive, reverse, stream);
    case ScanType::kBFloat16:
      return Launch<__nv_bfloat16>(in, out, outer, len, inner, prod, exclusive, reverse, stream);
    case ScanType::kInt32:
      return Launch<int32_t>(in, out, outer, len, inner, prod, exclusive, reverse, stream);
    case ScanType::kInt64:
      return Launch<int64_t>(in, out, outer, len, inner, prod, exclusive, reverse, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
