// Ops that change only a tensor's shape (Reshape, Squeeze, ExpandDims) or
// report it (Shape, ShapeN, Size, Rank).
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/reshape_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferReshape(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  if (std::optional<std::vector<int64_t>> sizes = KnownInts(ctx, 1)) {
    if (absl::Status s = CheckShapeInputRank(*ctx.input_value(1)); !s.ok()) return s;
    absl::StatusOr<Shape> target = ReshapeTarget(ctx.input(0).shape, *sizes);
    if (!target.ok()) return target.status();
    out.shape = PartialShape::Known(*std::move(target));
  } else if (int64_t n = KnownVectorLength(ctx, 1); n >= 0) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferSqueeze(InferenceContext& ctx) {
  absl::StatusOr<std::vector<int64_t>> axes =
      ctx.attrs().GetOr<std::vector<int64_t>>("squeeze_dims", {});
  if (!axes.ok()) return axes.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    absl::StatusOr<std::optional<std::vector<bool>>> drop = SqueezedDims(in.dims, *axes);
    if (!drop.ok()) return drop.status();
    if (drop->has_value()) out.shape = PartialShape::Known(DropDims(in.dims, **drop));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferExpandDims(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    std::optional<std::vector<int64_t>> axis = KnownInts(ctx, 1);
    if (axis.has_value()) {
      if (axis->size() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("ExpandDims: 'dim' must hold a single value, got ", axis->size()));
      }
      absl::StatusOr<int> a = ExpandAxis((*axis)[0], in.rank());
      if (!a.ok()) return a.status();
      Shape dims = in.dims;
      dims.insert(dims.begin() + *a, 1);
      out.shape = PartialShape::Known(std::move(dims));
    } else {
      out.shape = UnknownDims(in.rank() + 1);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

ValueInfo ShapeVectorInfo(DataType dtype, const PartialShape& of) {
  return ValueInfo{dtype, PartialShape::Known({of.known_rank ? of.rank() : -1})};
}

absl::Status InferShape(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = ShapeOutType(ctx.attrs());
  if (!t.ok()) return t.status();
  for (int i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) {
    ctx.set_output(i, ShapeVectorInfo(*t, ctx.input(i).shape));
  }
  return absl::OkStatus();
}

absl::Status InferSize(InferenceContext& ctx) {
  absl::StatusOr<DataType> t = ShapeOutType(ctx.attrs());
  if (!t.ok()) return t.status();
  ctx.set_output(0, ValueInfo{*t, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::Status InferRank(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kInt32, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::StatusOr<int> ShapeNOutputs(const AttrMap& attrs, int num_inputs) {
  absl::StatusOr<int64_t> n = attrs.GetOr<int64_t>("N", num_inputs);
  if (!n.ok()) return n.status();
  if (*n != num_inputs) {
    return absl::InvalidArgumentError(
        absl::StrCat("ShapeN: attr N = ", *n, " but the node has ", num_inputs, " inputs"));
  }
  return num_inputs;
}

}  // namespace

void RegisterShapeOps(OpRegistry& r) {
  const AttrValue int32_type = DataType::kInt32;
  r.AddOp(ArrayOp("Reshape", {{"Tshape", int32_type}}, InferReshape));
  r.AddOp(ArrayOp("Squeeze", {{"squeeze_dims", std::vector<int64_t>{}}}, InferSqueeze));
  r.AddOp(ArrayOp("ExpandDims", {{"Tdim", int32_type}}, InferExpandDims));
  r.AddOp(ArrayOp("Shape", {{"out_type", int32_type}}, InferShape));
  r.AddOp(ArrayOp("ShapeN", {{"out_type", int32_type}}, InferShape, ShapeNOutputs));
  r.AddOp(ArrayOp("Size", {{"out_type", int32_type}}, InferSize));
  r.AddOp(ArrayOp("Rank", {}, InferRank));
}

}  // namespace smrt::ops
