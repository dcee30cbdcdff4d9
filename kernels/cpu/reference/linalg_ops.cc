// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Cholesky,
// MatrixSolve, MatrixTriangularSolve and SelfAdjointEigV2 on the CPU, float32
// and float64, batched over the leading dims. Each matrix goes through the
// Eigen decomposition TensorFlow's CPU kernel uses, on the same storage order
// (row-major, except the determinants' column-major copy), so results agree
// to rounding: PartialPivLU for the inverse, the solve and the determinants,
// LLT for Cholesky, triangular views for the triangular solve,
// SelfAdjointEigenSolver for the eigendecomposition. Singular and
// non-positive-definite input behave as TensorFlow's: an error for the
// inverse and the solve when a pivot is exactly zero, NaN in the failed
// matrix's lower triangle for Cholesky, sign 0 and log -inf for the
// determinants.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "Eigen/LU"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/registry.h"
#include "ops/linalg_shapes.h"

namespace smrt::kernels {
namespace {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMap = Eigen::Map<const Matrix<T>>;
template <typename T>
using Map = Eigen::Map<Matrix<T>>;

// Runs fn(i) for each of `count` independent matrix problems of about `cost`
// flops each, spread over the intra-op threads. fn returns false where its
// matrix fails; the result is the first failed index, or -1.
template <typename Fn>
int64_t ForEachMatrix(int64_t count, double cost, Fn fn) {
  std::atomic<int64_t> failed{count};
  const int64_t min_shard = std::max<int64_t>(1, static_cast<int64_t>(20000 / (cost + 1)));
  ParallelFor(count, min_shard, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      if (!fn(i)) {
        int64_t seen = failed.load();
        while (i < seen && !failed.compare_exchange_weak(seen, i)) {
        }
      }
    }
  });
  return failed.load() == count ? -1 : failed.load();
}

absl::Status CheckFloat(const Tensor& t, const char* op) {
  if (t.dtype() == DataType::kFloat || t.dtype() == DataType::kDouble) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat(op, " takes float32 or float64, got ", DataTypeName(t.dtype())));
}

// The number of n x n matrices in `t` (its batch dims' product).
int64_t BatchCount(const Tensor& t) {
  int64_t count = 1;
  for (int d = 0; d + 2 < t.rank(); ++d) count *= t.dim(d);
  return count;
}

Shape BatchDims(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

// MatrixInverse; `adjoint` inverts the adjoint.
template <typename T>
absl::Status Inverse(KernelContext& ctx, const Tensor& in, int64_t n, bool adjoint) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  if (n == 0) return absl::OkStatus();  // an empty matrix's inverse is empty
  const T* x = in.data<T>();
  T* y = (*out)->data<T>();
  const int64_t failed = ForEachMatrix(BatchCount(in), double(n) * n * n, [&](int64_t i) {
    ConstMap<T> a(x + i * n * n, n, n);
    Eigen::PartialPivLU<Matrix<T>> lu;
    if (adjoint) {
      lu.compute(a.adjoint());
    } else {
      lu.compute(a);
    }
    // As TensorFlow: PartialPivLU guards only against exact zero pivots.
    const T min_abs_pivot = lu.matrixLU().diagonal().cwiseAbs().minCoeff();
    if (!(min_abs_pivot > T(0))) return false;
    Map<T>(y + i * n * n, n, n).noalias() = lu.inverse();
    return true;
  });
  if (failed >= 0) return absl::InvalidArgumentError("Input is not invertible.");
  return absl::OkStatus();
}

// TensorFlow's SLogDet: log|det| and the sign from a partially pivoted LU of
// a column-major copy; an empty matrix has determinant 1; a non-finite log
// gives sign 0 and log +-inf.
template <typename T>
T SLogDet(const ConstMap<T>& a, T* sign) {
  T log_abs_det = 0;
  *sign = 1;
  if (a.size() > 0) {
    const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> col_major = a;
    Eigen::PartialPivLU<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>> lu(col_major);
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic> lu_matrix = lu.matrixLU();
    *sign = lu.permutationP().determinant();
    auto diag = lu_matrix.diagonal().array().eval();
    auto abs_diag = diag.cwiseAbs().eval();
    log_abs_det += abs_diag.log().sum();
    *sign *= (diag / abs_diag).prod();
  }
  if (!std::isfinite(log_abs_det)) {
    *sign = 0;
    log_abs_det =
        log_abs_det > 0 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  }
  return log_abs_det;
}

