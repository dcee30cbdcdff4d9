// SelectV2 on device pointers, for any element size (no absl or smrt
// headers): out[i] = cond[..] ? then[..] : else[..] with NumPy broadcasting
// of all three.
#ifndef SMRT_KERNELS_CUDA_SELECT_H_
#define SMRT_KERNELS_CUDA_SELECT_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

inline constexpr int kMaxSelectRank = 8;

// Output element i: decompose i over `dims` (row-major); input k's offset is
// sum(coord[d] * strides[k][d]), a stride of 0 repeating it (k: 0 cond,
// 1 then, 2 else). Made by MakeSelectIndex (select_index.h).
struct SelectIndex {
  int rank = 0;
  int64_t dims[kMaxSelectRank] = {};
  int64_t strides[3][kMaxSelectRank] = {};
};

// elem_size 1, 2, 4, 8 or 16, else cudaErrorInvalidValue.
cudaError_t LaunchSelect(const bool* cond, const void* then_values, const void* else_values,
                         void* out, int64_t n, int elem_size, const SelectIndex& index,
                         cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_SELECT_H_
