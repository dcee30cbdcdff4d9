// Graph plumbing ops: constants, feeds, identities, device copies, no-ops.
#include "absl/status/status.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferConst(InferenceContext& ctx) {
  absl::StatusOr<Tensor> value = ctx.attrs().Get<Tensor>("value");
  if (!value.ok()) return value.status();
  ctx.set_output(0, ValueInfo{value->dtype(), PartialShape::Known(value->shape())});
  return absl::OkStatus();
}

absl::Status InferPlaceholder(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<PartialShape> shape = ctx.attrs().Get<PartialShape>("shape");
  if (!shape.ok()) return shape.status();
  ctx.set_output(0, ValueInfo{*dtype, *shape});
  return absl::OkStatus();
}

absl::Status InferPlaceholderWithDefault(InferenceContext& ctx) {
  absl::StatusOr<PartialShape> shape = ctx.attrs().Get<PartialShape>("shape");
  if (!shape.ok()) return shape.status();
  ctx.set_output(0, ValueInfo{ctx.input(0).dtype, *shape});
  return absl::OkStatus();
}

absl::Status ForwardInfer(InferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(i));
  return absl::OkStatus();
}

absl::StatusOr<int> SameAsInputs(const AttrMap&, int num_inputs) { return num_inputs; }

}  // namespace

void RegisterBasicOps(OpRegistry& r) {
  r.AddOp({"Const", {}, InferConst});
  r.AddOp({"Placeholder", {{"shape", PartialShape::Unknown()}}, InferPlaceholder});
  r.AddOp({"PlaceholderV2", {}, InferPlaceholder});  // TF 1.x's, with a required shape
  r.AddOp({"PlaceholderWithDefault", {}, InferPlaceholderWithDefault});
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    r.AddOp({op, {}, ForwardInfer});
  }
  // Device copies (the placement pass adds them; each device backend
  // registers their kernels).
  r.AddOp({kToDeviceOp, {}, ForwardInfer});
  r.AddOp({kToHostOp, {}, ForwardInfer});
  r.AddOp({"IdentityN", {}, ForwardInfer, SameAsInputs});
  r.AddOp({"NoOp",
           {},
           [](InferenceContext&) { return absl::OkStatus(); },
           [](const AttrMap&, int) -> absl::StatusOr<int> { return 0; }});
}

}  // namespace smrt::ops