// MatrixDeterminant (`log` false: sign * exp(log|det|), as TensorFlow) or
// LogMatrixDeterminant (outputs sign and log|det|).
template <typename T>
absl::Status Determinant(KernelContext& ctx, const Tensor& in, int64_t n, bool log) {
  absl::StatusOr<Tensor*> first = ctx.allocate_output(0, in.dtype(), BatchDims(in));
  if (!first.ok()) return first.status();
  T* second = nullptr;
  if (log) {
    absl::StatusOr<Tensor*> t = ctx.allocate_output(1, in.dtype(), BatchDims(in));
    if (!t.ok()) return t.status();
    second = (*t)->data<T>();
  }
  const T* x = in.data<T>();
  T* y = (*first)->data<T>();
  ForEachMatrix(BatchCount(in), double(n) * n * n, [&](int64_t i) {
    T sign;
    const T log_abs_det = SLogDet(ConstMap<T>(x + i * n * n, n, n), &sign);
    if (log) {
      y[i] = sign;
      second[i] = log_abs_det;
    } else {
      y[i] = sign * std::exp(log_abs_det);
    }
    return true;
  });
  return absl::OkStatus();
}

// Cholesky: reads only the lower triangle. A matrix that is not positive
// definite gets NaN in its lower triangle, as in TensorFlow (whose upper
// triangle is then left unwritten; smrt's is zero).
template <typename T>
absl::Status Cholesky(KernelContext& ctx, const Tensor& in, int64_t n) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), in.shape());
  if (!out.ok()) return out.status();
  if (n == 0) return absl::OkStatus();
  const T* x = in.data<T>();
  T* y = (*out)->data<T>();
  ForEachMatrix(BatchCount(in), double(n) * n * n / 3, [&](int64_t i) {
    Eigen::LLT<Matrix<T>> llt(ConstMap<T>(x + i * n * n, n, n));
    Map<T> l(y + i * n * n, n, n);
    if (llt.info() != Eigen::Success) {
      l.setZero();
      l.template triangularView<Eigen::Lower>().fill(std::numeric_limits<T>::quiet_NaN());
    } else {
      l = llt.matrixL();
    }
    return true;
  });
  return absl::OkStatus();
}

