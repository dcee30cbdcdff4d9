#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/half_math.h"
#include "kernels/cuda/reduce.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

__device__ double Identity(ReduceOp op) {
  if (op == ReduceOp::kMax) return -INFINITY;
  if (op == ReduceOp::kMin) return INFINITY;
  return 0.0;
}

// NaN-propagating max and min (the NaN itself, its sign kept, as the CPU's);
// plain sum.
__device__ double Combine(ReduceOp op, double a, double b) {
  if (op != ReduceOp::kMax && op != ReduceOp::kMin) return a + b;
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  if (op == ReduceOp::kMax) return a > b ? a : b;
  return a < b ? a : b;
}

// One thread per output, scanning its column in order as the CPU does.
template <typename Index>
__global__ void ArgReduceKernel(bool is_max, const float* __restrict__ in, Index* __restrict__ out,
                                int64_t outer, int64_t n, int64_t inner) {
  const int64_t total = outer * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i / inner, k = i % inner;
    const float* p = in + o * n * inner + k;
    float best = is_max ? -FLT_MAX : FLT_MAX;
    Index index = 0;
    for (int64_t r = 0; r < n; ++r) {
      const float v = p[r * inner];
      if (is_max ? v > best : v < best) {  // NaN never wins; ties keep the first
        best = v;
        index = static_cast<Index>(r);
      }
    }
    out[i] = index;
  }
}

__device__ float Finish(ReduceOp op, double acc, int64_t count) {
  if (op == ReduceOp::kMean) return static_cast<float>(acc / static_cast<double>(count));
  return static_cast<float>(acc);
}

// inner == 1: one block per output row of `reduce` contiguous values.
template <typename T>
__global__ void ReduceRowsKernel(ReduceOp op, const T* __restrict__ in, T* __restrict__ out,
                                 int64_t outer, int64_t reduce) {
  __shared__ double scratch[kThreads / 32];
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    const T* row = in + o * reduce;
    double acc = Identity(op);
    for (int64_t r = threadIdx.x; r < reduce; r += blockDim.x) {
      acc = Combine(op, acc, Widen(row[r]));
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      acc = Combine(op, acc, __shfl_xor_sync(0xffffffffu, acc, offset));
    }
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) scratch[warp] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      double total = scratch[0];
      for (int wi = 1; wi < kThreads / 32; ++wi) total = Combine(op, total, scratch[wi]);
      out[o] = Narrow<T>(Finish(op, total, reduce));
    }
    __syncthreads();
  }
}

// inner > 1: one thread per output, reading along `reduce` with stride inner
// (neighbouring threads read neighbouring addresses).
template <typename T>
__global__ void ReduceStridedKernel(ReduceOp op, const T* __restrict__ in, T* __restrict__ out,
                                    int64_t outer, int64_t reduce, int64_t inner) {
  const int64_t total = outer * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i / inner, k = i % inner;
    const T* p = in + o * reduce * inner + k;
    double acc = Identity(op);
    for (int64_t r = 0; r < reduce; ++r) acc = Combine(op, acc, Widen(p[r * inner]));
    out[i] = Narrow<T>(Finish(op, acc, reduce));
  }
}

// One thread per output, a float product in input order as the CPU's Prod.
__global__ void ProdKernel(const float* __restrict__ in, float* __restrict__ out, int64_t outer,
                           int64_t reduce, int64_t inner) {
  const int64_t total = outer * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i / inner, k = i % inner;
    const float* p = in + o * reduce * inner + k;
    float acc = 1.0f;
    for (int64_t r = 0; r < reduce; ++r) acc *= p[r * inner];
    out[i] = acc;
  }
}

__global__ void BiasAddGradKernel(const float* __restrict__ in, float* __restrict__ out,
                                  int64_t outer, int64_t channels, int64_t inner) {
  for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < channels;
       k += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[k] = static_cast<float>(BiasAddGradSum(in, k, outer, channels, inner));
  }
}

