// OneHot on device pointers (no absl or smrt headers). The output is a
// (prefix, depth, suffix) view; element (p, j, s) is on_value where the index
// at (p, s) equals j, else off_value, so an index outside [0, depth) gives a
// row of off_values, as on the CPU. Which index an output element reads is
// defined here for the host and the device alike, so tests check it on a
// machine without a GPU.
#ifndef SMRT_KERNELS_CUDA_ONE_HOT_H_
#define SMRT_KERNELS_CUDA_ONE_HOT_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

// For output element o: the position of its index in the indices (p * suffix
// + s) and the class j it stands for.
__host__ __device__ inline void OneHotSource(int64_t o, int64_t depth, int64_t suffix,
                                             int64_t* index_pos, int64_t* j) {
  const int64_t s = o % suffix;
  const int64_t pj = o / suffix;
  *j = pj % depth;
  *index_pos = (pj / depth) * suffix + s;
}

enum class OneHotIndex { kUInt8, kInt32, kInt64 };

// out (prefix * depth * suffix elements of elem_size 1, 2, 4, 8 or 16
// bytes) from the indices and the device scalars on_value and off_value.
// cudaErrorInvalidValue for another element size.
cudaError_t LaunchOneHot(OneHotIndex index_type, const void* indices, const void* on_value,
                         const void* off_value, void* out, int elem_size, int64_t prefix,
                         int64_t depth, int64_t suffix, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_ONE_HOT_H_