// SelfAdjointEigV2: eigenvalues ascending and, with compute_v, the
// eigenvectors as columns (reads only the lower triangle).
template <typename T>
absl::Status SelfAdjointEig(KernelContext& ctx, const Tensor& in, int64_t n, bool compute_v) {
  Shape e_shape = BatchDims(in);
  e_shape.push_back(n);
  absl::StatusOr<Tensor*> e = ctx.allocate_output(0, in.dtype(), e_shape);
  if (!e.ok()) return e.status();
  absl::StatusOr<Tensor*> v = ctx.allocate_output(1, in.dtype(), compute_v ? in.shape() : Shape{0});
  if (!v.ok()) return v.status();
  if (n == 0) return absl::OkStatus();
  const T* x = in.data<T>();
  T* values = (*e)->data<T>();
  T* vectors = (*v)->data<T>();
  const int64_t failed = ForEachMatrix(BatchCount(in), 9.0 * n * n * n, [&](int64_t i) {
    Eigen::SelfAdjointEigenSolver<Matrix<T>> eig(
        Matrix<T>(ConstMap<T>(x + i * n * n, n, n)),
        compute_v ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
    if (eig.info() != Eigen::Success) return false;
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(values + i * n, n) = eig.eigenvalues();
    if (compute_v) Map<T>(vectors + i * n * n, n, n) = eig.eigenvectors();
    return true;
  });
  if (failed >= 0) {
    return absl::InvalidArgumentError(
        "Self-adjoint eigen decomposition was not successful. The input might not be valid.");
  }
  return absl::OkStatus();
}

// SelfAdjointEig and BatchSelfAdjointEig, the V1 layout TensorFlow 2.21
// still runs: [..., n + 1, n], row 0 the eigenvalues (ascending), rows 1..n
// the eigenvectors as columns.
template <typename T>
absl::Status SelfAdjointEigV1(KernelContext& ctx, const Tensor& in, int64_t n) {
  Shape shape = BatchDims(in);
  shape.push_back(n + 1);
  shape.push_back(n);
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, in.dtype(), shape);
  if (!out.ok()) return out.status();
  if (n == 0) return absl::OkStatus();
  const T* x = in.data<T>();
  T* y = (*out)->data<T>();
  const int64_t failed = ForEachMatrix(BatchCount(in), 9.0 * n * n * n, [&](int64_t i) {
    Eigen::SelfAdjointEigenSolver<Matrix<T>> eig(Matrix<T>(ConstMap<T>(x + i * n * n, n, n)));
    if (eig.info() != Eigen::Success) return false;
    Map<T> result(y + i * (n + 1) * n, n + 1, n);
    result.row(0) = eig.eigenvalues().transpose();
    result.bottomRows(n) = eig.eigenvectors();
    return true;
  });
  if (failed >= 0) {
    return absl::InvalidArgumentError(
        "Self-adjoint eigen decomposition was not successful. The input might not be valid.");
  }
  return absl::OkStatus();
}

// MatrixSolve: solves a x = b (or adjoint(a) x = b) per matrix.
template <typename T>
absl::Status Solve(KernelContext& ctx, const Tensor& a, const Tensor& b, const Shape& out_shape,
                   bool adjoint) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, a.dtype(), out_shape);
  if (!out.ok()) return out.status();
  const int64_t n = a.dim(a.rank() - 1), k = b.dim(b.rank() - 1);
  if (n == 0 || k == 0) return absl::OkStatus();  // no equations: an empty solution
  const T* x = a.data<T>();
  const T* rhs = b.data<T>();
  T* y = (*out)->data<T>();
  const int64_t failed = ForEachMatrix(BatchCount(a), double(n) * n * (n + k), [&](int64_t i) {
    ConstMap<T> m(x + i * n * n, n, n);
    Eigen::PartialPivLU<Matrix<T>> lu(n);
    if (adjoint) {
      lu.compute(m.adjoint());
    } else {
      lu.compute(m);
    }
    const T min_abs_pivot = lu.matrixLU().diagonal().cwiseAbs().minCoeff();
    if (!(min_abs_pivot > T(0))) return false;
    Map<T>(y + i * n * k, n, k) = lu.solve(ConstMap<T>(rhs + i * n * k, n, k));
    return true;
  });
  if (failed >= 0) return absl::InvalidArgumentError("Input matrix is not invertible.");
  return absl::OkStatus();
}

// For output batch index i of `out` (broadcast batch dims), the batch index
// of an input whose batch dims are `in` (right-aligned, 1 stretches).
int64_t BroadcastIndex(int64_t i, const Shape& out, const Shape& in) {
  int64_t index = 0, stride = 1;
  for (int d = static_cast<int>(out.size()) - 1; d >= 0; --d) {
    const int64_t coord = i % out[d];
    i /= out[d];
    const int di = d - static_cast<int>(out.size() - in.size());
    if (di < 0) continue;
    if (in[di] != 1) index += coord * stride;
    stride *= in[di];
  }
  return index;
}

