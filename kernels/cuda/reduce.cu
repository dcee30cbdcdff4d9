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

// NaN-propagating max and min (a NaN they met, not a new one: the one NaN
// of a row is the CPU's bits; of several, the CPU keeps the last); plain sum.
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

// The block's op over values [0, n) of `row` (all of the block's threads
// call it; the result is thread 0's). Ends with a barrier, so `scratch` may
// be reused right after.
template <typename T>
__device__ double BlockTotal(ReduceOp op, const T* row, int64_t n, double* scratch) {
  double acc = Identity(op);
  for (int64_t r = threadIdx.x; r < n; r += blockDim.x) acc = Combine(op, acc, Widen(row[r]));
  for (int offset = 16; offset > 0; offset /= 2) {
    acc = Combine(op, acc, __shfl_xor_sync(0xffffffffu, acc, offset));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = acc;
  __syncthreads();
  double total = scratch[0];
  for (int wi = 1; wi < kThreads / 32; ++wi) total = Combine(op, total, scratch[wi]);
  __syncthreads();
  return total;
}

// inner == 1: one block per output row of `reduce` contiguous values.
template <typename T>
__global__ void ReduceRowsKernel(ReduceOp op, const T* __restrict__ in, T* __restrict__ out,
                                 int64_t outer, int64_t reduce) {
  __shared__ double scratch[kThreads / 32];
  for (int64_t o = blockIdx.x; o < outer; o += gridDim.x) {
    const double total = BlockTotal(op, in + o * reduce, reduce, scratch);
    if (threadIdx.x == 0) out[o] = Narrow<T>(Finish(op, total, reduce));
  }
}

// The op over rows [begin, end) of column p (stride inner), in order.
template <typename T>
__device__ double ColumnTotal(ReduceOp op, const T* p, int64_t begin, int64_t end,
                              int64_t inner) {
  double acc = Identity(op);
  for (int64_t r = begin; r < end; ++r) acc = Combine(op, acc, Widen(p[r * inner]));
  return acc;
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
    const double acc = ColumnTotal(op, in + o * reduce * inner + k, 0, reduce, inner);
    out[i] = Narrow<T>(Finish(op, acc, reduce));
  }
}

// Split reductions (ReduceChunks > 1): partial[(o * chunks + c) * inner + k]
// is the op over r in chunk c ([c * chunk, (c + 1) * chunk) within reduce)
// of in[o, r, k], unfinished, in double.

// inner == 1: one block per (o, c).
template <typename T>
__global__ void PartialRowsKernel(ReduceOp op, const T* __restrict__ in,
                                  double* __restrict__ partial, int64_t outer, int64_t reduce,
                                  int64_t chunks, int64_t chunk) {
  __shared__ double scratch[kThreads / 32];
  for (int64_t b = blockIdx.x; b < outer * chunks; b += gridDim.x) {
    const int64_t o = b / chunks, begin = (b % chunks) * chunk;
    const int64_t n = begin >= reduce ? 0 : (reduce - begin < chunk ? reduce - begin : chunk);
    const double total = BlockTotal(op, in + o * reduce + begin, n, scratch);
    if (threadIdx.x == 0) partial[b] = total;
  }
}

// inner > 1: one thread per (o, c, k).
template <typename T>
__global__ void PartialStridedKernel(ReduceOp op, const T* __restrict__ in,
                                     double* __restrict__ partial, int64_t outer, int64_t reduce,
                                     int64_t inner, int64_t chunks, int64_t chunk) {
  const int64_t total = outer * chunks * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i / (chunks * inner), c = i / inner % chunks, k = i % inner;
    const int64_t begin = c * chunk, end = begin + chunk < reduce ? begin + chunk : reduce;
    partial[i] = ColumnTotal(op, in + o * reduce * inner + k, begin, end, inner);
  }
}

// out[o, k] = the op over the chunks' partials, finished (Mean divides by
// reduce); one thread per output.
template <typename T>
__global__ void FinishPartialsKernel(ReduceOp op, const double* __restrict__ partial,
                                     T* __restrict__ out, int64_t outer, int64_t reduce,
                                     int64_t inner, int64_t chunks) {
  const int64_t total = outer * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i / inner, k = i % inner;
    double acc = Identity(op);
    for (int64_t c = 0; c < chunks; ++c) {
      acc = Combine(op, acc, partial[(o * chunks + c) * inner + k]);
    }
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
                         int64_t inner, double* partials, cudaStream_t stream) {
  if (outer == 0 || inner == 0) return cudaSuccess;
  const int64_t chunks = ReduceChunks(op, outer, reduce, inner);
  if (chunks > 1) {
    if (partials == nullptr) return cudaErrorInvalidValue;
    const int64_t chunk = (reduce + chunks - 1) / chunks;
    if (inner == 1) {
      const int blocks = static_cast<int>(std::min<int64_t>(outer * chunks, kMaxBlocks));
      PartialRowsKernel<T><<<blocks, kThreads, 0, stream>>>(op, in, partials, outer, reduce,
                                                            chunks, chunk);
    } else {
      const int64_t blocks = std::min<int64_t>(
          (outer * chunks * inner + kThreads - 1) / kThreads, kMaxBlocks * 8);
      PartialStridedKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
          op, in, partials, outer, reduce, inner, chunks, chunk);
    }
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    const int64_t blocks =
        std::min<int64_t>((outer * inner + kThreads - 1) / kThreads, kMaxBlocks * 8);
    FinishPartialsKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        op, partials, out, outer, reduce, inner, chunks);
    return cudaGetLastError();
  }
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
                                         int64_t, double*, cudaStream_t);
template cudaError_t LaunchReduce<__half>(ReduceOp, const __half*, __half*, int64_t, int64_t,
                                          int64_t, double*, cudaStream_t);
template cudaError_t LaunchReduce<__nv_bfloat16>(ReduceOp, const __nv_bfloat16*,
                                                 __nv_bfloat16*, int64_t, int64_t, int64_t,
                                                 double*, cudaStream_t);

cudaError_t LaunchBiasAddGrad(const float* in, float* out, int64_t outer, int64_t channels,
                              int64_t inner, cudaStream_t stream) {
  if (channels == 0) return cudaSuccess;
  const int64_t blocks = std::min<int64_t>((channels + kThreads - 1) / kThreads, kMaxBlocks);
  BiasAddGradKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(in, out, outer,
                                                                             channels, inner);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
