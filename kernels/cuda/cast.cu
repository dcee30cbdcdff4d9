#include <algorithm>

#include "kernels/cuda/cast.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;

template <typename From, typename To>
__global__ void CastKernel(const From* __restrict__ in, To* __restrict__ out, int64_t n,
                           bool truncate) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = CastOne<To>(in[i], truncate);
  }
}

template <typename From, typename To>
cudaError_t Launch(const void* in, void* out, int64_t n, bool truncate, cudaStream_t stream) {
  const int blocks =
      static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535 * 8));
  CastKernel<From, To><<<blocks, kThreads, 0, stream>>>(static_cast<const From*>(in),
                                                         static_cast<To*>(out), n, truncate);
  return cudaGetLastError();
}

template <typename From>
cudaError_t LaunchTo(CastType to, bool truncate, const void* in, void* out, int64_t n,
                     cudaStream_t stream) {
  switch (to) {
    case CastType::kFloat: return Launch<From, float>(in, out, n, truncate, stream);
    case CastType::kInt32: return Launch<From, int32_t>(in, out, n, truncate, stream);
    case CastType::kInt64: return Launch<From, int64_t>(in, out, n, truncate, stream);
    case CastType::kBool: return Launch<From, bool>(in, out, n, truncate, stream);
    case CastType::kHalf: return Launch<From, __half>(in, out, n, truncate, stream);
    case CastType::kBFloat16: return Launch<From, __nv_bfloat16>(in, out, n, truncate, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchCast(CastType from, CastType to, bool truncate, const void* in, void* out,
                       int64_t n, cudaStream_t stream) {
  if (from == to) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  switch (from) {
    case CastType::kFloat: return LaunchTo<float>(to, truncate, in, out, n, stream);
    case CastType::kInt32: return LaunchTo<int32_t>(to, truncate, in, out, n, stream);
    case CastType::kInt64: return LaunchTo<int64_t>(to, truncate, in, out, n, stream);
    case CastType::kBool: return LaunchTo<bool>(to, truncate, in, out, n, stream);
    case CastType::kHalf: return LaunchTo<__half>(to, truncate, in, out, n, stream);
    case CastType::kBFloat16: return LaunchTo<__nv_bfloat16>(to, truncate, in, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
