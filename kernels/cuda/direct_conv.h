// A direct NHWC convolution on device pointers (no absl or smrt headers):
// what the conv kernels run when cuDNN offers no algorithm for a shape.
// Reads TensorFlow's HWIO filter as it is (a depthwise filter H, W, C,
// multiplier is HWIO with I = 1 and O = C * multiplier, C groups).
#ifndef SMRT_KERNELS_CUDA_DIRECT_CONV_H_
#define SMRT_KERNELS_CUDA_DIRECT_CONV_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

struct DirectConvGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  int64_t k_h = 0, k_w = 0, k_c = 0;  // k_c: input channels per group
  int64_t out_h = 0, out_w = 0, out_c = 0;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0;  // cells outside the input read as zeros
  int64_t groups = 1;                 // out_c / groups outputs per group
};

// out[b, y, x, o] = sum over the window and the group's k_c input channels
// of in * filter, one thread per output, float accumulation (rounded once to
// T). T is float, __half or __nv_bfloat16. Returns the launch error, if any.
template <typename T>
cudaError_t LaunchDirectConv(const T* in, const T* filter, T* out, const DirectConvGeometry& g,
                             cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_DIRECT_CONV_H_
