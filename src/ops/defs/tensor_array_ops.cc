// The TensorArray ops (TF1 while loops): a handle (resource) and a flow
// scalar thread the array through the graph; reads give values of attr
// dtype. All are stateful. Their kernels share kernels/tensor_array.h.
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "ops/op_registry.h"

namespace smrt::ops {
namespace {

absl::Status Output(InferenceContext& ctx, int i, DataType dtype, PartialShape shape) {
  ctx.set_output(i, ValueInfo{dtype, std::move(shape)});
  return absl::OkStatus();
}

absl::Status InferFlow(InferenceContext& ctx) {
  return Output(ctx, 0, DataType::kFloat, PartialShape::Known({}));
}

absl::Status InferCreate(InferenceContext& ctx) {
  if (absl::Status s = Output(ctx, 0, DataType::kResource, PartialShape::Known({})); !s.ok()) {
    return s;
  }
  return Output(ctx, 1, DataType::kFloat, PartialShape::Known({}));
}

absl::Status InferRead(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  return Output(ctx, 0, *dtype, PartialShape::Unknown());
}

absl::Status InferGather(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  absl::StatusOr<PartialShape> element =
      ctx.attrs().GetOr<PartialShape>("element_shape", PartialShape::Unknown());
  PartialShape shape = PartialShape::Unknown();
  if (element.ok() && element->known_rank) {
    Shape dims = {-1};
    dims.insert(dims.end(), element->dims.begin(), element->dims.end());
    shape = PartialShape::Known(dims);
  }
  return Output(ctx, 0, *dtype, shape);
}

absl::Status InferConcat(InferenceContext& ctx) {
  absl::StatusOr<DataType> dtype = ctx.attrs().Get<DataType>("dtype");
  if (!dtype.ok()) return dtype.status();
  if (absl::Status s = Output(ctx, 0, *dtype, PartialShape::Unknown()); !s.ok()) return s;
  return Output(ctx, 1, DataType::kInt64, PartialShape::Known({-1}));
}

absl::StatusOr<int> Outputs(const AttrMap&, int, int n) { return n; }

}  // namespace

void RegisterTensorArrayOps(OpRegistry& r) {
  auto n = [](int count) {
    return [count](const AttrMap& a, int i) { return Outputs(a, i, count); };
  };
  r.AddOp({"TensorArrayV3",
           {{"element_shape", PartialShape::Unknown()},
            {"dynamic_size", false},
            {"clear_after_read", true},
            {"identical_element_shapes", false},
            {"tensor_array_name", std::string()}},
           InferCreate,
           n(2),
           true});
  r.AddOp({"TensorArrayWriteV3", {}, InferFlow, nullptr, true});
  r.AddOp({"TensorArrayReadV3", {}, InferRead, nullptr, true});
  r.AddOp({"TensorArrayGatherV3",
           {{"element_shape", PartialShape::Unknown()}},
           InferGather,
           nullptr,
           true});
  r.AddOp({"TensorArrayScatterV3", {}, InferFlow, nullptr, true});
  r.AddOp({"TensorArrayConcatV3",
           {{"element_shape_except0", PartialShape::Unknown()}},
           InferConcat,
           n(2),
           true});
  r.AddOp({"TensorArraySplitV3", {}, InferFlow, nullptr, true});
  r.AddOp({"TensorArraySizeV3",
           {},
           [](InferenceContext& ctx) {
             return Output(ctx, 0, DataType::kInt32, PartialShape::Known({}));
           },
           nullptr,
           true});
  r.AddOp(
      {"TensorArrayCloseV3", {}, [](InferenceContext&) { return absl::OkStatus(); }, n(0), true});
}

}  // namespace smrt::ops
