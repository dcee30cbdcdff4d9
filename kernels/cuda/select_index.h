// Host-side planning for SelectV2: the broadcast of condition, then and else.
#ifndef SMRT_KERNELS_CUDA_SELECT_INDEX_H_
#define SMRT_KERNELS_CUDA_SELECT_INDEX_H_

#include "absl/status/statusor.h"
#include "kernels/cuda/select.h"
#include "smrt/tensor.h"

namespace smrt::kernels::cuda {

// The output shape of broadcasting the three shapes (NumPy rules) and the
// index that walks it, size-1 dims dropped and neighbouring dims that all
// three step through alike merged. InvalidArgument naming the shapes when
// they do not broadcast; Unimplemented above kMaxSelectRank merged dims.
absl::StatusOr<SelectIndex> MakeSelectIndex(const Shape& cond, const Shape& then_shape,
                                            const Shape& else_shape, Shape* out_shape);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_SELECT_INDEX_H_
