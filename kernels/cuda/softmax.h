// Softmax and LogSoftmax over the last axis on device pointers (no absl or smrt
// headers).
#ifndef SMRT_KERNELS_CUDA_SOFTMAX_H_
#define SMRT_KERNELS_CUDA_SOFTMAX_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

// out[r, :] = exp(in[r, :] - max) / sum(exp(in[r, :] - max)) for `rows` rows
// of `depth` values (row-major), one thread block per row; a NaN anywhere in
// a row, or an infinity, makes the row NaN as on the CPU. T is float, __half
// or __nv_bfloat16: a 16-bit row is computed in float and each value rounded
// once, as the CPU's 16-bit kernel does. With `log`, LogSoftmax instead:
// out = (in - max) - log(sum(exp(in - max))). `out` must not overlap `in`.
// Returns the launch error, if any.
template <typename T>
cudaError_t LaunchSoftmax(const T* in, T* out, int64_t rows, int64_t depth, bool log,
                          cudaStream_t stream);

// Softmax cross-entropy of `rows` rows of `depth` logits, one thread block per
// row, as TensorFlow's xent kernels: shifted = logits - max, loss[r] =
// sum(labels * (log(sum(exp(shifted))) - shifted)), backprop = softmax -
// labels. Dense labels are `rows` rows of `depth` floats, or one row for all
// when `labels_row_stride` is 0.
cudaError_t LaunchSoftmaxXent(const float* logits, const float* labels,
                              int64_t labels_row_stride, float* loss, float* backprop,
                              int64_t rows, int64_t depth, cudaStream_t stream);

// The same with one class index per row (int32_t or int64_t labels). A label
// outside [0, depth) makes its row's loss and backprop NaN, as TensorFlow's
// GPU kernel does (its CPU kernel, and smrt's, refuse the call instead).
template <typename Label>
cudaError_t LaunchSparseSoftmaxXent(const float* logits, const Label* labels, float* loss,
                                    float* backprop, int64_t rows, int64_t depth,
                                    cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_SOFTMAX_H_
