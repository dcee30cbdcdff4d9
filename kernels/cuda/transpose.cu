#include <algorithm>

#include "kernels/cuda/transpose.h"

namespace smrt::kernels::cuda {
namespace {

// An element of `bytes` bytes, copied as a unit.
template <int kBytes>
struct alignas(kBytes) Element {
  unsigned char b[kBytes];
};

template <typename T>
__global__ void TransposeKernel(TransposePlan plan, const T* __restrict__ in,
                                T* __restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rest = i, offset = 0;
    for (int d = plan.rank - 1; d >= 0; --d) {
      const int64_t coord = rest % plan.out_dims[d];
      rest /= plan.out_dims[d];
      offset += coord * plan.in_strides[d];
    }
    out[i] = in[offset];
  }
}

template <typename T>
cudaError_t Launch(const TransposePlan& plan, const void* in, void* out, int64_t n,
                   cudaStream_t stream) {
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 65535 * 8);
  TransposeKernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      plan, static_cast<const T*>(in), static_cast<T*>(out), n);
  return cudaGetLastError();
}

}  // namespace

TransposePlan MakeTransposePlan(const int64_t* in_dims, const int* perm, int rank) {
  TransposePlan plan;
  plan.rank = rank;
  int64_t strides[kMaxTransposeRank] = {};
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= in_dims[d];
  }
  for (int d = 0; d < rank; ++d) {
    plan.out_dims[d] = in_dims[perm[d]];
    plan.in_strides[d] = strides[perm[d]];
  }
  return plan;
}

cudaError_t LaunchTranspose(const TransposePlan& plan, const void* in, void* out, int64_t n,
                            int elem_size, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (plan.rank < 0 || plan.rank > kMaxTransposeRank) return cudaErrorInvalidValue;
  switch (elem_size) {
    case 1: return Launch<Element<1>>(plan, in, out, n, stream);
    case 2: return Launch<Element<2>>(plan, in, out, n, stream);
    case 4: return Launch<Element<4>>(plan, in, out, n, stream);
    case 8: return Launch<Element<8>>(plan, in, out, n, stream);
    case 16: return Launch<Element<16>>(plan, in, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda
