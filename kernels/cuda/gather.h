// GatherV2 along one axis on device pointers, for any element size (no absl
// or smrt headers). params is viewed as [outer, limit, inner], the output as
// [outer, num_indices, inner].
#ifndef SMRT_KERNELS_CUDA_GATHER_H_
#define SMRT_KERNELS_CUDA_GATHER_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

// Lowers *first_bad (which the caller sets to UINT64_MAX beforehand) to the
// position of the first index outside [0, limit), if any. `indices` holds
// int32 (index_bytes 4) or int64 (index_bytes 8) values.
cudaError_t LaunchCheckIndices(const void* indices, int index_bytes, int64_t num_indices,
                               int64_t limit, unsigned long long* first_bad, cudaStream_t stream);

// out[o, j, r] = params[o, indices[j], r]; an out-of-range index gives zero
// bytes (the caller reports it). elem_size is 1, 2, 4, 8 or 16, else
// cudaErrorInvalidValue.
cudaError_t LaunchGather(const void* params, const void* indices, int index_bytes, void* out,
                         int64_t outer, int64_t limit, int64_t inner, int64_t num_indices,
                         int elem_size, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_GATHER_H_
