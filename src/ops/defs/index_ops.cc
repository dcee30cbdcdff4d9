// Index ops: OneHot, TopKV2, GatherNd and Where.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/index_shapes.h"

namespace smrt::ops {
namespace {

absl::Status InferOneHot(InferenceContext& ctx) {
  absl::StatusOr<int64_t> axis = ctx.attrs().GetOr<int64_t>("axis", -1);
  if (!axis.ok()) return axis.status();
  if (*axis < -1) return OneHotAxisError(*axis, ctx.input(0).shape.rank());
  int64_t depth = -1;
  if (std::optional<std::vector<int64_t>> d = KnownInts(ctx, 1); d.has_value() && d->size() == 1) {
    depth = (*d)[0];
    if (depth < 0) {
      return absl::InvalidArgumentError(absl::StrCat("depth must be non-negative, got: ", depth));
    }
  }
  ValueInfo out;
  out.dtype = InputDType(ctx, 2, "T");
  const PartialShape& ind = ctx.input(0).shape;
  if (ind.known_rank) {
    if (*axis > ind.rank()) return OneHotAxisError(*axis, ind.rank());
    Shape dims = ind.dims;
    dims.insert(dims.begin() + (*axis == -1 ? ind.rank() : *axis), depth);
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferTopK(InferenceContext& ctx) {
  absl::StatusOr<DataType> index_type = TopKIndexType(ctx.attrs());
  if (!index_type.ok()) return index_type.status();
  const PartialShape& in = ctx.input(0).shape;
  int64_t k = -1;
  if (std::optional<std::vector<int64_t>> v = KnownInts(ctx, 1); v.has_value() && v->size() == 1) {
    k = (*v)[0];
    if (k < 0) return absl::InvalidArgumentError(absl::StrCat("Need k >= 0, got ", k));
  }
  PartialShape out = PartialShape::Unknown();
  if (in.known_rank) {
    if (in.rank() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be >= 1-D, got shape ", in.ToString()));
    }
    const int64_t cols = in.dims.back();
    if (k >= 0 && cols >= 0 && cols < k) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must have at least k columns. Had ", cols, ", needed ", k));
    }
    out = in;
    out.dims.back() = k;
  }
  ctx.set_output(0, ValueInfo{InputDType(ctx, 0, "T"), out});
  ctx.set_output(1, ValueInfo{*index_type, out});
  return absl::OkStatus();
}

absl::Status InferGatherNd(InferenceContext& ctx) {
  const PartialShape& params = ctx.input(0).shape;
  const PartialShape& indices = ctx.input(1).shape;
  if (params.known_rank && params.rank() < 1) {
    return absl::InvalidArgumentError("params must be at least a vector");
  }
  if (indices.known_rank && indices.rank() < 1) {
    return absl::InvalidArgumentError("indices must be at least a vector");
  }
  ValueInfo out;
  out.dtype = InputDType(ctx, 0, "Tparams");
  if (params.known_rank && indices.known_rank && indices.dims.back() >= 0) {
    const int64_t depth = indices.dims.back();
    if (depth > params.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("index innermost dimension length must be <= params rank; saw: ", depth,
                       " vs. ", params.rank()));
    }
    Shape dims(indices.dims.begin(), indices.dims.end() - 1);
    dims.insert(dims.end(), params.dims.begin() + depth, params.dims.end());
    out.shape = PartialShape::Known(std::move(dims));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status InferWhere(InferenceContext& ctx) {
  const PartialShape& in = ctx.input(0).shape;
  int64_t count = -1;
  if (const Tensor* v = ctx.input_value(0); v != nullptr) {
    absl::StatusOr<std::vector<uint8_t>> mask = NonZeroMask(*v);
    if (mask.ok()) count = std::count(mask->begin(), mask->end(), uint8_t{1});
  }
  ctx.set_output(
      0, ValueInfo{DataType::kInt64, PartialShape::Known({count, in.known_rank ? in.rank() : -1})});
  return absl::OkStatus();
}

}  // namespace

void RegisterIndexOps(OpRegistry& r) {
  r.AddOp(ArrayOp("OneHot", {{"axis", int64_t{-1}}, {"TI", DataType::kInt64}}, InferOneHot));
  r.AddOp(ArrayOp("TopKV2",
                  {{"sorted", true}, {"Tk", DataType::kInt32}, {"index_type", DataType::kInt32}},
                  InferTopK, [](const AttrMap&, int) -> absl::StatusOr<int> { return 2; }));
  r.AddOp(ArrayOp("GatherNd", {{"bad_indices_policy", std::string()}}, InferGatherNd));
  r.AddOp(ArrayOp("Where", {{"T", DataType::kBool}}, InferWhere));
}

}  // namespace smrt::ops
