#include <algorithm>
#include <type_traits>

#include "kernels/cuda/cast.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;

template <typename To, typename From>
__device__ __forceinline__ To CastOne(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<From, float> && std::is_integral_v<To>) {
    const double t = trunc(static_cast<double>(v));
    constexpr double kLimit = static_cast<double>(uint64_t{1} << (8 * sizeof(To) - 1));
    if (!(t >= -kLimit && t < kLimit)) return static_cast<To>(uint64_t{1} << (8 * sizeof(To) - 1));
    return static_cast<To>(t);
  } else if constexpr (std::is_same_v<From, int64_t> && std::is_same_v<To, int32_t>) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  } else {
    return static_cast<To>(v);
  }
}

template <typename From, typename To>
__global__ void CastKernel(const From* __restrict__ in, To* __restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = CastOne<To>(in[i]);
  }
}

template <typename From, typename To>
cudaError_t Launch(const void* in, void* out, int64_t n, cudaStream_t stream) {
  const int blocks =
      static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535 * 8));
  CastKernel<From, To><<<blocks, kThreads, 0, stream>>>(static_cast<const From*>(in),
                                                         static_cast<To*>(out), n);
  return cudaGetLastError();
}

template <typename From>
cudaError_t LaunchTo(CastType to, const void* in, void* out, int64_t n, cudaStream_t stream) {
  switch (to) {
    case CastType::kFloat: return Launch<From, float>(in, out, n, stream);
    case CastType::kInt32: return Launch<From, int32_t>(in, out, n, stream);
    case CastType::kInt64: return Launch<From, int64_t>(in, out, n, stream);
    case CastType::kBool: return Launch<From, bool>(in, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t LaunchCast(CastType from, CastType to, const void* in, void* out, int64_t n,
                       cudaStream_t stream) {
  if (from == to) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  switch (from) {
    case CastType::kFloat: return LaunchTo<float>(to, in, out, n, stream);
    case CastType::kInt32: return LaunchTo<int32_t>(to, in, out, n, stream);
    case CastType::kInt64: return LaunchTo<int64_t>(to, in, out, n, stream);
    case CastType::kBool: return LaunchTo<bool>(to, in, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