// MatrixTriangularSolve: solves with the lower (or upper) triangle of a, or
// its adjoint; the other triangle is not read. Batch dims broadcast.
template <typename T>
absl::Status TriangularSolve(KernelContext& ctx, const Tensor& a, const Tensor& b,
                             const Shape& out_shape, bool lower, bool adjoint) {
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, a.dtype(), out_shape);
  if (!out.ok()) return out.status();
  if ((*out)->num_elements() == 0) return absl::OkStatus();
  const int64_t n = a.dim(a.rank() - 1), k = b.dim(b.rank() - 1);
  const Shape batch(out_shape.begin(), out_shape.end() - 2);
  const Shape a_batch = BatchDims(a), b_batch = BatchDims(b);
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  const T* x = a.data<T>();
  const T* rhs = b.data<T>();
  T* y = (*out)->data<T>();
  ForEachMatrix(count, double(n) * n * k / 2, [&](int64_t i) {
    ConstMap<T> m(x + BroadcastIndex(i, batch, a_batch) * n * n, n, n);
    ConstMap<T> r(rhs + BroadcastIndex(i, batch, b_batch) * n * k, n, k);
    Map<T> o(y + i * n * k, n, k);
    if (lower) {
      auto triangle = m.template triangularView<Eigen::Lower>();
      if (adjoint) {
        o.noalias() = triangle.adjoint().solve(r);
      } else {
        o.noalias() = triangle.solve(r);
      }
    } else {
      auto triangle = m.template triangularView<Eigen::Upper>();
      if (adjoint) {
        o.noalias() = triangle.adjoint().solve(r);
      } else {
        o.noalias() = triangle.solve(r);
      }
    }
    return true;
  });
  return absl::OkStatus();
}

// The n of a batch of square matrices, with TensorFlow's checks.
absl::StatusOr<int64_t> SquareInput(const Tensor& in, const char* op) {
  if (absl::Status s = CheckFloat(in, op); !s.ok()) return s;
  return ops::SquareMatrixSize(PartialShape::Known(in.shape()));
}

absl::Status ComputeInverse(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareInput(in, "MatrixInverse");
  if (!n.ok()) return n.status();
  absl::StatusOr<bool> adjoint = ctx.attrs().GetOr<bool>("adjoint", false);
  if (!adjoint.ok()) return adjoint.status();
  return in.dtype() == DataType::kFloat ? Inverse<float>(ctx, in, *n, *adjoint)
                                        : Inverse<double>(ctx, in, *n, *adjoint);
}

absl::Status ComputeDeterminant(KernelContext& ctx, bool log) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareInput(in, log ? "LogMatrixDeterminant" : "MatrixDeterminant");
  if (!n.ok()) return n.status();
  return in.dtype() == DataType::kFloat ? Determinant<float>(ctx, in, *n, log)
                                        : Determinant<double>(ctx, in, *n, log);
}

absl::Status ComputeCholesky(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareInput(in, "Cholesky");
  if (!n.ok()) return n.status();
  return in.dtype() == DataType::kFloat ? Cholesky<float>(ctx, in, *n)
                                        : Cholesky<double>(ctx, in, *n);
}

absl::Status ComputeSelfAdjointEig(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareInput(in, "SelfAdjointEigV2");
  if (!n.ok()) return n.status();
  absl::StatusOr<bool> compute_v = ctx.attrs().GetOr<bool>("compute_v", true);
  if (!compute_v.ok()) return compute_v.status();
  return in.dtype() == DataType::kFloat ? SelfAdjointEig<float>(ctx, in, *n, *compute_v)
                                        : SelfAdjointEig<double>(ctx, in, *n, *compute_v);
}

absl::Status ComputeSelfAdjointEigV1(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  absl::StatusOr<int64_t> n = SquareInput(in, "SelfAdjointEig");
  if (!n.ok()) return n.status();
  return in.dtype() == DataType::kFloat ? SelfAdjointEigV1<float>(ctx, in, *n)
                                        : SelfAdjointEigV1<double>(ctx, in, *n);
}

absl::Status CheckSameType(const Tensor& a, const Tensor& b, const char* op) {
  if (absl::Status s = CheckFloat(a, op); !s.ok()) return s;
  if (a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": matrix is ", DataTypeName(a.dtype()),
                                                   " but rhs is ", DataTypeName(b.dtype())));
  }
  return absl::OkStatus();
}

