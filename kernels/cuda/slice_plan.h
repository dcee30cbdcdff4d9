// Host-side planning for Slice and StridedSlice on the GPU. Both copy a box
// of the input, taking every step-th element along each dim, into a dense
// output: output element (i_0, ..., i_{r-1}) reads input element
// base + sum(i_d * step_d). That is the transpose kernel's gather with a
// moved start (its plan's in_strides may be any steps, negative included),
// so no kernel of their own.
#ifndef SMRT_KERNELS_CUDA_SLICE_PLAN_H_
#define SMRT_KERNELS_CUDA_SLICE_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/cuda/transpose.h"
#include "smrt/tensor.h"

namespace smrt::kernels::cuda {

struct SliceGather {
  TransposePlan plan;  // the box's dims and the input step along each
  int64_t base = 0;    // the input element the box starts at
};

// The box of `sizes` elements per dim, starting at `begin` and stepping by
// `strides` elements of dim d (negative: backwards), of a row-major input of
// `in_dims`; every vector has the input's rank and the box lies inside the
// input (as PlanStridedSlice and SliceSizes leave it). Box dims of size 1
// are dropped and neighbours the input holds contiguously merged;
// Unimplemented when more than kMaxTransposeRank dims remain. A box with no
// elements gives an empty plan (nothing to launch).
absl::StatusOr<SliceGather> PlanSliceGather(const Shape& in_dims, const std::vector<int64_t>& begin,
                                            const std::vector<int64_t>& strides,
                                            const Shape& sizes);

// ReverseV2 of a row-major tensor of `dims`: dim d runs backwards where
// flip[d] (one entry per dim).
absl::StatusOr<SliceGather> PlanReverseGather(const Shape& dims, const std::vector<bool>& flip);

// One piece of a Split: the `size` elements of dim `axis` from `offset` on,
// everything of the other dims.
absl::StatusOr<SliceGather> PlanSplitPieceGather(const Shape& dims, int axis, int64_t offset,
                                                 int64_t size);

// Tile: output dim d holds multiples[d] copies of input dim d (multiples >=
// 0, one per dim).
absl::StatusOr<SliceGather> PlanTileGather(const Shape& in_dims,
                                           const std::vector<int64_t>& multiples);

// BroadcastTo: `in_dims` (which CheckBroadcastTo accepts) stretched to
// `target`, its stretched dims read with step 0.
absl::StatusOr<SliceGather> PlanBroadcastToGather(const Shape& in_dims, const Shape& target);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_SLICE_PLAN_H_
