// Bincount and DenseBincount: a vector of `size` counts (DenseBincount: one
// row of them per row of a 2-D input), of the weights' dtype T.
#include <cstdint>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/bincount_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

// Output shape for `input` dims (-1 unknown) and a size (-1 unknown).
absl::Status InferBincount(InferenceContext& ctx, bool dense) {
  ValueInfo out;
  absl::StatusOr<DataType> t = ctx.attrs().Get<DataType>("T");
  if (!t.ok()) return t.status();
  out.dtype = *t;
  int64_t size = -1;
  if (const Tensor* s = ctx.input_value(1); s != nullptr) {
    absl::StatusOr<int64_t> v = BincountSize(*s);
    if (!v.ok()) return v.status();
    size = *v;
  }
  const PartialShape& in = ctx.input(0).shape;
  if (dense && in.known_rank && in.rank() > 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 1-D or 2-D, got shape ", in.ToString()));
  }
  if (dense && in.known_rank && in.rank() == 2) {
    out.shape = PartialShape::Known({in.dims[0], size});
  } else if (!dense || in.known_rank) {
    out.shape = PartialShape::Known({size});
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterBincountOps(OpRegistry& r) {
  r.AddOp(ArrayOp("Bincount", {},
                  [](InferenceContext& ctx) { return InferBincount(ctx, /*dense=*/false); }));
  r.AddOp(ArrayOp("DenseBincount", {{"binary_output", false}},
                  [](InferenceContext& ctx) { return InferBincount(ctx, /*dense=*/true); }));
}

}  // namespace smrt::ops
