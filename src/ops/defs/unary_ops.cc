// Unary elementwise ops: activations, math functions, predicates (IsNan,
// IsFinite, LogicalNot) and ZerosLike/OnesLike: the output has the input's
// shape.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_fns.h"

namespace smrt::ops {
namespace {

InferFn UnaryInfer(bool bool_output) {
  return [bool_output](InferenceContext& ctx) -> absl::Status {
    absl::StatusOr<DataType> t = InferredType(ctx, "T", 0);
    if (!t.ok()) return t.status();
    ctx.set_output(0, ValueInfo{bool_output ? DataType::kBool : *t, ctx.input(0).shape});
    return absl::OkStatus();
  };
}

absl::Status InferLogicalNot(InferenceContext& ctx) {
  const DataType t = ctx.input(0).dtype;
  if (t != DataType::kInvalid && t != DataType::kBool) {
    return AtNode(ctx, absl::InvalidArgumentError(
                           absl::StrCat("input must be bool, got ", DataTypeName(t))));
  }
  ctx.set_output(0, ValueInfo{DataType::kBool, ctx.input(0).shape});
  return absl::OkStatus();
}

}  // namespace

void RegisterUnaryOps(OpRegistry& r) {
  for (const char* op :
       {"Relu", "Relu6", "Elu", "Selu", "Sigmoid", "Tanh", "Softplus", "Softsign", "Neg", "Abs",
        "Square", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log", "Log1p", "Erf", "Erfc", "Sin", "Cos",
        "Floor", "Ceil", "Round", "Sign", "Reciprocal", "Inv", "ZerosLike", "OnesLike"}) {
    r.AddOp({op, {}, UnaryInfer(/*bool_output=*/false)});
  }
  for (const char* op : {"IsNan", "IsFinite"}) r.AddOp({op, {}, UnaryInfer(/*bool_output=*/true)});
  r.AddOp({"LeakyRelu",
           {{"alpha", AttrValue(0.2f)}, {"T", AttrValue(DataType::kFloat)}},
           UnaryInfer(/*bool_output=*/false)});
  r.AddOp({"LogicalNot", {}, InferLogicalNot});
}

}  // namespace smrt::ops
