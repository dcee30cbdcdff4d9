// A permutation of a tensor's dims on device pointers, for any element size
// (no absl or smrt headers). Used by Transpose and by the conv kernels to put
// filters into cuDNN's layout.
#ifndef SMRT_KERNELS_CUDA_TRANSPOSE_H_
#define SMRT_KERNELS_CUDA_TRANSPOSE_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

inline constexpr int kMaxTransposeRank = 8;

// out (row-major, dims out_dims[0..rank)) gets in[sum(coord[d] * in_strides[d])],
// in_strides[d] being the input stride (in elements) of the input dim that
// output dim d comes from. elem_size is 1, 2, 4, 8 or 16 bytes (else
// cudaErrorInvalidValue); `out` must not overlap `in`.
struct TransposePlan {
  int rank = 0;
  int64_t out_dims[kMaxTransposeRank] = {};
  int64_t in_strides[kMaxTransposeRank] = {};
};

// The plan for output dim d = input dim perm[d] of a row-major input of
// `in_dims` (rank <= kMaxTransposeRank, perm a permutation).
TransposePlan MakeTransposePlan(const int64_t* in_dims, const int* perm, int rank);

cudaError_t LaunchTranspose(const TransposePlan& plan, const void* in, void* out, int64_t n,
                            int elem_size, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_TRANSPOSE_H_
