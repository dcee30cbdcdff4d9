// SpaceToBatchND / BatchToSpaceND, their TF1 4-D forms SpaceToBatch /
// BatchToSpace (square block_size attr), and SpaceToDepth / DepthToSpace
// (NHWC).
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/space_batch_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferBlockOp(InferenceContext& ctx, bool to_batch) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  const bool nd = IsBlockNdOp(ctx.op());
  const Tensor* block = nd ? ctx.input_value(1) : nullptr;
  const Tensor* amounts = ctx.input_value(nd ? 2 : 1);
  if (in.known_rank && (block != nullptr || !nd) && amounts != nullptr) {
    absl::StatusOr<BlockSpec> s =
        ReadBlockSpec(ctx.op(), ctx.attrs(), block, *amounts, in.rank(), to_batch);
    if (!s.ok()) return s.status();
    absl::StatusOr<Shape> dims = BlockOutputShape(ctx.op(), in.dims, *s, to_batch);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else if (in.known_rank) {
    // The batch and spatial dims change; dims after the spatial ones do not.
    Shape dims(in.dims.size(), -1);
    const int64_t m = nd ? KnownVectorLength(ctx, 1) : 2;
    if (m >= 0 && m + 1 <= in.rank()) {
      for (int d = static_cast<int>(m) + 1; d < in.rank(); ++d) dims[d] = in.dims[d];
    }
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// SpaceToDepth / DepthToSpace (ops/space_batch_shapes.h plans their shapes).
absl::Status InferDepthOp(InferenceContext& ctx, bool to_depth) {
  absl::StatusOr<int64_t> b = ReadBlockSize(ctx.attrs(), ctx.op());
  if (!b.ok()) return b.status();
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "T");
  const PartialShape& in = ctx.input(0).shape;
  if (in.known_rank) {
    absl::StatusOr<Shape> dims = DepthOutputShape(ctx.op(), in.dims, *b, to_depth);
    if (!dims.ok()) return dims.status();
    out.shape = PartialShape::Known(*std::move(dims));
  } else {
    out.shape = UnknownDims(4);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSpaceBatchOps(OpRegistry& r) {
  r.AddOp(ArrayOp("SpaceToBatchND",
                  {{"Tblock_shape", DataType::kInt32}, {"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/true); }));
  r.AddOp(ArrayOp("BatchToSpaceND",
                  {{"Tblock_shape", DataType::kInt32}, {"Tcrops", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/false); }));
  r.AddOp(ArrayOp("SpaceToBatch", {{"Tpaddings", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/true); }));
  r.AddOp(ArrayOp("BatchToSpace", {{"Tidx", DataType::kInt32}},
                  [](InferenceContext& ctx) { return InferBlockOp(ctx, /*to_batch=*/false); }));
  r.AddOp(ArrayOp("SpaceToDepth", {{"data_format", std::string("NHWC")}},
                  [](InferenceContext& ctx) { return InferDepthOp(ctx, /*to_depth=*/true); }));
  r.AddOp(ArrayOp("DepthToSpace", {{"data_format", std::string("NHWC")}},
                  [](InferenceContext& ctx) { return InferDepthOp(ctx, /*to_depth=*/false); }));
}

}  // namespace smrt::ops