absl::Status ComputeSolve(KernelContext& ctx) {
  const Tensor &a = ctx.input(0), &b = ctx.input(1);
  if (absl::Status s = CheckSameType(a, b, "MatrixSolve"); !s.ok()) return s;
  absl::StatusOr<bool> adjoint = ctx.attrs().GetOr<bool>("adjoint", false);
  if (!adjoint.ok()) return adjoint.status();
  absl::StatusOr<PartialShape> shape =
      ops::SolveShape(PartialShape::Known(a.shape()), PartialShape::Known(b.shape()));
  if (!shape.ok()) return shape.status();
  return a.dtype() == DataType::kFloat ? Solve<float>(ctx, a, b, shape->dims, *adjoint)
                                       : Solve<double>(ctx, a, b, shape->dims, *adjoint);
}

absl::Status ComputeTriangularSolve(KernelContext& ctx) {
  const Tensor &a = ctx.input(0), &b = ctx.input(1);
  if (absl::Status s = CheckSameType(a, b, "MatrixTriangularSolve"); !s.ok()) return s;
  absl::StatusOr<bool> lower = ctx.attrs().GetOr<bool>("lower", true);
  if (!lower.ok()) return lower.status();
  absl::StatusOr<bool> adjoint = ctx.attrs().GetOr<bool>("adjoint", false);
  if (!adjoint.ok()) return adjoint.status();
  absl::StatusOr<PartialShape> shape = ops::TriangularSolveShape(
      PartialShape::Known(a.shape()), PartialShape::Known(b.shape()), *lower, *adjoint);
  if (!shape.ok()) return shape.status();
  return a.dtype() == DataType::kFloat
             ? TriangularSolve<float>(ctx, a, b, shape->dims, *lower, *adjoint)
             : TriangularSolve<double>(ctx, a, b, shape->dims, *lower, *adjoint);
}

}  // namespace

void RegisterLinalgOps(KernelRegistry& r) {
  const std::vector<DataType> floats = {DataType::kFloat, DataType::kDouble};
  r.AddKernel({"MatrixInverse", kCpu, "T", floats, ComputeInverse});
  r.AddKernel({"MatrixDeterminant", kCpu, "T", floats,
               [](KernelContext& ctx) { return ComputeDeterminant(ctx, /*log=*/false); }});
  r.AddKernel({"LogMatrixDeterminant", kCpu, "T", floats,
               [](KernelContext& ctx) { return ComputeDeterminant(ctx, /*log=*/true); }});
  r.AddKernel({"Cholesky", kCpu, "T", floats, ComputeCholesky});
  r.AddKernel({"MatrixSolve", kCpu, "T", floats, ComputeSolve});
  r.AddKernel({"MatrixTriangularSolve", kCpu, "T", floats, ComputeTriangularSolve});
  r.AddKernel({"SelfAdjointEigV2", kCpu, "T", floats, ComputeSelfAdjointEig});
  // The deprecated names TensorFlow 2.21 still has CPU kernels for.
  r.AddKernel({"BatchMatrixInverse", kCpu, "T", floats, ComputeInverse});
  r.AddKernel({"BatchMatrixDeterminant", kCpu, "T", floats,
               [](KernelContext& ctx) { return ComputeDeterminant(ctx, /*log=*/false); }});
  r.AddKernel({"BatchCholesky", kCpu, "T", floats, ComputeCholesky});
  r.AddKernel({"BatchMatrixSolve", kCpu, "T", floats, ComputeSolve});
  r.AddKernel({"BatchMatrixTriangularSolve", kCpu, "T", floats, ComputeTriangularSolve});
  r.AddKernel({"BatchSelfAdjointEigV2", kCpu, "T", floats, ComputeSelfAdjointEig});
  r.AddKernel({"SelfAdjointEig", kCpu, "T", floats, ComputeSelfAdjointEigV1});
  r.AddKernel({"BatchSelfAdjointEig", kCpu, "T", floats, ComputeSelfAdjointEigV1});
}

}  // namespace smrt::kernels
