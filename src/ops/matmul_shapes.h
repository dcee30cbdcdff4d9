// MatMul, BatchMatMul, BatchMatMulV2 and BatchMatMulV3: their attrs, output
// shapes and TensorFlow's messages for operands that do not multiply, shared
// by their shape inference (ops/defs/matmul_ops.cc, the fused matmul's in
// ops/defs/fused_linear_ops.cc) and their kernels.
#ifndef SMRT_OPS_MATMUL_SHAPES_H_
#define SMRT_OPS_MATMUL_SHAPES_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "ops/op_spec.h"
#include "smrt/tensor.h"

namespace smrt::ops::matmul {

enum class BatchMode { kNone, kSame, kBroadcast };  // MatMul, BatchMatMul, V2/V3

struct MatMulOpts {
  bool adj_a = false;
  bool adj_b = false;
};

// transpose_a / transpose_b (MatMul) or adj_x / adj_y (the batched forms).
absl::StatusOr<MatMulOpts> ReadOpts(const AttrMap& attrs, BatchMode mode);

// "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]".
absl::Status SizeMismatch(const Shape& a, const Shape& b);

// The output batch dims of x and y (without the matrix dims; -1 unknown):
// equal for BatchMatMul, broadcast for V2 and V3.
absl::StatusOr<Shape> BatchDims(const Shape& x, const Shape& y, BatchMode mode);

// The op's shape inference over inputs 0 and 1: rank-2 operands for
// kNone, batches otherwise; BatchMatMulV3's output dtype is attr Tout.
absl::Status InferMatMul(InferenceContext& ctx, BatchMode mode);

}  // namespace smrt::ops::matmul

#endif  // SMRT_OPS_MATMUL_SHAPES_H_
