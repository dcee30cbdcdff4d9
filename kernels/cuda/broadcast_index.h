// Host-side planning for the broadcasting CUDA kernels.
#ifndef SMRT_KERNELS_CUDA_BROADCAST_INDEX_H_
#define SMRT_KERNELS_CUDA_BROADCAST_INDEX_H_

#include "absl/status/statusor.h"
#include "kernels/cuda/elementwise.h"
#include "smrt/tensor.h"

namespace smrt::kernels::cuda {

// The output shape of broadcasting `a` against `b` and the index that walks
// it. Dims of size 1 are dropped and neighbouring dims that both inputs
// treat alike are merged, so equal shapes become one flat dim.
// InvalidArgument "Incompatible shapes for broadcasting: (2, 3) vs (4)" when
// they do not broadcast; Unimplemented above kMaxBroadcastRank merged dims.
absl::StatusOr<BroadcastIndex> MakeBroadcastIndex(const Shape& a, const Shape& b,
                                                  Shape* out_shape);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_BROADCAST_INDEX_H_