// One thread per output; stops at the first element that decides it.
__global__ void BoolReduceKernel(bool any, const bool* __restrict__ in, bool* __restrict__ out,
                                 int64_t outer, int64_t reduce, int64_t inner) {
  const int64_t total = outer * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i / inner, k = i % inner;
    const bool* p = in + o * reduce * inner + k;
    bool result = !any;
    for (int64_t r = 0; r < reduce; ++r) {
      if (p[r * inner] == any) {
        result = any;
        break;
      }
    }
    out[i] = result;
  }
}

}  // namespace

cudaError_t LaunchBoolReduce(bool any, const bool* in, bool* out, int64_t outer, int64_t reduce,
                             int64_t inner, cudaStream_t stream) {
  if (outer == 0 || inner == 0) return cudaSuccess;
  const int64_t blocks =
      std::min<int64_t>((outer * inner + kThreads - 1) / kThreads, kMaxBlocks * 8);
  BoolReduceKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(any, in, out, outer,
                                                                           reduce, inner);
  return cudaGetLastError();
}

template <typename Index>
cudaError_t LaunchArgReduce(bool is_max, const float* in, Index* out, int64_t outer, int64_t n,
                            int64_t inner, cudaStream_t stream) {
  if (outer == 0 || inner == 0) return cudaSuccess;
  const int64_t blocks =
      std::min<int64_t>((outer * inner + kThreads - 1) / kThreads, kMaxBlocks * 8);
  ArgReduceKernel<Index><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      is_max, in, out, outer, n, inner);
  return cudaGetLastError();
}

template cudaError_t LaunchArgReduce<int32_t>(bool, const float*, int32_t*, int64_t, int64_t,
                                              int64_t, cudaStream_t);
template cudaError_t LaunchArgReduce<int64_t>(bool, const float*, int64_t*, int64_t, int64_t,
                                              int64_t, cudaStream_t);

template <typename T>
cudaError_t LaunchReduce(ReduceOp op, const T* in, T* out, int64_t outer, int64_t reduce,
                         int64_t inner, cudaStream_t stream) {
  if (outer == 0 || inner == 0) return cudaSuccess;
  if (op == ReduceOp::kProd) {
    if constexpr (std::is_same_v<T, float>) {
      const int64_t blocks = std::min<int64_t>((outer * inner + kThreads - 1) / kThreads,
                                               kMaxBlocks * 8);
      ProdKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, outer, reduce,
                                                                          inner);
    } else {
      return cudaErrorInvalidValue;
    }
  } else if (inner == 1) {
    const int blocks = static_cast<int>(std::min<int64_t>(outer, kMaxBlocks));
    ReduceRowsKernel<T><<<blocks, kThreads, 0, stream>>>(op, in, out, outer, reduce);
  } else {
    const int64_t blocks = std::min<int64_t>((outer * inner + kThreads - 1) / kThreads,
                                             kMaxBlocks * 8);
    ReduceStridedKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        op, in, out, outer, reduce, inner);
  }
  return cudaGetLastError();
}

template cudaError_t LaunchReduce<float>(ReduceOp, const float*, float*, int64_t, int64_t,
                                         int64_t, cudaStream_t);
template cudaError_t LaunchReduce<__half>(ReduceOp, const __half*, __half*, int64_t, int64_t,
                                          int64_t, cudaStream_t);
template cudaError_t LaunchReduce<__nv_bfloat16>(ReduceOp, const __nv_bfloat16*,
                                                 __nv_bfloat16*, int64_t, int64_t, int64_t,
                                                 cudaStream_t);

cudaError_t LaunchBiasAddGrad(const float* in, float* out, int64_t outer, int64_t channels,
                              int64_t inner, cudaStream_t stream) {
  if (channels == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((channels + kThreads - 1) / kThreads, kMaxBlocks);
  BiasAddGradKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, outer,
                                                                             channels, inner);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
