// Tile, GatherV2, Gather, Fill and Range.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/range_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferTile(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  std::optional<std::vector<int64_t>> multiples = KnownInts(ctx, 1);
  if (multiples.has_value()) {
    Shape dims = in.known_rank ? in.dims : Shape(multiples->size(), -1);
    absl::StatusOr<Shape> tiled = TiledDims(dims, *multiples);
    if (!tiled.ok()) return tiled.status();
    out.shape = PartialShape::Known(*std::move(tiled));
  } else if (in.known_rank) {
    out.shape = UnknownDims(in.rank());
  } else if (int64_t n = KnownVectorLength(ctx, 1); n >= 0 && ctx.input(1).shape.rank() == 1) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferGather(InferenceContext& ctx, bool legacy) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "Tparams");
  const PartialShape& params = ctx.input(0).shape;
  const PartialShape& indices = ctx.input(1).shape;
  absl::StatusOr<int64_t> batch_dims =
      legacy ? absl::StatusOr<int64_t>(0) : ctx.attrs().GetOr<int64_t>("batch_dims", 0);
  if (!batch_dims.ok()) return batch_dims.status();
  std::optional<std::vector<int64_t>> axis;
  if (legacy) {
    axis = std::vector<int64_t>{0};
  } else {
    axis = KnownInts(ctx, 2);
    if (axis.has_value() && axis->size() != 1) {
      return absl::InvalidArgumentError("GatherV2: axis must be a scalar");
    }
  }
  if (params.known_rank && indices.known_rank) {
    if (axis.has_value()) {
      absl::StatusOr<GatherDims> g =
          CheckGather(params.dims, indices.dims, (*axis)[0], *batch_dims);
      if (!g.ok()) return g.status();
      out.shape = PartialShape::Known(GatherOutputDims(params.dims, indices.dims, *g));
    } else {
      int64_t bd = *batch_dims < 0 ? *batch_dims + indices.rank() : *batch_dims;
      int64_t rank = params.rank() - 1 + indices.rank() - bd;
      if (rank >= 0 && bd >= 0) out.shape = UnknownDims(static_cast<int>(rank));
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferFill(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 1, "T");
  if (std::optional<std::vector<int64_t>> dims = KnownInts(ctx, 0)) {
    if (absl::Status s = CheckFillDims(*dims); !s.ok()) return s;
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (int64_t n = KnownVectorLength(ctx, 0); n >= 0 && ctx.input(0).shape.rank() == 1) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferRange(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = RangeDType(ctx.attrs());
  if (!dtype.ok()) return dtype.status();
  ValueInfo out{*dtype, PartialShape::Known({-1})};
  const Tensor* start = ctx.input_value(0);
  const Tensor* limit = ctx.num_inputs() > 1 ? ctx.input_value(1) : nullptr;
  const Tensor* delta = ctx.num_inputs() > 2 ? ctx.input_value(2) : nullptr;
  if (start != nullptr && limit != nullptr && delta != nullptr) {
    absl::Status s = VisitRangeType(*dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      return WithRange<T>(*start, *limit, *delta, *dtype, [&](T, T, T, int64_t size) {
        out.shape = PartialShape::Known({size});
        return absl::OkStatus();
      });
    });
    if (!s.ok()) return s;
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterGatherTileOps(OpRegistry& r) {
  r.AddOp(ArrayOp("Tile", {{"Tmultiples", DataType::kInt32}}, InferTile));
  r.AddOp(ArrayOp("GatherV2", {{"batch_dims", int64_t{0}}},
                  [](InferenceContext& ctx) { return InferGather(ctx, false); }));
  r.AddOp(ArrayOp("Gather", {{"validate_indices", true}},
                  [](InferenceContext& ctx) { return InferGather(ctx, true); }));
  r.AddOp(ArrayOp("Fill", {{"index_type", DataType::kInt32}}, InferFill));
  r.AddOp(ArrayOp("Range", {{"Tidx", DataType::kInt32}}, InferRange));
}

}  // namespace smrt::ops
