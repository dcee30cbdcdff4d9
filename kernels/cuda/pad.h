// Constant padding of a row-major tensor on device pointers, any element size
// of up to 8 bytes (no absl or smrt headers): the Pad and PadV2 kernels, and
// the zero padding the conv kernels give cuDNN, which pads only
// symmetrically, when TensorFlow's padding is not.
#ifndef SMRT_KERNELS_CUDA_PAD_H_
#define SMRT_KERNELS_CUDA_PAD_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

inline constexpr int kMaxPadRank = 8;

// out[c] = in[c - before] where that is inside in_dims, else the fill value.
struct PadPlan {
  int rank = 0;
  int64_t out_dims[kMaxPadRank] = {};
  int64_t in_dims[kMaxPadRank] = {};
  int64_t before[kMaxPadRank] = {};
};

// `fill` holds elem_size bytes (1, 2, 4 or 8; else cudaErrorInvalidValue),
// read on the host. n is the output's element count; `out` must not overlap
// `in`. Returns the launch error, if any.
cudaError_t LaunchPad(const PadPlan& plan, const void* in, void* out, int64_t n, int elem_size,
                      const void* fill, cudaStream_t stream);

// out (n, h + top + bottom, w + left + right, c) = in (n, h, w, c) with
// `top` rows of zeros before, `left` columns before, the rest after.
cudaError_t LaunchPadNhwc(const float* in, float* out, int64_t n, int64_t h, int64_t w,
                          int64_t c, int64_t top, int64_t bottom, int64_t left, int64_t right,
                          cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_PAD_H_
