// Gradient and loss ops that exported *training* signatures call:
// BiasAddGrad, ReluGrad, SoftmaxCrossEntropyWithLogits and
// SparseSoftmaxCrossEntropyWithLogits.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/training_shapes.h"

namespace smrt::ops {

absl::StatusOr<bool> BiasAddGradIsNchw(const AttrMap& attrs) {
  absl::StatusOr<std::string> format = attrs.GetOr<std::string>("data_format", "NHWC");
  if (!format.ok()) return format.status();
  if (*format != "NHWC" && *format != "NCHW") {
    return absl::InvalidArgumentError(absl::StrCat("unknown data_format ", *format));
  }
  return *format == "NCHW";
}

namespace {

// [C]: the channel dim of out_backprop (dim 1 for NCHW, the last for NHWC).
absl::Status InferBiasAddGrad(InferenceContext& ctx) {
  const PartialShape& s = ctx.input(0).shape;
  absl::StatusOr<bool> nchw = BiasAddGradIsNchw(ctx.attrs());
  if (!nchw.ok()) return nchw.status();
  int64_t c = -1;
  if (s.known_rank) {
    if (s.rank() < 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("BiasAddGrad: out_backprop must be at least 2-D, got ", s.ToString()));
    }
    c = *nchw ? s.dims[1] : s.dims.back();
  }
  ctx.set_output(0, {ctx.input(0).dtype, PartialShape::Known({c})});
  return absl::OkStatus();
}

absl::Status InferSameAsFirst(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

// loss [batch] and backprop [batch, classes] from 2-D logits.
absl::Status InferXent(InferenceContext& ctx) {
  const PartialShape& s = ctx.input(0).shape;
  PartialShape loss = PartialShape::Known({-1});
  PartialShape backprop = PartialShape::Known({-1, -1});
  if (s.known_rank) {
    if (s.rank() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.op(), ": logits must be 2-D, got ", s.ToString()));
    }
    loss.dims = {s.dims[0]};
    backprop.dims = s.dims;
  }
  ctx.set_output(0, {ctx.input(0).dtype, loss});
  ctx.set_output(1, {ctx.input(0).dtype, backprop});
  return absl::OkStatus();
}

absl::StatusOr<int> TwoOutputs(const AttrMap&, int) { return 2; }

}  // namespace

void RegisterTrainingOps(OpRegistry& r) {
  r.AddOp({"BiasAddGrad", {{"data_format", std::string("NHWC")}}, InferBiasAddGrad, nullptr});
  r.AddOp({"ReluGrad", {}, InferSameAsFirst, nullptr});
  r.AddOp({"SoftmaxCrossEntropyWithLogits", {}, InferXent, TwoOutputs});
  r.AddOp({"SparseSoftmaxCrossEntropyWithLogits",
           {{"Tlabels", DataType::kInt64}},
           InferXent,
           TwoOutputs});
}

}  // namespace smrt::ops
