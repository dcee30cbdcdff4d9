// Softmax over the last axis on device pointers (no absl or smrt headers).
#ifndef SMRT_KERNELS_CUDA_SOFTMAX_H_
#define SMRT_KERNELS_CUDA_SOFTMAX_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

// out[r, :] = exp(in[r, :] - max) / sum(exp(in[r, :] - max)) for `rows` rows
// of `depth` floats (row-major), one thread block per row; a NaN anywhere in
// a row, or an infinity, makes the row NaN as on the CPU. `out` must not
// overlap `in`. Returns the launch error, if any.
cudaError_t LaunchSoftmax(const float* in, float* out, int64_t rows, int64_t depth,
                          cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_SOFTMAX_H_
