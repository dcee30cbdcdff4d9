// What the sparse ops' definitions (ops/defs/sparse_ops.cc) and every
// backend's kernels check alike, with TensorFlow's messages, in TensorFlow
// kernels' order. A SparseTensor travels as three tensors: indices [N, rank]
// (int64, or int32/int64 where an op says Tindices), values [N] and
// dense_shape [rank]. Unknown dims (-1) and ranks pass every check.
#ifndef SMRT_OPS_SPARSE_SHAPES_H_
#define SMRT_OPS_SPARSE_SHAPES_H_

#include <vector>

#include "absl/status/status.h"
#include "core/partial_shape.h"

namespace smrt::ops {

// SparseFillEmptyRows(indices, values, dense_shape, default_value).
absl::Status CheckSparseFillEmptyRowsShapes(const PartialShape& indices, const PartialShape& values,
                                            const PartialShape& dense_shape,
                                            const PartialShape& default_value);

// SparseReshape(input_indices, input_shape, new_shape).
absl::Status CheckSparseReshapeShapes(const PartialShape& indices, const PartialShape& input_shape,
                                      const PartialShape& new_shape);

// SparseSegmentSum/Mean/SqrtN(data, indices, segment_ids[, num_segments]);
// `num_segments` is null for the forms without it.
absl::Status CheckSparseSegmentShapes(const PartialShape& data, const PartialShape& indices,
                                      const PartialShape& segment_ids,
                                      const PartialShape* num_segments);

// SparseReorder(input_indices, input_values, input_shape), as TensorFlow's
// SparseTensor::Create checks them.
absl::Status CheckSparseTensorShapes(const PartialShape& indices, const PartialShape& values,
                                     const PartialShape& shape);

// SparseConcat's N indices, N values and N shapes: a matrix, a vector and
// a vector each.
absl::Status CheckSparseConcatShapes(const std::vector<PartialShape>& indices,
                                     const std::vector<PartialShape>& values,
                                     const std::vector<PartialShape>& shapes);

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value).
absl::Status CheckSparseToDenseShapes(const PartialShape& indices, const PartialShape& output_shape,
                                      const PartialShape& values,
                                      const PartialShape& default_value);

// SparseTensorDenseMatMul(a_indices, a_values, a_shape, b), up to the inner
// dims (which need a_shape's values).
absl::Status CheckSparseDenseMatMulShapes(const PartialShape& a_indices,
                                          const PartialShape& a_values, const PartialShape& a_shape,
                                          const PartialShape& b);

}  // namespace smrt::ops

#endif  // SMRT_OPS_SPARSE_SHAPES_H_
