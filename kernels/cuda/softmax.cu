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

// The label of class i: a dense row's value, or whether i is the sparse
// row's class.
struct DenseLabel {
  const float* row;
  __device__ float operator()(int64_t i) const { return row[i]; }
};
struct SparseLabel {
  int64_t label;
  __device__ float operator()(int64_t i) const { return i == label ? 1.0f : 0.0f; }
};

// One row of softmax cross-entropy on a block.
template <typename Label>
__device__ void XentRow(const float* x, Label label, float* loss, float* backprop, int64_t depth,
                        float* scratch) {
  float m = MaxOp::kIdentity;
  for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) m = fmaxf(m, x[i]);
  m = BlockReduce<MaxOp>(m, scratch);
  float s = 0.0f;
  for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) s += expf(x[i] - m);
  s = BlockReduce<SumOp>(s, scratch);
  const float log_sum = logf(s);
  float l = 0.0f;
  for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
    const float shifted = x[i] - m;
    const float y = label(i);
    l += y * (log_sum - shifted);
    backprop[i] = expf(shifted) / s - y;
  }
  l = BlockReduce<SumOp>(l, scratch);
  if (threadIdx.x == 0) *loss = l;
}

__global__ void SoftmaxXentKernel(const float* __restrict__ logits,
                                  const float* __restrict__ labels, int64_t labels_row_stride,
                                  float* __restrict__ loss, float* __restrict__ backprop,
                                  int64_t rows, int64_t depth) {
  __shared__ float scratch[33];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    XentRow(logits + row * depth, DenseLabel{labels + row * labels_row_stride}, loss + row,
            backprop + row * depth, depth, scratch);
  }
}

template <typename Label>
__global__ void SparseSoftmaxXentKernel(const float* __restrict__ logits,
                                        const Label* __restrict__ labels,
                                        float* __restrict__ loss, float* __restrict__ backprop,
                                        int64_t rows, int64_t depth) {
  __shared__ float scratch[33];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t label = static_cast<int64_t>(labels[row]);
    if (label < 0 || label >= depth) {  // every thread of the block sees the same label
      for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
        backprop[row * depth + i] = NAN;
      }
      if (threadIdx.x == 0) loss[row] = NAN;
      continue;
    }
    XentRow(logits + row * depth, SparseLabel{label}, loss + row, backprop + row * depth, depth,
            scratch);
  }
}

// A warp for short rows, up to 256 threads for long ones.
int RowThreads(int64_t depth) { return depth <= 32 ? 32 : depth <= 128 ? 128 : 256; }
int RowBlocks(int64_t rows) { return static_cast<int>(std::min<int64_t>(rows, kMaxBlocks)); }

}  // namespace

cudaError_t LaunchSoftmaxXent(const float* logits, const float* labels,
                              int64_t labels_row_stride, float* loss, float* backprop,
                              int64_t rows, int64_t depth, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;  // depth 0 still writes each row's loss: 0
  SoftmaxXentKernel<<<RowBlocks(rows), RowThreads(depth), 0, stream>>>(
      logits, labels, labels_row_stride, loss, backprop, rows, depth);
  return cudaGetLastError();
}

template <typename Label>
cudaError_t LaunchSparseSoftmaxXent(const float* logits, const Label* labels, float* loss,
                                    float* backprop, int64_t rows, int64_t depth,
                                    cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;  // depth 0: every label is out of range, NaN
  SparseSoftmaxXentKernel<Label><<<RowBlocks(rows), RowThreads(depth), 0, stream>>>(
      logits, labels, loss, backprop, rows, depth);
  return cudaGetLastError();
}

template cudaError_t LaunchSparseSoftmaxXent<int32_t>(const float*, const int32_t*, float*,
                                                      float*, int64_t, int64_t, cudaStream_t);
template cudaError_t LaunchSparseSoftmaxXent<int64_t>(const float*, const int64_t*, float*,
                                                      float*, int64_t, int64_t, cudaStream_t);

cudaError_t LaunchSoftmax(const float* in, float* out, int64_t rows, int64_t depth,
                          cudaStream_t stream) {
  if (rows == 0 || depth == 0) return cudaSuccess;
  SoftmaxKernel<<<RowBlocks(rows), RowThreads(depth), 0, stream>>>(in, out, rows, depth);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
