// Spatial MaxPool / AvgPool over NHWC float32, float16 or bfloat16 on device
// pointers (no absl or smrt headers).
#ifndef SMRT_KERNELS_CUDA_POOL_H_
#define SMRT_KERNELS_CUDA_POOL_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

struct PoolWindow {
  int64_t batch = 0, in_h = 0, in_w = 0, depth = 0;
  int64_t out_h = 0, out_w = 0;
  int64_t k_h = 1, k_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

// Each output cell over the window's cells inside the input, as TensorFlow's
// CPU kernels: max starts from the lowest float and skips NaN; average sums
// in double and divides by the count of cells inside the input (0 when none).
// 16-bit elements are widened to float and the result rounded once, as the
// CPU computes them. One thread per output element. T is float, __half or
// __nv_bfloat16. Returns the launch error, if any.
template <typename T>
cudaError_t LaunchMaxPool(const T* in, T* out, const PoolWindow& w, cudaStream_t stream);
template <typename T>
cudaError_t LaunchAvgPool(const T* in, T* out, const PoolWindow& w, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_POOL_H_
