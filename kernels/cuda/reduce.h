// Sum, Mean, Max and Min of float32, float16 and bfloat16, Prod, ArgMax and
// ArgMin of float32, Any and All of bool, over the middle of an (outer,
// reduce, inner) view of a row-major tensor, on device pointers (no absl or
// smrt headers).
#ifndef SMRT_KERNELS_CUDA_REDUCE_H_
#define SMRT_KERNELS_CUDA_REDUCE_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace smrt::kernels::cuda {

enum class ReduceOp { kSum, kMean, kProd, kMax, kMin };

// How many chunks LaunchReduce splits each output's `reduce` values into
// (1: none), so that few outputs over many values (a global average pool's
// channels, a sum of everything) still keep a GPU busy: with inner 1, a
// block per (output, chunk) of at least 4096 values, up to 256 blocks; else
// a thread per (output, chunk, inner index) of at least 32 rows, up to 32768
// threads. Never kProd (whose float product keeps the CPU's order). A split
// needs outer * chunks * inner doubles of partials.
inline int64_t ReduceChunks(ReduceOp op, int64_t outer, int64_t reduce, int64_t inner) {
  if (op == ReduceOp::kProd || outer == 0 || inner == 0) return 1;
  const int64_t min_chunk = inner == 1 ? 4096 : 32;
  const int64_t target = inner == 1 ? 256 : 32768;
  const int64_t outputs = outer * inner;
  if (outputs >= target) return 1;
  const int64_t chunks = std::min(reduce / min_chunk, (target + outputs - 1) / outputs);
  return std::max<int64_t>(1, std::min<int64_t>(chunks, 1024));
}

// out[o, i] = op over r of in[o, r, i], accumulated in double as the CPU
// kernel does (its 16-bit kernels accumulate in float; both round the result
// to T once): kSum 0, kMax -inf and kMin +inf over no elements, kMean NaN;
// kMax and kMin propagate NaN. One block per output when inner is 1, else one
// thread per output; where ReduceChunks splits the values, partial results
// go to `partials` (that many doubles; else it may be null) and a second
// kernel combines them. T is float, __half or __nv_bfloat16. kProd (float
// only, else cudaErrorInvalidValue) is as the CPU's float Prod, bit for bit:
// one thread per output multiplies in float in input order (1 over no
// elements). Returns the launch error, if any.
template <typename T>
cudaError_t LaunchReduce(ReduceOp op, const T* in, T* out, int64_t outer, int64_t reduce,
                         int64_t inner, double* partials, cudaStream_t stream);

// out[o, i] = any (any) or all of in[o, r, i] over r: false and true over no
// elements. One thread per output, scanning until the answer is known.
cudaError_t LaunchBoolReduce(bool any, const bool* in, bool* out, int64_t outer, int64_t reduce,
                             int64_t inner, cudaStream_t stream);

// out[o * inner + i] = the index r of the largest (is_max) or smallest
// in[o, r, i] over r < n: ties keep the first, a NaN never wins, as the CPU
// kernel (whose running best starts at the float's lowest or max). Index is
// int32_t or int64_t. Returns the launch error, if any.
template <typename Index>
cudaError_t LaunchArgReduce(bool is_max, const float* in, Index* out, int64_t outer, int64_t n,
                            int64_t inner, cudaStream_t stream);

// BiasAddGrad's sum for channel k of an (outer, channels, inner) view: in
// double, over outer then inner, the CPU kernel's order, so the float it
// rounds to is the CPU's bit for bit. On the host and the device alike.
__host__ __device__ inline double BiasAddGradSum(const float* in, int64_t k, int64_t outer,
                                                 int64_t channels, int64_t inner) {
  double sum = 0.0;
  for (int64_t i = 0; i < outer; ++i) {
    const float* p = in + (i * channels + k) * inner;
    for (int64_t j = 0; j < inner; ++j) sum += p[j];
  }
  return sum;
}

// out[k] = BiasAddGradSum(in, k, ...) for every channel: one thread per
// channel (NHWC has inner 1, NCHW inner = H * W). Returns the launch error.
cudaError_t LaunchBiasAddGrad(const float* in, float* out, int64_t outer, int64_t channels,
                              int64_t inner, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_REDUCE_H_
