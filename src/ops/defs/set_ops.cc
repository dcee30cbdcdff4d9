// Set ops on vectors (tf.unique, tf.unique_with_counts, tf.setdiff1d):
// Unique, UniqueV2 (unique slices along an axis), UniqueWithCounts,
// UniqueWithCountsV2 and ListDiff. Their outputs' lengths depend on the
// values, so they are unknown until run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/set_shapes.h"
#include "ops/shape_fns.h"

namespace smrt::ops {

absl::Status CheckUniqueInput(const PartialShape& x) {
  if (x.known_rank && x.rank() != 1) {
    return absl::InvalidArgumentError("unique expects a 1D vector.");
  }
  return absl::OkStatus();
}

absl::StatusOr<int> UniqueAxis(const std::vector<int64_t>& axis, int rank) {
  if (axis.size() > 1) {
    return absl::InvalidArgumentError("axis does not support input tensors larger than 1 elements");
  }
  if (axis.empty()) {
    if (rank != 1) return absl::InvalidArgumentError("unique expects a 1D vector.");
    return 0;
  }
  const int64_t a = axis[0] < 0 ? axis[0] + rank : axis[0];
  if (a < 0 || a >= rank) {
    return absl::InvalidArgumentError(absl::StrCat("axis has to be between [0, ", rank, ")"));
  }
  return static_cast<int>(a);
}

absl::Status CheckSetVector(const PartialShape& shape, absl::string_view what) {
  if (shape.known_rank && shape.rank() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, " should be a 1D vector."));
  }
  return absl::OkStatus();
}

namespace {

NumOutputsFn Fixed(int n) {
  return [n](const AttrMap&, int) -> absl::StatusOr<int> { return n; };
}

absl::StatusOr<DataType> IndexType(const InferenceContext& ctx) {
  return ctx.attrs().GetOr<DataType>("out_idx", DataType::kInt32);
}

// Unique and UniqueWithCounts: y [?], idx like x, count [?].
absl::Status InferUnique(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  absl::StatusOr<DataType> index = IndexType(ctx);
  if (!index.ok()) return AtNode(ctx, index.status());
  const PartialShape& x = ctx.input(0).shape;
  if (absl::Status s = CheckUniqueInput(x); !s.ok()) return AtNode(ctx, s);
  const PartialShape unknown_length = PartialShape::Known({-1});
  ctx.set_output(0, ValueInfo{*t, unknown_length});
  ctx.set_output(1, ValueInfo{*index, x.known_rank ? x : unknown_length});
  if (ctx.num_outputs() == 3) ctx.set_output(2, ValueInfo{*index, unknown_length});
  return absl::OkStatus();
}

// UniqueV2 and UniqueWithCountsV2: y like x with the axis dim unknown,
// idx [x.dims[axis]], count [?].
absl::Status InferUniqueV2(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  absl::StatusOr<DataType> index = IndexType(ctx);
  if (!index.ok()) return AtNode(ctx, index.status());
  const PartialShape& x = ctx.input(0).shape;
  const PartialShape& axis_shape = ctx.input(1).shape;
  if (axis_shape.known_rank && axis_shape.rank() > 1) {
    return AtNode(ctx, absl::InvalidArgumentError(absl::StrCat("axis must be a vector, got shape ",
                                                               axis_shape.ToString())));
  }
  PartialShape y = x.known_rank ? PartialShape::Known(Shape(x.dims.size(), -1)) : x;
  int64_t length = -1;
  std::optional<std::vector<int64_t>> axis = ConstInts(ctx, 1);
  if (axis.has_value() && x.known_rank) {
    absl::StatusOr<int> a = UniqueAxis(*axis, x.rank());
    if (!a.ok()) return AtNode(ctx, a.status());
    y.dims = x.dims;
    y.dims[*a] = -1;
    length = x.dims[*a];
  }
  ctx.set_output(0, ValueInfo{*t, std::move(y)});
  ctx.set_output(1, ValueInfo{*index, PartialShape::Known({length})});
  if (ctx.num_outputs() == 3) ctx.set_output(2, ValueInfo{*index, PartialShape::Known({-1})});
  return absl::OkStatus();
}

// ListDiff: out [?] of x's dtype, idx [?].
absl::Status InferListDiff(InferenceContext& ctx) {
  if (absl::Status s = CheckInputTypesMatch(ctx); !s.ok()) return s;
  absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
  if (!t.ok()) return t.status();
  absl::StatusOr<DataType> index = IndexType(ctx);
  if (!index.ok()) return AtNode(ctx, index.status());
  if (absl::Status s = CheckSetVector(ctx.input(0).shape, "x"); !s.ok()) return AtNode(ctx, s);
  if (absl::Status s = CheckSetVector(ctx.input(1).shape, "y"); !s.ok()) return AtNode(ctx, s);
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known({-1})});
  ctx.set_output(1, ValueInfo{*index, PartialShape::Known({-1})});
  return absl::OkStatus();
}

}  // namespace

void RegisterSetOps(OpRegistry& r) {
  const std::pair<std::string, AttrValue> out_idx = {"out_idx", DataType::kInt32};
  const std::pair<std::string, AttrValue> taxis = {"Taxis", DataType::kInt64};
  r.AddOp({"Unique", {out_idx}, InferUnique, Fixed(2)});
  r.AddOp({"UniqueWithCounts", {out_idx}, InferUnique, Fixed(3)});
  r.AddOp({"UniqueV2", {taxis, out_idx}, InferUniqueV2, Fixed(2)});
  r.AddOp({"UniqueWithCountsV2", {taxis, out_idx}, InferUniqueV2, Fixed(3)});
  r.AddOp({"ListDiff", {out_idx}, InferListDiff, Fixed(2)});
}

}  // namespace smrt::ops
