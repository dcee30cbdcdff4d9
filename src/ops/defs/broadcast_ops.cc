// BroadcastTo and BroadcastArgs.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferBroadcastTo(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> shape = KnownInts(ctx, 1);
  const PartialShape& shape_shape = ctx.input(1).shape;
  if (shape.has_value()) {
    if (in.IsFullyKnown()) {
      if (absl::Status s = CheckBroadcastTo(in.dims, *shape); !s.ok()) return s;
    }
    for (int64_t d : *shape) {
      if (d < 0) return absl::InvalidArgumentError(absl::StrCat("Dimension ", d, " must be >= 0"));
    }
    out.shape = PartialShape::Known(*shape);
  } else if (shape_shape.known_rank && shape_shape.rank() == 1 && shape_shape.dims[0] >= 0) {
    const int64_t rank = shape_shape.dims[0];
    Shape dims(static_cast<size_t>(rank), -1);
    if (in.known_rank) {
      if (in.rank() > rank) {
        return absl::InvalidArgumentError(absl::StrCat("Rank of input (", in.rank(),
                                                       ") must be no greater than rank of "
                                                       "output shape (",
                                                       rank, ")."));
      }
      // A known input dim other than 1 fixes the output dim.
      for (int i = 0; i < in.rank(); ++i) {
        if (in.dims[i] >= 0 && in.dims[i] != 1) dims[rank - in.rank() + i] = in.dims[i];
      }
    }
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferBroadcastArgs(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  for (int i : {0, 1}) {
    const PartialShape& s = ctx.input(i).shape;
    if (s.known_rank && s.rank() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[", i, "] must be a vector, got shape ", s.ToString()));
    }
  }
  std::optional<std::vector<int64_t>> a = KnownInts(ctx, 0);
  std::optional<std::vector<int64_t>> b = KnownInts(ctx, 1);
  if (a.has_value() && b.has_value()) {
    absl::StatusOr<Shape> r = BroadcastArgShapes(*a, *b);
    if (!r.ok()) return r.status();
    out.shape = PartialShape::Known({static_cast<int64_t>(r->size())});
  } else {
    const int64_t la = KnownVectorLength(ctx, 0);
    const int64_t lb = KnownVectorLength(ctx, 1);
    out.shape = PartialShape::Known({la >= 0 && lb >= 0 ? std::max(la, lb) : -1});
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterBroadcastOps(OpRegistry& r) {
  r.AddOp(ArrayOp("BroadcastTo", {{"Tidx", DataType::kInt32}}, InferBroadcastTo));
  r.AddOp(ArrayOp("BroadcastArgs", {{"T", DataType::kInt32}}, InferBroadcastArgs));
}

}  // namespace smrt::ops
