#include <algorithm>
#include <cmath>

#include "kernels/cuda/softmax.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int64_t kMaxBlocks = 65535;  // rows beyond this are grid-strided

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  static constexpr float kIdentity = -INFINITY;
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
  static constexpr float kIdentity = 0.0f;
};

template <typename Op>
__device__ float WarpReduce(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = Op()(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

// The block's reduction of v, returned to every thread. blockDim.x is a
// multiple of 32 (every lane of every warp takes part). `scratch` holds 33
// floats; the trailing __syncthreads lets the caller reduce again at once.
template <typename Op>
__device__ float BlockReduce(float v, float* scratch) {
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
  const float result = scratch[32];
  __syncthreads();
  return result;
}

// One block per row. fmaxf skips NaNs, but a NaN still reaches the sum, and
// an infinity gives inf - inf: either way the row is NaN, as on the CPU.
__global__ void SoftmaxKernel(const float* __restrict__ in, float* __restrict__ out,
                              int64_t rows, int64_t depth) {
  __shared__ float scratch[33];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const float* x = in + row * depth;
    float* y = out + row * depth;
    float m = MaxOp::kIdentity;
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) m = fmaxf(m, x[i]);
    m = BlockReduce<MaxOp>(m, scratch);
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
      const float e = expf(x[i] - m);
      y[i] = e;  // each thread divides its own elements below
      s += e;
    }
    s = BlockReduce<SumOp>(s, scratch);
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) y[i] = y[i] / s;
  }
}

}  // namespace

cudaError_t LaunchSoftmax(const float* in, float* out, int64_t rows, int64_t depth,
                          cudaStream_t stream) {
  if (rows == 0 || depth == 0) return cudaSuccess;
  // A warp for short rows, up to 256 threads for long ones.
  const int threads = depth <= 32 ? 32 : depth <= 128 ? 128 : 256;
  const int blocks = static_cast<int>(std::min<int64_t>(rows, kMaxBlocks));
  SoftmaxKernel<<<blocks, threads, 0, stream>>>(in, out, rows, depth);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
