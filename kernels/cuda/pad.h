// Zero padding of an NHWC float32 tensor's spatial dims on device pointers
// (no absl or smrt headers): what the conv kernels give cuDNN, which pads
// only symmetrically, when TensorFlow's padding is not.
#ifndef SMRT_KERNELS_CUDA_PAD_H_
#define SMRT_KERNELS_CUDA_PAD_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

// out (n, h + top + bottom, w + left + right, c) = in (n, h, w, c) with
// `top` rows of zeros before, `left` columns before, the rest after.
// Returns the launch error, if any.
cudaError_t LaunchPadNhwc(const float* in, float* out, int64_t n, int64_t h, int64_t w,
                          int64_t c, int64_t top, int64_t bottom, int64_t left, int64_t right,
                          cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_PAD_H_
