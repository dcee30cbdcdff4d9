// A thread block's reduction of one value per thread, for the CUDA kernels
// that give a row or a channel one block (softmax, layer norm, batch norm's
// statistics). Device code only: include from .cu files.
#ifndef SMRT_KERNELS_CUDA_BLOCK_REDUCE_H_
#define SMRT_KERNELS_CUDA_BLOCK_REDUCE_H_

#include <cuda_runtime.h>

#include <cmath>

namespace smrt::kernels::cuda {

template <typename V>
struct SumOp {
  __device__ V operator()(V a, V b) const { return a + b; }
  static constexpr V kIdentity = V(0);
};

struct MaxOp {  // fmaxf skips NaNs
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  static constexpr float kIdentity = -INFINITY;
};

template <typename Op, typename V>
__device__ V WarpReduce(V v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = Op()(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

// The block's reduction of v, returned to every thread. blockDim.x is a
// multiple of 32, at most 1024 (every lane of every warp takes part).
// `scratch` holds 33 values in shared memory; the trailing __syncthreads
// lets the caller reduce again at once with the same scratch.
template <typename Op, typename V>
__device__ V BlockReduce(V v, V* scratch) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const int warps = blockDim.x / 32;
  v = WarpReduce<Op>(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? scratch[lane] : Op::kIdentity;
    v = WarpReduce<Op>(v);
    if (lane == 0) scratch[32] = v;
  }
  __syncthreads();
  const V result = scratch[32];
  __syncthreads();
  return result;
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_BLOCK_REDUCE_H_
