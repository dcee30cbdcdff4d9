// RaggedTensorToTensor's copies on device pointers (no absl or smrt headers);
// the plan (which output row each row of values lands in, which default
// element each output element starts from) is made on the host by
// kernels/shared/ragged_util.h and uploaded with the call.
#ifndef SMRT_KERNELS_CUDA_RAGGED_H_
#define SMRT_KERNELS_CUDA_RAGGED_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

// What the two passes write, for the host and the device alike: output
// element o starts as default_value[RaggedDefaultAt(...)]; element t of the
// values (row t / width) goes to RaggedTargetOf(...), or nowhere (-1).
__host__ __device__ inline int64_t RaggedDefaultAt(const int64_t* default_source, int64_t o,
                                                   int64_t width) {
  return default_source[o % width];
}
__host__ __device__ inline int64_t RaggedTargetOf(const int64_t* index, int64_t t,
                                                  int64_t width) {
  const int64_t row = index[t / width];
  return row < 0 ? -1 : row * width + t % width;
}

// out ([rows, width] elements of elem_size 1, 2, 4, 8 or 16 bytes) is first
// default_value[default_source[k]] in every row (skipped when default_source
// is null), then row index[v] takes values row v (width elements) for each
// of the value_rows rows whose index is not -1. `index` and `default_source`
// are device arrays. Returns the launch error, if any.
cudaError_t LaunchRaggedToTensor(const void* values, const void* default_value, void* out,
                                 int elem_size, const int64_t* index, int64_t value_rows,
                                 const int64_t* default_source, int64_t rows, int64_t width,
                                 cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_RAGGED_H_
