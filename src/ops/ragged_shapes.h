// What RaggedTensorToTensor's definition (ops/defs/ragged_ops.cc) and every
// backend's plan (kernels/shared/ragged_util.h) read alike: the row
// partition types, the requested shape input, and the output shape they
// combine into, with TensorFlow's messages.
#ifndef SMRT_OPS_RAGGED_SHAPES_H_
#define SMRT_OPS_RAGGED_SHAPES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "core/partial_shape.h"
#include "smrt/tensor.h"

namespace smrt::ops {

enum class RaggedPartition { kFirstDimSize, kValueRowIds, kRowSplits };

// Attr row_partition_types, checked: not empty, FIRST_DIM_SIZE only first
// and then followed by VALUE_ROWIDS, VALUE_ROWIDS never first.
absl::StatusOr<std::vector<RaggedPartition>> RaggedPartitionTypes(const AttrMap& attrs);

// The ragged rank those partitions give (FIRST_DIM_SIZE adds none).
int RaggedRank(const std::vector<RaggedPartition>& types);

// The `shape` input as a partial shape: a scalar -1 is an unknown shape.
absl::StatusOr<PartialShape> RaggedShapeFromTensor(const Tensor& t);

// TensorFlow's CombineRaggedTensorToTensorShapes: the requested shape with
// the values' inner dims filled in and checked.
absl::StatusOr<PartialShape> CombineRaggedShapes(int ragged_rank, const PartialShape& shape,
                                                 const PartialShape& values);

}  // namespace smrt::ops

#endif  // SMRT_OPS_RAGGED_SHAPES_H_
