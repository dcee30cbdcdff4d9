#include <algorithm>
#include <cmath>

#include "kernels/cuda/block_reduce.h"
#include "kernels/cuda/half_math.h"
#include "kernels/cuda/softmax.h"

namespace smrt::kernels::cuda {
namespace {

constexpr int64_t kMaxBlocks = 65535;  // rows beyond this are grid-strided

// One block per row. fmaxf skips NaNs, but a NaN still reaches the sum, and
// an infinity gives inf - inf: either way the row is NaN, as on the CPU. A
// float row keeps each exp in `out` and divides it there; a 16-bit row
// recomputes it, so that each value is rounded to T once, from the float
// softmax. LogSoftmax (kLog) is (x - max) - log(sum), as the CPU's.
template <typename T, bool kLog>
__global__ void SoftmaxKernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                              int64_t depth) {
  __shared__ float scratch[33];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * depth;
    T* y = out + row * depth;
    float m = MaxOp::kIdentity;
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) m = fmaxf(m, Widen(x[i]));
    m = BlockReduce<MaxOp>(m, scratch);
    float s = 0.0f;
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
      const float e = expf(Widen(x[i]) - m);
      if constexpr (!kIsHalfLike<T> && !kLog) y[i] = e;  // each thread divides its own below
      s += e;
    }
    s = BlockReduce<SumOp<float>>(s, scratch);
    const float log_sum = kLog ? logf(s) : 0.0f;
    for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
      if constexpr (kLog) {
        y[i] = Narrow<T>((Widen(x[i]) - m) - log_sum);
      } else if constexpr (kIsHalfLike<T>) {
        y[i] = Narrow<T>(expf(Widen(x[i]) - m) / s);
      } else {
        y[i] = y[i] / s;
      }
    }
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
  s = BlockReduce<SumOp<float>>(s, scratch);
  const float log_sum = logf(s);
  float l = 0.0f;
  for (int64_t i = threadIdx.x; i < depth; i += blockDim.x) {
    const float shifted = x[i] - m;
    const float y = label(i);
    l += y * (log_sum - shifted);
    backprop[i] = expf(shifted) / s - y;
  }
  l = BlockReduce<SumOp<float>>(l, scratch);
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

template <typename T>
cudaError_t LaunchSoftmax(const T* in, T* out, int64_t rows, int64_t depth, bool log,
                          cudaStream_t stream) {
  if (rows == 0 || depth == 0) return cudaSuccess;
  if (log) {
    SoftmaxKernel<T, true><<<RowBlocks(rows), RowThreads(depth), 0, stream>>>(in, out, rows,
                                                                              depth);
  } else {
    SoftmaxKernel<T, false><<<RowBlocks(rows), RowThreads(depth), 0, stream>>>(in, out, rows,
                                                                               depth);
  }
  return cudaGetLastError();
}

template cudaError_t LaunchSoftmax<float>(const float*, float*, int64_t, int64_t, bool,
                                          cudaStream_t);
template cudaError_t LaunchSoftmax<__half>(const __half*, __half*, int64_t, int64_t, bool,
                                           cudaStream_t);
template cudaError_t LaunchSoftmax<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, int64_t,
                                                  int64_t, bool, cudaStream_t);

}  // namespace smrt::kernels::cuda
