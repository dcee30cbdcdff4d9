// Graph plumbing ops: constants, feeds, identities, no-ops.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/shared/kernel_util.h"
#include "kernels/cpu/reference/register.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

absl::Status InferConst(InferenceContext& ctx) {
  absl::StatusOr<Tensor> value = ctx.attrs().Get<Tensor>("value");
  if (!value.ok()) return value.status();
  ctx.set_output(0, ValueInfo{value->dtype(), PartialShape::Known(value->shape())});
  return absl::OkStatus();
}

absl::Status ComputeConst(KernelContext& ctx) {
  absl::StatusOr<Tensor> value = ctx.attrs().Get<Tensor>("value");
  if (!value.ok()) return value.status();
  ctx.set_output(0, *value);  // shared, read-only
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

absl::Status ComputePlaceholder(KernelContext& ctx) {
  return absl::InvalidArgumentError(
      absl::StrCat("placeholder '", ctx.node_name(), "' must be fed: it is not a signature input, "
                   "yet the requested outputs depend on it"));
}

absl::Status InferPlaceholderWithDefault(InferenceContext& ctx) {
  absl::StatusOr<PartialShape> shape = ctx.attrs().Get<PartialShape>("shape");
  if (!shape.ok()) return shape.status();
  ctx.set_output(0, ValueInfo{ctx.input(0).dtype, *shape});
  return absl::OkStatus();
}

absl::Status Forward(KernelContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(i));
  return absl::OkStatus();
}

absl::Status ForwardInfer(InferenceContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(i));
  return absl::OkStatus();
}

absl::StatusOr<int> SameAsInputs(const AttrMap&, int num_inputs) { return num_inputs; }

}  // namespace

void RegisterBasicOps(KernelRegistry& r) {
  r.AddOp({"Const", {}, InferConst});
  r.AddKernel({"Const", kCpu, "", {}, ComputeConst});

  r.AddOp({"Placeholder", {{"shape", PartialShape::Unknown()}}, InferPlaceholder});
  r.AddKernel({"Placeholder", kCpu, "", {}, ComputePlaceholder});
  r.AddOp({"PlaceholderWithDefault", {}, InferPlaceholderWithDefault});
  r.AddKernel({"PlaceholderWithDefault", kCpu, "", {}, Forward});

  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    r.AddOp({op, {}, ForwardInfer});
    r.AddKernel({op, kCpu, "", {}, Forward});
  }
  // Device copies (the placement pass adds them; each device backend
  // registers their kernels).
  r.AddOp({kToDeviceOp, {}, ForwardInfer});
  r.AddOp({kToHostOp, {}, ForwardInfer});
  r.AddOp({"IdentityN", {}, ForwardInfer, SameAsInputs});
  r.AddKernel({"IdentityN", kCpu, "", {}, Forward});

  r.AddOp({"NoOp", {}, [](InferenceContext&) { return absl::OkStatus(); },
           [](const AttrMap&, int) -> absl::StatusOr<int> { return 0; }});
  r.AddKernel({"NoOp", kCpu, "", {}, [](KernelContext&) { return absl::OkStatus(); }});
}

}  // namespace smrt::kernels
