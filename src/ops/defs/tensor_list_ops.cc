// The TensorList ops (TF2 while loops): a list is a scalar variant; reads
// give values of attr element_dtype. Their kernels share
// kernels/tensor_list.h.
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status InferList(InferenceContext& ctx) {
  ctx.set_output(0, ValueInfo{DataType::kVariant, PartialShape::Known({})});
  return absl::OkStatus();
}

absl::Status InferElement(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("element_dtype");
  if (!dtype.ok()) return dtype.status();
  ctx.set_output(0, ValueInfo{*dtype, PartialShape::Unknown()});
  return absl::OkStatus();
}

}  // namespace

void RegisterTensorListOps(OpRegistry& r) {
  const std::vector<std::pair<std::string, AttrValue>> shape_type = {
      {"shape_type", DataType::kInt32}};
  r.AddOp({"TensorListReserve", shape_type, InferList});
  r.AddOp({"EmptyTensorList", shape_type, InferList});
  r.AddOp({"TensorListFromTensor", shape_type, InferList});
  r.AddOp({"TensorListGetItem", {}, InferElement});
  r.AddOp({"TensorListSetItem", {{"resize_if_index_out_of_bounds", false}}, InferList});
  r.AddOp({"TensorListPushBack", {}, InferList});
  r.AddOp({"TensorListResize", {}, InferList});
  r.AddOp({"TensorListStack", {{"num_elements", int64_t{-1}}}, InferElement});
  r.AddOp({"TensorListLength", {}, [](InferenceContext& ctx) {
             ctx.set_output(0, ValueInfo{DataType::kInt32, PartialShape::Known({})});
             return absl::OkStatus();
           }});
  r.AddOp({"TensorListElementShape", {}, [](InferenceContext& ctx) {
             absl::StatusOr<DataType> t =
                 ctx.attrs().GetOr<DataType>("shape_type", DataType::kInt32);
             if (!t.ok()) return t.status();
             ctx.set_output(0, ValueInfo{*t, PartialShape::Unknown()});
             return absl::OkStatus();
           }});
}

}  // namespace smrt::ops
