// A permutation of a tensor's dims on device pointers, for any element size
// (no absl or smrt headers). Used by Transpose and by the conv kernels to put
// filters into cuDNN's layout.
#ifndef SMRT_KERNELS_CUDA_TRANSPOSE_H_
#define SMRT_KERNELS_CUDA_TRANSPOSE_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

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

// The input offset (in elements) of output element i: what the kernel reads.
__host__ __device__ inline int64_t TransposeSourceOffset(const TransposePlan& plan, int64_t i) {
  int64_t rest = i, offset = 0;
  for (int d = plan.rank - 1; d >= 0; --d) {
    const int64_t coord = rest % plan.out_dims[d];
    rest /= plan.out_dims[d];
    offset += coord * plan.in_strides[d];
  }
  return offset;
}

// The same permutation over fewer dims: size-1 dims dropped, and input dims
// that stay neighbours in the output merged into one (at least one dim
// remains). `perm` is a permutation of [0, rank).
void SimplifyTranspose(const std::vector<int64_t>& in_dims, const std::vector<int>& perm,
                       std::vector<int64_t>& dims, std::vector<int>& out_perm);

cudaError_t LaunchTranspose(const TransposePlan& plan, const void* in, void* out, int64_t n,
                            int elem_size, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_TRANSPOSE_H_
