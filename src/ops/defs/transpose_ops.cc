// Transpose: output dim d is input dim perm[d]. Negative perm entries count
// from the end, as TensorFlow allows.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/array_shapes.h"
#include "ops/axis_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

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

}  // namespace

void RegisterTransposeOps(OpRegistry& r) {
  r.AddOp(ArrayOp("Transpose", {{"Tperm", DataType::kInt32}}, InferTranspose));
  r.AddOp(ArrayOp("ConjugateTranspose", {{"Tperm", DataType::kInt32}}, InferTranspose));
}

}  // namespace smrt::ops
