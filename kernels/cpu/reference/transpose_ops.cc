// Transpose: output dim d is input dim perm[d]. Negative perm entries count
// from the end, as TensorFlow allows. ConjugateTranspose also conjugates
// complex values.
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/array_util.h"
#include "kernels/registry.h"
#include "ops/axis_shapes.h"

namespace smrt::kernels {
namespace {

absl::Status ComputeTranspose(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("Transpose: perm must be a vector, got shape ",
                                                   ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<std::vector<int64_t>> perm_values = IntValues(ctx.input(1), "perm");
  if (!perm_values.ok()) return perm_values.status();
  absl::StatusOr<std::vector<int>> perm = ops::ValidatePerm(*perm_values, input.rank());
  if (!perm.ok()) return perm.status();

  const int rank = input.rank();
  Shape dims(rank);
  for (int d = 0; d < rank; ++d) dims[d] = input.dim((*perm)[d]);
  // When the dims larger than 1 keep their order (an identity perm, as Keras's
  // Tensordot emits for every Dense on a 3-D input, or moving size-1 dims),
  // the elements stay where they are: the output is the input's buffer with
  // the new shape, as Reshape gives.
  bool order_kept = true;
  for (int d = 0, last = -1; d < rank && order_kept; ++d) {
    if (dims[d] == 1) continue;
    order_kept = (*perm)[d] > last;
    last = (*perm)[d];
  }
  if (order_kept) {
    absl::StatusOr<Tensor> same = input.Reshaped(dims);
    if (!same.ok()) return same.status();
    ctx.set_output(0, *std::move(same));
    return absl::OkStatus();
  }
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, input.dtype(), dims);
  if (!out.ok()) return out.status();
  if (input.num_elements() == 0) return absl::OkStatus();

  const Shape in_strides = RowMajorStrides(input.shape());
  std::vector<std::vector<int64_t>> tables(rank);
  for (int d = 0; d < rank; ++d) {
    tables[d].resize(static_cast<size_t>(dims[d]));
    for (int64_t i = 0; i < dims[d]; ++i) tables[d][i] = i * in_strides[(*perm)[d]];
  }
  Tensor* result = *out;
  return VisitElementType(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ParallelGatherByTables<T>(input.data<T>(), tables, T(), result->data<T>());
    return absl::OkStatus();
  });
}

// ConjugateTranspose: Transpose, then the complex conjugate (complex types
// only; the others are Transpose).
absl::Status ComputeConjugateTranspose(KernelContext& ctx) {
  if (absl::Status s = ComputeTranspose(ctx); !s.ok()) return s;
  const DataType dtype = ctx.input(0).dtype();
  if (dtype != DataType::kComplex64 && dtype != DataType::kComplex128) return absl::OkStatus();
  // The transposed output may share the input's buffer: conjugate a copy.
  const Tensor transposed = ctx.output(0);
  absl::StatusOr<Tensor> out = Tensor::CreateUninitialized(dtype, transposed.shape());
  if (!out.ok()) return out.status();
  std::memcpy(out->raw_data(), transposed.raw_data(), transposed.byte_size());
  const int64_t n = out->num_elements();
  if (dtype == DataType::kComplex64) {
    float* parts = static_cast<float*>(out->raw_data());
    for (int64_t i = 0; i < n; ++i) parts[2 * i + 1] = -parts[2 * i + 1];
  } else {
    double* parts = static_cast<double*>(out->raw_data());
    for (int64_t i = 0; i < n; ++i) parts[2 * i + 1] = -parts[2 * i + 1];
  }
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterTransposeOps(KernelRegistry& r) {
  AddArrayKernel(r, "Transpose", "T", ComputeTranspose);
  AddArrayKernel(r, "ConjugateTranspose", "T", ComputeConjugateTranspose);
}

}  // namespace smrt::kernels
