// What the linear-algebra ops' definitions (ops/defs/linalg_ops.cc) and their
// kernels check alike, in the words of TensorFlow's CPU kernels
// (LinearAlgebraOp, MatrixTriangularSolveOp) and in their order, so that a
// model refused at load reads as TensorFlow refusing it at run time. Shapes
// are partial: a check whose dims are unknown passes, and the kernels call
// these with known shapes. Header-only.
#ifndef SMRT_OPS_LINALG_SHAPES_H_
#define SMRT_OPS_LINALG_SHAPES_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/partial_shape.h"
#include "ops/broadcast_shapes.h"
#include "ops/shape_text.h"

namespace smrt::ops {

namespace linalg_internal {

inline bool Known(int64_t d) { return d >= 0; }

}  // namespace linalg_internal

// A batch of square matrices [..., n, n] (MatrixInverse, Cholesky,
// MatrixDeterminant, SelfAdjointEigV2...): n, -1 when unknown or the rank is.
inline absl::StatusOr<int64_t> SquareMatrixSize(const PartialShape& s) {
  if (!s.known_rank) return -1;
  if (s.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input tensor 0 must have rank >= 2, got ", s.rank()));
  }
  const int64_t rows = s.dims[s.rank() - 2], cols = s.dims[s.rank() - 1];
  if (linalg_internal::Known(rows) && linalg_internal::Known(cols) && rows != cols) {
    return absl::InvalidArgumentError("Input matrix must be square.");
  }
  return linalg_internal::Known(rows) ? rows : cols;
}

// A square input's batch dims followed by `inner`.
inline PartialShape BatchThen(const PartialShape& s, const Shape& inner) {
  if (!s.known_rank) return PartialShape::Unknown();
  Shape dims(s.dims.begin(), s.dims.end() - 2);
  dims.insert(dims.end(), inner.begin(), inner.end());
  return PartialShape::Known(dims);
}

// MatrixSolve's output [..., n, k] for a matrix [..., n, n] and a rhs
// [..., n, k]: same rank, same batch dims, square, same rows.
inline absl::StatusOr<PartialShape> SolveShape(const PartialShape& a, const PartialShape& b) {
  using linalg_internal::Known;
  if (a.known_rank && a.rank() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input tensor 0 must have rank >= 2, got ", a.rank()));
  }
  if (!a.known_rank || !b.known_rank) return PartialShape::Unknown();
  const int rank = a.rank();
  if (b.rank() != rank) {
    return absl::InvalidArgumentError("All input tensors must have the same rank.");
  }
  Shape out;
  for (int d = 0; d < rank - 2; ++d) {
    const int64_t x = a.dims[d], y = b.dims[d];
    if (Known(x) && Known(y) && x != y) {
      return absl::InvalidArgumentError("All input tensors must have the same outer dimensions.");
    }
    out.push_back(Known(x) ? x : y);
  }
  const int64_t rows = a.dims[rank - 2], cols = a.dims[rank - 1], brows = b.dims[rank - 2];
  if (Known(rows) && Known(cols) && rows != cols) {
    return absl::InvalidArgumentError("First input (lhs) must be a square matrix.");
  }
  if (Known(rows) && Known(brows) && rows != brows) {
    return absl::InvalidArgumentError("Input matrix and rhs are incompatible.");
  }
  out.push_back(Known(cols) ? cols : (Known(rows) ? rows : brows));
  out.push_back(b.dims[rank - 1]);
  return PartialShape::Known(out);
}

// MatrixTriangularSolve's output [broadcast batch..., n, k] for a matrix
// [..., n, n] and a rhs [..., n, k]: TensorFlow 2 broadcasts the batch dims
// (MatMulBCast). `lower` and `adjoint` appear in TensorFlow's message.
inline absl::StatusOr<PartialShape> TriangularSolveShape(const PartialShape& a,
                                                         const PartialShape& b, bool lower,
                                                         bool adjoint) {
  using linalg_internal::Known;
  if (a.known_rank && a.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("In[0] ndims must be >= 2: ", a.rank()));
  }
  if (b.known_rank && b.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat("In[1] ndims must be >= 2: ", b.rank()));
  }
  if (!a.known_rank || !b.known_rank) return PartialShape::Unknown();
  const int ra = a.rank(), rb = b.rank();
  const int64_t n = a.dims[ra - 1], prev = a.dims[ra - 2];
  if (Known(n) && Known(prev) && n != prev) {
    return absl::InvalidArgumentError(absl::StrCat(
        "In[0] matrices in the last dimensions must be square (", n, " =/= ", prev, ")"));
  }
  absl::StatusOr<PartialShape> batch =
      BroadcastPartialShapes({PartialShape::Known(Shape(a.dims.begin(), a.dims.end() - 2)),
                              PartialShape::Known(Shape(b.dims.begin(), b.dims.end() - 2))});
  if (!batch.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("In[0] and In[1] must have compatible batch dimensions: ", TfShapeText(a.dims),
                     " vs. ", TfShapeText(b.dims)));
  }
  const int64_t size = Known(n) ? n : prev, brows = b.dims[rb - 2];
  if (Known(size) && Known(brows) && size != brows) {
    return absl::InvalidArgumentError(absl::StrCat(
        "In[0] mismatch In[1] shape: ", size, " vs. ", brows, ": ", TfShapeText(a.dims), " ",
        TfShapeText(b.dims), " ", lower ? 1 : 0, " ", adjoint ? 1 : 0));
  }
  Shape out = batch->dims;
  out.push_back(Known(size) ? size : brows);
  out.push_back(b.dims[rb - 1]);
  return PartialShape::Known(out);
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_LINALG_SHAPES_H_
