// Transpose: output dim d is input dim perm[d]. Negative perm entries count
// from the end, as TensorFlow allows.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/shared/array_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

// `perm` normalised into [0, rank), checked to be a permutation.
absl::StatusOr<std::vector<int>> ValidatePerm(const std::vector<int64_t>& perm, int rank) {
  if (static_cast<int64_t>(perm.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("Transpose: perm [", absl::StrJoin(perm, ", "),
                                                   "] has ", perm.size(),
                                                   " entries but the input has rank ", rank));
  }
  std::vector<int> out(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    int64_t p = perm[i];
    if (p < -rank || p >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Transpose: perm[", i, "] = ", p,
                                                     " is out of range [", -rank, ", ", rank,
                                                     ") for an input of rank ", rank));
    }
    out[i] = static_cast<int>(p < 0 ? p + rank : p);
    seen[out[i]] = true;
  }
  for (int d = 0; d < rank; ++d) {
    if (!seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat("Transpose: perm [", absl::StrJoin(perm, ", "),
                                                     "] is not a permutation: ", d, " is missing"));
    }
  }
  return out;
}

absl::Status InferTranspose(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> perm = KnownInts(ctx, 1);
  if (in.known_rank && perm.has_value()) {
    absl::StatusOr<std::vector<int>> p = ValidatePerm(*perm, in.rank());
    if (!p.ok()) return p.status();
    Shape dims(p->size());
    for (size_t d = 0; d < p->size(); ++d) dims[d] = in.dims[(*p)[d]];
    out.shape = PartialShape::Known(std::move(dims));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  } else if (perm.has_value()) {
    out.shape = UnknownDims(static_cast<int>(perm->size()));
  } else if (int64_t n = KnownVectorLength(ctx, 1); n >= 0 && ctx.input(1).shape.rank() == 1) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ComputeTranspose(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (ctx.input(1).rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("Transpose: perm must be a vector, got shape ",
                                                   ShapeToString(ctx.input(1).shape())));
  }
  absl::StatusOr<std::vector<int64_t>> perm_values = IntValues(ctx.input(1), "perm");
  if (!perm_values.ok()) return perm_values.status();
  absl::StatusOr<std::vector<int>> perm = ValidatePerm(*perm_values, input.rank());
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

}  // namespace

void RegisterTransposeOps(KernelRegistry& r) {
  r.AddOp(ArrayOp("Transpose", {{"Tperm", DataType::kInt32}}, InferTranspose));
  AddArrayKernel(r, "Transpose", "T", ComputeTranspose);
}

}  // namespace smrt::kernels
