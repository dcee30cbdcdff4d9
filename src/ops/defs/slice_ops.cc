// Slice (begin + size, size -1 meaning "to the end") and StridedSlice (Python
// indexing with all five masks; see ops/slice_shapes.h).
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/slice_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferSlice(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> begin = KnownInts(ctx, 1);
  std::optional<std::vector<int64_t>> size = KnownInts(ctx, 2);
  if (in.known_rank) {
    absl::StatusOr<Shape> dims = SliceSizes(in.dims, begin, size);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (size.has_value()) {
    absl::StatusOr<Shape> dims = SliceSizes(Shape(size->size(), -1), begin, size);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (int64_t n = KnownVectorLength(ctx, 2); n >= 0 && ctx.input(2).shape.rank() == 1) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferStridedSlice(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> strides = KnownInts(ctx, 3);
  if (in.known_rank && strides.has_value()) {
    absl::StatusOr<StridedSliceMasks> masks = StridedSliceMasksFromAttrs(ctx.attrs());
    if (!masks.ok()) return masks.status();
    absl::StatusOr<StridedSlicePlan> plan =
        PlanStridedSlice(in.dims, KnownInts(ctx, 1), KnownInts(ctx, 2), *strides, *masks);
    if (!plan.ok()) return plan.status();
    out.shape = PartialShape::Known(plan->final_shape);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSliceOps(OpRegistry& r) {
  r.AddOp(ArrayOp("Slice", {}, InferSlice));
  r.AddOp(ArrayOp("StridedSlice",
                  {{"begin_mask", int64_t{0}},
                   {"end_mask", int64_t{0}},
                   {"ellipsis_mask", int64_t{0}},
                   {"new_axis_mask", int64_t{0}},
                   {"shrink_axis_mask", int64_t{0}}},
                  InferStridedSlice));
}

}  // namespace smrt::ops
