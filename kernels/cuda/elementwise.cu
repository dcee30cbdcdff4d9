#include <algorithm>

#include "kernels/cuda/elementwise.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

int Blocks(int64_t n) {
  return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
}

template <BinaryOp op, typename T>
__device__ __forceinline__ T Apply(T x, T y) {
  if constexpr (op == BinaryOp::kAdd) {
    return x + y;
  } else {
    return x * y;
  }
}

// One thread per output element, grid-stride so any n fits the grid.
template <BinaryOp op, typename T>
__global__ void BroadcastBinaryKernel(const T* __restrict__ a, const T* __restrict__ b,
                                      T* __restrict__ out, int64_t n, BroadcastIndex index) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    int64_t rest = i, ao = 0, bo = 0;
    for (int d = index.rank - 1; d >= 0; --d) {
      const int64_t c = rest % index.dims[d];
      rest /= index.dims[d];
      ao += c * index.a_strides[d];
      bo += c * index.b_strides[d];
    }
    out[i] = Apply<op>(a[ao], b[bo]);
  }
}

template <typename T>
__global__ void ReluKernel(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    const T x = in[i];
    out[i] = x < T(0) ? T(0) : x;  // NaN < 0 is false: NaN passes through
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* a, const T* b, T* out, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (op == BinaryOp::kAdd) {
    BroadcastBinaryKernel<BinaryOp::kAdd, T><<<Blocks(n), kThreads, 0, stream>>>(a, b, out, n,
                                                                                   index);
  } else {
    BroadcastBinaryKernel<BinaryOp::kMul, T><<<Blocks(n), kThreads, 0, stream>>>(a, b, out, n,
                                                                                   index);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchRelu(const T* in, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  ReluKernel<T><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

template cudaError_t LaunchBinary<float>(BinaryOp, const float*, const float*, float*, int64_t,
                                         const BroadcastIndex&, cudaStream_t);
template cudaError_t LaunchBinary<int32_t>(BinaryOp, const int32_t*, const int32_t*, int32_t*,
                                           int64_t, const BroadcastIndex&, cudaStream_t);
template cudaError_t LaunchRelu<float>(const float*, float*, int64_t, cudaStream_t);
template cudaError_t LaunchRelu<int32_t>(const int32_t*, int32_t*, int64_t, cudaStream_t);

}  // namespace smrt::kernels::cuda
