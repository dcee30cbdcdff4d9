// ScatterNd, TensorScatterAdd, TensorScatterUpdate, TensorScatterSub, TensorScatterMax and
// TensorScatterMin.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/array_shapes.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

absl::Status InferScatterNd(InferenceContext& ctx) {
  ValueInfo out;
  out.dtype = InputDType(ctx, 1, "T");
  if (std::optional<std::vector<int64_t>> shape = KnownInts(ctx, 2); shape.has_value()) {
    for (int64_t d : *shape) {
      if (d < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("shape [", absl::StrJoin(*shape, ", "), "] has a negative dimension"));
      }
    }
    out.shape = PartialShape::Known(*shape);
  } else if (int64_t n = KnownVectorLength(ctx, 2); n >= 0) {
    out.shape = UnknownDims(static_cast<int>(n));
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterScatterOps(OpRegistry& r) {
  r.AddOp(ArrayOp("ScatterNd", {{"bad_indices_policy", std::string()}}, InferScatterNd));
  r.AddOp(ArrayOp("TensorScatterAdd", {{"bad_indices_policy", std::string()}}, UnchangedShape));
  r.AddOp(ArrayOp("TensorScatterUpdate", {{"bad_indices_policy", std::string()}}, UnchangedShape));
  for (const char* op : {"TensorScatterSub", "TensorScatterMax", "TensorScatterMin"}) {
    r.AddOp(ArrayOp(op, {{"bad_indices_policy", std::string()}}, UnchangedShape));
  }
}

}  // namespace smrt::ops
