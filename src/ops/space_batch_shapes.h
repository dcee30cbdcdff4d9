// SpaceToBatchND / BatchToSpaceND (and the TF1 SpaceToBatch / BatchToSpace)
// and SpaceToDepth / DepthToSpace: the block and its paddings or crops, and
// the output shapes, for the shape functions and every backend's kernels
// alike (kernels/shared/depth_space_util.h gives the depth ones to kernels).
#ifndef SMRT_OPS_SPACE_BATCH_SHAPES_H_
#define SMRT_OPS_SPACE_BATCH_SHAPES_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt::ops {

struct BlockSpec {
  std::vector<int64_t> block;                       // M positive sizes
  std::vector<std::pair<int64_t, int64_t>> amount;  // paddings or crops, (before, after)
  int64_t block_product = 1;
};

// Whether `op` is SpaceToBatchND or BatchToSpaceND, which take block_shape
// and paddings/crops as inputs 1 and 2; the TF1 SpaceToBatch / BatchToSpace
// take paddings/crops as input 1 and a square block_size attr over a 4-D
// (NHWC) input.
bool IsBlockNdOp(absl::string_view op);

// The block and its paddings (to_batch) or crops: from `block` (1-D,
// positive) and the (M, 2) `amounts` (non-negative) for the ND ops, from the
// block_size attr for the TF1 ops (`block` is null for those).
absl::StatusOr<BlockSpec> ReadBlockSpec(absl::string_view op, const AttrMap& attrs,
                                        const Tensor* block, const Tensor& amounts, int input_rank,
                                        bool to_batch);

// Output shape of SpaceToBatchND (to_batch) or BatchToSpaceND. Input dims may
// be -1 (unknown) during inference; they give -1.
absl::StatusOr<Shape> BlockOutputShape(absl::string_view op, const Shape& in, const BlockSpec& s,
                                       bool to_batch);

// SpaceToDepth's and DepthToSpace's block_size attr: above 1 (and at most
// 2^30), data_format NHWC.
absl::StatusOr<int64_t> ReadBlockSize(const AttrMap& attrs, absl::string_view op);

// Output dims of SpaceToDepth (to_depth) or DepthToSpace for a rank-4 NHWC
// input; -1 dims stay unknown. InvalidArgument, as TensorFlow's, where the
// spatial dims or the depth do not divide by the block.
absl::StatusOr<Shape> DepthOutputShape(absl::string_view op, const Shape& in, int64_t b,
                                       bool to_depth);

}  // namespace smrt::ops

#endif  // SMRT_OPS_SPACE_BATCH_SHAPES_H_
