// Variables: TF1 reference variables (VariableV2, Assign*) and TF2 resource
// variables (VarHandleOp, ReadVariableOp, ResourceGather,
// Assign*VariableOp). All are stateful; the loaded model binds each
// variable node to its VariableResource (ops/op_spec.h).
#include <string>

#include "absl/status/status.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferVariableV2(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<PartialShape> shape = ctx.attrs().Get<PartialShape>("shape");
  if (!shape.ok()) return shape.status();
  ctx.set_output(0, ValueInfo{*dtype, *shape});
  return absl::OkStatus();
}

absl::Status InferResource(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kResource, PartialShape::Known({})});
  return absl::OkStatus();
}

// ReadVariableOp and ResourceGather: attr dtype, shape unknown (the handle
// does not carry it).
absl::Status InferRead(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  ctx.set_output(0, ValueInfo{*dtype, PartialShape::Unknown()});
  return absl::OkStatus();
}

absl::Status InferRefUpdate(InferenceContext& ctx) {
  ctx.set_output(0, ctx.input(0).shape.known_rank ? ctx.input(0) : ctx.input(1));
  return absl::OkStatus();
}

absl::StatusOr<int> NoOutputs(const AttrMap&, int) { return 0; }
absl::Status InferNothing(InferenceContext&) { return absl::OkStatus(); }

}  // namespace

void RegisterVariableOps(OpRegistry& r) {
  r.AddOp({"VariableV2",
           {{"container", std::string()}, {"shared_name", std::string()}},
           InferVariableV2,
           nullptr,
           /*stateful=*/true});
  r.AddOp({"VarHandleOp",
           {{"container", std::string()},
            {"shared_name", std::string()},
            {"allowed_devices", EmptyList{}}},
           InferResource,
           nullptr,
           true});
  r.AddOp({"ReadVariableOp", {}, InferRead, nullptr, true});
  r.AddOp({"ResourceGather",
           {{"batch_dims", int64_t{0}}, {"validate_indices", true}},
           InferRead,
           nullptr,
           true});
  r.AddOp(
      {"Assign", {{"validate_shape", true}, {"use_locking", true}}, InferRefUpdate, nullptr, true});
  r.AddOp({"AssignAdd", {{"use_locking", false}}, InferRefUpdate, nullptr, true});
  r.AddOp({"AssignSub", {{"use_locking", false}}, InferRefUpdate, nullptr, true});
  r.AddOp({"AssignVariableOp", {{"validate_shape", false}}, InferNothing, NoOutputs, true});
  r.AddOp({"AssignAddVariableOp", {}, InferNothing, NoOutputs, true});
  r.AddOp({"AssignSubVariableOp", {}, InferNothing, NoOutputs, true});
}

}  // namespace smrt::ops
