// Decompositions and solvers on the last two dimensions of a tensor seen as a
// batch of matrices (tf.linalg): MatrixInverse, MatrixDeterminant,
// LogMatrixDeterminant, Cholesky, MatrixSolve, MatrixTriangularSolve and
// SelfAdjointEigV2. The shape checks (ops/linalg_shapes.h) are those of
// TensorFlow's CPU kernels, which the kernels repeat.
#include "absl/status/status.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/linalg_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

// MatrixInverse, Cholesky: the input's shape.
absl::Status InferSquareUnchanged(InferenceContext &ctx) {
  const ValueInfo &in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareMatrixSize(in.shape);
  if (!n.ok()) return AtNode(ctx, n.status());
  ctx.set_output(0, ValueInfo{in.dtype, BatchThen(in.shape, {*n, *n})});
  return absl::OkStatus();
}

// MatrixDeterminant (one output), LogMatrixDeterminant (sign and
// log_abs_determinant): one scalar per matrix.
absl::Status InferDeterminant(InferenceContext &ctx) {
  const ValueInfo &in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareMatrixSize(in.shape);
  if (!n.ok()) return AtNode(ctx, n.status());
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    ctx.set_output(i, ValueInfo{in.dtype, BatchThen(in.shape, {})});
  }
  return absl::OkStatus();
}

// SelfAdjointEigV2: e [..., n] and v [..., n, n], or v of shape [0] when
// compute_v is false (what TensorFlow allocates).
absl::Status InferEig(InferenceContext &ctx) {
  const ValueInfo &in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareMatrixSize(in.shape);
  if (!n.ok()) return AtNode(ctx, n.status());
  absl::StatusOr<bool> compute_v = ctx.attrs().GetOr<bool>("compute_v", true);
  if (!compute_v.ok()) return AtNode(ctx, compute_v.status());
  ctx.set_output(0, ValueInfo{in.dtype, BatchThen(in.shape, {*n})});
  ctx.set_output(1, ValueInfo{in.dtype, *compute_v ? BatchThen(in.shape, {*n, *n})
                                                   : PartialShape::Known({0})});
  return absl::OkStatus();
}

absl::Status InferSolve(InferenceContext &ctx) {
  absl::StatusOr<PartialShape> out = SolveShape(ctx.input(0).shape, ctx.input(1).shape);
  if (!out.ok()) return AtNode(ctx, out.status());
  ctx.set_output(0, ValueInfo{ctx.input(0).dtype, *out});
  return absl::OkStatus();
}

absl::Status InferTriangularSolve(InferenceContext &ctx) {
  absl::StatusOr<bool> lower = ctx.attrs().GetOr<bool>("lower", true);
  if (!lower.ok()) return AtNode(ctx, lower.status());
  absl::StatusOr<bool> adjoint = ctx.attrs().GetOr<bool>("adjoint", false);
  if (!adjoint.ok()) return AtNode(ctx, adjoint.status());
  absl::StatusOr<PartialShape> out =
      TriangularSolveShape(ctx.input(0).shape, ctx.input(1).shape, *lower, *adjoint);
  if (!out.ok()) return AtNode(ctx, out.status());
  ctx.set_output(0, ValueInfo{ctx.input(0).dtype, *out});
  return absl::OkStatus();
}

absl::StatusOr<int> TwoOutputs(const AttrMap &, int) { return 2; }

// SelfAdjointEig (V1): [..., n + 1, n], the eigenvalues above the eigenvectors.
absl::Status InferEigV1(InferenceContext &ctx) {
  const ValueInfo &in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareMatrixSize(in.shape);
  if (!n.ok()) return AtNode(ctx, n.status());
  ctx.set_output(0, ValueInfo{in.dtype, BatchThen(in.shape, {*n < 0 ? -1 : *n + 1, *n})});
  return absl::OkStatus();
}

}  // namespace

void RegisterLinalgOps(OpRegistry &r) {
  r.AddOp(ArrayOp("MatrixInverse", {{"adjoint", false}}, InferSquareUnchanged));
  r.AddOp(ArrayOp("MatrixDeterminant", {}, InferDeterminant));
  r.AddOp(ArrayOp("LogMatrixDeterminant", {}, InferDeterminant, TwoOutputs));
  r.AddOp(ArrayOp("Cholesky", {}, InferSquareUnchanged));
  r.AddOp(ArrayOp("MatrixSolve", {{"adjoint", false}}, InferSolve));
  r.AddOp(ArrayOp("MatrixTriangularSolve", {{"lower", true}, {"adjoint", false}},
                  InferTriangularSolve));
  r.AddOp(ArrayOp("SelfAdjointEigV2", {{"compute_v", true}}, InferEig, TwoOutputs));
  // The deprecated names TensorFlow 2.21 still has CPU kernels for.
  r.AddOp(ArrayOp("BatchMatrixInverse", {{"adjoint", false}}, InferSquareUnchanged));
  r.AddOp(ArrayOp("BatchMatrixDeterminant", {}, InferDeterminant));
  r.AddOp(ArrayOp("BatchCholesky", {}, InferSquareUnchanged));
  r.AddOp(ArrayOp("BatchMatrixSolve", {{"adjoint", false}}, InferSolve));
  r.AddOp(ArrayOp("BatchMatrixTriangularSolve", {{"lower", true}, {"adjoint", false}},
                  InferTriangularSolve));
  r.AddOp(ArrayOp("BatchSelfAdjointEigV2", {{"compute_v", true}}, InferEig, TwoOutputs));
  r.AddOp(ArrayOp("SelfAdjointEig", {}, InferEigV1));
  r.AddOp(ArrayOp("BatchSelfAdjointEig", {}, InferEigV1));
}

}  // namespace smrt::ops
