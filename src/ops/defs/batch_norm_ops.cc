// FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3: y has x's shape;
// the batch statistics and reserve spaces have one value per channel (V3's
// reserve_space_3 an unknown shape).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/batch_norm_attrs.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferBatchNorm(InferenceContext& ctx) {
  absl::StatusOr<BatchNormAttrs> a = ReadBatchNormAttrs(ctx.attrs());
  if (!a.ok()) return a.status();
  const ValueInfo& x = ctx.input(0);
  if (x.shape.known_rank && x.shape.rank() != 4 && x.shape.rank() != 5) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.op(), ": input must be 4 or 5-dimensional, got ", x.shape.ToString()));
  }
  int64_t channels = -1;
  if (x.shape.known_rank) {
    channels = x.shape.dims[a->channels_last ? x.shape.rank() - 1 : 1];
  }
  const int num_params = NeedsRunningStats(*a) ? 4 : 2;
  for (int i = 1; i <= 4; ++i) {
    const PartialShape& s = ctx.input(i).shape;
    if (!s.known_rank) continue;
    if (s.rank() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.op(), ": ", kBatchNormParamNames[i - 1],
                                                     " must be 1-dimensional, got ", s.ToString()));
    }
    if (i > num_params || s.dims[0] < 0) continue;
    if (channels >= 0 && s.dims[0] != channels) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.op(), ": ", kBatchNormParamNames[i - 1],
                       " must have the same number of elements as the channels of x, got ",
                       s.dims[0], " and ", channels));
    }
    channels = s.dims[0];
  }
  DataType u = ctx.input(1).dtype != DataType::kInvalid ? ctx.input(1).dtype : DataType::kFloat;
  ctx.set_output(0, x);
  for (int i = 1; i <= 4; ++i) {
    ctx.set_output(i, ValueInfo{u, PartialShape::Known({channels})});
  }
  if (ctx.num_outputs() == 6) ctx.set_output(5, ValueInfo{u, PartialShape::Unknown()});
  return absl::OkStatus();
}

std::vector<std::pair<std::string, AttrValue>> BatchNormDefaults() {
  return {{"epsilon", 1e-4f},
          {"exponential_avg_factor", 1.0f},
          {"data_format", std::string("NHWC")},
          {"is_training", true}};
}

}  // namespace

void RegisterBatchNormOps(OpRegistry& r) {
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    const int outputs = std::string(op) == "FusedBatchNormV3" ? 6 : 5;
    r.AddOp({op, BatchNormDefaults(), InferBatchNorm,
             [outputs](const AttrMap&, int) -> absl::StatusOr<int> { return outputs; }});
  }
}

}  // namespace smrt::ops
